# Sourced by the benchmarks that time Onyx beside Python 3. `beside_python RUNS SMALLTALK
# PYTHON` runs the doit with `$onyx eval` and the program with `python3`, in turn, RUNS times
# each; each prints a line `NAME MILLISECONDS` for every step it times. Prints the medians
# side by side (compare-medians.py).
beside_python() {
  local runs=$1 smalltalk=$2 python=$3 onyx_out="" python_out=""
  for _ in $(seq "$runs"); do
    onyx_out+=$("$onyx" eval "$smalltalk" --time-limit 600 | sed "s/^'//; s/'\$//")$'\n'
    python_out+=$(python3 -c "$python")$'\n'
  done
  python3 scripts/compare-medians.py "$onyx_out" "$python_out"
}
