#!/usr/bin/env bash
# How long the IDE takes, on an existing repository, from start to its first frame showing
# what the gem answered (the embedded stone and gem started, logged in, the packages listed):
# the median of RUNS starts (default 7) under a virtual X server.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
if ! command -v Xvfb >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb >/dev/null
fi
cargo build --release -p onyx-ide
repo=$(mktemp -d)
Xvfb :96 -screen 0 1280x800x24 -nolisten tcp &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$repo"' EXIT
sleep 1
# The first start creates the repository; it is not counted.
DISPLAY=:96 LIBGL_ALWAYS_SOFTWARE=1 target/release/onyx-ide --repository "$repo" --report-start >/dev/null
for _ in $(seq "$runs"); do
  DISPLAY=:96 LIBGL_ALWAYS_SOFTWARE=1 target/release/onyx-ide --repository "$repo" --report-start | grep -o '[0-9]* ms'
done | sort -n | awk '{ a[NR] = $1 } END { print "first frame on an existing repository: median " a[int((NR + 1) / 2)] " ms of " NR " starts (" a[1] "-" a[NR] ")" }'
