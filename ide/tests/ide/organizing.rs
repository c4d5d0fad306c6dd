//! Organising code as Calypso does, one round trip per gesture: protocols added, renamed and
//! removed from their context menu, methods moved by menu and by dragging one onto a
//! protocol, class comments edited and accepted, the class definition one keyword to a line,
//! and the code's context menu.

use super::*;

/// The protocol `Probe>>selector` is in, as the gem says.
fn protocol_of(gem: &str, selector: &str) -> String {
    run(gem, &format!("(Probe >> #{selector}) protocol"))
}

/// Answers a question for a name with `name`: one round trip.
fn name_it(h: &mut Harness<'static, Ide>, question: &str, name: &str) {
    h.get_by_label(question).set_text_value_accesskit(name);
    h.run_steps(2);
    gesture(h, question, |h| h.get_by_label("OK").click());
}

#[test]
fn protocols_are_added_renamed_and_removed_and_methods_moved_by_menu_and_by_dragging() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: None });
    settle(&mut h);
    // A new protocol, from a protocol's menu: it is listed while it holds no method.
    context_menu(&mut h, "accessing");
    local_click(&mut h, "New protocol...");
    name_it(&mut h, "Name of the new protocol", "testing");
    h.get_by_label("testing");
    assert!(h.query_by_label("answer").is_none(), "it holds no method");
    gesture(&mut h, "every protocol", |h| h.get_by_label("-- all --").click());
    // The method dragged onto it moves there.
    let from = h.get_by_label("answer").rect().center();
    let to = h.get_by_label("testing").rect().center();
    gesture(&mut h, "drag a method onto a protocol", |h| {
        h.drag_at(from);
        h.run_steps(2);
        for step in 1..=5 {
            h.hover_at(from + (to - from) * (step as f32 / 5.0));
            h.run_steps(1);
        }
        h.drop_at(to);
    });
    assert_eq!(protocol_of(&server.gem, "answer"), "#testing");
    assert!(h.query_by_label("accessing").is_none(), "a protocol with no method left is gone");
    // Renamed: its methods go with it.
    context_menu(&mut h, "testing");
    local_click(&mut h, "Rename...");
    name_it(&mut h, "New name of the protocol", "checking");
    assert_eq!(protocol_of(&server.gem, "answer"), "#checking");
    assert!(h.query_by_label("testing").is_none());
    // Moved by the method's menu to a protocol named there.
    context_menu(&mut h, "answer");
    local_click(&mut h, "Move to protocol");
    local_click(&mut h, "New protocol...");
    name_it(&mut h, "Name of the new protocol", "accessing");
    assert_eq!(protocol_of(&server.gem, "answer"), "#accessing");
    // A protocol named by hand stays while empty, until removed (after asking).
    h.get_by_label("checking");
    context_menu(&mut h, "checking");
    local_click(&mut h, "Remove...");
    h.get_by_label("Remove the protocol checking?");
    local_click(&mut h, "Cancel");
    h.get_by_label("checking");
    context_menu(&mut h, "checking");
    local_click(&mut h, "Remove...");
    gesture(&mut h, "remove a protocol", |h| h.get_by_label("Remove").click());
    assert!(h.query_by_label("checking").is_none(), "removed");
    // Removing a protocol that holds methods moves them to "as yet unclassified".
    context_menu(&mut h, "accessing");
    local_click(&mut h, "Remove...");
    h.get_by_label("Its methods go to 'as yet unclassified'.");
    gesture(&mut h, "remove a protocol with a method", |h| h.get_by_label("Remove").click());
    assert_eq!(protocol_of(&server.gem, "answer"), "#'as yet unclassified'");
    h.get_by_label("as yet unclassified");
    // Everything is in the transaction until committed, and survives it.
    gesture(&mut h, "commit", |h| h.get_by_label("Commit").click());
    assert_eq!(run(&server.gem, "System abortTransaction. (Probe >> #answer) protocol"), "#'as yet unclassified'");
}

