//! The system browser: browsing, editing and accepting, quick-open, Ctrl+B, hierarchies, and
//! long class lists.

use super::*;

#[test]
fn browse_edit_evaluate_inspect_and_commit_one_round_trip_per_gesture() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    gesture(&mut h, "select package", |h| click_in_sight(h, "Probes"));
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
    // Closing the window with edited code asks first.
    assert!(!h.state_mut().may_close(), "the window stays open");
    h.run_steps(2);
    h.get_by_label_contains("accept or discard them, then close");
    // Closing the tab with edited code asks first, and keeps it open.
    h.get_all_by_label("Close").next().expect("the browser's tab closes").click();
    h.run_steps(3);
    assert!(h.query_by_label("Method (edited)").is_some(), "the browser stayed open");
    // Leaving edited code asks first: no gesture goes out.
    let before = h.state().link().batches_sent();
    h.get_by_label("-- all --").click();
    h.run_steps(3);
    assert_eq!(h.state().link().batches_sent(), before, "nothing is sent while the edit is unaccepted");
    h.get_by_label_contains("This code has edits that are not accepted");
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
    gesture(&mut h, "implementors", |h| h.get_by_label("#answer").click());
    gesture(&mut h, "select method", |h| h.get_by_label("Probe>>answer").click());
    assert_eq!(h.get_by_label("Source").value().as_deref(), Some("answer\n\t^ 42"));
    gesture(&mut h, "sessions", |h| h.get_by_label("Sessions").click());
    h.get_by_label_contains("(this gem)");
    assert!(h.query_all_by_label("view current").count() >= 1, "the sessions' states");
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
    gesture(&mut h, "select package", |h| click_in_sight(h, "Probes"));
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
    gesture(&mut h, "select package", |h| click_in_sight(h, "Many"));
    let drawn = |h: &Harness<'static, Ide>| {
        h.query_all_by(|n| n.label().is_some_and(|l| l.starts_with("Many") && l != "Many")).count()
    };
    let shown = drawn(&h);
    assert!((5..100).contains(&shown), "{shown} of 10,000 rows drawn");
    assert!(h.query_by_label("Many9999").is_none(), "the last row is out of view");
    // The wheel over the list brings its end into view.
    let row = h.get_by_label("Many1").rect().center();
    for _ in 0..200 {
        wheel_down(&mut h, row);
        if h.query_by_label("Many9999").is_some() {
            break;
        }
    }
    h.get_by_label("Many9999");
    assert!(drawn(&h) < 100, "still only the rows in view");
}

/// Focuses the editor labelled `label` and presses Ctrl+`key`.
fn keys_in(h: &mut Harness<'static, Ide>, label: &str, key: egui::Key) {
    h.get_by_label(label).focus();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, key);
}

