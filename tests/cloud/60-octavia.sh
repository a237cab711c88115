#!/bin/bash
# Octavia api (9876) + worker, amphora provider with amphora/compute/network noop drivers
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
mkdir -p $MC/etc/octavia $MC/state/octavia/lock $MC/log $MC/run
render $HERE/etc/octavia/octavia.conf $MC/etc/octavia/octavia.conf
[ -f $MC/etc/octavia/ca.pem ] || openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=hotc-cloud-octavia-ca \
   -keyout $MC/etc/octavia/ca.key -out $MC/etc/octavia/ca.pem 2>/dev/null
restart_if_changed octavia-api octavia-worker
OC="--config-file $MC/etc/octavia/octavia.conf"
[ -f $MC/run/octavia.dbsynced ] || { logged octavia-db-manage.log $V/octavia-db-manage $OC upgrade head && touch $MC/run/octavia.dbsynced; }
start_daemon octavia-api --port 9876 $V/octavia-api $OC
start_daemon octavia-worker $V/octavia-worker $OC
wait_http http://127.0.0.1:9876/ 120 v2
