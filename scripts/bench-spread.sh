#!/usr/bin/env bash
# How long a breakpoint set through one gem takes to stop a process of another (`onyx bench
# spread`): a repository made with `onyx init`, a stone and two gems serving it on 127.0.0.1,
# RUNS breakpoints (default 21) set through the second gem on a loop forked in the first.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
# shellcheck source=serve.sh
. scripts/serve.sh
serve_setup

"$onyx" init "$work/repo" >/dev/null
serve stone "$work/repo"
stone=$address
serve gem --stone "$stone"
looping=$address
serve gem --stone "$stone"
setter=$address
"$onyx" bench spread --gem "$looping" --setter "$setter" --runs "$runs"
