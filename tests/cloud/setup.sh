#!/bin/bash
# hotc's test cloud: a small, REAL OpenStack (keystone, neutron, placement, nova[fake virt], glance,
# cinder[fake], octavia[noop], heat, barbican[simple_crypto], aodh[API alone], mistral and designate[bind9], each in its own venv) on one machine, from PyPI + Debian
# packages only, every listener on 127.0.0.1. Debian 12, root.
#
#   bash tests/cloud/setup.sh            # install what is missing, init what is not, start what is not running
#   bash tests/cloud/setup.sh --reset    # stop services, drop DBs + state, then as above (venv is kept)
#   SKIP="octavia heat" bash tests/cloud/setup.sh    # leave services out (also: barbican, aodh, mistral, designate, manila)
#   bash tests/cloud/stop.sh [--all]     # stop by PID files (--all: MariaDB + RabbitMQ too)
#
# Install dir: $HOTC_CLOUD_DIR (default /opt/hotc-cloud): venv/, etc/, state/, log/, run/ (PIDs + markers).
# Then: export OS_CLIENT_CONFIG_FILE=/opt/hotc-cloud/etc/clouds.yaml OS_CLOUD=hotc-test
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
PY=${PYTHON:-python3}
SKIP=" ${SKIP:-} "
T0=$(date +%s)
step() { echo "[cloud +$(( $(date +%s) - T0 ))s $(date +%T)] $*"; }
trap 'rc=$?; [ $rc = 0 ] || echo "[cloud] FAILED (exit $rc) after $(( $(date +%s) - T0 ))s; logs in $MC/log" >&2' EXIT
[ "$(id -u)" = 0 ] || { echo "tests/cloud/setup.sh must run as root (apt-get, MariaDB, RabbitMQ)" >&2; exit 1; }
mkdir -p $MC/etc $MC/log $MC/run $MC/state
# one setup at a time (two clones, or a developer and CI); daemons do not inherit fd 9 (closefds)
exec 9>$MC/setup.lock
flock -w 900 9 || { echo "another tests/cloud/setup.sh has held $MC/setup.lock for 15 min" >&2; exit 1; }
# logs are appended to (O_APPEND) across runs: empty the ones that grew large, even under a running daemon
find $MC/log -type f -size +200M -exec truncate -s 0 {} + 2>/dev/null || true

if [ "${1:-}" = "--reset" ]; then step "reset: stop services"; bash $HERE/stop.sh || true; fi
step "infra: mariadb + rabbitmq"
bash $HERE/10-infra.sh
if [ "${1:-}" = "--reset" ]; then
  step "reset: drop databases, wipe state"
  for db in keystone placement nova_api nova nova_cell0 neutron cinder glance octavia heat; do
    mariadb -uroot -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db CHARACTER SET utf8mb4"; done
  mariadb -uroot -e "DROP DATABASE IF EXISTS aodh"   # 85-aodh.sh creates it again
  mariadb -uroot -e "DROP DATABASE IF EXISTS mistral"   # 86-mistral.sh creates it again
  mariadb -uroot -e "DROP DATABASE IF EXISTS designate"   # 87-designate.sh creates it again
  mariadb -uroot -e "DROP DATABASE IF EXISTS manila"   # 88-manila.sh creates it again
  rm -rf $MC/state $MC/run $MC/wsgi $MC/etc; mkdir -p $MC/etc $MC/log $MC/run $MC/state
fi

# the service venv is keyed by constraints.txt (venv/.hotc-venv-stamp): a changed pin set rebuilds it. The ML2
# binder package is keyed apart (venv/.hotc-ml2-stamp): a change to it reinstalls only that package and restarts
# neutron, so editing the binder never rebuilds the venv under the other services.
VENV_STAMP=$(sha256sum < $HERE/constraints.txt | cut -c1-16)
ML2_STAMP=$(cd $HERE/minicloud_ml2 && find . -type f \( -name '*.py' -o -name '*.toml' \) -not -path '*/build/*' -not -path '*.egg-info*' | sort \
  | xargs cat | sha256sum | cut -c1-16)
if [ ! -f $MC/venv/.hotc-venv-stamp ] && [ -f $MC/venv/.hotc-stamp ] && [ -x $MC/venv/bin/heat-engine ]; then
  # a venv built before the stamps were split (venv/.hotc-stamp over constraints + binder): same pins, keep it
  echo "$VENV_STAMP" > $MC/venv/.hotc-venv-stamp
