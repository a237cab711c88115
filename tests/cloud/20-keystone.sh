#!/bin/bash
# Keystone: db_sync, fernet keys, bootstrap, gunicorn on 127.0.0.1:5000
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
mkdir -p $MC/etc/keystone $MC/log $MC/run
render $HERE/etc/keystone/keystone.conf $MC/etc/keystone/keystone.conf
restart_if_changed keystone
KC="--config-file $MC/etc/keystone/keystone.conf"
if [ ! -f $MC/run/keystone.bootstrapped ]; then
  logged keystone-manage.log $V/keystone-manage $KC db_sync
  logged keystone-manage.log $V/keystone-manage $KC fernet_setup --keystone-user root --keystone-group root
  logged keystone-manage.log $V/keystone-manage $KC credential_setup --keystone-user root --keystone-group root
  logged keystone-manage.log $V/keystone-manage $KC bootstrap --bootstrap-password admin \
    --bootstrap-username admin --bootstrap-project-name admin --bootstrap-role-name admin \
    --bootstrap-service-name keystone --bootstrap-region-id RegionOne \
    --bootstrap-admin-url http://127.0.0.1:5000/v3 --bootstrap-public-url http://127.0.0.1:5000/v3 \
    --bootstrap-internal-url http://127.0.0.1:5000/v3
  touch $MC/run/keystone.bootstrapped
fi
OS_KEYSTONE_CONFIG_FILES=$MC/etc/keystone/keystone.conf start_wsgi keystone 5000 keystone.wsgi.api:application
wait_http http://127.0.0.1:5000/v3 120 v3\.
