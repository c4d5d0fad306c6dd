//! The IDE driven through real gestures (egui_kittest) against a stone and a gem embedded in
//! the test: browsing to a method, editing and accepting it, a compile error at its position,
//! print it, inspect it and drilling in, commit, a conflict with another session, and an
//! endless loop interrupted, Ctrl+B, a hierarchy, and a list of 10,000 classes that draws
//! only the rows in view. Each gesture that needs the server sends exactly one batch.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

use std::sync::Arc;
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use onyx_ide::{Ide, Link};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_server_agent::cli::Setup;
use onyx_server_agent::embedded::Embedded;

/// A repository with a class `Probe` (package `Probes`, method `answer ^ 42` in `accessing`)
/// and its subclass `SubProbe` (package `Probes-Sub`), served in this process.
fn server() -> (tempfile::TempDir, Embedded) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let embedded = Embedded::start(dir.path(), Setup::default()).expect("the embedded server starts");
    run(
        &embedded.gem,
        "Object subclass: #Probe instanceVariableNames: 'a b' classVariableNames: '' package: 'Probes'. \
         Probe compile: 'answer\n\t^ 42' classified: #accessing. \
         Probe subclass: #SubProbe instanceVariableNames: '' classVariableNames: '' package: 'Probes-Sub'. \
         UserGlobals at: #Shared put: (Array with: 0). System commitTransaction",
    );
    (dir, embedded)
}

fn link(gem: &str) -> Link {
    Link::connect(gem, "DataCurator", "swordfish", Arc::new(|| {})).expect("logs in")
}

/// Evaluates `code` in the gem at `gem`, through a link of its own, and answers the
/// printString.
fn run(gem: &str, code: &str) -> String {
    let mut link = link(gem);
    link.execute(vec![Op::Evaluate(pb::Evaluate {
        source: code.into(),
        time_limit_ms: 0,
        receiver: 0,
        inspect: false,
    })]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for incoming in link.take() {
            if let onyx_ide::link::Incoming::Reply(reply) = incoming {
                return match reply.result.expect("answered").into_iter().next() {
                    Some(Outcome::Evaluated(e)) => e.print_string,
                    other => panic!("{other:?}"),
                };
            }
        }
        assert!(Instant::now() < deadline, "no answer");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn harness(gem: &str) -> Harness<'static, Ide> {
    let ide = Ide::new(link(gem));
    let mut h =
        Harness::builder().with_size(egui::vec2(1280.0, 900.0)).build_ui_state(|ui, ide: &mut Ide| ide.ui(ui), ide);
    settle(&mut h);
    h
}

/// Runs frames until no gesture waits for the gem.
fn settle(h: &mut Harness<'static, Ide>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        h.step();
        if !h.state().is_waiting() {
            h.run_steps(3);
            return;
        }
        assert!(Instant::now() < deadline, "the gem did not answer in time");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Performs a gesture and checks it cost exactly one round trip.
fn gesture(h: &mut Harness<'static, Ide>, what: &str, act: impl FnOnce(&mut Harness<'static, Ide>)) {
    let before = h.state().link().batches_sent();
    act(h);
    settle(h);
    let sent = h.state().link().batches_sent() - before;
    assert_eq!(sent, 1, "{what}: {sent} round trips");
}

#[test]
fn browse_edit_evaluate_inspect_and_commit_one_round_trip_per_gesture() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    gesture(&mut h, "select package", |h| h.get_by_label("Probes").click());
    gesture(&mut h, "select class", |h| h.get_by_label("Probe").click());
    gesture(&mut h, "select protocol", |h| h.get_by_label("accessing").click());
    gesture(&mut h, "select method", |h| h.get_by_label("answer").click());
    assert_eq!(h.get_by_label("Method").value().as_deref(), Some("answer\n\t^ 42"));
    // Edit and accept.
    h.get_by_label("Method").set_text_value_accesskit("answer\n\t^ 6 * 7");
    h.run_steps(2);
    gesture(&mut h, "accept", |h| h.get_by_label("Accept (Ctrl+S)").click());
    assert!(h.query_by_label("Method (edited)").is_none(), "accepted");
    // A compile error shows at its position, and the edit stays.
    h.get_by_label("Method").set_text_value_accesskit("answer\n\t^ 6 * ");
    h.run_steps(2);
    gesture(&mut h, "accept an error", |h| h.get_by_label("Accept (Ctrl+S)").click());
    assert!(h.query_by_label("Method (edited)").is_some(), "the edit is kept");
    h.get_by_label_contains("2:");
    // Closing the tab with edited code asks first, and keeps it open.
    h.get_all_by_label("Close").next().expect("the browser's tab closes").click();
    h.run_steps(3);
    assert!(h.query_by_label("Method (edited)").is_some(), "the browser stayed open");
    // Leaving edited code asks first: no gesture goes out.
    let before = h.state().link().batches_sent();
    h.get_by_label("-- all --").click();
    h.run_steps(3);
    assert_eq!(h.state().link().batches_sent(), before, "nothing is sent while the edit is unaccepted");
    h.get_by_label_contains("not accepted");
    h.get_by_label("Discard").click();
    h.run_steps(2);
    // Print it in a workspace.
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("Probe new answer");
    h.run_steps(2);
    gesture(&mut h, "print it", |h| h.get_by_label("Print it (Ctrl+P)").click());
    assert!(h.get_by_label("Code").value().unwrap_or_default().contains("Probe new answer 42"));
    // Inspect it, and drill in.
    h.get_by_label("Code").set_text_value_accesskit("Array with: 3 @ 4 with: 5");
    h.run_steps(2);
    h.get_by_label("Code").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(2);
    gesture(&mut h, "inspect it", |h| h.get_by_label("Inspect it (Ctrl+I)").click());
    settle(&mut h);
    h.get_by_label("an Array");
    gesture(&mut h, "drill in", |h| h.get_by_label("> 1").click());
    h.get_by_label("a Point");
    h.get_by_label("x");
    // Commit.
    gesture(&mut h, "commit", |h| h.get_by_label("Commit").click());
    h.get_by_label("committed");
    assert_eq!(run(&h.state().link().address, "Probe new answer"), "42");
}

