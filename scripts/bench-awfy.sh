#!/usr/bin/env bash
# The Are We Fast Yet benchmarks (github.com/smarr/are-we-fast-yet, MIT licence, fetched at a
# fixed commit) on Onyx beside the Lua 5.4 interpreter and LuaJIT: Onyx runs their Smalltalk
# version (converted by scripts/awfy/som2chunk.py, with scripts/awfy/prelude.st), the peers
# their Lua version. Prints each VM's median time per iteration and Onyx's ratios.
#
#   scripts/bench-awfy.sh [iterations] [benchmark...]
#
# ONYX=<another onyx> compares another build; ONYX_FLAGS=--no-jit runs the interpreter alone;
# ROUNDS=N runs each benchmark N times on each VM in turn (medians over all the rounds).
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-5}
shift || true
commit=50e34b17e5fced7b8fe7afd14dc04b0ebd84a75a
work=target/awfy
if ! command -v lua5.4 >/dev/null || ! command -v luajit >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q lua5.4 luajit >/dev/null
  else
    echo "bench-awfy: the peers lua5.4 and luajit are needed (apt-get install lua5.4 luajit)" >&2
    exit 1
  fi
fi
if [ ! -d "$work/checkout/.git" ]; then
  mkdir -p "$work"
  git clone -q https://github.com/smarr/are-we-fast-yet "$work/checkout"
fi
git -C "$work/checkout" checkout -q "$commit"
[ -n "${ONYX:-}" ] || cargo build --release -q -p onyx-cli
python3 scripts/awfy/run.py "$work/checkout" "$work" "$iterations" "$@"
