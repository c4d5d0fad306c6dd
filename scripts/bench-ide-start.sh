#!/usr/bin/env bash
# How long the IDE takes, on an existing repository, from start to its first frame showing
# what the gem answered (the embedded stone and gem started, logged in, the packages listed):
# the median of RUNS starts (default 7) under a virtual X server.
#
#   scripts/bench-ide-start.sh [RUNS] [ONYX-IDE...]
#
# With binaries named (another build, to compare), each is measured on a repository of its
# own, their starts taking turns; without, this build's.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
shift || true
if ! command -v Xvfb >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb >/dev/null
fi
if [ $# -eq 0 ]; then
  cargo build --release -p onyx-ide
  set -- target/release/onyx-ide
fi
work=$(mktemp -d)
Xvfb :96 -screen 0 1280x800x24 -nolisten tcp &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1
start() { # BINARY REPOSITORY
  DISPLAY=:96 LIBGL_ALWAYS_SOFTWARE=1 "$1" --repository "$2" --report-start | grep -o '[0-9]* ms'
}
# The first start of each creates its repository; it is not counted.
i=0
for ide in "$@"; do
  i=$((i + 1))
  start "$ide" "$work/repo$i" >/dev/null
done
for _ in $(seq "$runs"); do
  i=0
  for ide in "$@"; do
    i=$((i + 1))
    start "$ide" "$work/repo$i" >>"$work/times$i"
  done
done
i=0
for ide in "$@"; do
  i=$((i + 1))
  sort -n "$work/times$i" | awk -v ide="$ide" '{ a[NR] = $1 } END { print ide ": first frame on an existing repository: median " a[int((NR + 1) / 2)] " ms of " NR " starts (" a[1] "-" a[NR] ")" }'
done
