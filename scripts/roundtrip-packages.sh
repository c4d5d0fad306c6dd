#!/usr/bin/env bash
# Real packages through a gem and back: loads the Tonel packages of a repository (for
# instance a checkout of NeoJSON: `git clone https://github.com/svenvc/NeoJSON`, then
# `scripts/roundtrip-packages.sh NeoJSON/repository`) into a gem of a new repository with
# `onyx load --commit`, saves each package back as Tonel into a copy of the folder (as a save
# into one's checkout does: every file written again) and compares the files with the
# originals byte for byte, then saves it as FileTree and as a Monticello version and compares
# those with the originals definition by definition (`onyx diff`). Exits 1 if anything
# differs. PACKAGES (after the folder) narrows the packages loaded; all by default.
set -euo pipefail
source_dir=$(cd "$1" && pwd)
shift
cd "$(dirname "$0")/.."
# shellcheck source=serve.sh
. scripts/serve.sh
serve_setup

if [ $# -gt 0 ]; then packages=("$@"); else
  mapfile -t packages < <(cd "$source_dir" && for d in */; do [ -f "$d/package.st" ] && echo "${d%/}"; done)
fi
paths=()
for p in "${packages[@]}"; do paths+=("$source_dir/$p"); done

"$onyx" init "$work/repo" >/dev/null
serve stone "$work/repo"
serve gem --stone "$address"
gem=$address
"$onyx" load "${paths[@]}" --commit --gem "$gem"

cp -r "$source_dir" "$work/tonel"
touch "$work/copied"
sleep 0.01
"$onyx" save "${packages[@]}" --to "$work/tonel" --gem "$gem" >/dev/null
status=0
for p in "${packages[@]}"; do
  if [ -n "$(find "$work/tonel/$p" -type f ! -newer "$work/copied")" ]; then
    echo "$p: the save did not write every file"; status=1
  elif diff -r "$source_dir/$p" "$work/tonel/$p" >"$work/tonel.diff"; then
    echo "$p: Tonel saved back byte-identical ($(find "$source_dir/$p" -type f | wc -l) files)"
  else
    echo "$p: Tonel differs:"; cat "$work/tonel.diff"; status=1
  fi
  "$onyx" save "$p" --to "$work/filetree" --format filetree --gem "$gem" >/dev/null
  "$onyx" save "$p" --to "$work/mcz" --format mcz --author onyx --gem "$gem" >/dev/null
  for written in "$work/filetree/$p.package" "$work/mcz/$p-onyx.1.mcz"; do
    if "$onyx" diff "$source_dir/$p" "$written" >"$work/defs.diff"; then
      echo "$p: $(basename "$written") read back with the same definitions"
    else
      echo "$p: $(basename "$written") differs:"; cat "$work/defs.diff"; status=1
    fi
  done
done
exit $status
