#!/usr/bin/env bash
# Public packages' own tests in a gem: loads packages (Tonel or FileTree folders, `.mcz`
# files) into a gem of a new repository with `onyx load`, then runs the SUnit tests of the
# test packages named after `--` and prints their report. Exits 1 if a test fails or the load
# is refused. For instance, with a checkout of NeoJSON
# (`git clone https://github.com/svenvc/NeoJSON`):
#
#   scripts/test-packages.sh NeoJSON/repository/Neo-JSON-Core NeoJSON/repository/Neo-JSON-Tests -- Neo-JSON-Tests
set -euo pipefail
paths=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do paths+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"); shift; done
[ $# -gt 1 ] || { echo "usage: $0 PACKAGE-PATH... -- TEST-PACKAGE..." >&2; exit 2; }
shift
cd "$(dirname "$0")/.."
# shellcheck source=serve.sh
. scripts/serve.sh
serve_setup

"$onyx" init "$work/repo" >/dev/null
serve stone "$work/repo"
serve gem --stone "$address"
gem=$address
"$onyx" load "${paths[@]}" --gem "$gem"
list=""
for p in "$@"; do list="$list '${p//\'/\'\'}'"; done
report=$("$onyx" eval "TestRunner reportForPackages: #($list)" --gem "$gem" --time-limit 3600)
# The report is a String's printString: unquote it.
report=${report#\'}; report=${report%\'}; report=${report//\'\'/\'}
echo "$report"
[[ "$report" =~ ", 0 failed" ]]
