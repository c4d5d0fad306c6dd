//! The debugger, the notifier, the process browser and the object log, one round trip per
//! gesture.

use super::*;

/// `Probe>>count`, which halts, then does three statements and answers.
const COUNT: &str = "count\n\t| a b |\n\tself halt.\n\ta := 3 + 4.\n\tb := OrderedCollection with: a.\n\ta := a * b size.\n\t^ a printString";

/// The same without the halt, answering another value: what edit and continue accepts.
const EDITED: &str = "count\n\t| a b |\n\ta := 3 + 4.\n\tb := OrderedCollection with: a.\n\t^ (a * 1000) printString";

fn with_count(server: &Embedded) {
    run(&server.gem, &format!("Probe compile: '{COUNT}' classified: #demo. System commitTransaction"));
}

/// Does `code` in the workspace (Do it): one round trip.
fn do_it(h: &mut Harness<'static, Ide>, code: &str) {
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    evaluate_with(h, code, egui::Key::D);
}

/// The source the debugger shows.
fn source(h: &Harness<'static, Ide>) -> String {
    let node = h.query_by_label("Source").or_else(|| h.query_by_label("Source (edited)")).expect("the source");
    node.value().unwrap_or_default()
}

#[test]
fn a_doit_halts_debug_steps_over_inspects_evaluates_in_the_frame_edits_continues_and_proceeds() {
    let (_dir, server) = server();
    with_count(&server);
    let mut h = harness(&server.gem);
    do_it(&mut h, "Probe new count");
    // The notifier: what stopped it, its top frames, and the three choices.
    h.get_by_label_contains("Probe>>count");
    for choice in ["Proceed", "Abandon"] {
        h.get_by_label(choice);
    }
    gesture(&mut h, "debug", |h| h.get_by_label("Debug").click());
    h.get_by_label_contains("halt");
    assert_eq!(source(&h), COUNT, "the frame's method, byte for byte");
    h.get_by_label_contains("Stack (");
    // Three steps over: a button, the key shown on it, the button again.
    gesture(&mut h, "over", |h| h.get_by_label("Over (F10)").click());
    gesture(&mut h, "over by its key", |h| h.key_press(egui::Key::F10));
    gesture(&mut h, "over", |h| h.get_by_label("Over (F10)").click());
    h.get_by_label("an OrderedCollection(7)");
    assert!(h.query_all_by_label("7").count() >= 1, "a is 7");
    // A variable, inspected.
    gesture(&mut h, "inspect a variable", |h| h.get_by_label("b").click());
    h.get_by_label("Inspector: an OrderedCollection(7)");
    h.get_all_by_label_contains("Debugger").next().expect("the debugger's tab").click();
    h.run_steps(2);
    // An evaluation in the frame, whose assignment the frame sees.
    h.get_by_label("Evaluate in this frame").set_text_value_accesskit("a := 100. a + 1");
    h.run_steps(2);
    gesture(&mut h, "evaluate in the frame", |h| h.get_by_label("Print it in the frame").click());
    h.get_by_label("101");
    assert!(h.query_all_by_label("100").count() >= 1, "the frame's a is 100");
    // An edit that does not compile keeps the edit, and says where.
    let broken = "count\n\t^ (";
    h.get_by_label("Source").set_text_value_accesskit(broken);
    h.run_steps(2);
    gesture(&mut h, "accept an error", |h| h.get_by_label("Accept (Ctrl+S)").click());
    assert_eq!(source(&h), broken, "the edit is kept");
    // No step goes over the edit: it is accepted or discarded first.
    let before = h.state().link().batches_sent();
    h.get_by_label("Over (F10)").click();
    h.run_steps(3);
    assert_eq!(h.state().link().batches_sent(), before, "nothing is sent over an unaccepted edit");
    h.get_by_label_contains("This code has edits that are not accepted");
    // Edit and continue: the frame restarts in the new method.
    h.get_by_label("Source (edited)").set_text_value_accesskit(EDITED);
    h.run_steps(2);
    gesture(&mut h, "accept and continue", |h| h.get_by_label("Accept (Ctrl+S)").click());
    h.get_by_label_contains("accepted: the frame restarted");
    assert_eq!(source(&h), EDITED);
    let op = Op::MethodSource(pb::MethodRef {
        class: Some(pb::ClassRef { class_name: "Probe".into(), meta: false }),
        selector: "count".into(),
    });
    match execute(&mut link(&server.gem), vec![op]).pop() {
        Some(Outcome::MethodSource(m)) => assert_eq!(m.source, EDITED, "the class holds the edit"),
        other => panic!("{other:?}"),
    }
    gesture(&mut h, "proceed", |h| h.get_by_label("Proceed (F5)").click());
    h.get_by_label_contains("The process ended: it answered '7000'");
}

