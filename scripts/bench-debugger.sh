#!/usr/bin/env bash
# The debugger's figures (`onyx bench debugger`): a repository made with `onyx init`, a stone
# and a gem serving it on 127.0.0.1, and the benchmark run against the gem RUNS times
# (default 3), each run the medians of 21 measurements of server time.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
# shellcheck source=serve.sh
. scripts/serve.sh
serve_setup

"$onyx" init "$work/repo" >/dev/null
serve stone "$work/repo"
serve gem --stone "$address"
for _ in $(seq "$runs"); do
  "$onyx" bench debugger --gem "$address"
done
