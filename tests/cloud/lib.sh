# Shared helpers for the test cloud scripts (sourced). Sets MC (install dir), V (service venv bin), HERE.
# Every daemon is started fully detached: fds > 2 closed, own session (setsid), stdin from /dev/null,
# output to a log file under $MC/log, PID in $MC/run/NAME.pid. Nothing is ever stopped by name.
HERE=${HERE:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
export MC=${HOTC_CLOUD_DIR:-${MC:-/opt/hotc-cloud}}
V=$MC/venv/bin
# the services write their modules' bytecode once (their venvs are installed without it): with
# PYTHONDONTWRITEBYTECODE, each start would compile every module it imports again
unset PYTHONDONTWRITEBYTECODE

closefds() {  # close inherited fds > 2 (a CI runner's pipe kept open by a daemon blocks the caller forever)
  local fd
  for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
  return 0
}

RENDER_CHANGED=0
render() {  # src dst: copy a config file, replacing @MC@ by the install dir; RENDER_CHANGED=1 if it changed
  local new
  new=$(sed "s#@MC@#$MC#g" "$1")
  if [ ! -f "$2" ] || [ "$new" != "$(cat "$2")" ]; then
    printf '%s\n' "$new" > "$2"
    RENDER_CHANGED=1
  fi
}

restart_if_changed() {  # name...: after a config change, stop these services (if running) so they start anew
  if [ "$RENDER_CHANGED" = 1 ]; then
    local n running=()
    for n in "$@"; do pid_alive "$n" && running+=("$n"); done
    if [ ${#running[@]} -gt 0 ]; then
      echo "config changed: restarting ${running[*]}"
      bash $HERE/stop.sh "${running[@]}"
    fi
  fi
  return 0
}

started_after_pidfile() {  # pid file: true if process PID started after FILE was last written (seconds, 2 s slack)
  local stat ticks btime hz mtime
  stat=$(cat /proc/$1/stat 2>/dev/null) || return 1
  stat=${stat##*) }   # the fields after "(comm) ", which may itself hold spaces
  ticks=$(echo "$stat" | awk '{print $20}')   # field 22 of /proc/PID/stat: start time, clock ticks after boot
  btime=$(awk '/^btime/{print $2}' /proc/stat)
  hz=$(getconf CLK_TCK)
  mtime=$(stat -c %Y "$2" 2>/dev/null) || return 1
  [ $(( btime + ticks / hz )) -gt $(( mtime + 2 )) ]
}

pid_alive() {  # name: true if $MC/run/NAME.pid names a live process of THIS cloud (guards against PID reuse)
  local f=$MC/run/$1.pid p
  [ -f "$f" ] || return 1
  p=$(cat "$f" 2>/dev/null) || return 1
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 1
  # a PID file older than the process it names is stale: the machine restarted (or the service died) and the
  # PID went to another process, maybe another service of this cloud
  started_after_pidfile "$p" "$f" && return 1
  # ours: started from the service venv, or a gunicorn (its title is rewritten) running in $MC/wsgi/NAME
  tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -q "$MC/venv" && return 0
  # bind9's named (87-designate.sh), started with its config under $MC/etc/designate
  tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -q "^/usr/sbin/named .*-c $MC/etc/designate/" && return 0
  [ "$(readlink /proc/$p/cwd 2>/dev/null)" = "$MC/wsgi/$1" ]
}

port_busy() {  # port: true if something listens on 127.0.0.1:PORT
  (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null
}

check_port_free() {  # name port: fail loudly when a foreign process holds the port our service needs
  if port_busy "$2"; then
    echo "cannot start $1: 127.0.0.1:$2 is taken by a process this cloud did not start (see: ss -ltnp 'sport = :$2')" >&2
    return 1
  fi
}

start_wsgi() {  # name port module:app [workers] [threads]
  # gunicorn is started with NO command-line args (config from ./gunicorn.conf.py in a per-service dir),
  # because oslo.config in the WSGI apps parses sys.argv and chokes on gunicorn's flags.
  local name=$1 port=$2 app=$3 workers=${4:-1} threads=${5:-4}
  if pid_alive "$name"; then echo "$name already running (pid $(cat $MC/run/$name.pid))"; return; fi
  rm -f $MC/run/$name.pid
  check_port_free "$name" "$port"
  mkdir -p $MC/wsgi/$name
  cat > $MC/wsgi/$name/gunicorn.conf.py <<PY
bind = "127.0.0.1:$port"
workers = $workers
threads = $threads
timeout = 300
proc_name = "$name"
pidfile = "$MC/run/$name.pid"
wsgi_app = "$app"
PY
  (cd $MC/wsgi/$name && closefds && exec setsid $V/gunicorn </dev/null >>$MC/log/$name-wsgi.log 2>&1) &
}

start_daemon() {  # name [--port N] cmd...
  local name=$1 port=""; shift
  if [ "$1" = "--port" ]; then port=$2; shift 2; fi
  if pid_alive "$name"; then echo "$name already running (pid $(cat $MC/run/$name.pid))"; return; fi
  rm -f $MC/run/$name.pid
  [ -z "$port" ] || check_port_free "$name" "$port"
  # a background subshell of a non-interactive shell is not a process-group leader, so setsid does not
  # fork and $! is the daemon's own PID (and its session/process-group id, used by stop.sh)
  (closefds && exec setsid "$@" </dev/null >>$MC/log/$name.out 2>&1) &
  echo $! > $MC/run/$name.pid
}

wait_http() {  # url [timeout_s] [pattern]: wait until URL answers (and its body matches PATTERN if given)
  local url=$1 end=$(( $(date +%s) + ${2:-120} )) pat=${3:-}
  while [ $(date +%s) -lt $end ]; do
    if body=$(curl -s -m 3 "$url"); then
      if [ -z "$pat" ] || grep -q -- "$pat" <<<"$body"; then echo "up: $url ($(date +%T))"; return 0; fi
    fi
    sleep 0.5
  done
  echo "TIMEOUT waiting for $url${pat:+ to answer with '$pat'} (see $MC/log)" >&2; return 1
}

logged() {  # logname cmd...: run CMD with its output in $MC/log/LOGNAME; on failure show the log's tail
  local log=$MC/log/$1 rc=0; shift
  "$@" >>$log 2>&1 || rc=$?
  if [ $rc != 0 ]; then echo "FAILED (exit $rc): $*; last lines of $log:" >&2; tail -25 $log >&2; fi
  return $rc
}

venv_install() {  # venv pip-install-args...: install into VENV with uv (uv.sh: seconds where pip takes minutes), or,
  # when uv cannot be had or fails, with the venv's own pip. uv compiles no bytecode up front: each service
  # compiles what it imports, once, on its first start.
  local venv=$1 uv; shift
  if uv=$(bash $HERE/uv.sh); then
    if "$uv" pip install -q --python $venv/bin/python "$@"; then return 0; fi
    echo "uv could not install $*: pip tries" >&2
  fi
  $venv/bin/pip install -q "$@"
}

own_venv() {  # name probe "services..." pin [pip args...]: a service's OWN venv, $MC/venv-NAME, keyed by the shared
  # pins and PIN (.hotc-venv-stamp). Made anew (its services stopped first) when the key changed or bin/PROBE is
  # missing; the shared service venv is never touched. Under OWN_VENV_ONLY=1 the calling script ends here.
  local name=$1 probe=$2 services=$3 pin=$4 dir=$MC/venv-$1 stamp; shift 4
  stamp=$( { cat $HERE/constraints.txt; echo "$pin"; } | sha256sum | cut -c1-16)
  if [ "$(cat $dir/.hotc-venv-stamp 2>/dev/null)" != "$stamp" ] || [ ! -x $dir/bin/$probe ]; then
    echo "$name venv + install ($pin, pinned by constraints.txt; log: $MC/log/$name-pip.log)"
    # shellcheck disable=SC2086  # the service names are words
    bash $HERE/stop.sh $services >/dev/null 2>&1 || true
    rm -rf $dir
    ${PYTHON:-python3} -m venv $dir
    logged $name-pip.log venv_install $dir -U pip setuptools wheel
    logged $name-pip.log venv_install $dir -c $HERE/constraints.txt "$pin" "$@"
    echo "$stamp" > $dir/.hotc-venv-stamp
  fi
  # OWN_VENV_ONLY=1 (setup.sh's background pre-build): the venv is all this run was for
  if [ "${OWN_VENV_ONLY:-0}" = 1 ]; then exit 0; fi
}

own_database() {  # name: create database NAME if missing; an empty one forgets $MC/run/NAME.dbsynced (synced anew)
  mariadb -uroot -e "CREATE DATABASE IF NOT EXISTS $1 CHARACTER SET utf8mb4;"
  if [ -f $MC/run/$1.dbsynced ] && [ "$(mariadb -uroot -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='$1'")" = 0 ]; then
    echo "database $1 is empty: initialising again"; rm -f $MC/run/$1.dbsynced
  fi
}
