#!/bin/bash
# Barbican (key-manager, 127.0.0.1:9311) in its OWN venv ($MC/venv-barbican), so installing it never touches the
# shared service venv: barbican-api under gunicorn and barbican-worker (Orders are processed by the worker, over
# RabbitMQ). Secrets are stored by the simple_crypto plugin under a KEK generated once per install
# ($MC/etc/barbican/barbican.conf.d/kek.conf, mode 0600; a new KEK empties the database, whose secrets it could
# not decrypt).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
BV=$MC/venv-barbican/bin
BARBICAN_PIN="barbican==23.0.0"
PY=${PYTHON:-python3}
BHOME=$MC/state/barbican/home
mkdir -p $MC/etc/barbican/barbican.conf.d $MC/state/barbican/lock $BHOME $MC/log $MC/run $MC/wsgi/barbican-api
chmod 0700 $MC/etc/barbican

own_venv barbican barbican-worker "barbican-api barbican-worker" "$BARBICAN_PIN" PyMySQL gunicorn
own_database barbican
btables() { mariadb -uroot -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='barbican'"; }
# the KEK: made once; a KEK made anew cannot decrypt what the database holds, so the database starts empty too
KEK=$MC/etc/barbican/barbican.conf.d/kek.conf
if [ ! -s $KEK ]; then
  echo "barbican: a new KEK for the simple_crypto plugin ($KEK)"
  bash $HERE/stop.sh barbican-api barbican-worker >/dev/null 2>&1 || true
  (umask 077; printf '[simple_crypto_plugin]\nkek = %s\n' "$($PY -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')" > $KEK.new)
  mv $KEK.new $KEK
  if [ "$(btables)" != 0 ]; then
    mariadb -uroot -e "DROP DATABASE barbican; CREATE DATABASE barbican CHARACTER SET utf8mb4;"
  fi
  rm -f $MC/run/barbican.dbsynced
fi
chmod 0600 $KEK
ln -sfn $MC/etc/barbican $BHOME/.barbican
render $HERE/etc/barbican/barbican.conf $MC/etc/barbican/barbican.conf
render $HERE/etc/barbican/barbican_wsgi.py $MC/wsgi/barbican-api/barbican_wsgi.py
render $MC/venv-barbican/etc/barbican/barbican-api-paste.ini $MC/etc/barbican/barbican-api-paste.ini
chmod 0600 $MC/etc/barbican/barbican.conf
restart_if_changed barbican-api barbican-worker
if [ ! -f $MC/run/barbican.dbsynced ]; then
  HOME=$BHOME logged barbican-manage.log $BV/barbican-manage db upgrade
  touch $MC/run/barbican.dbsynced
fi
# the barbican user and the key-manager endpoint in Keystone (again after Keystone was registered anew)
if [ ! -f $MC/run/barbican.registered ] || [ $MC/run/keystone.registered -nt $MC/run/barbican.registered ]; then
  OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml $V/python $HERE/keystone_register.py barbican
  touch $MC/run/barbican.registered
fi
HOME=$BHOME V=$BV start_wsgi barbican-api 9311 barbican_wsgi:application 1 4
WORKER_WAS_UP=0; pid_alive barbican-worker && WORKER_WAS_UP=1
HOME=$BHOME start_daemon barbican-worker $BV/barbican-worker
wait_http http://127.0.0.1:9311/ 120 v1
# an order cast before a new worker consumes its queue would be lost: wait for the worker's consumer
consuming() {  # (the listing is read whole first: grep -q closing the pipe early would fail it under pipefail)
  local queues; queues=$(rabbitmqctl -q list_queues name consumers 2>/dev/null) || return 1
  grep -Eq '^barbican\.workers[[:space:]]+[1-9]' <<<"$queues"
}
if [ $WORKER_WAS_UP = 0 ]; then
  ok=0
  for i in $(seq 120); do if consuming; then ok=1; break; fi; sleep 1; done
  [ $ok = 1 ] || { echo "barbican-worker does not consume its queue (see $MC/log/barbican-worker.out)" >&2; exit 1; }
  echo "up: barbican-worker ($(date +%T))"
fi