/// Runs frames until `label` shows (some things come by the event stream, looked for every
/// second).
fn wait_for_label(h: &mut Harness<'static, Ide>, label: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.query_by_label_contains(label).is_none() {
        assert!(Instant::now() < deadline, "{label:?} did not show");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_commit_another_session_made_first_shows_as_stale_view_then_as_conflicts_to_inspect() {
    let (_dir, mut server) = server();
    let other = server.add_gem().expect("another gem");
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("(UserGlobals at: #Shared) at: 1 put: 1");
    h.run_steps(2);
    gesture(&mut h, "do it", |h| h.get_by_label("Do it (Ctrl+D)").click());
    assert_eq!(run(&other, "(UserGlobals at: #Shared) at: 1 put: 2. System commitTransaction"), "true");
    wait_for_label(&mut h, "Others have committed since this view");
    gesture(&mut h, "commit", |h| h.get_by_label("Commit").click());
    h.get_by_label_contains("the commit failed");
    h.get_by_label("Conflicting objects:");
    gesture(&mut h, "inspect a conflict", |h| h.get_by_label("#(1)").click());
    h.get_by_label("an Array");
    gesture(&mut h, "abort", |h| h.get_by_label("Abort").click());
    assert!(h.query_by_label_contains("Others have committed").is_none());
}

#[test]
fn an_endless_loop_runs_busy_while_the_ide_answers_and_is_interrupted() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("[true] whileTrue");
    h.run_steps(2);
    h.get_by_label("Do it (Ctrl+D)").click();
    h.run_steps(5);
    h.get_by_label("evaluating...");
    // The browser is answered meanwhile.
    h.get_by_label("System Browser").click();
    h.run_steps(2);
    let before = h.state().link().batches_sent();
    h.get_by_label("Probes").click();
    let deadline = Instant::now() + Duration::from_secs(10);
    while h.query_by_label("Probe").is_none() {
        assert!(Instant::now() < deadline, "the browser was not answered during the loop");
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(h.state().link().batches_sent(), before + 1);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Interrupt").click();
    settle(&mut h);
    h.get_by_label_contains("interrupted");
}

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
    h.get_by_label("Probes").click();
    h.step();
    let mut frames = 0;
    while h.state().is_waiting() {
        let started = Instant::now();
        h.step();
        assert!(started.elapsed() < Duration::from_millis(200), "a frame waited for the network");
        frames += 1;
        std::thread::sleep(Duration::from_millis(10));
        assert!(frames < 2000, "never answered");
    }
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

/// Types `text` into quick-open and presses Enter: one round trip.
fn find(h: &mut Harness<'static, Ide>, text: &str) {
    const FIND: &str = "Find class or selector (Ctrl+K)";
    h.get_by_label(FIND).set_text_value_accesskit(text);
    h.run_steps(2);
    gesture(h, "find", |h| {
        h.get_by_label(FIND).focus();
        h.key_press(egui::Key::Enter);
    });
}

#[test]
fn quick_open_finds_a_class_or_a_selector_and_the_sessions_are_listed() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    find(&mut h, "Prob");
    gesture(&mut h, "browse the class found", |h| h.get_by_label("Probe").click());
    h.get_by_label("answer");
    h.get_by_label("accessing");
    // A selector: its implementors, and the source of the one chosen.
    find(&mut h, "answer");
    gesture(&mut h, "select method", |h| h.get_by_label("Probe>>answer").click());
    assert_eq!(h.get_by_label("Source").value().as_deref(), Some("answer\n\t^ 42"));
    gesture(&mut h, "sessions", |h| h.get_by_label("Sessions").click());
    h.get_by_label_contains("(this gem)");
}