#[test]
fn the_notifier_proceeds_and_abandons_and_the_process_browser_debugs_and_terminates() {
    let (_dir, server) = server();
    with_count(&server);
    let mut h = harness(&server.gem);
    do_it(&mut h, "Probe new count");
    gesture(&mut h, "proceed", |h| h.get_by_label("Proceed").click());
    h.get_by_label_contains("proceeded: it answered '7'");
    do_it(&mut h, "Probe new count");
    gesture(&mut h, "abandon", |h| h.get_by_label("Abandon").click());
    h.get_by_label_contains("abandoned");
    // Two processes stopped and kept; the browser lists them with why.
    do_it(&mut h, "#(1 2) at: 3");
    do_it(&mut h, "nil foo");
    gesture(&mut h, "processes", |h| h.get_by_label("Processes").click());
    h.get_by_label_contains("Index out of bounds: 3");
    h.get_by_label_contains("foo");
    let debug = h
        .get_all_by_label_contains("Debug ")
        .next()
        .expect("a process to debug")
        .accesskit_node()
        .label()
        .unwrap_or_default();
    let process = debug.trim_start_matches("Debug ").to_string();
    gesture(&mut h, "debug from the browser", |h| h.get_by_label(&debug).click());
    h.get_by_label_contains("Stack (");
    h.get_all_by_label("Processes").last().expect("the tab").click();
    h.run_steps(2);
    let terminate = format!("Terminate {process}");
    h.get_by_label(&terminate).click();
    // The list is read anew when the gem says the process ended.
    let deadline = Instant::now() + Duration::from_secs(10);
    while h.query_by_label(&terminate).is_some() {
        assert!(Instant::now() < deadline, "the terminated process stays listed");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(h.query_by_label(&format!("Debug {process}")).is_none());
}

#[test]
fn a_forked_process_that_fails_shows_a_notifier_that_debugs_it() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    do_it(&mut h, "[nil fooBar] fork. nil");
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.query_all_by_label_contains("fooBar").next().is_none() {
        assert!(Instant::now() < deadline, "no notifier");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    h.get_by_label_contains("Process ");
    // The object log has its report: opened, its frames and variables.
    gesture(&mut h, "processes", |h| h.get_by_label("Processes").click());
    h.get_by_label("Object log (1 entry)");
    gesture(&mut h, "open a log entry", |h| h.get_by_label_contains("UTC  DataCurator").click());
    h.get_by_label_contains("(process ");
    assert!(h.query_all_by_label_contains("fooBar").count() >= 2, "the entry's frames show");
    gesture(&mut h, "debug", |h| h.get_by_label("Debug").click());
    h.get_by_label_contains("Stack (");
    assert!(h.query_all_by_label_contains("fooBar").count() >= 1, "the error shows");
    assert!(h.query_by_label("Abandon").is_none(), "the notifier is gone");
    gesture(&mut h, "terminate", |h| h.get_by_label("Terminate (Shift+F5)").click());
    h.get_by_label_contains("The process ended");
}

#[test]
fn a_stack_overflow_opens_on_its_first_page_and_the_list_pages_as_it_scrolls() {
    let (_dir, server) = server();
    run(
        &server.gem,
        "Probe compile: 'down: n\n\tn = 0 ifTrue: [^ self halt].\n\t^ self down: n - 1' classified: #demo. \
         System commitTransaction",
    );
    let mut h = harness(&server.gem);
    do_it(&mut h, "Probe new down: 3000");
    gesture(&mut h, "debug", |h| h.get_by_label("Debug").click());
    h.get_by_label_contains("Stack (300");
    // The code editor stays on the screen.
    let editor = h.get_by_label("Source").rect();
    assert!(editor.bottom() < 900.0 && editor.height() > 60.0, "{editor:?}");
    // Scrolling far down asks for the frames come in sight: one page at a time.
    let before = h.state().link().batches_sent();
    let row = h.get_all_by_label_contains("Probe>>down:").next().expect("a frame").rect().center();
    for _ in 0..40 {
        wheel_down(&mut h, row);
        settle(&mut h);
    }
    let pages = h.state().link().batches_sent() - before;
    assert!((1..=80).contains(&pages), "{pages} pages asked for: at most two a scroll");
    // The bottom of the stack came: the doit's frame, and only the rows in view are drawn.
    h.get_by_label_contains("DoIt");
    let drawn = h.query_all_by_label_contains("Probe>>down:").count();
    assert!(drawn < 60, "{drawn} rows drawn");
}
