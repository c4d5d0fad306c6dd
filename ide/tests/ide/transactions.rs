//! The transaction bar: commits, conflicts with other sessions, auto-commit.

use super::*;

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
fn with_auto_commit_on_each_gesture_commits_and_others_see_it() {
    let (_dir, mut server) = server();
    let other = server.add_gem().expect("another gem");
    let mut h = harness(&server.gem);
    gesture(&mut h, "auto-commit on", |h| h.get_by_label("Auto-commit").click());
    let on = h.get_by_label("Auto-commit").accesskit_node().toggled();
    assert_eq!(on, Some(egui::accesskit::Toggled::True), "the bar shows auto-commit on");
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("(UserGlobals at: #Shared) at: 1 put: 7");
    h.run_steps(2);
    gesture(&mut h, "do it", |h| h.get_by_label("Do it (Ctrl+D)").click());
    h.get_by_label("committed");
    assert_eq!(run(&other, "System abortTransaction. (UserGlobals at: #Shared) at: 1"), "7");
    // What another gem commits shows after the next gesture's commit moved the view, in every
    // pane (one batch each), with no abort.
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: None });
    settle(&mut h);
    run(&other, "Probe compile: 'fromOther\n\t^ 1' classified: #accessing. System commitTransaction");
    let refreshed = refreshed(&mut h, "select protocol", |h| h.get_by_label("accessing").click());
    assert!(refreshed >= 2, "both browsers read again: {refreshed}");
    h.get_by_label("fromOther");
}