#[test]
fn ctrl_b_browses_the_class_or_the_selector_at_the_cursor_and_a_hierarchy_opens_as_a_browser() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    // The cursor ends the text, on the class name: one batch browses it, with its package.
    h.get_by_label("Code").set_text_value_accesskit("x := SubProbe");
    h.run_steps(2);
    gesture(&mut h, "browse the class at the cursor", |h| {
        h.get_by_label("Code").focus();
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::B);
    });
    // A chosen row shows as toggled on.
    let chosen = |h: &Harness<'static, Ide>, label: &str| {
        h.get_all_by_label(label).any(|n| n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
    };
    assert!(chosen(&h, "SubProbe"), "the class is chosen");
    assert!(chosen(&h, "Probes-Sub"), "its package is chosen");
    // The hierarchy of the class chosen: its superclasses above it, its subclasses below.
    gesture(&mut h, "select package", |h| h.get_by_label("Probes").click());
    gesture(&mut h, "select class", |h| h.get_by_label("Probe").click());
    gesture(&mut h, "hierarchy", |h| h.get_by_label("Hierarchy").click());
    assert!(h.query_all_by_label("Hierarchy of Probe").count() >= 1, "a hierarchy browser opened");
    let rows: Vec<String> = h
        .get_all_by(|n| ["Object", "    Probe", "        SubProbe"].contains(&n.label().unwrap_or_default().trim_end()))
        .map(|n| n.accesskit_node().label().unwrap_or_default())
        .collect();
    assert_eq!(rows.len(), 3, "Object, Probe under it, SubProbe under that: {rows:?}");
    // Its methods are edited as in any browser.
    gesture(&mut h, "select method", |h| h.get_by_label("answer").click());
    assert_eq!(h.get_by_label("Method").value().as_deref(), Some("answer\n\t^ 42"));
    // Ctrl+B on a selector lists its implementors.
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("Probe new answer");
    h.run_steps(2);
    gesture(&mut h, "implementors of the selector at the cursor", |h| {
        h.get_by_label("Code").focus();
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::B);
    });
    h.get_by_label("Probe>>answer");
}

#[test]
fn a_list_of_ten_thousand_classes_draws_only_the_rows_in_view_and_scrolls_to_its_end() {
    let (_dir, server) = server();
    run(
        &server.gem,
        "1 to: 10000 do: [:i | Object subclass: ('Many', i printString) asSymbol \
         instanceVariableNames: '' classVariableNames: '' package: 'Many']. #done",
    );
    let mut h = harness(&server.gem);
    gesture(&mut h, "select package", |h| h.get_by_label("Many").click());
    let drawn = |h: &Harness<'static, Ide>| {
        h.query_all_by(|n| n.label().is_some_and(|l| l.starts_with("Many") && l != "Many")).count()
    };
    let shown = drawn(&h);
    assert!((5..100).contains(&shown), "{shown} of 10,000 rows drawn");
    assert!(h.query_by_label("Many9999").is_none(), "the last row is out of view");
    // The wheel over the list brings its end into view.
    let row = h.get_by_label("Many1").rect().center();
    h.hover_at(row);
    for _ in 0..200 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Page,
            delta: egui::vec2(0.0, -10.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
        if h.query_by_label("Many9999").is_some() {
            break;
        }
    }
    h.get_by_label("Many9999");
    assert!(drawn(&h) < 100, "still only the rows in view");
}
