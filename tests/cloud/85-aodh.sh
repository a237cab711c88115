#!/bin/bash
# Aodh's API alone (alarming, 127.0.0.1:8042) in its OWN venv ($MC/venv-aodh), so installing it never touches
# the shared service venv. No evaluator/notifier: the cloud has no Gnocchi, Ceilometer or Prometheus to
# evaluate against. Alarm types the API takes without them: event, composite, loadbalancer_member_health and
# prometheus; the gnocchi_* rules are checked against Gnocchi at create (Aodh answers 503 here).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
AV=$MC/venv-aodh/bin
AODH_PIN="aodh==23.0.0"
PY=${PYTHON:-python3}
mkdir -p $MC/etc/aodh $MC/log $MC/run

# the venv is keyed by the shared pins and Aodh's own (venv-aodh/.hotc-venv-stamp)
STAMP=$( { cat $HERE/constraints.txt; echo "$AODH_PIN"; } | sha256sum | cut -c1-16)
if [ "$(cat $MC/venv-aodh/.hotc-venv-stamp 2>/dev/null)" != "$STAMP" ] || [ ! -x $AV/aodh-dbsync ]; then
  echo "aodh venv + pip install ($AODH_PIN, pinned by constraints.txt; log: $MC/log/aodh-pip.log)"
  bash $HERE/stop.sh aodh-api >/dev/null 2>&1 || true
  rm -rf $MC/venv-aodh
  $PY -m venv $MC/venv-aodh
  logged aodh-pip.log $AV/pip install -q -U pip setuptools wheel
  logged aodh-pip.log $AV/pip install -q -c $HERE/constraints.txt "$AODH_PIN" PyMySQL gunicorn
  echo "$STAMP" > $MC/venv-aodh/.hotc-venv-stamp
fi

mariadb -uroot -e "CREATE DATABASE IF NOT EXISTS aodh CHARACTER SET utf8mb4;"
if [ -f $MC/run/aodh.dbsynced ] && [ "$(mariadb -uroot -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='aodh'")" = 0 ]; then
  echo "database aodh is empty: initialising again"; rm -f $MC/run/aodh.dbsynced
fi
mkdir -p $MC/wsgi/aodh-api
render $HERE/etc/aodh/aodh.conf $MC/etc/aodh/aodh.conf
render $HERE/etc/aodh/aodh_wsgi.py $MC/wsgi/aodh-api/aodh_wsgi.py
# keystonemiddleware reads its own copy of the config ("oslo_config_project = aodh" finds no file here): name ours
paste=$(sed "/^\[filter:authtoken\]/a oslo_config_file = $MC/etc/aodh/aodh.conf" \
  $MC/venv-aodh/lib/python3*/site-packages/aodh/api/api-paste.ini)
if [ "$paste" != "$(cat $MC/etc/aodh/api-paste.ini 2>/dev/null)" ]; then
  printf '%s\n' "$paste" > $MC/etc/aodh/api-paste.ini; RENDER_CHANGED=1
fi
restart_if_changed aodh-api
if [ ! -f $MC/run/aodh.dbsynced ]; then
  logged aodh-manage.log $AV/aodh-dbsync --config-file $MC/etc/aodh/aodh.conf
  touch $MC/run/aodh.dbsynced
fi
# the aodh user and the alarming endpoint in Keystone (again after Keystone was registered anew)
if [ ! -f $MC/run/aodh.registered ] || [ $MC/run/keystone.registered -nt $MC/run/aodh.registered ]; then
  OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml $V/python $HERE/keystone_register.py aodh
  touch $MC/run/aodh.registered
fi
V=$AV start_wsgi aodh-api 8042 aodh_wsgi:application 1 4
wait_http http://127.0.0.1:8042/ 120 v2
