//! The IDE driven through real gestures (egui_kittest) against a stone and a gem embedded in
//! the test: browsing to a method, editing and accepting it, a compile error at its position,
//! print it, inspect it and drilling in, commit, a conflict with another session, and an
//! endless loop interrupted. Each gesture that needs the server sends exactly one batch.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

use std::sync::Arc;
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use onyx_ide::{Ide, Link};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_server_agent::cli::Setup;
use onyx_server_agent::embedded::Embedded;

/// A repository with a class `Probe` (package `Probes`, method `answer ^ 42` in `accessing`),
/// served in this process.
fn server() -> (tempfile::TempDir, Embedded) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let embedded = Embedded::start(dir.path(), Setup::default()).expect("the embedded server starts");
    let link = link(&embedded.gem);
    run(
        &link,
        "Object subclass: #Probe instanceVariableNames: 'a b' classVariableNames: '' package: 'Probes'. \
         Probe compile: 'answer\n\t^ 42' classified: #accessing. \
         UserGlobals at: #Shared put: (Array with: 0). System commitTransaction",
    );
    drop(link);
    (dir, embedded)
}

fn link(gem: &str) -> Link {
    Link::connect(gem, "DataCurator", "swordfish", Arc::new(|| {})).expect("logs in")
}

/// Evaluates `code` through a link of its own and answers the printString.
fn run(link: &Link, code: &str) -> String {
    let mut link = Link::connect(&link.address, "DataCurator", "swordfish", Arc::new(|| {})).expect("logs in");
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
    h.get_by_label("a Array");
    gesture(&mut h, "drill in", |h| h.get_by_label("> 1").click());
    h.get_by_label("a Point");
    h.get_by_label("x");
    // Commit.
    gesture(&mut h, "commit", |h| h.get_by_label("Commit").click());
    h.get_by_label("committed");
    assert_eq!(run(h.state().link(), "Probe new answer"), "42");
}
