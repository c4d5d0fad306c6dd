#!/usr/bin/env bash
# Regenerates the README's screenshots of the IDE's windows into docs/screenshots/, running
# the IDE under a virtual X server (Xvfb) on a repository made for the purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v Xvfb >/dev/null || ! command -v import >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb x11-apps imagemagick >/dev/null
fi
cargo build --release -p onyx-ide
cargo build --release -p onyx-cli
ide=target/release/onyx-ide
onyx=target/release/onyx
repo=$(mktemp -d)
work=$repo
pids=()
trap 'kill "$xvfb" "${pids[@]}" 2>/dev/null || true; rm -rf "$repo"' EXIT
Xvfb :97 -screen 0 1280x800x24 -nolisten tcp &
xvfb=$!
sleep 1
shot() { # NAME SHOW-ARGUMENT [WHERE: --connect GEM; the embedded repository by default]
  local where=("${@:3}")
  [ ${#where[@]} -gt 0 ] || where=(--repository "$repo")
  DISPLAY=:97 LIBGL_ALWAYS_SOFTWARE=1 "$ide" "${where[@]}" --show "$2" --close-after 14 &
  local pid=$!
  sleep 10
  DISPLAY=:97 import -window root "docs/screenshots/$1.png"
  wait "$pid"
}
shot browser 'browser:Fraction:printOn:'
shot hierarchy 'hierarchy:Integer'
shot workspace 'print:(1 to: 10) inject: 0 into: [:a :b | a + b]'
shot inspector 'inspect:Array with: 3 @ 4 with: 1/3 with: #(1 2 3)'
shot transcript "transcript:1 to: 5 do: [:i | Transcript show: 'line ', i printString; cr]"
shot sessions 'sessions'
shot debugger 'debug:#(1 2 0 4) inject: 0 into: [:sum :each | sum + (12 / each)]'
shot help 'help'
# A package of tests to run (committed, so that the next start finds it).
demo="TestCase subclass: #DemoTest instanceVariableNames: '' classVariableNames: '' package: 'Demo-Tests'.
DemoTest compile: 'testSum
	self assert: ((1 to: 10) inject: 0 into: [:a :b | a + b]) equals: 55' classified: #tests.
DemoTest compile: 'testPrinting
	self assert: (3/4) printString equals: ''(3/4)''' classified: #tests.
DemoTest compile: 'testFirst
	self assert: #(3 1 2) asSortedCollection first equals: 3' classified: #tests.
DemoTest compile: 'testReversed
	self assert: #(1 2 3) reversed equals: #(3 2 1)' classified: #tests.
DemoTest compile: 'testDivision
	self assert: 1 / 0 equals: 0' classified: #tests.
System commitTransaction"
DISPLAY=:97 LIBGL_ALWAYS_SOFTWARE=1 "$ide" --repository "$repo" --show "print:$demo" --close-after 8
shot runner 'tests:Demo-Tests'

# Breakpoints across gems: a stone with two gems; gem A's loop stops at a breakpoint set
# through gem B, which the IDE works in.
# shellcheck source=serve.sh
. scripts/serve.sh
"$onyx" init "$repo/shop" >/dev/null
serve stone "$repo/shop"
stone=$address
serve gem --stone "$stone"
gem_a=$address
serve gem --stone "$stone"
gem_b=$address
"$onyx" eval --gem "$gem_a" "Object subclass: #Meter instanceVariableNames: 'total' classVariableNames: '' package: 'Demo'.
Meter compile: 'add: n
	| before |
	before := total ifNil: [0].
	total := before + n.
	^ total'.
Meter compile: 'reset
	total := 0'.
System commitTransaction.
[| m | m := Meter new. [true] whileTrue: [m add: 1. (Delay forMilliseconds: 10) wait]] fork.
nil" >/dev/null
"$onyx" abort --gem "$gem_b" >/dev/null
"$onyx" break 'Meter>>add:' 4 --gem "$gem_b" >/dev/null
"$onyx" break 'Meter>>add:' 5 --condition 'n > 100' --gem "$gem_b" >/dev/null
sleep 2
export ONYX_PASSWORD=swordfish
shot breakpoint-margin 'browser:Meter:add:' --connect "$gem_b"
shot breakpoints 'breakpoints' --connect "$gem_b"
shot suspended-across-gems 'sessions' --connect "$gem_b"

# Versions: a package saved as Monticello versions along two lines (ab's and cd's, from the
# same first version), and the merge of cd's into ab's told, one conflict open.
"$onyx" init "$repo/shelves" >/dev/null
serve stone "$repo/shelves"
serve gem --stone "$address"
gem_v=$address
versions=$repo/versions
mkdir -p "$versions"
v() { "$onyx" "$@" --gem "$gem_v" >/dev/null; }
v eval "Object subclass: #Shelf instanceVariableNames: 'books' classVariableNames: '' package: 'Shelf'.
Shelf compile: 'capacity
	^ 10' classified: #accessing.
Shelf compile: 'describe
	^ ''a shelf of '', self capacity printString' classified: #printing.
System commitTransaction"
v save Shelf --to "$versions" --format mcz --author ab --message 'A shelf'
v eval "Shelf compile: 'capacity
	\"Wider boards.\"
	^ 12' classified: #accessing.
Shelf compile: 'width
	^ 80' classified: #accessing.
System commitTransaction"
v save Shelf --to "$versions" --format mcz --author ab --message 'Wider'
v load --repository "$versions" Shelf@Shelf-ab.1 --commit
v eval "Shelf compile: 'capacity
	^ 16' classified: #accessing.
Shelf compile: 'describe
	^ ''a tall shelf of '', self capacity printString' classified: #printing.
System commitTransaction"
v save Shelf --to "$versions" --format mcz --author cd --message 'Taller'
v load --repository "$versions" Shelf@Shelf-ab.2 --commit
export ONYX_PASSWORD=swordfish
shot versions "versions:$versions:Shelf:Shelf-cd.3" --connect "$gem_v"
echo "screenshots written to docs/screenshots/"
