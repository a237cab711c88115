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
mkdir -p $MC/etc/aodh $MC/log $MC/run

own_venv aodh aodh-dbsync aodh-api "$AODH_PIN" PyMySQL gunicorn
own_database aodh
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
