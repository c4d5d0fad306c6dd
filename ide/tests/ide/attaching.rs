//! A process of another user's gem, stopped at a breakpoint, debugged live from the IDE: the
//! Sessions pane lists it across the gems, Attach opens a debugger on that gem (one login, one
//! batch), a step and a proceed cost one batch each to that gem and none to the IDE's own,
//! and the process goes on with its work. Pause stops another gem's running process from its
//! process browser.

use super::*;

/// Gem A's work: every 10 ms, `Ticks` goes up through `Ticker>>tick:` and is committed.
const TICKER: &str =
    "Object subclass: #Ticker instanceVariableNames: '' classVariableNames: '' package: 'Tests-Attach'.
Ticker compile: 'tick: n
	| next |
	next := n + 1.
	^ next'.
Smalltalk at: #Ticks put: 0.
System commitTransaction.
[[true] whileTrue: [
	Smalltalk at: #Ticks put: (Ticker new tick: (Smalltalk at: #Ticks)).
	System commitTransaction.
	(Delay forMilliseconds: 10) wait]] forkAt: Processor userBackgroundPriority.
nil";

/// A gem of the user `worker` running the ticker; the IDE's user, DataCurator, may debug
/// others' gems. Answers the worker's gem's address.
fn workers_gem(server: &mut Embedded) -> String {
    let mut curator = link(&server.gem);
    let users = [("worker", Vec::new()), ("DataCurator", vec!["Debuggers".to_string()])];
    for (user, groups) in users {
        let password = if user == "worker" { "busy" } else { "swordfish" };
        let add = pb::AddUser { user: user.into(), password: password.into(), may_change_code: true, groups };
        let out = execute(&mut curator, vec![Op::AddUser(add), Op::CommitTransaction(pb::Empty {})]);
        assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
    }
    let gem = server.add_gem_as("worker", "busy").expect("the worker's gem starts");
    let mut worker = Link::connect(&gem, "worker", "busy", Arc::new(|| {})).expect("the worker logs in");
    let op = Op::Evaluate(pb::Evaluate { source: TICKER.into(), forget: true, ..Default::default() });
    let out = execute(&mut worker, vec![op]);
    assert!(matches!(&out[0], Outcome::Evaluated(e) if e.print_string == "nil"), "{:?}", out[0]);
    gem
}

/// The counter as the IDE's gem sees it committed.
fn ticks(gem: &str) -> u64 {
    let mut l = link(gem);
    let out = execute(
        &mut l,
        vec![
            Op::AbortTransaction(pb::Empty {}),
            Op::Evaluate(pb::Evaluate { source: "Smalltalk at: #Ticks".into(), ..Default::default() }),
        ],
    );
    match &out[1] {
        Outcome::Evaluated(e) => e.print_string.parse().expect("a number"),
        other => panic!("{other:?}"),
    }
}

/// Performs a gesture on a pane of another gem; answers how many batches it sent there, and
/// checks it sent none to the IDE's own gem (besides panes reading again what changed).
fn remote(h: &mut Harness<'static, Ide>, what: &str, act: impl FnOnce(&mut Harness<'static, Ide>)) -> u64 {
    let own = |h: &Harness<'static, Ide>| h.state().link().batches_sent() - h.state().refreshes_sent();
    let (before, other) = (own(h), h.state().batches_to_other_gems());
    act(h);
    settle(h);
    assert_eq!(own(h) - before, 0, "{what}: batches to the IDE's own gem");
    h.state().batches_to_other_gems() - other
}

/// A gesture that sends exactly one batch to another gem and none to the IDE's own.
fn remote_gesture(h: &mut Harness<'static, Ide>, what: &str, act: impl FnOnce(&mut Harness<'static, Ide>)) {
    assert_eq!(remote(h, what, act), 1, "{what}: batches to the other gem");
}

/// The first node whose label holds `text` (a tab's title shows in its tab list too).
fn shows(h: &Harness<'static, Ide>, text: &str) {
    assert!(h.query_all_by_label_contains(text).next().is_some(), "{text:?} does not show");
}

/// Runs frames until `label` shows.
fn wait_for(h: &mut Harness<'static, Ide>, label: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.query_by_label_contains(label).is_none() {
        assert!(Instant::now() < deadline, "{label:?} did not show");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_process_stopped_in_another_users_gem_is_attached_to_stepped_and_proceeded() {
    let (_dir, mut server) = server();
    let workers = workers_gem(&mut server);
    let mut h = harness(&server.gem);
    gesture(&mut h, "open the sessions", |h| h.get_by_label("Sessions").click());
    h.get_by_label("No process is suspended in any gem");

    // A breakpoint for every gem (set through the IDE's gem): the worker's loop stops there,
    // and the Sessions pane hears of it.
    let mut curator = link(&server.gem);
    let method = Some(pb::MethodRef {
        class: Some(pb::ClassRef { class_name: "Ticker".into(), meta: false }),
        selector: "tick:".into(),
    });
    let set =
        pb::SetBreakpoint { method, at: Some(pb::set_breakpoint::At::Line(3)), enabled: true, ..Default::default() };
    let out = execute(&mut curator, vec![Op::AbortTransaction(pb::Empty {}), Op::SetBreakpoint(set)]);
    let Outcome::Breakpoints(set) = &out[1] else { panic!("{:?}", out[1]) };
    let id = set.breakpoints[0].id;
    wait_for(&mut h, "Attach to ");
    h.get_by_label("1 process suspended across the gems");
    h.get_by_label("Ticker>>tick:");

    // Attach: a login to the worker's gem and one batch there; the debugger shows the stop.
    remote_gesture(&mut h, "attach", |h| h.get_by_label_contains("Attach to ").click());
    shows(&h, &format!("on {workers}"));
    h.get_by_label_contains("breakpoint: breakpoint 1 at line 3");
    remote_gesture(&mut h, "step over", |h| h.get_by_label("Over (F10)").click());
    h.get_by_label("step: ");

    // The breakpoint goes; proceeded, the loop goes on with its work.
    execute(&mut curator, vec![Op::RemoveBreakpoint(pb::BreakpointRef { id })]);
    std::thread::sleep(Duration::from_millis(1500));
    let held = ticks(&server.gem);
    remote_gesture(&mut h, "proceed", |h| h.get_by_label("Proceed (F5)").click());
    h.get_by_label_contains("goes on with its work");
    let deadline = Instant::now() + Duration::from_secs(10);
    while ticks(&server.gem) <= held {
        assert!(Instant::now() < deadline, "the loop does not go on");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn another_gems_running_process_is_paused_from_its_process_browser() {
    let (_dir, mut server) = server();
    let workers = workers_gem(&mut server);
    let mut h = harness(&server.gem);
    gesture(&mut h, "open the sessions", |h| h.get_by_label("Sessions").click());
    wait_for(&mut h, "Processes of ");
    remote_gesture(&mut h, "the other gem's processes", |h| h.get_by_label_contains("Processes of ").click());
    shows(&h, &format!("Processes on {workers}"));
    let pause = h
        .query_all_by_label_contains("Pause ")
        .find(|n| !n.accesskit_node().is_disabled())
        .expect("a process to pause");
    let label = pause.accesskit_node().label().unwrap_or_default();
    // The pause, and the process browser reading its list again once the gem says the
    // process stopped (if that comes before the frames run out).
    let sent = remote(&mut h, "pause", |h| h.get_by_label(&label).click());
    assert!((1..=2).contains(&sent), "pause: {sent} batches to the other gem");
    wait_for(&mut h, "pause: paused");
    shows(&h, &format!("Debugger: paused on {workers}"));
}
