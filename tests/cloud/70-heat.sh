#!/bin/bash
# Heat api (8004) and CloudFormation-compatible api (8000; wait condition signals), pbr wsgiref scripts, + engine
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
mkdir -p $MC/etc/heat $MC/state/heat/lock $MC/log $MC/run
render $HERE/etc/heat/heat.conf $MC/etc/heat/heat.conf; cp $MC/venv/etc/heat/api-paste.ini $MC/etc/heat/
restart_if_changed heat-api heat-api-cfn heat-engine
HC="--config-file $MC/etc/heat/heat.conf"
if [ ! -f $MC/run/heat.dbsynced ]; then
  logged heat-manage.log $V/heat-manage $HC db_sync
  OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml $V/python $HERE/heat_domain.py
  touch $MC/run/heat.dbsynced
fi
start_daemon heat-api --port 8004 $V/heat-wsgi-api --port 8004 --host 127.0.0.1 -- $HC
start_daemon heat-api-cfn --port 8000 $V/heat-wsgi-api-cfn --port 8000 --host 127.0.0.1 -- $HC
start_daemon heat-engine $V/heat-engine $HC
wait_http http://127.0.0.1:8004/ 120 v1\.0
wait_http http://127.0.0.1:8000/ 120 v1
