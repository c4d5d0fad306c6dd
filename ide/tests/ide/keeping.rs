//! Nothing lost and nothing stale: a closed workspace comes back, a restart finds the tabs and
//! their text, closing over uncommitted changes asks, and the panes show what an abort, a
//! commit of others or a doit changed.

use std::collections::HashMap;

use std::sync::Mutex;

use onyx_ide::gems::Gems;
use onyx_ide::layout;

use super::*;

/// A store for what eframe keeps between runs, in memory (eframe's own writes it to a file).
#[derive(Default)]
struct Kept(HashMap<String, String>);

impl eframe::Storage for Kept {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }

    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), value);
    }

    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }

    fn flush(&mut self) {}
}

/// Clicks the close button of the tab nearest the right of the last tab titled `title`.
fn close_tab(h: &mut Harness<'static, Ide>, title: &str) {
    let right = h.get_all_by_label(title).map(|t| t.rect().right()).fold(f32::MIN, f32::max);
    let close = h.get_all_by_label("Close").min_by_key(|c| (c.rect().left() - right).abs() as i64);
    close.expect("the tab has a close button").click();
    h.run_steps(3);
}

fn code(h: &Harness<'static, Ide>) -> String {
    h.get_by_label("Code").value().unwrap_or_default()
}

#[test]
fn a_closed_workspace_comes_back_and_a_restart_finds_the_tabs_and_their_text() {
    let (dir, server) = server();
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("'the first workspace'");
    h.run_steps(2);
    h.get_by_label("New workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("'the second workspace'");
    h.run_steps(2);
    // Closed, it is in the list of closed workspaces, and comes back from it.
    close_tab(&mut h, "Workspace");
    assert_eq!(h.query_all_by_label("Workspace").count(), 1, "one workspace left");
    assert_eq!(h.state().closed_workspaces().len(), 1);
    h.get_by_label("Closed workspaces").click();
    h.run_steps(2);
    h.get_by_label("'the second workspace'").click();
    h.run_steps(3);
    assert_eq!(code(&h), "'the second workspace'", "opened again with its text");
    assert!(h.state().closed_workspaces().is_empty());
    // Ctrl+Shift+T brings back the last one closed.
    close_tab(&mut h, "Workspace");
    h.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::T);
    h.run_steps(3);
    assert_eq!(code(&h), "'the second workspace'");
    // A browser on a method, and a workspace closed for good: then the IDE and its server stop.
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: Some("answer".into()) });
    settle(&mut h);
    h.state_mut().show(&Show::Help);
    gesture(&mut h, "open the test runner", |h| h.get_by_label("Test runner").click());
    h.get_by_label("New workspace").click();
    h.run_steps(2);
    h.get_by_label("Code").set_text_value_accesskit("'closed before the restart'");
    h.run_steps(2);
    close_tab(&mut h, "Workspace");
    let mut kept = Kept::default();
    eframe::set_value(&mut kept, layout::KEY, &h.state().layout());
    drop(h);
    server.stop().expect("stops");
    // Started again on the same repository, it shows the same tabs with the same text.
    let server = Embedded::start(dir.path(), Setup::default(), "DataCurator", "swordfish").expect("starts again");
    // Read back from the file as eframe writes it (a RON map of each key to its value's RON),
    // as the program does before it makes the window.
    let file = dir.path().join("ide.ron");
    std::fs::write(&file, ron::ser::to_string_pretty(&kept.0, Default::default()).expect("RON")).expect("written");
    let layout = layout::read(&file).expect("the layout was kept");
    let mut h = harness_of(Ide::restored(link(&server.gem), layout));
    for title in ["System Browser", "Transcript", "Probe>>answer", "Test Runner"] {
        assert_eq!(h.query_all_by_label(title).count(), 1, "{title}: one tab");
    }
    assert_eq!(h.query_all_by_label("Help").count(), 2, "the Help menu, and the help's tab");
    h.get_by_label("Probe>>answer").click();
    h.run_steps(3);
    assert!(h.get_by_label("Method").value().unwrap_or_default().contains("^ 42"), "the method is shown again");
    let mut texts = Vec::new();
    for i in 0..2 {
        h.get_all_by_label("Workspace").nth(i).expect("two workspaces").click();
        h.run_steps(3);
        texts.push(code(&h));
    }
    texts.sort();
    assert_eq!(texts, ["'the first workspace'", "'the second workspace'"]);
    assert_eq!(h.state().closed_workspaces().len(), 1, "the closed workspace too");
    assert_eq!(h.state().closed_workspaces()[0].text, "'closed before the restart'");
}

