#!/bin/bash
# The whole test suite, cloud tests included, in the least wall time a small machine allows:
#
#   1. the packages the tests and the cloud need (tests/cloud/10-infra.sh: MariaDB, RabbitMQ, Graphviz, npm, ...);
#   2. the test cloud's setup (tests/cloud/setup.sh) starts in the BACKGROUND: it is mostly downloads, installs and
#      database migrations, about 7 to 10 minutes the first time and under a minute after that;
#   3. meanwhile hotc's own venv .venv is made (`pip install -e '.[test]'`, by uv when it can be had) and the
#      offline tests run (`-m 'not cloud'`, one worker per core);
#   4. once the cloud is up, the cloud tests run, several at a time (HOTC_CLOUD_WORKERS, default 4): they spend
#      most of their time waiting on the cloud's APIs. Each test module is one xdist group
#      (tests/fixtures/cloud.py), so a module's tests stay on one worker, in order; the longest modules are
#      handed out first (LONG_CLOUD_MODULES there), so none starts near the end and runs on alone.
#
#   bash tests/run-all.sh [PYTEST ARGS...]     # the arguments go to both pytest runs
#
# Needs root on Debian 12 (the cloud). Without them, run the offline suite alone:
# `python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest -m 'not cloud' -n auto`.
# Exits non-zero when the cloud's setup, the install or either pytest run fails; the setup's own log is printed
# after the offline tests, and each phase's time at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
# Python writes each module's bytecode once (__pycache__) for every later process to load: a machine that sets
# PYTHONDONTWRITEBYTECODE would have each of the thousands of hotc processes the tests start, and each service of
# the cloud, compile every module it imports again (about 0.3 s of CPU per hotc process)
unset PYTHONDONTWRITEBYTECODE
PY=${PYTHON:-python3}
workers=${HOTC_CLOUD_WORKERS:-4}
t0=$SECONDS
times=()
mark() { times+=("$(printf '%-28s %5ss' "$1" "$(($SECONDS - $2))")"); }

start=$SECONDS
bash tests/cloud/10-infra.sh || { echo "[run-all] tests/cloud/10-infra.sh failed" >&2; exit 1; }
mark "packages (10-infra.sh)" $start

# uv (tests/cloud/uv.sh), made before the cloud's set-up, which uses it too, installs hotc's venv and the agents'
# venv that some tests make (HOTC_UV) in seconds; pip does when uv cannot be had
HOTC_UV=$(bash tests/cloud/uv.sh) || HOTC_UV=
export HOTC_UV

setup_log=$(mktemp /tmp/hotc-cloud-setup.XXXXXX.log)
setup_start=$SECONDS
bash tests/cloud/setup.sh >"$setup_log" 2>&1 &
setup_pid=$!
echo "[run-all] cloud setup started in the background (pid $setup_pid, log $setup_log)"

start=$SECONDS
install_hotc() {
    if [ -n "$HOTC_UV" ] && "$HOTC_UV" pip install -q --python .venv/bin/python -e '.[test]'; then return 0; fi
    .venv/bin/pip install -q -e '.[test]'
}
if ! { $PY -m venv .venv && install_hotc; }; then
    echo "[run-all] installing hotc into .venv failed" >&2
    wait "$setup_pid"
    exit 1
fi
mark "hotc venv + install" $start

rc=0
start=$SECONDS
.venv/bin/python -m pytest -n auto --dist loadgroup -m 'not cloud' "$@"
offline_rc=$?
mark "offline tests (exit $offline_rc)" $start

wait "$setup_pid"
setup_rc=$?
times+=("$(printf '%-28s %5ss' "cloud setup (exit $setup_rc)" "$(($SECONDS - setup_start))")")
echo "[run-all] ===== tests/cloud/setup.sh (exit $setup_rc)"
grep -v "is ignored: it is neither a file nor a directory" "$setup_log"
if [ "$setup_rc" -ne 0 ]; then
    echo "[run-all] the test cloud's setup failed; the cloud tests skip (or fail under HOTC_REQUIRE_CLOUD)" >&2
    rc=1
fi

start=$SECONDS
.venv/bin/python -m pytest -n "$workers" --dist loadgroup -m cloud "$@"
cloud_rc=$?
mark "cloud tests (exit $cloud_rc)" $start

# exit 5 is "no tests collected": fine for one run when arguments picked tests of one kind, not for both
if [ "$offline_rc" -eq 5 ] && [ "$cloud_rc" -eq 5 ]; then rc=5; fi
if [ "$offline_rc" -ne 0 ] && [ "$offline_rc" -ne 5 ]; then rc=1; fi
if [ "$cloud_rc" -ne 0 ] && [ "$cloud_rc" -ne 5 ]; then rc=1; fi
echo "[run-all] ===== phases"
printf '[run-all] %s\n' "${times[@]}"
echo "[run-all] total $(($SECONDS - t0))s, exit $rc"
exit "$rc"
