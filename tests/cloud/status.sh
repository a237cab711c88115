#!/bin/bash
# Show the test cloud's daemons (from their PID files) and whether each API answers. Exit 1 if anything is down.
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
rc=0
AODH=""; [ -f $MC/run/aodh-api.pid ] && AODH=aodh:8042/   # installed by 85-aodh.sh unless SKIP has aodh
MANILA=""; [ -f $MC/run/manila-api.pid ] && MANILA=manila:8786/   # by 88-manila.sh unless SKIP has manila
BARBICAN=""; [ -f $MC/run/barbican-api.pid ] && BARBICAN=barbican:9311/   # by 80-barbican.sh unless SKIP has barbican
MISTRAL=""; [ -f $MC/run/mistral-server.pid ] && MISTRAL=mistral:8989/   # by 86-mistral.sh unless SKIP has mistral
DESIGNATE=""; [ -f $MC/run/designate-api.pid ] && DESIGNATE=designate:9001/   # by 87-designate.sh unless SKIP has designate
for f in $MC/run/*.pid; do
  [ -e "$f" ] || { echo "no PID files in $MC/run: the cloud was never started here (bash $HERE/setup.sh)"; exit 1; }
  n=$(basename "$f" .pid)
  if pid_alive "$n"; then printf '%-18s up    pid %s\n' "$n" "$(cat $f)"; else printf '%-18s DOWN  (log: %s)\n' "$n" "$(ls $MC/log/$n*.* 2>/dev/null | head -1)"; rc=1; fi
done
for api in keystone:5000/v3 neutron:9696/ placement:8778/ glance:9292/ nova:8774/ cinder:8776/ octavia:9876/ heat:8004/ heat-cfn:8000/ $AODH $BARBICAN $MISTRAL $DESIGNATE $MANILA; do
  if curl -s -o /dev/null -m 3 "http://127.0.0.1:${api#*:}"; then s=answers; else s=SILENT; rc=1; fi
  printf '%-18s %s  http://127.0.0.1:%s\n' "${api%%:*} api" "$s" "${api#*:}"
done
mariadb -uroot -e 'select 1' >/dev/null 2>&1 && echo "mariadb            up" || { echo "mariadb            DOWN"; rc=1; }
rabbitmqctl -q status >/dev/null 2>&1 && echo "rabbitmq           up" || { echo "rabbitmq           DOWN"; rc=1; }
echo "export OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml OS_CLOUD=hotc-test"
exit $rc
