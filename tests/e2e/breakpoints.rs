//! Breakpoints across gems: one set through gem B stops a process of gem A, which runs a
//! forked loop, within about a second, and only that process; it is listed by every gem, and
//! the stopped process in every gem's list of the stone's sessions;
//! removed through B, the process proceeded in A goes on with its work. A user who may not
//! change code sets none. `onyx break`, `onyx breakpoints` and `onyx unbreak` do the same from
//! the command line, and `onyx pause` stops a running process.

use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{
    GemProcess, add_reader, client, error, evaluate, execute, login, op, printed, repository, runtime, within_5s,
};
// Gem A's work: `Ticks` rises by one every 10 ms, through `Ticker>>tick:`.
use crate::attach::TICKER;

/// Sets a breakpoint on `Ticker>>tick:` at `line`, for `scope`.
pub(crate) fn set_breakpoint(line: u32, scope: pb::BreakpointScope) -> pb::Operation {
    op(Op::SetBreakpoint(pb::SetBreakpoint {
        method: Some(pb::MethodRef { class: crate::agent::class("Ticker"), selector: "tick:".into() }),
        at: Some(pb::set_breakpoint::At::Line(line)),
        enabled: true,
        scope: scope as i32,
        ..Default::default()
    }))
}

fn breakpoints(outcome: &Outcome) -> &[pb::BreakpointInfo] {
    match outcome {
        Outcome::Breakpoints(list) => &list.breakpoints,
        other => panic!("expected breakpoints, got {other:?}"),
    }
}

async fn ticks(agent: &mut crate::agent::Agent) -> u64 {
    let out = execute(agent, vec![evaluate("Smalltalk at: #Ticks")]).await;
    printed(&out[0]).parse().expect("a number")
}

/// The suspended processes of a gem stopped at a breakpoint.
async fn at_breakpoints(agent: &mut crate::agent::Agent) -> Vec<pb::ProcessEntry> {
    let out = execute(agent, vec![op(Op::Processes(pb::Empty {}))]).await;
    let Outcome::Processes(list) = &out[0] else { panic!("a list: {:?}", out[0]) };
    list.processes.iter().filter(|p| p.reason.starts_with("breakpoint")).cloned().collect()
}

#[test]
fn a_breakpoint_set_through_one_gem_stops_a_process_of_another_which_goes_on_once_proceeded() {
    let (_dir, stone) = repository();
    let a = GemProcess::start(&stone);
    let b = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut in_a = client(&a).await;
        let mut in_b = client(&b).await;
        let mut b_hears = in_b.events(pb::EventsRequest {}).await.expect("events").into_inner();
        let out = execute(&mut in_a, vec![evaluate(TICKER)]).await;
        assert_eq!(printed(&out[0]), "nil");
        let before = ticks(&mut in_a).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(ticks(&mut in_a).await > before, "the loop runs");

        // B sees the committed class, and sets the breakpoint for every gem.
        let out = execute(
            &mut in_b,
            vec![op(Op::AbortTransaction(pb::Empty {})), set_breakpoint(3, pb::BreakpointScope::EveryGem)],
        )
        .await;
        let set = breakpoints(&out[1]);
        assert_eq!(set.len(), 1, "{set:?}");
        let id = set[0].id;
        assert!(id != 0 && set[0].placed && set[0].line == 3, "{:?}", set[0]);
        assert_eq!((set[0].class_name.as_str(), set[0].owner.as_str()), ("Ticker", "DataCurator"));
        // A applies it within about a second: its loop stops there.
        let stopped =
            within_5s("gem A stops at the breakpoint", async || at_breakpoints(&mut in_a).await.into_iter().next())
                .await;
        assert!(stopped.kept && stopped.top.contains("Ticker>>tick:"), "{stopped:?}");
        // Every gem's list of the stone's sessions shows it (once A has told the stone).
        let listed = within_5s("the sessions list shows the stopped process", async || {
            let sessions = execute(&mut in_b, vec![op(Op::Sessions(pb::Empty {}))]).await;
            let Outcome::Sessions(sessions) = &sessions[0] else { panic!("sessions: {:?}", sessions[0]) };
            let listed: Vec<pb::SuspendedProcess> =
                sessions.sessions.iter().flat_map(|s| s.suspended.clone()).collect();
            (!listed.is_empty()).then_some(listed)
        })
        .await;
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0].process, stopped.process);
        assert_eq!((listed[0].reason.as_str(), listed[0].method.as_str()), ("breakpoint 1 at line 3", "Ticker>>tick:"));
        assert!(listed[0].since_micros > 0);
        // And B's tools are told, within about a second.
        let told = async {
            loop {
                let e = b_hears.message().await.expect("the stream").expect("an event");
                if let Some(pb::event::Event::Suspended(s)) = e.event
                    && s.processes.iter().any(|p| p.process == stopped.process)
                {
                    return s.session;
                }
            }
        };
        let session = tokio::time::timeout(Duration::from_secs(5), told).await.expect("B hears of it");
        let sessions = execute(&mut in_b, vec![op(Op::Sessions(pb::Empty {}))]).await;
        let Outcome::Sessions(sessions) = &sessions[0] else { panic!("sessions: {:?}", sessions[0]) };
        assert!(sessions.sessions.iter().any(|s| s.session == session && !s.this_gem), "A's session");
        let held = ticks(&mut in_a).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(ticks(&mut in_a).await, held, "the loop waits at the breakpoint");
        let listed = execute(&mut in_a, vec![op(Op::Breakpoints(pb::Empty {}))]).await;
        let listed = breakpoints(&listed[0]);
        assert!(listed.iter().any(|b| b.id == id && b.placed && b.hits_here >= 1), "{listed:?}");

        // Removed through B, then proceeded in A: the loop goes on with its work.
        let out = execute(&mut in_b, vec![op(Op::RemoveBreakpoint(pb::BreakpointRef { id }))]).await;
        assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
        let gone = Instant::now();
        loop {
            let listed = execute(&mut in_a, vec![op(Op::Breakpoints(pb::Empty {}))]).await;
            if breakpoints(&listed[0]).is_empty() {
                break;
            }
            assert!(gone.elapsed() < Duration::from_secs(5), "gem A kept the breakpoint");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let out = execute(&mut in_a, vec![op(Op::Proceed(pb::ProcessRef { process: stopped.process }))]).await;
        assert!(!matches!(out[0], Outcome::Error(_)), "{:?}", out[0]);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(ticks(&mut in_a).await > held, "the loop goes on");
        assert!(at_breakpoints(&mut in_a).await.is_empty());
        let sessions = execute(&mut in_b, vec![op(Op::Sessions(pb::Empty {}))]).await;
        let Outcome::Sessions(sessions) = &sessions[0] else { panic!("sessions: {:?}", sessions[0]) };
        assert!(sessions.sessions.iter().all(|s| s.suspended.is_empty()), "{sessions:?}");
    });
}