#[test]
fn closing_over_uncommitted_changes_asks_commit_abort_or_cancel() {
    let (_dir, mut server) = server();
    let other = server.add_gem().expect("another gem");
    let mut h = harness(&server.gem);
    // Browsing changes nothing (the kernel makes nothing of its own at first use).
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: Some("answer".into()) });
    settle(&mut h);
    h.get_by_label("nothing to commit");
    assert!(h.state_mut().may_close(), "nothing to commit: it closes at once");
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    evaluate_with(&mut h, "UserGlobals at: #Draft put: 1", egui::Key::D);
    h.get_by_label("uncommitted changes");
    // Cancel: the window stays, and the transaction with it.
    assert!(!h.state_mut().may_close());
    h.run_steps(2);
    h.get_by_label_contains("Commit them before closing, or abort them?");
    local_click(&mut h, "Cancel");
    assert!(h.query_by_label_contains("Commit them before closing").is_none(), "the question is gone");
    assert!(!h.state().wants_close());
    h.get_by_label("uncommitted changes");
    // Abort and close: the change is gone.
    assert!(!h.state_mut().may_close());
    h.run_steps(2);
    gesture(&mut h, "abort and close", |h| h.get_by_label("Abort and close").click());
    assert!(h.state().wants_close() && h.state_mut().may_close(), "it closes once aborted");
    assert_eq!(run(&server.gem, "UserGlobals at: #Draft ifAbsent: [#none]"), "#none");
    // Commit and close: another gem sees the change.
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    evaluate_with(&mut h, "UserGlobals at: #Draft put: 2", egui::Key::D);
    assert!(!h.state_mut().may_close());
    h.run_steps(2);
    gesture(&mut h, "commit and close", |h| h.get_by_label("Commit and close").click());
    assert!(h.state().wants_close(), "it closes once committed");
    assert_eq!(run(&other, "System abortTransaction. UserGlobals at: #Draft"), "2");
}

#[test]
fn the_panes_show_what_an_abort_a_commit_of_others_and_a_doit_changed() {
    let (_dir, mut server) = server();
    let other = server.add_gem().expect("another gem");
    let mut h = harness(&server.gem);
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: None });
    settle(&mut h);
    h.get_by_label("answer");
    run(&other, "Probe compile: 'added\n\t^ 1' classified: #accessing. System commitTransaction");
    wait_for_label(&mut h, "Others have committed since this view");
    assert!(h.query_by_label("added").is_none(), "not in this view yet");
    // Abort: both browsers read again, one batch each, and the method shows.
    assert_eq!(refreshed(&mut h, "abort", |h| h.get_by_label("Abort").click()), 2);
    h.get_by_label("added");
    // A doit that changes nothing persistent leaves the browsers alone.
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    let before = h.state().refreshes_sent();
    evaluate_with(&mut h, "3 + 4", egui::Key::P);
    assert_eq!(h.state().refreshes_sent(), before, "nothing to read again");
    // A doit that defines a class: the browsers read again, and the class is listed.
    evaluate_with(
        &mut h,
        "Object subclass: #Widget instanceVariableNames: '' classVariableNames: '' package: 'Probes'",
        egui::Key::D,
    );
    assert_eq!(h.state().refreshes_sent() - before, 2, "one batch per browser");
    h.get_by_label("Probe").click();
    h.run_steps(3);
    h.get_by_label("Widget");
}

#[test]
fn the_inspector_reads_its_fields_after_an_evaluation_and_the_sessions_list_itself() {
    let (_dir, mut server) = server();
    let mut h = harness(&server.gem);
    h.get_by_label("Workspace").click();
    h.run_steps(2);
    evaluate_with(&mut h, "Probe new", egui::Key::I);
    h.get_by_label("Inspector: a Probe");
    assert_eq!(h.query_all_by_label("95").count(), 0);
    h.get_by_label("Evaluate with self bound to this object").set_text_value_accesskit("a := 95. 100");
    h.run_steps(2);
    gesture(&mut h, "print it with self", |h| h.get_by_label("Print it").click());
    h.get_by_label("100");
    h.get_by_label("95");
    // The sessions list follows gems logging in, by itself.
    gesture(&mut h, "sessions", |h| h.get_by_label("Sessions").click());
    let gems = session_rows(&h);
    assert!(gems >= 1, "this gem is listed");
    server.add_gem().expect("another gem");
    let deadline = Instant::now() + Duration::from_secs(20);
    while session_rows(&h) <= gems {
        assert!(Instant::now() < deadline, "the new gem was not listed");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The sessions pane's rows: one per session, each saying how far behind its view is.
fn session_rows(h: &Harness<'static, Ide>) -> usize {
    h.query_all_by_label("view current").count() + h.query_all_by_label_contains("behind").count()
}

#[test]
fn the_sessions_pane_starts_a_gem_on_the_embedded_stone_that_serves_and_is_listed() {
    let (_dir, server) = server();
    let gem = server.gem.clone();
    let servers = Arc::new(Mutex::new(server));
    let starter = Arc::clone(&servers);
    let gems = Gems::new(Arc::new(move || starter.lock().expect("the servers").add_gem().map_err(|e| e.to_string())));
    let mut h = harness_on(link(&gem).with_gems(gems));
    gesture(&mut h, "sessions", |h| h.get_by_label("Sessions").click());
    let listed = session_rows(&h);
    // Starting one asks nothing of this IDE's gem; the window goes on while it logs in.
    local(&mut h, |h| h.get_by_label("Start a gem").click());
    let deadline = Instant::now() + Duration::from_secs(20);
    let command = loop {
        assert!(Instant::now() < deadline, "the gem did not start, or was not listed");
        h.step();
        let command = h
            .query_by_label_contains("onyx-ide --connect ")
            .and_then(|n| n.accesskit_node().value().map(|v| v.to_string()));
        if let Some(command) = command
            && session_rows(&h) > listed
        {
            break command;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Its agent serves: a doit runs in it.
    let address = command.trim_start_matches("onyx-ide --connect ");
    assert_eq!(run(address, "3 + 4"), "7");
}
