#!/bin/bash
# Placement (8778), Glance (9292, file store), Nova api (8774) + conductor + scheduler + compute(fake driver)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
mkdir -p $MC/etc/{placement,nova,glance} $MC/state/nova/lock $MC/state/glance/{images,staging,tasks} $MC/log $MC/run
render $HERE/etc/placement/placement.conf $MC/etc/placement/placement.conf
render $HERE/etc/nova/nova.conf $MC/etc/nova/nova.conf; cp $MC/venv/etc/nova/api-paste.ini $MC/etc/nova/
render $HERE/etc/glance/glance-api.conf $MC/etc/glance/glance-api.conf; cp $MC/venv/etc/glance/glance-api-paste.ini $MC/etc/glance/
restart_if_changed placement glance-api nova-api nova-conductor nova-scheduler nova-compute
NOVA="--config-file $MC/etc/nova/nova.conf"
if [ ! -f $MC/run/nova.dbsynced ]; then
  OS_PLACEMENT_CONFIG_DIR=$MC/etc/placement logged placement-manage.log $V/placement-manage --config-dir $MC/etc/placement db sync
  logged glance-manage.log $V/glance-manage --config-file $MC/etc/glance/glance-api.conf db_sync
  logged nova-manage.log $V/nova-manage $NOVA api_db sync
  logged nova-manage.log $V/nova-manage $NOVA cell_v2 map_cell0 --database_connection mysql+pymysql://os:os@127.0.0.1/nova_cell0
  $V/nova-manage $NOVA cell_v2 list_cells 2>/dev/null | grep -q cell1 || logged nova-manage.log $V/nova-manage $NOVA cell_v2 create_cell --name cell1
  logged nova-manage.log $V/nova-manage $NOVA db sync
  touch $MC/run/nova.dbsynced
fi
OS_PLACEMENT_CONFIG_DIR=$MC/etc/placement start_wsgi placement 8778 placement.wsgi.api:application
OS_GLANCE_CONFIG_DIR=$MC/etc/glance start_wsgi glance-api 9292 glance.wsgi.api:application
OS_NOVA_CONFIG_DIR=$MC/etc/nova start_wsgi nova-api 8774 nova.wsgi.osapi_compute:application
start_daemon nova-conductor $V/nova-conductor $NOVA
start_daemon nova-scheduler $V/nova-scheduler $NOVA
start_daemon nova-compute $V/nova-compute $NOVA
wait_http http://127.0.0.1:8778/ 120 v1\.0
wait_http http://127.0.0.1:9292/ 120 v2\.
wait_http http://127.0.0.1:8774/ 120 v2\.1
# wait until the compute node is registered in placement, then map it into cell1
for i in $(seq 120); do
  $V/nova-manage $NOVA cell_v2 discover_hosts >>$MC/log/nova-manage.log 2>&1 || true
  mysql -uos -pos -h127.0.0.1 -N -e "select count(*) from nova_api.host_mappings" 2>/dev/null | grep -q '^[1-9]' && break
  sleep 1
done
echo "nova compute host mapped ($(date +%T))"