#[test]
fn the_browsers_gestures_define_add_remove_and_cross_reference_one_round_trip_each() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    gesture(&mut h, "select package", |h| click_in_sight(h, "Probes"));
    gesture(&mut h, "select class", |h| h.get_by_label("Probe").click());
    // The status bar tells the last gesture's cost.
    h.get_by_label_contains("select class: 1 round trip, server");
    // Accepting the definition redefines the class: what comes back is the class as it is now.
    let definition = h.get_by_label("Class definition").value().unwrap_or_default();
    assert!(definition.contains("'a b'"), "{definition}");
    h.get_by_label("Class definition").set_text_value_accesskit(&definition.replace("'a b'", "'a b c'"));
    h.run_steps(2);
    gesture(&mut h, "define class", |h| keys_in(h, "Class definition (edited)", egui::Key::S));
    assert!(h.get_by_label("Class definition").value().unwrap_or_default().contains("'a b c'"));
    // A method accepted with no protocol chosen stays in its own.
    gesture(&mut h, "select method", |h| h.get_by_label("answer").click());
    h.get_by_label("Method").set_text_value_accesskit("answer\n\t^ 41 + 1");
    h.run_steps(2);
    gesture(&mut h, "accept", |h| keys_in(h, "Method (edited)", egui::Key::S));
    h.get_by_label("accessing");
    assert!(h.query_by_label("as yet unclassified").is_none(), "the method kept its protocol");
    // The class side, and back.
    local(&mut h, |h| h.get_by_label("New method").click());
    h.run_steps(2);
    gesture(&mut h, "class side", |h| h.get_by_label("class").click());
    assert!(h.query_by_label("answer").is_none(), "answer is an instance-side method");
    gesture(&mut h, "instance side", |h| h.get_by_label("instance").click());
    h.get_by_label("answer");
    // A new method from the template, accepted with Ctrl+S.
    local(&mut h, |h| h.get_by_label("New method").click());
    h.get_by_label("Method").set_text_value_accesskit("double\n\t^ Probe new answer * 2");
    h.run_steps(2);
    gesture(&mut h, "accept", |h| keys_in(h, "Method (edited)", egui::Key::S));
    h.get_by_label("double");
    assert_eq!(run(&server.gem, "Probe new double"), "84");
    // Senders (Ctrl+N) of the method chosen: a list whose methods are edited in place.
    gesture(&mut h, "select method", |h| h.get_by_label("answer").click());
    gesture(&mut h, "senders", |h| h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::N));
    h.get_by_label("Senders of #answer");
    gesture(&mut h, "select a sender", |h| h.get_by_label("Probe>>double").click());
    h.get_by_label("Source").set_text_value_accesskit("double\n\t^ Probe new answer * 3");
    h.run_steps(2);
    gesture(&mut h, "accept in the list", |h| keys_in(h, "Source (edited)", egui::Key::S));
    h.get_by_label("accepted");
    assert_eq!(run(&server.gem, "Probe new double"), "126");
    // Implementors (Ctrl+M) and references, from the browser.
    local(&mut h, |h| h.get_by_label("Probe>>answer").click());
    gesture(&mut h, "implementors", |h| h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::M));
    h.get_by_label("Implementors of #answer");
    assert_eq!(h.query_all_by_label("Probe>>answer").count(), 2, "the browser's tab, and the one implementor");
    local(&mut h, |h| h.get_all_by_label("Probe>>answer").next().expect("the tab").click());
    gesture(&mut h, "references", |h| h.get_by_label("References").click());
    h.get_by_label("References to Probe");
    h.get_by_label("Probe>>double");
    local(&mut h, |h| h.get_by_label("Probe>>answer").click());
    // Remove a method.
    gesture(&mut h, "select method", |h| h.get_by_label("double").click());
    // Asked first: Cancel keeps it, Remove removes it.
    local(&mut h, |h| h.get_by_label("Remove method").click());
    h.get_by_label_contains("Remove the method Probe>>#double?");
    local(&mut h, |h| h.get_by_label("Cancel").click());
    assert!(h.query_by_label_contains("Remove the method").is_none(), "the question is gone");
    h.get_by_label("double");
    local(&mut h, |h| h.get_by_label("Remove method").click());
    gesture(&mut h, "remove method", |h| h.get_by_label("Remove").click());
    assert!(h.query_by_label("double").is_none(), "removed");
    // A new class, shown flat and then under its superclass; then removed.
    local(&mut h, |h| h.get_by_label("New class").click());
    let template = h.get_by_label("Class definition").value().unwrap_or_default();
    assert!(template.contains("package: 'Probes'"), "the template is in the package: {template}");
    let gadget = "Probe subclass: #Gadget instanceVariableNames: '' classVariableNames: '' package: 'Probes'";
    h.get_by_label("Class definition").set_text_value_accesskit(gadget);
    h.run_steps(2);
    gesture(&mut h, "define a class", |h| h.get_by_label("Accept (Ctrl+S)").click());
    assert_eq!(h.query_all_by_label("Gadget").count(), 2, "listed, and chosen (the tab's title)");
    local(&mut h, |h| h.get_by_label("hierarchy").click());
    h.get_by_label("    Gadget");
    gesture(&mut h, "select class", |h| h.get_by_label("    Gadget").click());
    local(&mut h, |h| h.get_by_label("Remove class").click());
    h.get_by_label_contains("Remove the class Gadget, with its methods?");
    gesture(&mut h, "remove class", |h| h.get_by_label("Remove").click());
    assert!(h.query_by_label_contains("Gadget").is_none(), "removed");
    assert_eq!(run(&server.gem, "Smalltalk includesKey: #Gadget"), "false");
}

#[test]
fn a_user_who_may_not_change_code_browses_it_read_only() {
    let (_dir, mut server) = server();
    let reader =
        pb::AddUser { user: "reader".into(), password: "secret".into(), may_change_code: false, groups: Vec::new() };
    let added = execute(&mut link(&server.gem), vec![Op::AddUser(reader), Op::CommitTransaction(pb::Empty {})]);
    assert!(matches!(&added[1], Outcome::Committed(c) if c.committed), "{added:?}");
    let readers_gem = server.add_gem_as("reader", "secret").expect("the reader's gem");
    let reader = Link::connect(&readers_gem, "reader", "secret", Arc::new(|| {})).expect("the reader logs in");
    let mut h = harness_on(reader);
    gesture(&mut h, "select package", |h| click_in_sight(h, "Probes"));
    gesture(&mut h, "select class", |h| h.get_by_label("Probe").click());
    gesture(&mut h, "select method", |h| h.get_by_label("answer").click());
    h.get_by_label("(read only: this user may not change code)");
    for button in ["New method", "Remove method", "New class", "Remove class"] {
        assert!(h.get_by_label(button).accesskit_node().is_disabled(), "{button} is disabled");
    }
    h.get_by_label("Method").set_text_value_accesskit("answer\n\t^ 0");
    h.run_steps(2);
    assert!(h.get_by_label("Accept (Ctrl+S)").accesskit_node().is_disabled());
    local(&mut h, |h| keys_in(h, "Method (edited)", egui::Key::S));
    assert_eq!(run(&server.gem, "System abortTransaction. Probe new answer"), "42");
}
