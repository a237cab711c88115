#!/bin/bash
# Mistral (workflowv2, 127.0.0.1:8989) in its OWN venv ($MC/venv-mistral), so installing it never touches the
# shared service venv. ONE process, `mistral-server --server api,engine,executor`: the API (cheroot, in-process
# threads), the engine and a remote executor, each forked by oslo.service's launcher into the daemon's own process
# group (stop.sh signals the group). One process keeps one PID file (about 520 MB in its 4 processes); the
# executor is a separate RPC server as in a real deployment, so an action runs through RabbitMQ. No event engine, notifier or periodic
# server: cron triggers are stored and read, the periodic server that would fire them does not run.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
MV=$MC/venv-mistral/bin
MISTRAL_PIN="mistral==23.0.0"
mkdir -p $MC/etc/mistral $MC/log $MC/run

own_venv mistral mistral-server mistral-server "$MISTRAL_PIN" PyMySQL
own_database mistral
render $HERE/etc/mistral/mistral.conf $MC/etc/mistral/mistral.conf
restart_if_changed mistral-server
if [ ! -f $MC/run/mistral.dbsynced ]; then
  # the schema, then Mistral's standard actions and workflows (std.echo, std.noop, ...) into the database
  logged mistral-manage.log $MV/mistral-db-manage --config-file $MC/etc/mistral/mistral.conf upgrade head
  logged mistral-manage.log $MV/mistral-db-manage --config-file $MC/etc/mistral/mistral.conf populate
  touch $MC/run/mistral.dbsynced
fi
# the mistral user and the workflowv2 endpoint in Keystone (again after Keystone was registered anew)
if [ ! -f $MC/run/mistral.registered ] || [ $MC/run/keystone.registered -nt $MC/run/mistral.registered ]; then
  OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml $V/python $HERE/keystone_register.py mistral
  touch $MC/run/mistral.registered
fi
WAS_UP=0; pid_alive mistral-server && WAS_UP=1
start_daemon mistral-server --port 8989 $MV/mistral-server --config-file $MC/etc/mistral/mistral.conf \
  --server api,engine,executor
wait_http http://127.0.0.1:8989/ 120 v2
# an execution started before the engine and executor consume their queues would wait: wait for both consumers
consuming() {  # (the listing is read whole first: grep -q closing the pipe early would fail it under pipefail)
  local queues; queues=$(rabbitmqctl -q list_queues name consumers 2>/dev/null) || return 1
  grep -Eq '^mistral_engine[[:space:]]+[1-9]' <<<"$queues" && grep -Eq '^mistral_executor[[:space:]]+[1-9]' <<<"$queues"
}
if [ $WAS_UP = 0 ]; then
  ok=0
  for i in $(seq 120); do if consuming; then ok=1; break; fi; sleep 1; done
  [ $ok = 1 ] || { echo "mistral engine/executor do not consume their queues (see $MC/log/mistral-server.log)" >&2; exit 1; }
  echo "up: mistral engine + executor ($(date +%T))"
fi
