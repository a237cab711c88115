#!/bin/bash
# Stop the test cloud's services by their recorded PIDs (never by name), in parallel.
# Usage: stop.sh [--all] [name...]   (default: every OpenStack service; --all: also MariaDB + RabbitMQ + epmd)
# Names are the PID files of $MC/run: e.g. nova-api, heat-engine, barbican-api, barbican-worker, aodh-api, mistral-server (own venvs),
# designate-api/-central/-worker/-producer/-mdns and named (bind9) of 87-designate.sh,
# manila-api/-scheduler/-share of 88-manila.sh.
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
INFRA=0; [ "${1:-}" = "--all" ] && { INFRA=1; shift; }
names=("$@")
if [ ${#names[@]} -eq 0 ]; then for f in $MC/run/*.pid; do [ -e "$f" ] && names+=("$(basename "$f" .pid)"); done; fi
stop_one() {
  local n=$1 f=$MC/run/$1.pid p
  [ -f $f ] || return 0
  p=$(cat $f)
  if pid_alive "$n"; then
    # daemons run in their own session (setsid), so their PID is their process group: signal the group
    kill -TERM -- -$p 2>/dev/null || kill -TERM $p 2>/dev/null
    for i in $(seq 20); do kill -0 $p 2>/dev/null || break; sleep 0.5; done
    kill -0 $p 2>/dev/null && { kill -KILL -- -$p 2>/dev/null || kill -KILL $p 2>/dev/null; }
    echo "stopped $n ($p)"
  fi
  rm -f $f
}
for n in "${names[@]}"; do stop_one "$n" & done
wait
if [ $INFRA = 1 ]; then   # MariaDB + RabbitMQ (+ epmd), through their own admin commands
  mariadb-admin -uroot shutdown 2>/dev/null && echo "stopped mariadb"
  rabbitmqctl -q stop 2>/dev/null && echo "stopped rabbitmq"
  epmd -kill >/dev/null 2>&1 || true
fi
exit 0
