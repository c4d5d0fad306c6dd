#!/usr/bin/env bash
# Packages at scale: the agent benchmark's 5,400 classes of 16 methods (54 packages, Bench-0 to
# Bench-53; `onyx bench agent` generates them in a gem) saved as Tonel with `onyx save`, then,
# in the same run, alternately: `onyx check` (parse and compile only) of those files, and
# `onyx load --commit` of them into a gem of a fresh repository. Also a diff of two versions of
# that size (a method of each class changed). Prints the medians of RUNS runs (default 3), in
# milliseconds, and the ratio of load to check.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
# shellcheck source=serve.sh
. scripts/serve.sh
serve_setup

now() { date +%s%N; }
ms() { echo $(( ($(now) - $1) / 1000000 )); }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

"$onyx" init "$work/source" >/dev/null
serve stone "$work/source"
serve gem --stone "$address"
source_gem=$address
"$onyx" bench agent --gem "$source_gem" --runs 1 >/dev/null
packages=()
for i in $(seq 0 53); do packages+=("Bench-$i"); done

saves=()
for run in $(seq "$runs"); do
  start=$(now)
  "$onyx" save "${packages[@]}" --gem "$source_gem" --to "$work/tonel.$run" >/dev/null
  saves+=("$(ms "$start")")
done
tonel=$work/tonel.1
files=$(find "$tonel" -name '*.st' | wc -l)
methods=$(grep -c '^Bench.* >> ' -r "$tonel" | awk -F: '{ s += $2 } END { print s }')

checks=()
loads=()
for run in $(seq "$runs"); do
  start=$(now)
  "$onyx" check "$tonel" >"$work/check.out"
  checks+=("$(ms "$start")")
  "$onyx" init "$work/target.$run" >/dev/null
  serve stone "$work/target.$run"
  serve gem --stone "$address"
  start=$(now)
  "$onyx" load "$tonel" --gem "$address" --commit >"$work/load.out"
  loads+=("$(ms "$start")")
  grep -q '^committed' "$work/load.out"
  kill "${pids[-1]}" "${pids[-2]}"
  wait "${pids[-1]}" "${pids[-2]}" 2>/dev/null || true
done

cp -r "$tonel" "$work/changed"
find "$work/changed" -name '*.class.st' -exec sed -i 's/\[b + 7\]/[b + 77]/' {} +
diffs=()
for _ in $(seq "$runs"); do
  start=$(now)
  "$onyx" diff "$tonel" "$work/changed" >"$work/diff.out" || true
  diffs+=("$(ms "$start")")
done

check=$(printf '%s\n' "${checks[@]}" | median)
load=$(printf '%s\n' "${loads[@]}" | median)
echo "files: $files, methods: $methods; check: $(tail -n 1 "$work/check.out"); $(grep '^loaded' "$work/load.out" | cut -c1-60)..."
echo "check (parse and compile): ${check} ms  [${checks[*]}]"
echo "load and commit:           ${load} ms  [${loads[*]}]"
echo "load / check:              $(awk -v l="$load" -v c="$check" 'BEGIN { printf "%.2f", l / c }')"
echo "save as Tonel:             $(printf '%s\n' "${saves[@]}" | median) ms  [${saves[*]}]"
echo "diff of two versions:      $(printf '%s\n' "${diffs[@]}" | median) ms  [${diffs[*]}] ($(tail -n 1 "$work/diff.out"))"
