#!/usr/bin/env bash
# Runs the VM benchmarks (`onyx bench`) of this checkout's release build beside another
# `onyx` binary (a build of another commit), alternately, ROUNDS rounds of RUNS runs each, and
# prints each figure's median for both and their ratio (this / other; higher is better, but
# for the factorial's time).
#
#   scripts/bench-vm-builds.sh OTHER_ONYX [rounds] [runs]
#
# With `--no-jit` as a fourth argument both run everything in the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
other=${1:?"the other onyx binary"}
rounds=${2:-3}
runs=${3:-3}
flags=(${4:+"$4"})
cargo build --release -q -p onyx-cli
this_out="" other_out=""
for _ in $(seq "$rounds"); do
  this_out+=$(./target/release/onyx "${flags[@]}" bench --runs "$runs")$'\n'
  other_out+=$("$other" "${flags[@]}" bench --runs "$runs")$'\n'
done
python3 - "$this_out" "$other_out" <<'PY'
import re, statistics, sys
this, other = sys.argv[1], sys.argv[2]
def med(pattern, text):
    vals = [float(m) for m in re.findall(pattern, text)]
    return statistics.median(vals) if vals else None
rows = [
    ("bytecodes/sec (tinyBenchmarks)", r"([0-9]+) bytecodes/sec", False),
    ("sends/sec (tinyBenchmarks)", r"bytecodes/sec; ([0-9]+) sends/sec", False),
    ("sends/sec (30 benchFib)", r"benchFib: [0-9]+ calls in [0-9]+ ms => ([0-9]+)", False),
    ("1000 factorial printString (ms)", r"printString: [0-9]+ digits in ([0-9.]+) ms", True),
    ("process switches/sec", r"=> ([0-9]+) switches/sec", False),
]
fmt = lambda v: "-" if v is None else (f"{v:.3f}" if v < 1000 else f"{v:,.0f}")
print(f"{'figure':32} {'this build':>15} {'other build':>15} {'ratio':>7}")
for name, pattern, lower_better in rows:
    t, o = med(pattern, this), med(pattern, other)
    r = "" if not (t and o) else f"{(o / t if lower_better else t / o):.3f}"
    print(f"{name:32} {fmt(t):>15} {fmt(o):>15} {r:>7}")
PY
