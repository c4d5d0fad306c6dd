//! TCP sockets (340-349): connections made to a host and port, listeners that accept them,
//! and the bytes sent and received over them. Connecting, accepting, sending and receiving
//! wait on the network, so each runs on a thread of its own while its process waits (see
//! `offload`), with a time limit; it answers what it got, nil when the time ran out, or a
//! String saying what went wrong. Every socket primitive needs a user who may change code,
//! as files do: a gem serves users who are not all trusted.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use socket2::SockRef;

use super::offload::{Answer, run_long};
use super::{Args, Prim, PrimResult, size_arg, table};
use crate::heap::Body;
use crate::value::Value;
use crate::vm::Vm;

/// The most a single receive answers.
const MOST_RECEIVED: usize = 1 << 20;

/// An open socket.
pub(crate) enum Net {
    Stream(TcpStream),
    Listener(TcpListener),
}

/// The sockets a VM has open, by handle.
#[derive(Default)]
pub(crate) struct Sockets {
    open: HashMap<i64, Net>,
    next: i64,
}

impl Sockets {
    /// Keeps `net` open; answers its handle.
    pub(crate) fn insert(&mut self, net: Net) -> i64 {
        self.next += 1;
        self.open.insert(self.next, net);
        self.next
    }
}

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    if !vm.may_change_code {
        vm.files.last_error = super::files::REFUSED.into();
        return Err(Prim::Fail);
    }
    let outcome = match index {
        table::SOCKET_CONNECT => connect(vm, a),
        table::SOCKET_LISTEN => listen(vm, a),
        table::SOCKET_ACCEPT => accept(vm, a),
        table::SOCKET_SEND => send(vm, a),
        table::SOCKET_RECEIVE => receive(vm, a),
        table::SOCKET_CLOSE => close(vm, a),
        table::SOCKET_LOCAL_PORT => local_port(vm, a),
        _ => Err(Failure::Arguments),
    };
    outcome.map_err(|failure| {
        vm.files.last_error = match failure {
            Failure::Arguments => "bad arguments".into(),
            Failure::Os(message) => message,
            Failure::Prim(p) => return p,
        };
        Prim::Fail
    })
}

/// Why a socket primitive failed before it started.
enum Failure {
    Arguments,
    Os(String),
    /// The primitive switched processes or must fail as the VM says.
    Prim(Prim),
}

impl From<Prim> for Failure {
    fn from(p: Prim) -> Self {
        match p {
            Prim::Fail => Failure::Arguments,
            other => Failure::Prim(other),
        }
    }
}

fn closed() -> Failure {
    Failure::Os("the socket is closed".into())
}

/// An operating system error as a user reads it.
fn reason(e: &std::io::Error) -> String {
    let mut reason = e.to_string();
    if let Some(at) = reason.find(" (os error") {
        reason.truncate(at);
    }
    reason
}

/// A time limit in milliseconds, at least one.
fn millis(v: Value) -> Result<Duration, Failure> {
    let ms = v.as_int().filter(|&ms| ms > 0).ok_or(Failure::Arguments)?;
    Ok(Duration::from_millis(ms as u64))
}

fn stream(vm: &Vm, handle: Value) -> Result<&TcpStream, Failure> {
    match vm.sockets.open.get(&handle.as_int().ok_or(Failure::Arguments)?) {
        Some(Net::Stream(s)) => Ok(s),
        Some(Net::Listener(_)) => Err(Failure::Os("the socket is listening, not connected".into())),
        None => Err(closed()),
    }
}

/// Waits on the network off the VM thread.
fn offload(vm: &mut Vm, a: Args, work: impl FnOnce() -> Answer + Send + 'static) -> Result<Value, Failure> {
    run_long(vm, a, work).map_err(Failure::from)
}

/// `primConnectTo: host port: port timeout: ms`: a connected socket's handle.
fn connect(vm: &mut Vm, a: Args) -> Result<Value, Failure> {
    let host = vm.string_of(a.arg(vm, 0)).ok_or(Failure::Arguments)?;
    let port = a.arg(vm, 1).as_int().and_then(|p| u16::try_from(p).ok()).ok_or(Failure::Arguments)?;
    let limit = millis(a.arg(vm, 2))?;
    offload(vm, a, move || {
        let deadline = Instant::now() + limit;
        let addresses = match (host.as_str(), port).to_socket_addrs() {
            Ok(found) => found.collect::<Vec<_>>(),
            Err(e) => return Answer::Text(format!("{host}: {}", reason(&e))),
        };
        let mut last = format!("{host}: no address");
        for address in addresses {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Answer::Nil;
            }
            match TcpStream::connect_timeout(&address, left) {
                Ok(s) => {
                    let _ = s.set_nodelay(true);
                    return Answer::Socket(Net::Stream(s));
                }
                Err(e) if e.kind() == ErrorKind::TimedOut => return Answer::Nil,
                Err(e) => last = format!("{host}:{port}: {}", reason(&e)),
            }
        }
        Answer::Text(last)
    })
}

