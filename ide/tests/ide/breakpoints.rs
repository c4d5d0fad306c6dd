//! Breakpoints from the IDE: set by a click in the margin of a method's source, shown there,
//! beside the method in the browser's list and in the breakpoint browser, disabled, enabled
//! and removed there, one round trip each; one set elsewhere shows in the margin and the list
//! within a second.

use super::*;

fn open_answer(h: &mut Harness<'static, Ide>) {
    h.state_mut().show(&Show::Browser { class: "Probe".into(), selector: Some("answer".into()) });
    settle(h);
    h.run_steps(5);
}

/// The breakpoints of the gem, as another tool sees them.
fn listed(gem: &str) -> Vec<pb::BreakpointInfo> {
    match execute(&mut link(gem), vec![Op::Breakpoints(pb::Empty {})]).remove(0) {
        Outcome::Breakpoints(l) => l.breakpoints,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_margin_sets_a_breakpoint_and_the_breakpoint_browser_disables_enables_and_removes_it() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    open_answer(&mut h);
    gesture(&mut h, "a click in the margin", |h| h.get_by_label("Set a breakpoint at line 2").click());
    h.get_by_label("Remove breakpoint 1 at line 2");
    h.get_by_label("A breakpoint in Probe>>answer");
    let set = listed(&server.gem);
    assert_eq!(set.len(), 1, "{set:?}");
    assert_eq!((set[0].class_name.as_str(), set[0].selector.as_str(), set[0].line), ("Probe", "answer", 2));

    gesture(&mut h, "the breakpoint browser", |h| h.get_by_label("Breakpoints").click());
    h.get_by_label("1 breakpoint, for the gems of the stone");
    gesture(&mut h, "disable", |h| h.get_by_label("Disable 1").click());
    h.get_by_label("Enable 1");
    assert!(!listed(&server.gem)[0].enabled);
    open_answer(&mut h);
    h.get_by_label("A disabled breakpoint in Probe>>answer");
    h.get_all_by_label("Breakpoints").last().expect("the tab").click();
    h.run_steps(3);
    gesture(&mut h, "enable", |h| h.get_by_label("Enable 1").click());
    assert!(listed(&server.gem)[0].enabled);
    gesture(&mut h, "remove", |h| h.get_by_label("Remove 1").click());
    h.get_by_label_contains("No breakpoint");
    assert!(listed(&server.gem).is_empty());
    open_answer(&mut h);
    h.get_by_label("Set a breakpoint at line 2");
    assert!(h.query_by_label_contains("breakpoint in Probe>>answer").is_none());
}

#[test]
fn a_breakpoint_set_elsewhere_shows_in_the_margin() {
    let (_dir, server) = server();
    let mut h = harness(&server.gem);
    open_answer(&mut h);
    h.get_by_label("Set a breakpoint at line 2");
    let method = Some(pb::MethodRef {
        class: Some(pb::ClassRef { class_name: "Probe".into(), meta: false }),
        selector: "answer".into(),
    });
    let set =
        pb::SetBreakpoint { method, at: Some(pb::set_breakpoint::At::Line(2)), enabled: true, ..Default::default() };
    execute(&mut link(&server.gem), vec![Op::SetBreakpoint(set)]);
    wait_for_label(&mut h, "Remove breakpoint 1 at line 2");
    h.get_by_label("A breakpoint in Probe>>answer");
}
