#!/bin/bash
# Install (if missing) and start (if not running) MariaDB and RabbitMQ bound to 127.0.0.1.
# No systemd: plain daemons, fully detached. Also makes sure curl, openssl, python3 -m venv, Graphviz and npm exist.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
mkdir -p $MC/log $MC/run
PY=${PYTHON:-python3}

need=()
command -v mariadbd >/dev/null || need+=(mariadb-server)
command -v rabbitmq-server >/dev/null || need+=(rabbitmq-server)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
$PY -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
# tools hotc's own tests use: Graphviz (hotc graph --format svg/png) and npm (fetches the pinned SARIF schema)
command -v dot >/dev/null || need+=(graphviz)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "apt-get install ${need[*]} (log: $MC/log/apt.log)"
  # never let a package's postinst start a daemon that inherits our output (policy-rc.d exit 101 = "do not")
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
  rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } \
    </dev/null >>$MC/log/apt.log 2>&1 || rc=$?
  [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
  if [ $rc != 0 ]; then tail -20 $MC/log/apt.log >&2; echo "apt-get install ${need[*]} failed" >&2; exit $rc; fi
fi
cp $HERE/etc/99-minicloud.cnf /etc/mysql/mariadb.conf.d/99-hotc-cloud.cnf
cp $HERE/etc/rabbitmq-env.conf /etc/rabbitmq/rabbitmq-env.conf
export ERL_EPMD_ADDRESS=127.0.0.1

# MariaDB
if ! mariadb -uroot -e 'select 1' >/dev/null 2>&1; then
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  (closefds; exec setsid /usr/bin/mysqld_safe --user=mysql </dev/null >>$MC/log/mysqld_safe.log 2>&1) &
  for i in $(seq 120); do mariadb -uroot -e 'select 1' >/dev/null 2>&1 && break; sleep 0.5; done
  mariadb -uroot -e 'select 1' >/dev/null || { echo "MariaDB did not start; see $MC/log/mysqld_safe.log and /var/log/mysql" >&2; exit 1; }
fi
mariadb -uroot -e "CREATE USER IF NOT EXISTS 'os'@'127.0.0.1' IDENTIFIED BY 'os'; GRANT ALL ON *.* TO 'os'@'127.0.0.1'; CREATE USER IF NOT EXISTS 'os'@'localhost' IDENTIFIED BY 'os'; GRANT ALL ON *.* TO 'os'@'localhost'; FLUSH PRIVILEGES;"
for db in keystone placement nova_api nova nova_cell0 neutron cinder glance octavia heat; do
  mariadb -uroot -e "CREATE DATABASE IF NOT EXISTS $db CHARACTER SET utf8mb4;"
done

# a marker under $MC/run says "initialised"; it only counts while its database still has tables
# (a reinstalled MariaDB or a dropped database makes the next run initialise again)
tables() { mariadb -uroot -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='$1'"; }
for pair in keystone:keystone.bootstrapped keystone:keystone.registered neutron:neutron.dbsynced \
            nova_api:nova.dbsynced cinder:cinder.dbsynced octavia:octavia.dbsynced heat:heat.dbsynced; do
  db=${pair%%:*}; marker=$MC/run/${pair#*:}
  if [ -f $marker ] && [ "$(tables $db)" = 0 ]; then echo "database $db is empty: initialising again"; rm -f $marker; fi
done

# RabbitMQ (epmd and the Erlang distribution port on loopback only)
if ! rabbitmqctl -q status >/dev/null 2>&1; then
  (closefds; exec setsid epmd -address 127.0.0.1 -daemon </dev/null >/dev/null 2>&1) || true
  chown -R rabbitmq:rabbitmq /var/lib/rabbitmq /var/log/rabbitmq 2>/dev/null || true
  (closefds; exec setsid su rabbitmq -s /bin/sh -c "ERL_EPMD_ADDRESS=127.0.0.1 HOME=/var/lib/rabbitmq rabbitmq-server -detached" </dev/null >>$MC/log/rabbitmq-start.log 2>&1)
  for i in $(seq 120); do rabbitmqctl -q status >/dev/null 2>&1 && break; sleep 0.5; done
  rabbitmqctl -q status >/dev/null 2>&1 || { echo "RabbitMQ did not start; see $MC/log/rabbitmq-start.log and /var/log/rabbitmq" >&2; exit 1; }
fi
rabbitmqctl -q add_user os os >/dev/null 2>&1 || true
rabbitmqctl -q set_permissions -p / os ".*" ".*" ".*"
echo "infra up"