#[test]
fn a_class_comment_is_edited_and_accepted_and_the_definition_is_one_keyword_to_a_line() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: None });
    settle(&mut h);
    assert_eq!(
        h.get_by_label("Class definition").value().as_deref(),
        Some("Object subclass: #Probe\n\tinstanceVariableNames: 'a b'\n\tclassVariableNames: ''\n\tpackage: 'Probes'"),
    );
    local_click(&mut h, "Comment");
    let comment = "I probe.\n\tI answer 42, \"always\".";
    h.get_by_label("Class comment").set_text_value_accesskit(comment);
    h.run_steps(2);
    gesture(&mut h, "accept a comment", |h| h.get_by_label("Accept (Ctrl+S)").click());
    assert!(h.query_by_label("Class comment (edited)").is_none(), "accepted");
    assert_eq!(run(&server.gem, "Probe comment"), format!("'{}'", comment.replace('\'', "''")));
    // A new class's template shows no comment of the class chosen before.
    local_click(&mut h, "New class");
    assert!(h.query_by_label("Class comment").is_none(), "no comment with a new class's template");
    let template = h.get_by_label("Class definition").value().unwrap_or_default();
    assert!(template.starts_with("Object subclass: #NameOfSubclass") && !template.contains("I probe."), "{template}");
    // The comment is read again with the class.
    gesture(&mut h, "select class", |h| h.get_by_label("Probe").click());
    local_click(&mut h, "Comment");
    assert_eq!(h.get_by_label("Class comment").value().as_deref(), Some(comment));
}

#[test]
fn the_code_and_the_lists_have_context_menus_that_browse() {
    let (_dir, server) = server();
    run(&server.gem, "Probe compile: 'twice\n\t^ self answer * 2' classified: #accessing. System commitTransaction");
    let mut h = harness(&server.gem);
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: Some("twice".into()) });
    settle(&mut h);
    // The class's menu: references, in one round trip.
    context_menu(&mut h, "Probe");
    // (The tool bar has a button of the same name.)
    gesture(&mut h, "references from the menu", |h| h.get_all_by_label("References").last().expect("listed").click());
    h.get_by_label("References to Probe");
    local(&mut h, |h| h.get_by_label("Probe>>twice").click());
    // The method's menu: senders.
    context_menu(&mut h, "answer");
    gesture(&mut h, "senders from the menu", |h| h.get_by_label("Senders").click());
    h.get_by_label("Senders of #answer");
    assert_eq!(h.query_all_by_label("Probe>>twice").count(), 2, "the browser's tab, and the sender");
    // The code's menu, on the name at the cursor: the implementors of answer.
    local(&mut h, |h| h.get_all_by_label("Probe>>twice").next().expect("the browser's tab").click());
    h.get_by_label("Method").set_text_value_accesskit("twice\n\t^ self answer");
    h.run_steps(2);
    h.get_by_label("Method (edited)").focus();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::CTRL, egui::Key::End);
    h.run_steps(1);
    h.get_by_label("Method (edited)").click_secondary();
    h.run_steps(3);
    gesture(&mut h, "implementors from the code", |h| h.get_by_label("Implementors of #answer").click());
    h.get_by_label("Implementors of #answer");
}

