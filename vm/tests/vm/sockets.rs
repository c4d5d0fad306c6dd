//! Sockets seen from Smalltalk: a peer outside Onyx (a Rust listener or client on this host)
//! talks with Socket and SocketStream; only a user who may change code reaches the network;
//! every bad argument (a closed handle, a port out of range, a range past a buffer, a time
//! limit that is not one) is a Smalltalk error, never a panic.

use std::io::{Read, Write};
use std::net::TcpListener;

use crate::util::{error_of, eval_in, vm};

/// Makes the global `L` a Smalltalk socket listening on this host; answers its port.
fn listen(vm: &mut onyx_vm::Vm) -> u16 {
    let port = eval_in(vm, "(Smalltalk at: #L put: (Socket newTCP listenOn: 0 interface: '127.0.0.1')) localPort")
        .expect("listen");
    port.parse().expect("a port")
}

#[test]
fn smalltalk_talks_with_a_peer_outside_onyx() {
    let mut vm = vm();
    let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let port = listener.local_addr().expect("its address").port();
    let peer = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().expect("a connection");
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while s.read(&mut byte).expect("read") == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        s.write_all(b"pong: ").expect("write");
        s.write_all(&line).expect("write");
        // Closing ends the stream on the Smalltalk side.
    });
    let source = format!(
        "| s | s := SocketStream openConnectionToHostNamed: 'localhost' port: {port}.
         s nextPutAll: 'ping ☺' utf8Encoded asString; lf; flush.
         [ s upToEnd asByteArray utf8Decoded ] ensure: [ s close ]"
    );
    assert_eq!(eval_in(&mut vm, &source).expect("talk"), "'pong: ping ☺'");
    peer.join().expect("the peer");
}

#[test]
fn a_peer_connects_to_a_smalltalk_listener() {
    let mut vm = vm();
    let port = listen(&mut vm);
    let peer = std::thread::spawn(move || {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        s.write_all(b"hello").expect("write");
        let mut reply = String::new();
        s.read_to_string(&mut reply).expect("read");
        reply
    });
    let served = "| c got | c := L waitForAcceptFor: 10.
        got := c receiveDataTimeout: 10.
        c sendData: got reversed; close.
        L close.
        got";
    assert_eq!(eval_in(&mut vm, served).expect("serve"), "'hello'");
    assert_eq!(peer.join().expect("the peer"), "olleh");
}

#[test]
fn sockets_need_a_user_who_may_change_code() {
    let mut vm = vm();
    vm.set_may_change_code(false);
    for source in [
        "Socket newTCP listenOn: 0 interface: '127.0.0.1'",
        "Socket connectTo: '127.0.0.1' port: 9",
        "SocketStream openConnectionToHostNamed: 'localhost' port: 80",
        "Socket primReceive: 1 max: 10 timeout: 10",
        "Socket primClose: 1",
    ] {
        let e = error_of(&mut vm, source);
        assert!(e.contains("may change code"), "{source}: {e}");
    }
}

#[test]
fn bad_arguments_are_errors() {
    let mut vm = vm();
    eval_in(&mut vm, "Smalltalk at: #L put: (Socket newTCP listenOn: 0 interface: '127.0.0.1')").expect("listen");
    let l = eval_in(&mut vm, "L instVarNamed: 'handle'").expect("the listener's handle");
    eval_in(&mut vm, "Smalltalk at: #C put: (Socket connectTo: '127.0.0.1' port: L localPort)").expect("connect");
    let c = eval_in(&mut vm, "C instVarNamed: 'handle'").expect("the client's handle");
    for source in [
        format!("Socket primReceive: {l} max: 10 timeout: 10"),
        format!("Socket primSend: {l} from: #[1] startingAt: 1 count: 1 timeout: 10"),
        format!("Socket primAccept: {c} timeout: 10"),
        format!("Socket primReceive: {c} max: 10 timeout: 0"),
        format!("Socket primReceive: {c} max: 10 timeout: -5"),
        format!("Socket primReceive: {c} max: -1 timeout: 10"),
        format!("Socket primReceive: {c} max: 10 timeout: 'soon'"),
        format!("Socket primSend: {c} from: #[1 2] startingAt: 2 count: 2 timeout: 10"),
        format!("Socket primSend: {c} from: #[1 2] startingAt: 0 count: 1 timeout: 10"),
        format!("Socket primSend: {c} from: #(1 2) startingAt: 1 count: 1 timeout: 10"),
        "Socket primReceive: 987654 max: 10 timeout: 10".to_string(),
        "Socket primConnectTo: 42 port: 80 timeout: 10".to_string(),
        "Socket primConnectTo: '127.0.0.1' port: 65536 timeout: 10".to_string(),
        "Socket primConnectTo: '127.0.0.1' port: -1 timeout: 10".to_string(),
        "Socket primListenOn: 0 interface: 'not an address'".to_string(),
        "Socket primLocalPort: nil".to_string(),
        "Socket newTCP waitForAcceptFor: 1".to_string(),
        "Socket newTCP receiveDataTimeout: 1".to_string(),
        "C receiveDataTimeout: 'x'".to_string(),
    ] {
        error_of(&mut vm, &source);
    }
    // Nothing came: a receive's time limit passes, and the socket still works.
    assert_eq!(eval_in(&mut vm, &format!("Socket primReceive: {c} max: 10 timeout: 20")).expect("timeout"), "nil");
    eval_in(&mut vm, "C close. C close. L close").expect("closing twice is no error");
    let e = error_of(&mut vm, &format!("Socket primClose: {c}"));
    assert!(e.contains("closed"), "{e}");
}

#[test]
fn a_forked_server_answers_while_the_host_runs_only_the_background() {
    // A gem with no tool's work runs only its own processes (`run_background`), as a gem
    // serving HTTP from a forked loop does: each answer from the network wakes the process
    // that waits on it, without a doit running.
    let mut vm = vm();
    let port = listen(&mut vm);
    eval_in(
        &mut vm,
        "Smalltalk at: #Served put: 0.
         [ 3 timesRepeat: [ | c |
             c := SocketStream on: (L waitForAcceptFor: 10).
             c nextPutAll: c nextLine reversed; lf; flush; close.
             Smalltalk at: #Served put: (Smalltalk at: #Served) + 1 ] ] fork",
    )
    .expect("fork the server");
    let peer = std::thread::spawn(move || {
        (0..3)
            .map(|i| {
                let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
                // A server that never answers fails the test instead of hanging it.
                s.set_read_timeout(Some(std::time::Duration::from_secs(3))).expect("a time limit");
                s.write_all(format!("request {i}\n").as_bytes()).expect("write");
                let mut reply = String::new();
                let _ = s.read_to_string(&mut reply);
                reply
            })
            .collect::<Vec<_>>()
    });
    let started = std::time::Instant::now();
    while !peer.is_finished() && started.elapsed() < std::time::Duration::from_secs(10) {
        // As the gem does: wait until the VM says, or a while when it says nothing.
        let wait = vm
            .run_background(std::time::Duration::from_millis(5))
            .map_or(std::time::Duration::from_millis(200), |at| {
                at.saturating_duration_since(std::time::Instant::now())
            });
        std::thread::sleep(wait.min(std::time::Duration::from_millis(200)));
    }
    let replies = peer.join().expect("the peer");
    assert_eq!(replies, ["0 tseuqer\n", "1 tseuqer\n", "2 tseuqer\n"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "served in {:?}", started.elapsed());
    assert_eq!(eval_in(&mut vm, "Smalltalk at: #Served").expect("served"), "3");
}
