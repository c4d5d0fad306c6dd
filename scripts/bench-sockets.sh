#!/usr/bin/env bash
# TCP on this host beside Python 3, in the same run: 2,000 request-and-answer round trips of a
# line over one connection, 200 connections each made, accepted, answered once and closed,
# and 10 MB sent one way and read to its end. The server is a forked process (Onyx) or a
# thread (Python) of the same program as the client. Each run is one `onyx eval` and one
# `python3`, each timing its own work; prints the medians of RUNS runs (default 5) in
# milliseconds and the ratio Onyx / Python (lower is better for Onyx).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release -q -p onyx-cli
onyx=target/release/onyx

read -r -d '' smalltalk <<'ST' || true
| l port data report ms |
l := Socket newTCP listenOn: 0 interface: '127.0.0.1'.
port := l localPort.
report := WriteStream on: String new.
ms := [ :name :block | report nextPutAll: name; nextPutAll: ' '; print: (Time millisecondsToRun: block); lf ].
[ | c line |
	c := SocketStream on: (l waitForAcceptFor: 10).
	[ (line := c nextLine) isEmpty ] whileFalse: [ c nextPutAll: line; lf; flush ].
	c close ] fork.
ms value: 'round-trips' value: [ | c |
	c := SocketStream openConnectionToHostNamed: '127.0.0.1' port: port.
	2000 timesRepeat: [ c nextPutAll: 'ping ping ping ping'; lf; flush. c nextLine ].
	c lf; flush; close ].
[ 200 timesRepeat: [ | c |
	c := SocketStream on: (l waitForAcceptFor: 10).
	c nextPutAll: c nextLine; lf; flush; close ] ] fork.
ms value: 'connections' value: [
	200 timesRepeat: [ | c |
		c := SocketStream openConnectionToHostNamed: '127.0.0.1' port: port.
		c nextPutAll: 'hello'; lf; flush.
		c nextLine.
		c close ] ].
data := ByteArray new: 10485760 withAll: 7.
[ | c | c := SocketStream on: (l waitForAcceptFor: 10). c binary; nextPutAll: data; close ] fork.
ms value: 'bulk-10MB' value: [ | c got |
	c := SocketStream openConnectionToHostNamed: '127.0.0.1' port: port.
	c binary.
	got := c upToEnd.
	c close.
	got size = data size ifFalse: [ ^ 'received ' , got size printString ] ].
l close.
report contents
ST

read -r -d '' python <<'PY' || true
import socket, threading, time
def ms(name, f):
    t = time.perf_counter(); f(); print(name, round((time.perf_counter() - t) * 1000))
l = socket.socket(); l.bind(('127.0.0.1', 0)); l.listen(16)
port = l.getsockname()[1]
def echo():
    c, _ = l.accept(); f = c.makefile('rwb')
    while True:
        line = f.readline()
        if line == b'\n': break
        f.write(line); f.flush()
    f.close(); c.close()
threading.Thread(target=echo).start()
def round_trips():
    s = socket.create_connection(('127.0.0.1', port)); f = s.makefile('rwb')
    for _ in range(2000):
        f.write(b'ping ping ping ping\n'); f.flush(); f.readline()
    f.write(b'\n'); f.flush(); f.close(); s.close()
ms('round-trips', round_trips)
def answer():
    for _ in range(200):
        c, _ = l.accept(); f = c.makefile('rwb'); f.write(f.readline()); f.flush(); f.close(); c.close()
threading.Thread(target=answer).start()
def connections():
    for _ in range(200):
        s = socket.create_connection(('127.0.0.1', port)); f = s.makefile('rwb')
        f.write(b'hello\n'); f.flush(); f.readline(); f.close(); s.close()
ms('connections', connections)
data = bytes([7]) * 10485760
def send():
    c, _ = l.accept(); c.sendall(data); c.close()
threading.Thread(target=send).start()
def bulk():
    s = socket.create_connection(('127.0.0.1', port)); parts = []
    while True:
        b = s.recv(65536)
        if not b: break
        parts.append(b)
    s.close()
    assert sum(map(len, parts)) == len(data)
ms('bulk-10MB', bulk)
l.close()
PY

# shellcheck source=beside-python.sh
. scripts/beside-python.sh
beside_python "$runs" "$smalltalk" "$python"