fi
# the services with venvs of their own (Barbican, Aodh, Mistral, Designate, Manila) have them built in the
# background while the shared venv installs (installs mostly wait on downloads); each service's script then finds its
# venv made. A pre-build that failed is only logged: the service's own step builds it again and says why.
bash $HERE/uv.sh >/dev/null || true  # the installer, once, before the builds below all ask for it
prebuild=()
for s in barbican:80-barbican aodh:85-aodh mistral:86-mistral designate:87-designate manila:88-manila; do
  [[ "$SKIP" == *" ${s%%:*} "* ]] && continue
  OWN_VENV_ONLY=1 bash $HERE/${s#*:}.sh >$MC/log/${s%%:*}-prebuild.log 2>&1 9>&- &
  prebuild+=($!)
done
quiet() { "$@" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }; return ${PIPESTATUS[0]}; }
if [ "$(cat $MC/venv/.hotc-venv-stamp 2>/dev/null)" != "$VENV_STAMP" ] || [ ! -x $MC/venv/bin/heat-engine ]; then
  step "service venv + install (pinned by constraints.txt; uv, or pip without it)"
  bash $HERE/stop.sh >/dev/null 2>&1 || true
  rm -rf $MC/venv
  $PY -m venv $MC/venv
  # this machine's pip.conf names local indexes that may not exist: pip warns twice per package; drop those lines
  quiet venv_install $MC/venv -U pip setuptools wheel
  quiet venv_install $MC/venv -c $HERE/constraints.txt \
    keystone openstack-placement nova neutron cinder glance octavia openstack-heat \
    openstacksdk python-openstackclient PyMySQL gunicorn
  echo "$VENV_STAMP" > $MC/venv/.hotc-venv-stamp
fi
if [ "$(cat $MC/venv/.hotc-ml2-stamp 2>/dev/null)" != "$ML2_STAMP" ]; then
  step "ML2 binder (minicloud_ml2) into the service venv"
  rm -rf $MC/src-ml2 && cp -r $HERE/minicloud_ml2 $MC/src-ml2   # build outside the (maybe read-only) source tree
  rm -rf $MC/src-ml2/build $MC/src-ml2/*.egg-info
  quiet $V/pip install -q --no-deps --no-build-isolation --force-reinstall $MC/src-ml2
  # a running neutron still has the old binder loaded: restart only neutron (30-neutron.sh starts it again)
  for n in neutron-api neutron-rpc; do if pid_alive $n; then bash $HERE/stop.sh $n; fi; done
  echo "$ML2_STAMP" > $MC/venv/.hotc-ml2-stamp
fi
render $HERE/etc/clouds.yaml $MC/etc/clouds.yaml
export OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml OS_CLOUD=hotc-test

step "keystone"; bash $HERE/20-keystone.sh
if [ ! -f $MC/run/keystone.registered ]; then
  step "keystone: service users + catalog"; $V/python $HERE/keystone_register.py; touch $MC/run/keystone.registered
fi
[[ "$SKIP" == *" neutron "* ]] || { step "neutron"; bash $HERE/30-neutron.sh; }
[[ "$SKIP" == *" nova "* ]]    || { step "placement + glance + nova"; bash $HERE/40-nova.sh; }
[[ "$SKIP" == *" cinder "* ]]  || { step "cinder"; bash $HERE/50-cinder.sh; }
[[ "$SKIP" == *" octavia "* ]] || { step "octavia"; bash $HERE/60-octavia.sh; }
[[ "$SKIP" == *" heat "* ]]    || { step "heat"; bash $HERE/70-heat.sh; }
if [ ${#prebuild[@]} -gt 0 ]; then
  step "own venvs built in the background: waiting for them"
  for p in "${prebuild[@]}"; do wait "$p" || true; done
fi
[[ "$SKIP" == *" barbican "* ]] || { step "barbican (own venv)"; bash $HERE/80-barbican.sh; }
[[ "$SKIP" == *" aodh "* ]]    || { step "aodh (API alone, own venv)"; bash $HERE/85-aodh.sh; }
[[ "$SKIP" == *" mistral "* ]] || { step "mistral (api + engine + executor, own venv)"; bash $HERE/86-mistral.sh; }
[[ "$SKIP" == *" designate "* ]] || { step "designate + bind9 (own venv)"; bash $HERE/87-designate.sh; }
[[ "$SKIP" == *" manila "* ]]  || { step "manila (dummy share driver, own venv)"; bash $HERE/88-manila.sh; }
step "all HTTP APIs answer"
if [ "${NO_WAIT_READY:-0}" != 1 ]; then
  $V/python $HERE/wait_ready.py 240 $T0
  step "RPC daemons ready (nova-compute/conductor/scheduler, cinder-volume/scheduler, heat-engine)"
fi
step "cloud ready in $(( $(date +%s) - T0 ))s"
echo "export OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml OS_CLOUD=hotc-test"
