#!/bin/bash
# Prints the path of uv (https://docs.astral.sh/uv/), the installer the test set-up uses for its venvs: it installs
# the cloud's pinned services in well under a minute where pip takes about six (it downloads in parallel and
# resolves once). Made once, from PyPI, into $HOTC_TOOLS_DIR (default ~/.cache/hotc-tools), at the pin below; safe
# to call from several scripts at once (flock). Prints nothing and exits 1 when uv cannot be had: callers use pip.
set -uo pipefail
UV_PIN=uv==0.13.9
base=${HOTC_TOOLS_DIR:-$HOME/.cache/hotc-tools}
dir=$base/${UV_PIN/==/-}
if [ ! -x "$dir/bin/uv" ]; then
  mkdir -p "$base" || exit 1
  exec 8>"$dir.lock"
  flock 8
  if [ ! -x "$dir/bin/uv" ]; then
    rm -rf "$dir"
    if ! { "${PYTHON:-python3}" -m venv "$dir" && "$dir/bin/pip" install -q "$UV_PIN"; } >"$dir.log" 2>&1; then
      rm -rf "$dir"
      echo "tests/cloud/uv.sh: could not install $UV_PIN (see $dir.log): pip installs instead" >&2
      exit 1
    fi
  fi
fi
echo "$dir/bin/uv"
