#!/bin/bash
# Cinder api (8776, eventlet server script) + scheduler + volume with cinder's in-package fake driver
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
mkdir -p $MC/etc/cinder $MC/state/cinder/lock $MC/log $MC/run
render $HERE/etc/cinder/cinder.conf $MC/etc/cinder/cinder.conf; cp $MC/venv/etc/cinder/api-paste.ini $MC/etc/cinder/
restart_if_changed cinder-api cinder-scheduler cinder-volume
CC="--config-file $MC/etc/cinder/cinder.conf"
[ -f $MC/run/cinder.dbsynced ] || { logged cinder-manage.log $V/cinder-manage $CC db sync && touch $MC/run/cinder.dbsynced; }
start_daemon cinder-api --port 8776 $V/cinder-api $CC
start_daemon cinder-scheduler $V/cinder-scheduler $CC
start_daemon cinder-volume $V/cinder-volume $CC
wait_http http://127.0.0.1:8776/ 120 v3\.0
