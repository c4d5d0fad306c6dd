//! Workspaces, the transcript and inspectors.

use super::*;

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
    click_in_sight(&mut h, "Probes");
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
    // The interrupted process is kept: its notifier offers to debug it.
    assert!(h.query_all_by_label_contains("interrupted").count() >= 1);
    h.get_by_label("Debug");
}

#[test]
fn the_workspace_keys_an_error_with_its_stack_and_the_live_transcript() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    evaluate_with(&mut h, "3 + 4", egui::Key::P);
    assert_eq!(h.get_by_label("Code").value().as_deref(), Some("3 + 4 7"));
    // An error: its message, and the Smalltalk stack.
    evaluate_with(&mut h, "#(1 2) at: 3", egui::Key::D);
    h.get_by_label_contains("Index out of bounds: 3");
    assert!(h.query_all_by_label_contains("(line ").count() >= 1, "the stack's frames are shown");
    // What code writes to the Transcript shows there, by the event stream.
    evaluate_with(&mut h, "Transcript show: 'written by a doit'; cr", egui::Key::D);
    h.get_by_label("Transcript").click();
    wait_for_label(&mut h, "written by a doit");
    // Inspect it opens an inspector, even when another tab was chosen while it ran.
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("(Delay forMilliseconds: 300) wait. 3 @ 4");
    h.run_steps(2);
    h.get_by_label("Inspect it (Ctrl+I)").click();
    h.run_steps(2);
    h.get_all_by_label("Transcript").last().expect("the transcript's tab").click();
    settle(&mut h);
    h.get_by_label("a Point");
}

#[test]
fn the_inspector_pages_jumps_drills_in_by_double_click_goes_back_and_evaluates_with_self() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    evaluate_with(&mut h, "(1 to: 250) collect: [:i | i @ (i * 2)]", egui::Key::I);
    h.get_by_label("an Array");
    h.get_by_label("1-100 of 250");
    assert!(h.query_by_label("(1@2)").is_some() && h.query_by_label("(101@202)").is_none());
    gesture(&mut h, "next page", |h| h.get_by_label("Next >").click());
    h.get_by_label("101-200 of 250");
    h.get_by_label("(101@202)");
    h.get_by_label("Index").set_text_value_accesskit("240");
    h.run_steps(2);
    gesture(&mut h, "jump", |h| h.get_by_label("Go").click());
    h.get_by_label("240-250 of 250");
    // Drill in by double-click; the breadcrumb leads back. (Half a second first, so that the
    // click on Go does not make the double-click a triple one.)
    h.run_steps(30);
    gesture(&mut h, "drill in", |h| {
        h.get_by_label("(245@490)").click();
        h.step();
        h.get_by_label("(245@490)").click();
    });
    h.get_by_label("a Point");
    h.get_by_label("y");
    let label = "Evaluate with self bound to this object";
    h.get_by_label(label).set_text_value_accesskit("self y - self x + 1000");
    h.run_steps(2);
    gesture(&mut h, "print it with self", |h| h.get_by_label("Print it").click());
    h.get_by_label("1245");
    let back = |h: &mut Harness<'static, Ide>| {
        let first = h.get_all_by_role(egui::accesskit::Role::Link).next().expect("the breadcrumb");
        first.click();
    };
    gesture(&mut h, "back", back);
    h.get_by_label("an Array");
    h.get_by_label("1-100 of 250");
    // Closing it releases, in one batch, the objects the gem kept for it.
    gesture(&mut h, "close the inspector", |h| {
        let tab = h.get_by_label_contains("Inspector:");
        let right = tab.rect().right();
        let close = h.get_all_by_label("Close").min_by_key(|c| (c.rect().left() - right).abs() as i64);
        close.expect("the inspector's tab has a close button").click();
    });
    assert!(h.query_by_label_contains("Inspector:").is_none(), "closed");
}
