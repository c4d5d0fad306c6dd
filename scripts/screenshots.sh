#!/usr/bin/env bash
# Regenerates the README's screenshots of the IDE's windows into docs/screenshots/, running
# the IDE under a virtual X server (Xvfb) on a repository made for the purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v Xvfb >/dev/null || ! command -v import >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb x11-apps imagemagick >/dev/null
fi
cargo build --release -p onyx-ide
ide=target/release/onyx-ide
repo=$(mktemp -d)
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$repo"' EXIT
Xvfb :97 -screen 0 1280x800x24 -nolisten tcp &
xvfb=$!
sleep 1
shot() { # NAME SHOW-ARGUMENT
  DISPLAY=:97 LIBGL_ALWAYS_SOFTWARE=1 "$ide" --repository "$repo" --show "$2" --close-after 14 &
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
echo "screenshots written to docs/screenshots/"