#[test]
fn a_breakpoint_for_one_gem_stops_no_other_and_a_reader_sets_none() {
    let (_dir, stone) = repository();
    let a = GemProcess::start(&stone);
    let b = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut in_a = client(&a).await;
        let mut in_b = client(&b).await;
        execute(&mut in_a, vec![evaluate(TICKER)]).await;
        let out = execute(
            &mut in_b,
            vec![op(Op::AbortTransaction(pb::Empty {})), set_breakpoint(3, pb::BreakpointScope::ThisGem)],
        )
        .await;
        assert!(breakpoints(&out[1])[0].scope_session != 0);
        // B's own processes stop at it; A's loop does not.
        let out = execute(&mut in_b, vec![evaluate("Ticker new tick: 1")]).await;
        assert!(error(&out[0]).process != 0, "B's doit stops: {:?}", out[0]);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(at_breakpoints(&mut in_a).await.is_empty(), "A is not stopped");
        let before = ticks(&mut in_a).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(ticks(&mut in_a).await > before, "A's loop runs on");

        add_reader(&mut in_b).await;
        let readers = GemProcess::start_as(&stone, "reader", "secret");
        let mut reader = login(&readers, "reader", "secret").await.expect("reader logs in");
        let out = execute(&mut reader, vec![set_breakpoint(3, pb::BreakpointScope::EveryGem)]).await;
        let e = error(&out[0]);
        assert_eq!(e.code, pb::Code::PermissionDenied as i32, "{e:?}");
        let listed = execute(&mut in_b, vec![op(Op::Breakpoints(pb::Empty {}))]).await;
        assert_eq!(breakpoints(&listed[0]).len(), 1, "the reader's was not set");

        // Malformed requests are refused with a clear error and set nothing.
        let method = || Some(pb::MethodRef { class: crate::agent::class("Ticker"), selector: "tick:".into() });
        let line = Some(pb::set_breakpoint::At::Line(3));
        let bad = |b: pb::SetBreakpoint| op(Op::SetBreakpoint(pb::SetBreakpoint { enabled: true, ..b }));
        let out = execute(
            &mut in_b,
            vec![
                bad(pb::SetBreakpoint { method: method(), at: None, ..Default::default() }),
                bad(pb::SetBreakpoint {
                    method: method(),
                    at: line,
                    hits: pb::BreakpointHits::HitsNth as i32,
                    ..Default::default()
                }),
                bad(pb::SetBreakpoint {
                    method: method(),
                    at: line,
                    scope: pb::BreakpointScope::OneProcess as i32,
                    ..Default::default()
                }),
                bad(pb::SetBreakpoint { method: method(), at: line, condition: "n >".into(), ..Default::default() }),
                bad(pb::SetBreakpoint { method: None, at: line, ..Default::default() }),
                bad(pb::SetBreakpoint { method: method(), at: line, hits: 99, ..Default::default() }),
                op(Op::RemoveBreakpoint(pb::BreakpointRef { id: 999 })),
            ],
        )
        .await;
        let codes: Vec<i32> = out.iter().map(|o| error(o).code).collect();
        let (invalid, not_found) = (pb::Code::Invalid as i32, pb::Code::NotFound as i32);
        assert_eq!(codes, [invalid, invalid, invalid, invalid, invalid, invalid, not_found], "{out:?}");
        let listed = execute(&mut in_b, vec![op(Op::Breakpoints(pb::Empty {}))]).await;
        assert_eq!(breakpoints(&listed[0]).len(), 1, "nothing more was set");
    });
}