/// `primListenOn: port interface: host`: a listener's handle (port 0 picks a free port).
fn listen(vm: &mut Vm, a: Args) -> Result<Value, Failure> {
    let port = a.arg(vm, 0).as_int().and_then(|p| u16::try_from(p).ok()).ok_or(Failure::Arguments)?;
    let host = vm.string_of(a.arg(vm, 1)).ok_or(Failure::Arguments)?;
    let listener =
        TcpListener::bind((host.as_str(), port)).map_err(|e| Failure::Os(format!("{host}:{port}: {}", reason(&e))))?;
    Ok(Value::small(vm.sockets.insert(Net::Listener(listener))))
}

/// `primAccept: handle timeout: ms`: a connection's handle, or nil when none came in time.
fn accept(vm: &mut Vm, a: Args) -> Result<Value, Failure> {
    let handle = a.arg(vm, 0).as_int().ok_or(Failure::Arguments)?;
    let limit = millis(a.arg(vm, 1))?;
    let listener = match vm.sockets.open.get(&handle) {
        Some(Net::Listener(l)) => l.try_clone().map_err(|e| Failure::Os(reason(&e)))?,
        Some(Net::Stream(_)) => return Err(Failure::Os("the socket is connected, not listening".into())),
        None => return Err(closed()),
    };
    offload(vm, a, move || {
        // The time limit of a blocking accept is the socket's receive timeout.
        if let Err(e) = SockRef::from(&listener).set_read_timeout(Some(limit)) {
            return Answer::Text(reason(&e));
        }
        loop {
            match listener.accept() {
                Ok((s, _)) => {
                    let _ = s.set_nodelay(true);
                    return Answer::Socket(Net::Stream(s));
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return Answer::Nil,
                Err(e) => return Answer::Text(reason(&e)),
            }
        }
    })
}

/// `primSend: handle from: bytes startingAt: start count: n timeout: ms`: how many bytes
/// went (all of them), or nil when the peer took too long to take them.
fn send(vm: &mut Vm, a: Args) -> Result<Value, Failure> {
    let start = size_arg(a.arg(vm, 2))?;
    let count = size_arg(a.arg(vm, 3))?;
    let limit = millis(a.arg(vm, 4))?;
    let bytes = match vm.heap.get(a.arg(vm, 1)).map(|o| &o.body) {
        Some(Body::Bytes(b)) => {
            let range = start.checked_sub(1).and_then(|s| Some(s..s.checked_add(count)?));
            range.and_then(|r| b.get(r)).ok_or(Failure::Arguments)?.to_vec()
        }
        _ => return Err(Failure::Arguments),
    };
    let mut s = stream(vm, a.arg(vm, 0))?.try_clone().map_err(|e| Failure::Os(reason(&e)))?;
    offload(vm, a, move || {
        if let Err(e) = s.set_write_timeout(Some(limit)) {
            return Answer::Text(reason(&e));
        }
        match s.write_all(&bytes) {
            Ok(()) => Answer::Integer(bytes.len().into()),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Answer::Nil,
            Err(e) => Answer::Text(reason(&e)),
        }
    })
}

/// `primReceive: handle max: n timeout: ms`: the bytes that came (at most n, at least one),
/// an empty ByteArray when the peer closed its side, or nil when nothing came in time.
fn receive(vm: &mut Vm, a: Args) -> Result<Value, Failure> {
    let most = size_arg(a.arg(vm, 1))?.clamp(1, MOST_RECEIVED);
    let limit = millis(a.arg(vm, 2))?;
    let mut s = stream(vm, a.arg(vm, 0))?.try_clone().map_err(|e| Failure::Os(reason(&e)))?;
    offload(vm, a, move || {
        if let Err(e) = s.set_read_timeout(Some(limit)) {
            return Answer::Text(reason(&e));
        }
        let mut buffer = vec![0; most];
        loop {
            match s.read(&mut buffer) {
                Ok(n) => {
                    buffer.truncate(n);
                    return Answer::Bytes(buffer);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return Answer::Nil,
                Err(e) => return Answer::Text(reason(&e)),
            }
        }
    })
}

/// `primClose: handle`: closes a socket; a receive waiting on it ends at once.
fn close(vm: &mut Vm, a: Args) -> Result<Value, Failure> {
    let handle = a.arg(vm, 0);
    match vm.sockets.open.remove(&handle.as_int().ok_or(Failure::Arguments)?) {
        Some(Net::Stream(s)) => {
            let _ = s.shutdown(Shutdown::Both);
            Ok(handle)
        }
        Some(Net::Listener(_)) => Ok(handle),
        None => Err(closed()),
    }
}

/// `primLocalPort: handle`: the port a socket is bound to on this host.
fn local_port(vm: &mut Vm, a: Args) -> Result<Value, Failure> {
    let address = match vm.sockets.open.get(&a.arg(vm, 0).as_int().ok_or(Failure::Arguments)?) {
        Some(Net::Stream(s)) => s.local_addr(),
        Some(Net::Listener(l)) => l.local_addr(),
        None => return Err(closed()),
    };
    Ok(Value::small(i64::from(address.map_err(|e| Failure::Os(reason(&e)))?.port())))
}
