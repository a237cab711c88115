#!/bin/bash
# Designate (dns, 127.0.0.1:9001) in its OWN venv ($MC/venv-designate), so installing it never touches the shared
# service venv, with a real DNS server behind it: bind9 from Debian (named, loopback only, 127.0.0.1:5322).
# designate-api, -central, -worker, -producer and -mdns run one process each over the shared RabbitMQ and MariaDB
# (database designate). The worker adds and removes zones in bind9 through rndc (127.0.0.1:9553, a key generated
# once into $MC/etc/designate/rndc.key, mode 0600); bind9 takes each zone from mdns (127.0.0.1:5354) by AXFR; the
# worker polls bind9 for the zone's serial before it marks the zone ACTIVE.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source $HERE/lib.sh
DV=$MC/venv-designate/bin
DESIGNATE_PIN="designate==23.0.0"
DE=$MC/etc/designate
DAEMONS=(designate-central designate-worker designate-producer designate-mdns designate-api)  # PID files
mkdir -p $DE $MC/state/designate/lock $MC/state/bind $MC/log $MC/run

# bind9 from Debian (named, rndc, rndc-confgen, dig); its package's own daemon is never started (policy-rc.d)
if ! command -v named >/dev/null || ! command -v rndc-confgen >/dev/null || ! command -v dig >/dev/null; then
  echo "apt-get install bind9 bind9-utils bind9-dnsutils (log: $MC/log/apt.log)"
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
  rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      bind9 bind9-utils bind9-dnsutils; } </dev/null >>$MC/log/apt.log 2>&1 || rc=$?
  [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
  if [ $rc != 0 ]; then tail -20 $MC/log/apt.log >&2; echo "apt-get install bind9 failed" >&2; exit $rc; fi
fi

own_venv designate designate-worker "${DAEMONS[*]}" "$DESIGNATE_PIN" PyMySQL gunicorn

# the rndc key: made once (bind9 and designate-worker both read it)
if [ ! -s $DE/rndc.key ]; then
  echo "designate: a new rndc key ($DE/rndc.key)"
  bash $HERE/stop.sh named >/dev/null 2>&1 || true
  (umask 077; rndc-confgen -a -A hmac-sha256 -k rndc-key -c $DE/rndc.key.new >/dev/null) && mv $DE/rndc.key.new $DE/rndc.key
fi
chown bind:bind $DE/rndc.key; chmod 0600 $DE/rndc.key
chown -R bind:bind $MC/state/bind
touch $MC/log/named.log; chown bind:bind $MC/log/named.log

own_database designate
[ -f $MC/run/designate.dbsynced ] || rm -f $MC/run/designate.pooled   # a new database has no pool
render $HERE/etc/designate/designate.conf $DE/designate.conf
render $DV/../etc/designate/api-paste.ini $DE/api-paste.ini
restart_if_changed "${DAEMONS[@]}"
RENDER_CHANGED=0
render $HERE/etc/designate/named.conf $DE/named.conf
restart_if_changed named
named-checkconf $DE/named.conf >/dev/null || { echo "bind9 refuses $DE/named.conf (named-checkconf above)" >&2; exit 1; }
if [ ! -f $MC/run/designate.dbsynced ]; then
  logged designate-manage.log $DV/designate-manage --config-file $DE/designate.conf database sync
  touch $MC/run/designate.dbsynced
fi
# the designate user and the dns endpoint in Keystone (again after Keystone was registered anew)
if [ ! -f $MC/run/designate.registered ] || [ $MC/run/keystone.registered -nt $MC/run/designate.registered ]; then
  OS_CLIENT_CONFIG_FILE=$MC/etc/clouds.yaml $V/python $HERE/keystone_register.py designate
  touch $MC/run/designate.registered
fi

start_daemon named --port 5322 /usr/sbin/named -f -u bind -c $DE/named.conf
for d in "${DAEMONS[@]}"; do
  [ $d = designate-api ] && continue
  port=""; [ $d = designate-mdns ] && port="--port 5354"
  start_daemon $d $port $DV/$d --config-file $DE/designate.conf
done
# the API under gunicorn (Designate's own server needs eventlet, which its oslo.service here no longer runs);
# designate.wsgi.api reads designate.conf from OS_DESIGNATE_CONFIG_DIR
OS_DESIGNATE_CONFIG_DIR=$DE V=$DV start_wsgi designate-api 9001 designate.wsgi.api:application 1 8
wait_http http://127.0.0.1:9001/ 120 v2
# the pool (its bind9 target) is written through designate-central, which must be up for it
RENDER_CHANGED=0
render $HERE/etc/designate/pools.yaml $DE/pools.yaml
if [ $RENDER_CHANGED = 1 ] || [ ! -f $MC/run/designate.pooled ]; then
  logged designate-manage.log $DV/designate-manage --config-file $DE/designate.conf pool update --file $DE/pools.yaml
  touch $MC/run/designate.pooled
fi
# bind9 answers (a refusal is an answer: it serves no zone of that name)
for i in $(seq 60); do dig +time=1 +tries=1 -p 5322 @127.0.0.1 hotc-cloud.test SOA >/dev/null 2>&1 && break; sleep 0.5; done
dig +time=1 +tries=1 -p 5322 @127.0.0.1 hotc-cloud.test SOA >/dev/null || { echo "bind9 does not answer on 127.0.0.1:5322 (see $MC/log/named.log)" >&2; exit 1; }
rndc -s 127.0.0.1 -p 9553 -k $DE/rndc.key status >/dev/null || { echo "rndc cannot reach bind9 on 127.0.0.1:9553" >&2; exit 1; }
echo "up: bind9 (named) on 127.0.0.1:5322 ($(date +%T))"