#[test]
fn the_command_line_sets_lists_and_removes_breakpoints_as_topaz_does() {
    let (_dir, stone) = repository();
    let a = GemProcess::start(&stone);
    let b = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut in_a = client(&a).await;
        execute(&mut in_a, vec![evaluate(TICKER)]).await;
    });
    let onyx = |gem: &GemProcess, args: &[&str]| {
        let out = std::process::Command::new(onyx_tests::onyx())
            .args(args)
            .args(["--gem", &gem.addr])
            .output()
            .expect("runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, _, _) = onyx(&b, &["abort"]);
    assert!(ok);
    let (ok, set, said) = onyx(&b, &["break", "Ticker>>tick:", "2", "--condition", "n > 5"]);
    assert!(ok, "{said}");
    assert!(
        set.starts_with("1 Ticker>>tick: line 3 (if n > 5)"),
        "a line without a statement lands on the next: {set}"
    );
    let stopped = (0..250).find_map(|_| {
        std::thread::sleep(Duration::from_millis(20));
        let (_, listed, _) = onyx(&a, &["processes"]);
        listed.lines().find(|l| l.contains("breakpoint 1 at line 3")).map(str::to_string)
    });
    assert!(stopped.is_some_and(|l| l.contains("suspended (kept)")), "gem A stops at it");
    let (_, listed, _) = onyx(&a, &["breakpoints"]);
    assert!(listed.starts_with("1 Ticker>>tick: line 3 (if n > 5), hits 1 here, set by DataCurator"), "{listed}");
    // Gem B lists the hits each gem told the stone of (within a second or so).
    let elsewhere = format!("hits 0 here, 1 in {}, set by", a.addr);
    let told = (0..250).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        onyx(&b, &["breakpoints"]).1.contains(&elsewhere)
    });
    assert!(told, "gem B does not list gem A's hits: {}", onyx(&b, &["breakpoints"]).1);
    let (ok, removed, _) = onyx(&b, &["unbreak", "1"]);
    assert!(ok && removed.contains("breakpoint 1 removed"), "{removed}");
    let (ok, _, said) = onyx(&b, &["unbreak", "1"]);
    assert!(!ok && said.contains("no breakpoint 1"), "{said}");
    let (ok, _, said) = onyx(&b, &["break", "Ticker>>nothing", "2"]);
    assert!(!ok && said.contains("Ticker has no method nothing"), "{said}");

    // `onyx pause` stops a process that runs or waits, and prints its stack.
    let (_, listed, _) = onyx(&a, &["processes"]);
    let stopped = listed.lines().find(|l| l.contains("suspended")).and_then(|l| l.split(' ').next()).expect("one");
    let (ok, _, said) = onyx(&a, &["pause", stopped]);
    assert!(!ok && said.contains("suspended already"), "{said}");
    runtime().block_on(async {
        let mut in_a = client(&a).await;
        execute(&mut in_a, vec![evaluate("[[true] whileTrue: [(Delay forMilliseconds: 10) wait]] fork. nil")]).await;
    });
    let (_, listed, _) = onyx(&a, &["processes"]);
    let waiting = listed.lines().find(|l| l.contains(" waiting")).and_then(|l| l.split(' ').next()).expect("a loop");
    let (ok, paused, said) = onyx(&a, &["pause", waiting]);
    assert!(ok && paused.starts_with(&format!("process {waiting}: pause paused")), "{paused} {said}");
    assert!(paused.contains("UndefinedObject>>DoIt"), "its stack: {paused}");
}
