#!/usr/bin/env bash
# Runs Onyx's VM benchmarks (with native code, and in the interpreter alone) and the same
# benchmarks on a Squeak interpreter VM, in one go, and prints the medians and the ratios
# (Onyx / Squeak; higher is better for Onyx).
#
#   SQUEAK_RUN=<command that runs a chunk-format script in a Squeak image and prints what it
#   writes> SQUEAK_BENCH=<the Squeak benchmark script> scripts/bench-vs-squeak.sh [runs]
#
# Without SQUEAK_RUN only the Onyx figures are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo build --release -q -p onyx-cli
onyx_out=$(./target/release/onyx bench --runs "$runs")
echo "== Onyx"; echo "$onyx_out"
interp_out=$(./target/release/onyx --no-jit bench --runs "$runs")
echo "== Onyx, interpreter only"; echo "$interp_out"
squeak_out=""
if [ -n "${SQUEAK_RUN:-}" ] && [ -n "${SQUEAK_BENCH:-}" ]; then
  squeak_out=$($SQUEAK_RUN "$SQUEAK_BENCH" 600)
  echo "== Squeak"; echo "$squeak_out"
fi
python3 - "$onyx_out" "$interp_out" "$squeak_out" <<'PY'
import re, statistics, sys
onyx, interp, squeak = sys.argv[1], sys.argv[2], sys.argv[3]
def med(pattern, text):
    vals = [float(m) for m in re.findall(pattern, text)]
    return statistics.median(vals) if vals else None
rows = [
    ("bytecodes/sec (tinyBenchmarks)", r"([0-9]+) bytecodes/sec", r"([0-9]+) bytecodes/sec", False),
    ("sends/sec (tinyBenchmarks)", r"bytecodes/sec; ([0-9]+) sends/sec", r"bytecodes/sec; ([0-9]+) sends/sec", False),
    ("sends/sec (30 benchFib)", r"benchFib: [0-9]+ calls in [0-9]+ ms => ([0-9]+)", r"benchFib = [0-9]+ in [0-9]+ ms\s+=> ([0-9]+)", False),
    ("1000 factorial printString (ms)", r"printString: [0-9]+ digits in ([0-9.]+) ms", r"printString size = [0-9]+ in ([0-9]+) ms", True),
    ("process switches/sec", r"=> ([0-9]+) switches/sec", r"=> ([0-9]+) switches/sec", False),
]
print("\n== medians")
print(f"{'figure':32} {'Onyx':>15} {'interpreter':>15} {'Squeak':>15} {'ratio':>7} {'interp.':>7}")
def ratio(o, s, lower_better):
    if not (o and s):
        return ""
    return f"{(s / o if lower_better else o / s):.2f}x"
fmt = lambda v: "-" if v is None else (f"{v:.3f}" if v < 1000 else f"{v:,.0f}")
for name, po, ps, lower_better in rows:
    o, i, s = med(po, onyx), med(po, interp), med(ps, squeak)
    print(f"{name:32} {fmt(o):>15} {fmt(i):>15} {fmt(s):>15} {ratio(o, s, lower_better):>7} {ratio(i, s, lower_better):>7}")
PY
