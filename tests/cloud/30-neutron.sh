#!/bin/bash
# Neutron: ML2 + agentless binder, WSGI API on 127.0.0.1:9696 (+ rpc server)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
mkdir -p $MC/etc/neutron $MC/state/neutron/lock $MC/log $MC/run
render $HERE/etc/neutron/neutron.conf $MC/etc/neutron/neutron.conf
render $HERE/etc/neutron/ml2_conf.ini $MC/etc/neutron/ml2_conf.ini
restart_if_changed neutron-api neutron-rpc
cp $MC/venv/etc/neutron/api-paste.ini $MC/etc/neutron/
$V/pip show -q minicloud-ml2 >/dev/null 2>&1 || { echo "minicloud-ml2 missing from $MC/venv (run setup.sh)" >&2; exit 1; }
NC="--config-file $MC/etc/neutron/neutron.conf --config-file $MC/etc/neutron/ml2_conf.ini"
[ -f $MC/run/neutron.dbsynced ] || { logged neutron-db-manage.log $V/neutron-db-manage $NC upgrade heads && touch $MC/run/neutron.dbsynced; }
export OS_NEUTRON_CONFIG_DIR=$MC/etc/neutron
export OS_NEUTRON_CONFIG_FILES="$MC/etc/neutron/neutron.conf;$MC/etc/neutron/ml2_conf.ini"
# two workers: Neutron's own default (api_workers = the CPU count) on a 2-core machine; one serialised the API
start_wsgi neutron-api 9696 neutron.wsgi.api:application 2 4
if [ "${NEUTRON_RPC:-1}" = 1 ]; then start_daemon neutron-rpc $V/neutron-rpc-server $NC; fi
wait_http http://127.0.0.1:9696/ 120 v2\.0
