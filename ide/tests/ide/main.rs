//! The IDE driven through real gestures (egui_kittest) against a stone and a gem embedded in
//! the test. Each gesture that needs the server sends exactly one batch, and the tests count
//! them. `browsing`: the system browser, its lists and its editing gestures; `evaluating`:
//! workspaces, the transcript and inspectors; `transactions`: commits, conflicts and
//! auto-commit; `debugging`: the debugger, notifiers and the process browser; `keeping`:
//! nothing lost on closing or restarting, and panes that stay current; `organizing`:
//! protocols, comments, moving methods, context menus; `navigating`: back and forward, Find,
//! tabs, help and menus; `running`: the test runner; `network`: a slow gem and a gone one;
//! `tls`: a gem serving TLS; `attaching`: debugging a process of another gem; `breakpoints`:
//! the breakpoint margin and the breakpoint browser.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

use std::sync::Arc;
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use onyx_ide::{Ide, Link, Show};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_server_agent::Setup;
use onyx_server_agent::embedded::Embedded;

mod attaching;
mod breakpoints;
mod browsing;
mod debugging;
mod evaluating;
mod keeping;
mod navigating;
mod network;
mod organizing;
mod running;
mod tls;
mod transactions;
mod versioning;

/// A repository with a class `Probe` (package `Probes`, method `answer ^ 42` in `accessing`)
/// and its subclass `SubProbe` (package `Probes-Sub`), served in this process.
pub fn server() -> (tempfile::TempDir, Embedded) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let embedded =
        Embedded::start(dir.path(), Setup::default(), "DataCurator", "swordfish").expect("the embedded server starts");
    run(
        &embedded.gem,
        "Object subclass: #Probe instanceVariableNames: 'a b' classVariableNames: '' package: 'Probes'. \
         Probe compile: 'answer\n\t^ 42' classified: #accessing. \
         Probe subclass: #SubProbe instanceVariableNames: '' classVariableNames: '' package: 'Probes-Sub'. \
         UserGlobals at: #Shared put: (Array with: 0). System commitTransaction",
    );
    (dir, embedded)
}

pub fn link(gem: &str) -> Link {
    Link::connect(gem, "DataCurator", "swordfish", Arc::new(|| {})).expect("logs in")
}

/// Evaluates `code` in the gem at `gem`, through a link of its own, and answers the
/// printString.
pub fn run(gem: &str, code: &str) -> String {
    let op = Op::Evaluate(pb::Evaluate { source: code.into(), forget: true, ..Default::default() });
    match execute(&mut link(gem), vec![op]).into_iter().next() {
        Some(Outcome::Evaluated(e)) => e.print_string,
        other => panic!("{other:?}"),
    }
}

/// Sends `ops` as one batch through `link`, and waits for their outcomes.
pub fn execute(link: &mut Link, ops: Vec<Op>) -> Vec<Outcome> {
    link.execute(ops);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for incoming in link.take() {
            if let onyx_ide::link::Incoming::Reply(reply) = incoming {
                return reply.result.expect("answered");
            }
        }
        assert!(Instant::now() < deadline, "no answer");
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub fn harness(gem: &str) -> Harness<'static, Ide> {
    harness_on(link(gem))
}

/// The IDE on `link`, once the gem has answered its first gestures.
pub fn harness_on(link: Link) -> Harness<'static, Ide> {
    harness_of(Ide::new(link))
}

/// A harness drawing `ide`, once the gem has answered its first gestures.
pub fn harness_of(ide: Ide) -> Harness<'static, Ide> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        // Frames as a display makes them, so that two clicks a frame apart are a double-click.
        .with_step_dt(1.0 / 60.0)
        .build_ui_state(|ui, ide: &mut Ide| ide.ui(ui), ide);
    settle(&mut h);
    h
}

/// Clicks the package row labelled `label` as a user does in a list longer than its pane: the
/// wheel turned over the list until the row is drawn (a list draws only the rows in view),
/// then the row scrolled fully into sight (the list scrolls at the end of one frame, and the
/// row is drawn there the next).
pub fn click_in_sight(h: &mut Harness<'static, Ide>, label: &str) {
    // The list is where its first drawn row, a kernel package's, is.
    let list = h.get_all_by_label_contains("Kernel-").next().map(|n| n.rect().center());
    for _ in 0..200 {
        if h.query_by_label(label).is_some() {
            break;
        }
        let at = list.unwrap_or_else(|| panic!("{label}: no package list shown"));
        wheel(h, at, egui::MouseWheelUnit::Line, -2.0);
        h.run_steps(2);
    }
    // The wheel's scrolling eases out over some frames: let it end, then bring the row fully
    // into sight.
    h.run_steps(30);
    h.get_by_label(label).scroll_to_me();
    h.run_steps(3);
    h.get_by_label(label).click();
}

