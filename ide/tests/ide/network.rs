//! A gem that is slow, or gone: the window never waits for it, and reconnects.

use super::*;

/// A TCP proxy to the gem that delays what the gem answers, and can be cut (every connection
/// closed, new ones refused) and restored.
struct Proxy {
    addr: String,
    /// Milliseconds each chunk from the gem waits.
    delay: Arc<std::sync::atomic::AtomicU64>,
    up: Arc<std::sync::atomic::AtomicBool>,
    open: Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Proxy {
    fn to(target: &str, delay_ms: u64) -> Proxy {
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("bound").to_string();
        let up = Arc::new(AtomicBool::new(true));
        let delay = Arc::new(std::sync::atomic::AtomicU64::new(delay_ms));
        let delay2 = Arc::clone(&delay);
        let open: Arc<std::sync::Mutex<Vec<std::net::TcpStream>>> = Arc::default();
        let (target, up2, open2) = (target.to_string(), Arc::clone(&up), Arc::clone(&open));
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if !up2.load(Ordering::SeqCst) {
                    continue; // dropped: closed at once
                }
                let Ok(server) = std::net::TcpStream::connect(&target) else { continue };
                let (c2, s2) = (client.try_clone().expect("a clone"), server.try_clone().expect("a clone"));
                open2
                    .lock()
                    .unwrap()
                    .extend([client.try_clone().expect("a clone"), server.try_clone().expect("a clone")]);
                let (no_delay, delay) = (Arc::default(), Arc::clone(&delay2));
                std::thread::spawn(move || pipe(client, server, no_delay));
                std::thread::spawn(move || pipe(s2, c2, delay));
            }
        });
        Proxy { addr, delay, up, open }
    }

    fn cut(&self) {
        self.up.store(false, std::sync::atomic::Ordering::SeqCst);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    fn restore(&self) {
        self.delay.store(0, std::sync::atomic::Ordering::SeqCst);
        self.up.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Copies `from` to `to`, each chunk after `delay` milliseconds.
/// Runs frames while a gesture waits for the gem, checking each returns at once and then
/// `check`; answers how many ran.
fn frames_until_answered(h: &mut Harness<'static, Ide>, mut check: impl FnMut(&Harness<'static, Ide>)) -> u32 {
    h.step();
    let mut frames = 0;
    while h.state().is_waiting() {
        let started = Instant::now();
        h.step();
        assert!(started.elapsed() < Duration::from_millis(200), "a frame waited for the network");
        check(h);
        frames += 1;
        std::thread::sleep(Duration::from_millis(10));
        assert!(frames < 2000, "never answered");
    }
    frames
}

fn pipe(mut from: std::net::TcpStream, mut to: std::net::TcpStream, delay: Arc<std::sync::atomic::AtomicU64>) {
    use std::io::{Read as _, Write as _};
    let mut buf = [0u8; 16384];
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(delay.load(std::sync::atomic::Ordering::SeqCst)));
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

#[test]
fn a_slow_gem_never_freezes_the_window_and_a_gone_one_shows_an_error_and_a_reconnect() {
    let (_dir, server) = server();
    let proxy = Proxy::to(&server.gem, 700);
    let mut h = harness(&proxy.addr);
    // Each frame returns at once while the gem takes its time.
    click_in_sight(&mut h, "Probes");
    let frames = frames_until_answered(&mut h, |_| {});
    assert!(frames > 10, "the reply came too soon to tell: {frames} frames");
    h.run_steps(3);
    h.get_by_label("Probe");
    // The gem goes away: the next gesture shows an error and offers to reconnect.
    proxy.cut();
    h.get_by_label("Probe").click();
    wait_for_label(&mut h, "Reconnect");
    proxy.restore();
    settle(&mut h);
    h.get_by_label("Reconnect").click();
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.query_by_label("Reconnect").is_some() || h.query_by_label_contains("reconnecting").is_some() {
        assert!(Instant::now() < deadline, "did not reconnect");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    settle(&mut h);
    gesture(&mut h, "select a package after reconnecting", |h| h.get_by_label("Kernel-Numbers").click());
    h.get_by_label("Fraction");
}

#[test]
fn the_debugger_behind_a_slow_gem_never_freezes_the_window() {
    let (_dir, server) = server();
    let proxy = Proxy::to(&server.gem, 400);
    let mut h = harness(&proxy.addr);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("| a | self halt. a := 3 + 4. a * 2");
    h.run_steps(2);
    h.get_by_label("Do it (Ctrl+D)").click();
    settle(&mut h);
    h.get_by_label("Debug").click();
    settle(&mut h);
    // A step: every frame returns at once while the gem's answer is on its way, and the
    // buttons wait for it.
    h.get_by_label("Over (F10)").click();
    let frames = frames_until_answered(&mut h, |h| {
        // (Unless the answer came in this very frame.)
        let disabled = h.get_by_label("Over (F10)").accesskit_node().is_disabled();
        assert!(disabled || !h.state().is_waiting(), "one step at a time");
    });
    assert!(frames > 5, "the reply came too soon to tell: {frames} frames");
    h.run_steps(3);
    assert!(!h.get_by_label("Over (F10)").accesskit_node().is_disabled());
}
