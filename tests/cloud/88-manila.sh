#!/bin/bash
# Manila (shared file systems, sharev2, 127.0.0.1:8786) in its OWN venv ($MC/venv-manila): manila-api under
# gunicorn, manila-scheduler and manila-share. The share back ends are Manila's own dummy driver
# (manila.tests.share.drivers.dummy.DummyDriver, shipped in the manila wheel; upstream's API CI runs it): the API,
# scheduler and share service are real, a share goes creating -> available, access rules go to the driver, but no
# file system is made or exported (as Nova's fake driver makes no VM). Back end alpha does not handle share
# servers; beta does, and its share servers' ports are real Neutron ports on the share network's subnet.
# Share types made here: default (alpha, driver_handles_share_servers false) and dhss (beta, true).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
MV=$MC/venv-manila/bin
MANILA_PIN="manila==23.0.1"
PY=${PYTHON:-python3}
mkdir -p $MC/etc/manila $MC/state/manila/lock $MC/log $MC/run $MC/wsgi/manila-api

# the venv is keyed by the shared pins and Manila's own (venv-manila/.hotc-venv-stamp)
STAMP=$( { cat $HERE/constraints.txt; echo "$MANILA_PIN"; } | sha256sum | cut -c1-16)
if [ "$(cat $MC/venv-manila/.hotc-venv-stamp 2>/dev/null)" != "$STAMP" ] || [ ! -x $MV/manila-share ]; then
  echo "manila venv + install ($MANILA_PIN, pinned by constraints.txt; log: $MC/log/manila-pip.log)"
  bash $HERE/stop.sh manila-api manila-scheduler manila-share >/dev/null 2>&1 || true
  rm -rf $MC/venv-manila
  $PY -m venv $MC/venv-manila
  logged manila-pip.log venv_install $MC/venv-manila -U pip setuptools wheel
  logged manila-pip.log venv_install $MC/venv-manila -c $HERE/constraints.txt "$MANILA_PIN" PyMySQL gunicorn
  echo "$STAMP" > $MC/venv-manila/.hotc-venv-stamp
fi
if [ "${OWN_VENV_ONLY:-0}" = 1 ]; then exit 0; fi  # setup.sh's background pre-build: the venv was all
# the dummy driver lives in Manila's test tree: a wheel without it cannot serve this cloud
ls $MC/venv-manila/lib/python3*/site-packages/manila/tests/share/drivers/dummy.py >/dev/null 2>&1 || {
  echo "the manila wheel carries no manila/tests/share/drivers/dummy.py: no share back end for the test cloud" >&2; exit 1; }

mariadb -uroot -e "CREATE DATABASE IF NOT EXISTS manila CHARACTER SET utf8mb4;"
if [ -f $MC/run/manila.dbsynced ] && [ "$(mariadb -uroot -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='manila'")" = 0 ]; then
  echo "database manila is empty: initialising again"; rm -f $MC/run/manila.dbsynced $MC/run/manila.types
fi
render $HERE/etc/manila/manila.conf $MC/etc/manila/manila.conf
render $HERE/etc/manila/manila_wsgi.py $MC/wsgi/manila-api/manila_wsgi.py
render $MC/venv-manila/etc/manila/api-paste.ini $MC/etc/manila/api-paste.ini
restart_if_changed manila-api manila-scheduler manila-share
if [ ! -f $MC/run/manila.dbsynced ]; then
  logged manila-manage.log $MV/manila-manage --config-file $MC/etc/manila/manila.conf db sync
  touch $MC/run/manila.dbsynced
fi
# the manila user and the sharev2 endpoint in Keystone (again after Keystone was registered anew)
if [ ! -f $MC/run/manila.registered ] || [ $MC/run/keystone.registered -nt $MC/run/manila.registered ]; then
  OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml $V/python $HERE/keystone_register.py manila
  touch $MC/run/manila.registered
fi
V=$MV start_wsgi manila-api 8786 manila_wsgi:application 1 4
start_daemon manila-scheduler $MV/manila-scheduler --config-file $MC/etc/manila/manila.conf
SHARE_WAS_UP=0; pid_alive manila-share && SHARE_WAS_UP=1
T0=$(mariadb -uroot -N -e "SELECT NOW()")
start_daemon manila-share $MV/manila-share --config-file $MC/etc/manila/manila.conf
wait_http http://127.0.0.1:8786/ 120 versions
# the share types (admin-made): default -> alpha, dhss -> beta
if [ ! -f $MC/run/manila.types ] || [ $MC/run/manila.dbsynced -nt $MC/run/manila.types ]; then
  OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml $V/python $HERE/manila_types.py
  touch $MC/run/manila.types
fi
# a share is placed only once both back ends of a newly started manila-share have reported to the scheduler
if [ $SHARE_WAS_UP = 0 ]; then
  ok=0
  for i in $(seq 120); do
    n=$(mariadb -uroot -N -e "SELECT COUNT(*) FROM manila.services WHERE topic='manila-share' AND deleted=0 AND disabled=0 AND updated_at >= '$T0'" 2>/dev/null || echo 0)
    [ "$n" -ge 2 ] && { ok=1; break; }
    sleep 1
  done
  [ $ok = 1 ] || { echo "manila-share's back ends alpha and beta did not report (see $MC/log/manila-share.out)" >&2; exit 1; }
  echo "up: manila-share alpha, beta ($(date +%T))"
fi
