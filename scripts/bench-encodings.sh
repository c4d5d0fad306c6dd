#!/usr/bin/env bash
# Encodings, hashes and files beside Python 3, in the same run: UTF-8 encoding and decoding of
# 10 MB of text (mostly ASCII, with accented letters, dashes and euro signs), SHA-256 of 10 MB,
# Base64 encoding and decoding of 10 MB, and writing then reading a 100 MB text file through a
# stream, a line (99 characters and a line feed) at a time. Each run is one `onyx eval` and one
# `python3`, each timing its own work; prints the medians of RUNS runs (default 5) in
# milliseconds and the ratio Onyx / Python (lower is better for Onyx).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release -q -p onyx-cli
onyx=target/release/onyx
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

read -r -d '' smalltalk <<ST || true
| pattern text bytes encoded b64 line file lines ms report |
pattern := 'Onyx, a transactional Smalltalk — naïve café costs 10 €; '.
text := String new: 10485760 streamContents: [ :s |
	[ s position < 10485760 ] whileTrue: [ s nextPutAll: pattern ] ].
bytes := ByteArray new: 10485760.
1 to: bytes size do: [ :i | bytes at: i put: i \\\\ 251 ].
report := WriteStream on: String new.
ms := [ :name :block | report nextPutAll: name; nextPutAll: ' '; print: (Time millisecondsToRun: block); lf ].
ms value: 'utf8-encode' value: [ encoded := text utf8Encoded ].
ms value: 'utf8-decode' value: [ encoded utf8Decoded ].
ms value: 'sha256' value: [ SHA256 hashMessage: bytes ].
ms value: 'base64-encode' value: [ b64 := bytes base64Encoded ].
ms value: 'base64-decode' value: [ b64 base64Decoded ].
line := String new: 99 withAll: \$x.
file := '$work/onyx.txt' asFileReference.
ms value: 'file-write' value: [
	file writeStreamDo: [ :s | 1048576 timesRepeat: [ s nextPutAll: line; lf ] ] ].
lines := 0.
ms value: 'file-read' value: [
	file readStreamDo: [ :s | [ s atEnd ] whileFalse: [ s nextLine. lines := lines + 1 ] ] ].
lines = 1048576 ifFalse: [ ^ 'read ' , lines printString , ' lines' ].
file delete.
report contents
ST

read -r -d '' python <<PY || true
import base64, hashlib, os, time
def ms(name, f):
    t = time.perf_counter(); r = f(); print(name, round((time.perf_counter() - t) * 1000)); return r
pattern = 'Onyx, a transactional Smalltalk — naïve café costs 10 €; '
text = (pattern * (10485760 // len(pattern) + 1))[:10485760]
data = bytes(i % 251 for i in range(1, 10485761))
encoded = ms('utf8-encode', lambda: text.encode('utf-8'))
ms('utf8-decode', lambda: encoded.decode('utf-8'))
ms('sha256', lambda: hashlib.sha256(data).digest())
b64 = ms('base64-encode', lambda: base64.b64encode(data))
ms('base64-decode', lambda: base64.b64decode(b64))
line = 'x' * 99
path = '$work/python.txt'
def write():
    with open(path, 'w', encoding='utf-8') as f:
        for _ in range(1048576):
            f.write(line); f.write('\n')
def read():
    n = 0
    with open(path, encoding='utf-8') as f:
        for _ in f:
            n += 1
    assert n == 1048576
ms('file-write', write)
ms('file-read', read)
os.remove(path)
PY

# shellcheck source=beside-python.sh
. scripts/beside-python.sh
beside_python "$runs" "$smalltalk" "$python"
