#!/usr/bin/env bash
# The stone's commit rates (`onyx bench commits`): a repository made with `onyx init`, a stone
# serving it on 127.0.0.1, and the three configurations of BENCHMARKS.md (1 gem with a
# 1-object write set, 8 gems with 1 object each, 8 gems with 250 objects each), 2 s each,
# RUNS times over (default 5), each run printing the disk's raw figures beside the stone's.
# Give an `onyx` binary as the second argument to measure another build (a peer) the same
# way; by default this checkout's release build.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
onyx=${2:-}
if [ -z "$onyx" ]; then
  cargo build --release -q -p onyx-cli
  onyx=target/release/onyx
fi
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

"$onyx" init "$work/repo" >/dev/null
"$onyx" stone "$work/repo" --listen 127.0.0.1:0 --gc-interval 0 >"$work/stone.out" &
pid=$!
until [ -s "$work/stone.out" ]; do sleep 0.05; done
stone=$(head -n 1 "$work/stone.out" | awk '{ print $NF }')
for run in $(seq "$runs"); do
  for shape in "1 1" "8 1" "8 250"; do
    set -- $shape
    echo "run $run: $1 gems, $2 objects"
    "$onyx" bench commits --stone "$stone" --gems "$1" --objects "$2" --seconds 2 --disk "$work"
  done
done