#[test]
fn a_class_is_renamed_with_the_methods_that_name_it_or_not_at_all() {
    let (_dir, mut server) = server();
    run(
        &server.gem,
        "SubProbe compile: 'twice\n\t\"Twice a Probe''s answer.\"\n\t^ Probe new answer * 2 + (#(Probe) size - 1)' \
         classified: #accessing. Probe class compile: 'named\n\t^ ''Probe'', Probe name' classified: #naming. \
         System commitTransaction",
    );
    let mut h = harness(&server.gem);
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: None });
    settle(&mut h);
    // A name that is taken: said, and nothing changes.
    context_menu(&mut h, "Probe");
    local_click(&mut h, "Rename...");
    name_it(&mut h, "New name of the class", "SubProbe");
    h.get_by_label_contains("SubProbe is taken");
    assert_eq!(run(&server.gem, "Probe new answer"), "42");
    // Renamed: the class, and the methods that name it (not the strings, comments, symbols).
    context_menu(&mut h, "Probe");
    local_click(&mut h, "Rename...");
    name_it(&mut h, "New name of the class", "Sensor");
    assert_eq!(h.query_all_by_label("Sensor").count(), 2, "the tab, and the class chosen in its list");
    assert!(h.get_by_label("Class definition").value().unwrap_or_default().starts_with("Object subclass: #Sensor"));
    assert_eq!(run(&server.gem, "Smalltalk includesKey: #Probe"), "false");
    assert_eq!(run(&server.gem, "SubProbe new twice"), "84");
    assert_eq!(run(&server.gem, "SubProbe superclass name"), "#Sensor");
    assert_eq!(
        run(&server.gem, "(SubProbe >> #twice) sourceCode"),
        "'twice\n\t\"Twice a Probe''s answer.\"\n\t^ Sensor new answer * 2 + (#(Probe) size - 1)'"
    );
    assert_eq!(run(&server.gem, "Sensor named"), "'ProbeSensor'");
    // Another gem sees it all once committed: the methods compile from their new source.
    gesture(&mut h, "commit", |h| h.get_by_label("Commit").click());
    let other = server.add_gem().expect("another gem");
    assert_eq!(run(&other, "SubProbe new twice + Sensor new answer"), "126");
}

#[test]
fn malformed_organizing_requests_are_refused_with_a_message_and_change_nothing() {
    let (_dir, server) = server();
    let mut link = link(&server.gem);
    let class = |name: &str| Some(pb::ClassRef { class_name: name.into(), meta: false });
    let protocol = |name: &str, protocol: &str| pb::ProtocolRef { class: class(name), protocol: protocol.into() };
    let rename = |from: &str, to: &str| Op::RenameClass(pb::RenameClass { from: from.into(), to: to.into() });
    let refused = [
        Op::AddProtocol(protocol("NoSuchClass", "tools")),
        Op::AddProtocol(protocol("Probe", "")),
        Op::RenameProtocol(pb::RenameProtocol { class: class("Probe"), from: "absent".into(), to: "other".into() }),
        Op::RenameProtocol(pb::RenameProtocol { class: class("Probe"), from: "accessing".into(), to: "".into() }),
        Op::RemoveProtocol(protocol("Probe", "absent")),
        Op::MoveMethods(pb::MoveMethods {
            class: class("Probe"),
            selectors: vec!["noSuchSelector".into()],
            protocol: "accessing".into(),
        }),
        Op::SetComment(pb::ClassComment { class_name: "NoSuchClass".into(), comment: "c".into() }),
        rename("Probe", ""),
        rename("Probe", "3abc"),
        rename("Probe", "two words"),
        rename("Probe", "lowercase"),
        rename("NoSuchClass", "Other"),
        Op::RunTests(pb::RunTests {
            tests: vec![pb::TestRef { class_name: "NoSuchClass".into(), selector: String::new() }],
            package: String::new(),
        }),
    ];
    for op in refused {
        let shown = format!("{op:?}");
        match execute(&mut link, vec![op]).as_slice() {
            [Outcome::Error(e)] => assert!(!e.message.is_empty(), "{shown}: an empty message"),
            other => panic!("{shown} was not refused: {other:?}"),
        }
    }
    // Nothing changed.
    assert_eq!(run(&server.gem, "Probe new answer"), "42");
    assert_eq!(run(&server.gem, "(Probe >> #answer) protocol"), "#accessing");
    assert_eq!(run(&server.gem, "Probe comment isNil or: [Probe comment isEmpty]"), "true");
    // Any character is kept as written.
    let comment = Op::SetComment(pb::ClassComment { class_name: "Probe".into(), comment: "a snowman \u{2603}".into() });
    assert!(!matches!(execute(&mut link, vec![comment]).as_slice(), [Outcome::Error(_)]));
    assert_eq!(run(&server.gem, "Probe comment"), "'a snowman \u{2603}'");
}
