#!/usr/bin/env bash
# The server agent's figures (`onyx bench agent`): a repository made with `onyx init`, a stone
# and a gem serving it on 127.0.0.1, and the benchmark run against the gem (it generates
# 5,400 classes of 16 methods on its first run, then times the tools' batches, medians of 9).
# RUNS fresh gems are measured one after the other (default 3). Give an `onyx` binary as the
# second argument to measure another build (a peer) the same way; by default this checkout's
# release build.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
# shellcheck source=serve.sh
. scripts/serve.sh
serve_setup "${2:-}"

"$onyx" init "$work/repo" >/dev/null
serve stone "$work/repo"
stone=$address
for _ in $(seq "$runs"); do
  serve gem --stone "$stone"
  "$onyx" bench agent --gem "$address"
  kill "${pids[-1]}"
  wait "${pids[-1]}" 2>/dev/null || true
done