/// Runs frames until no gesture waits for the gem.
pub fn settle(h: &mut Harness<'static, Ide>) {
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

/// Performs a gesture and checks it cost exactly one round trip (besides the panes that read
/// again what it changed, one batch each: see [`refreshed`]).
pub fn gesture(h: &mut Harness<'static, Ide>, what: &str, act: impl FnOnce(&mut Harness<'static, Ide>)) {
    let before = h.state().link().batches_sent() - h.state().refreshes_sent();
    act(h);
    settle(h);
    let sent = h.state().link().batches_sent() - h.state().refreshes_sent() - before;
    assert_eq!(sent, 1, "{what}: {sent} round trips");
}

/// Performs a gesture (one round trip) and answers how many panes read again what it changed
/// (one batch each).
pub fn refreshed(h: &mut Harness<'static, Ide>, what: &str, act: impl FnOnce(&mut Harness<'static, Ide>)) -> u64 {
    let before = h.state().refreshes_sent();
    gesture(h, what, act);
    h.state().refreshes_sent() - before
}

/// Runs frames until `label` shows (some things come by the event stream, looked for every
/// second).
pub fn wait_for_label(h: &mut Harness<'static, Ide>, label: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.query_by_label_contains(label).is_none() {
        assert!(Instant::now() < deadline, "{label:?} did not show");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Quick-open's field.
pub const FIND: &str = "Find class or selector (Ctrl+K)";

/// Types `text` into quick-open: what matches is listed as it is typed, one round trip.
pub fn find(h: &mut Harness<'static, Ide>, text: &str) {
    gesture(h, "find", |h| h.get_by_label(FIND).set_text_value_accesskit(text));
}

/// Runs `act`, which sends nothing: a gesture the IDE answers without the gem.
pub fn local(h: &mut Harness<'static, Ide>, act: impl FnOnce(&mut Harness<'static, Ide>)) {
    let before = h.state().link().batches_sent();
    act(h);
    h.run_steps(3);
    assert_eq!(h.state().link().batches_sent(), before, "a local gesture sent a batch");
}

/// Clicks `label`, which sends nothing.
pub fn local_click(h: &mut Harness<'static, Ide>, label: &str) {
    local(h, |h| h.get_by_label(label).click());
}

/// Opens the context menu of the row (or field) labelled `label`: the last so labelled (a
/// tab of the same title comes before the lists).
pub fn context_menu(h: &mut Harness<'static, Ide>, label: &str) {
    h.get_all_by_label(label).last().unwrap_or_else(|| panic!("{label} is shown")).click_secondary();
    h.run_steps(3);
}

/// Turns the mouse wheel ten pages down over `at`, then runs a frame.
pub fn wheel_down(h: &mut Harness<'static, Ide>, at: egui::Pos2) {
    wheel(h, at, egui::MouseWheelUnit::Page, -10.0);
    h.step();
}

/// Turns the mouse wheel over `at` by `delta` units (negative: down).
fn wheel(h: &mut Harness<'static, Ide>, at: egui::Pos2, unit: egui::MouseWheelUnit, delta: f32) {
    h.hover_at(at);
    h.event(egui::Event::MouseWheel {
        unit,
        delta: egui::vec2(0.0, delta),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: egui::Modifiers::NONE,
    });
}

/// Puts `code` in the workspace, selects it all, and presses Ctrl+`key`: one round trip.
pub fn evaluate_with(h: &mut Harness<'static, Ide>, code: &str, key: egui::Key) {
    h.get_by_label("Code").set_text_value_accesskit(code);
    h.run_steps(2);
    gesture(h, code, |h| {
        h.get_by_label("Code").focus();
        h.run_steps(1);
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        h.run_steps(1);
        h.key_press_modifiers(egui::Modifiers::COMMAND, key);
    });
}
