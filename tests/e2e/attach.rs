//! Debugging a process of another gem, live: gem A runs a forked loop that calls a method
//! every 10 ms and commits a counter; a breakpoint set through gem B stops it; B's list of
//! sessions names the process and A's agent; another user with the right to debug others'
//! gems attaches there, steps, inspects a temporary, may not evaluate in the frame (that code
//! would run as A's user), accepts an edit and proceeds, and A's committed counter goes on rising, by the edited method. A user
//! without the right is refused; a debugger may only debug. A running process is paused; a
//! debugger cut off mid-way leaves its process suspended and attachable again.

use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{
    Agent, GemProcess, add_reader, client, error, evaluate, execute, login_at, op, printed, repository, runtime,
    within_5s,
};
use crate::breakpoints::set_breakpoint;
use crate::debugger::{current, debugged, one, step, variable};

/// Gem A's work: every 10 ms, `Ticks` goes up through `Ticker>>tick:` and is committed.
pub(crate) const TICKER: &str =
    "Object subclass: #Ticker instanceVariableNames: '' classVariableNames: '' package: 'Tests-Attach'.
Ticker compile: 'tick: n
	| next |
	next := Array with: n with: n + 1.
	^ next last'.
Smalltalk at: #Ticks put: 0.
System commitTransaction.
[[true] whileTrue: [
	Smalltalk at: #Ticks put: (Ticker new tick: (Smalltalk at: #Ticks)).
	System commitTransaction.
	(Delay forMilliseconds: 10) wait]] forkAt: Processor userBackgroundPriority.
nil";

/// `alice` may change code and debug others' gems.
pub(crate) async fn add_alice(curator: &mut Agent) {
    let add = pb::AddUser {
        user: "alice".into(),
        password: "wonder".into(),
        may_change_code: true,
        groups: vec!["Debuggers".into()],
    };
    let out = execute(curator, vec![op(Op::AddUser(add)), op(Op::CommitTransaction(pb::Empty {}))]).await;
    assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
}

/// The counter as gem B sees it committed.
async fn committed_ticks(b: &mut Agent) -> u64 {
    let out = execute(b, vec![op(Op::AbortTransaction(pb::Empty {})), evaluate("Smalltalk at: #Ticks")]).await;
    printed(&out[1]).parse().expect("a number")
}

/// Waits until the committed counter rises.
pub(crate) async fn rising(b: &mut Agent) -> u64 {
    let before = committed_ticks(b).await;
    within_5s("the counter rises", async || Some(committed_ticks(b).await).filter(|now| *now > before)).await
}

async fn sessions(agent: &mut Agent) -> pb::Sessions {
    match execute(agent, vec![op(Op::Sessions(pb::Empty {}))]).await.remove(0) {
        Outcome::Sessions(s) => s,
        other => panic!("sessions: {other:?}"),
    }
}

/// Waits until B's list of sessions shows a suspended process of another gem: that gem's
/// agent, and the process.
async fn suspended_elsewhere(b: &mut Agent) -> (String, pb::SuspendedProcess) {
    within_5s("a suspended process of another gem shows", async || {
        let list = sessions(b).await;
        let mut others = list.sessions.into_iter().filter(|s| !s.this_gem);
        others.find_map(|s| s.suspended.first().map(|p| (s.agent.clone(), p.clone())))
    })
    .await
}

#[test]
fn a_process_stopped_in_one_gem_is_debugged_live_from_another_users_login_and_goes_on() {
    let (_dir, stone) = repository();
    let a = GemProcess::start(&stone);
    let b = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut in_b = client(&b).await;
        add_alice(&mut in_b).await;
        add_reader(&mut in_b).await;
        let mut in_a = client(&a).await;
        assert_eq!(printed(&execute(&mut in_a, vec![evaluate(TICKER)]).await[0]), "nil");
        rising(&mut in_b).await;

        // B sets the breakpoint; A's loop stops there, and B's list of sessions shows it.
        let out = execute(&mut in_b, vec![op(Op::AbortTransaction(pb::Empty {})), set_breakpoint(3, pb::BreakpointScope::EveryGem)]).await;
        let Outcome::Breakpoints(set) = &out[1] else { panic!("set: {:?}", out[1]) };
        let id = set.breakpoints[0].id;
        let (agent, stopped) = suspended_elsewhere(&mut in_b).await;
        assert_eq!(agent, a.addr, "the session names its gem's agent");
        assert_eq!(stopped.method, "Ticker>>tick:");

        // A user without the right is refused there; alice, who has it, attaches.
        let refused = login_at(&agent, "reader", "secret").await.expect_err("the reader is refused");
        assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
        assert!(refused.message().contains("Debuggers"), "{refused:?}");
        let wrong = login_at(&agent, "alice", "guess").await.expect_err("a wrong password is refused");
        assert_eq!(wrong.code(), tonic::Code::PermissionDenied, "{wrong:?}");
        let mut alice = login_at(&agent, "alice", "wonder").await.expect("alice attaches");
        let e = one(&mut alice, Op::Evaluate(pb::Evaluate { source: "3 + 4".into(), ..Default::default() })).await;
        assert_eq!(error(&e).code, pb::Code::PermissionDenied as i32, "a debugger only debugs: {e:?}");

        let p = stopped.process;
        let d = debugged(one(&mut alice, Op::Stack(pb::FrameRef { process: p, frame: 0 })).await);
        assert_eq!((d.kind.as_str(), d.frames[0].label.as_str()), ("breakpoint", "Ticker>>tick:"));
        assert_eq!(current(&d), "Array with: n with: n + 1");
        let n: u64 = variable(&d, "n").parse().expect("n");
        // Step over the statement, and inspect the temporary it assigned.
        let mut d = debugged(one(&mut alice, step(p, pb::StepKind::StepOver)).await);
        while variable(&d, "next") == "nil" {
            d = debugged(one(&mut alice, step(p, pb::StepKind::StepOver)).await);
        }
        assert_eq!(d.kind, "step");
        assert_eq!(variable(&d, "next"), format!("#({n} {})", n + 1));
        let frame = d.frame.as_ref().expect("the frame");
        let next = frame.variables.iter().find(|v| v.name == "next").expect("next");
        let inspect = Op::Inspect(pb::Inspect { handle: next.handle, from: 0, page_size: 0 });
        let i = match one(&mut alice, inspect).await {
            Outcome::Inspection(i) => i,
            other => panic!("an inspection: {other:?} of {next:?}"),
        };
        let fields: Vec<&str> = i.indexed.iter().map(|f| f.print_string.as_str()).collect();
        assert_eq!((i.class_name.as_str(), fields), ("Array", vec![n.to_string().as_str(), (n + 1).to_string().as_str()]));
        // Code of her own would run with the gem's user's rights: she runs none there.
        let source = "next last * 10".to_string();
        for refused in [
            Op::EvaluateInFrame(pb::FrameSource { process: p, frame: 0, source: source.clone() }),
            Op::ReturnValue(pb::FrameSource { process: p, frame: 0, source }),
        ] {
            let e = one(&mut alice, refused).await;
            assert_eq!(error(&e).code, pb::Code::PermissionDenied as i32, "{e:?}");
        }

        // The breakpoint goes (through B), every gem drops it, and alice accepts an edit.
        execute(&mut in_b, vec![op(Op::RemoveBreakpoint(pb::BreakpointRef { id }))]).await;
        let gone = Instant::now();
        while !matches!(&one(&mut alice, Op::Breakpoints(pb::Empty {})).await, Outcome::Breakpoints(l) if l.breakpoints.is_empty())
        {
            assert!(gone.elapsed() < Duration::from_secs(5), "gem A kept the breakpoint");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let source = "tick: n\n\t| next |\n\tnext := Array with: n with: n + 2.\n\t^ next last".to_string();
        let d = debugged(one(&mut alice, Op::Accept(pb::FrameSource { process: p, frame: 0, source })).await);
        assert_eq!(d.frames[0].label, "Ticker>>tick:");
        assert!(current(&d).contains("n + 2"), "{d:?}");
        let d = debugged(one(&mut alice, Op::Proceed(pb::ProcessRef { process: p })).await);
        assert_eq!(d.kind, "running", "the forked loop goes on in the background");

        // A's counter goes on rising, and A's commits carry the accepted method.
        rising(&mut in_b).await;
        assert_eq!(printed(&execute(&mut in_b, vec![evaluate("Ticker new tick: 0")]).await[0]), "2");
        let list = sessions(&mut in_b).await;
        assert!(list.sessions.iter().all(|s| s.suspended.is_empty()), "{list:?}");
        assert!(list.sessions.iter().any(|s| s.agent == a.addr && s.agent_users.contains("alice")), "{list:?}");
    });
}

#[test]
fn a_running_process_is_paused_and_a_debugger_cut_off_leaves_it_attachable() {
    let (_dir, stone) = repository();
    let a = GemProcess::start(&stone);
    let b = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut in_b = client(&b).await;
        add_alice(&mut in_b).await;
        let mut in_a = client(&a).await;
        execute(&mut in_a, vec![evaluate(TICKER)]).await;
        rising(&mut in_b).await;

        // Alice pauses A's loop: it stops at its next step point, within a moment.
        let mut alice = login_at(&a.addr, "alice", "wonder").await.expect("alice attaches");
        let Outcome::Processes(list) = one(&mut alice, Op::Processes(pb::Empty {})).await else { panic!("processes") };
        let running: Vec<_> = list.processes.iter().filter(|p| p.status != "suspended").collect();
        assert_eq!(running.len(), 1, "the loop alone: {list:?}");
        let p = running[0].process;
        let d = debugged(one(&mut alice, Op::Pause(pb::ProcessRef { process: p })).await);
        assert_eq!((d.process, d.kind.as_str()), (p, "pause"), "{d:?}");
        assert!(d.total >= 1 && !d.frames.is_empty());
        let (_, listed) = suspended_elsewhere(&mut in_b).await;
        assert_eq!((listed.process, listed.reason.as_str()), (p, "paused"));
        let held = committed_ticks(&mut in_b).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(committed_ticks(&mut in_b).await, held, "a paused loop commits nothing");
        // Pausing a paused process says so.
        let again = one(&mut alice, Op::Pause(pb::ProcessRef { process: p })).await;
        assert_eq!(error(&again).code, pb::Code::Invalid as i32, "{again:?}");
        // No process 0, nor one never made: said so, nothing else stops.
        for nothing in [0, u64::MAX] {
            let none = one(&mut alice, Op::Pause(pb::ProcessRef { process: nothing })).await;
            assert_eq!(error(&none).code, pb::Code::NotFound as i32, "{none:?}");
        }

        // Cut off mid-way: an evaluation in the frame (A's own user's: a debugger runs no code
        // there) that takes seconds, whose caller goes.
        drop(alice);
        let mut owner = client(&a).await;
        let slow = Op::EvaluateInFrame(pb::FrameSource {
            process: p,
            frame: 0,
            source: "(Delay forSeconds: 3) wait. 1".into(),
        });
        let cut = tokio::time::timeout(Duration::from_millis(300), one(&mut owner, slow)).await;
        assert!(cut.is_err(), "the call was cut off");
        drop(owner);
        // A answers at once, and the process is still there, suspended, to attach to again.
        let quick = Instant::now();
        assert_eq!(printed(&execute(&mut in_a, vec![evaluate("3 + 4")]).await[0]), "7");
        assert!(quick.elapsed() < Duration::from_secs(2), "the gem is not stuck");
        let mut alice = login_at(&a.addr, "alice", "wonder").await.expect("alice attaches again");
        let d = debugged(one(&mut alice, Op::Stack(pb::FrameRef { process: p, frame: 0 })).await);
        assert_eq!(d.kind, "pause");
        let d = debugged(one(&mut alice, Op::Proceed(pb::ProcessRef { process: p })).await);
        assert_eq!(d.kind, "running");
        assert!(rising(&mut in_b).await > held, "the loop goes on");

        // A step cut off mid-way leaves its process suspended and kept too.
        let slow = "Object subclass: #Slow instanceVariableNames: '' classVariableNames: '' package: 'Tests-Attach'.
Slow compile: 'run
	self halt.
	(Delay forSeconds: 3) wait.
	^ 1'.
Slow new run";
        let out = execute(&mut in_a, vec![evaluate(slow)]).await;
        let halted = error(&out[0]).process;
        assert!(halted != 0, "{:?}", out[0]);
        let mut d = debugged(one(&mut in_a, step(halted, pb::StepKind::StepOver)).await);
        for _ in 0..3 {
            if current(&d) == "(Delay forSeconds: 3) wait" {
                break;
            }
            d = debugged(one(&mut in_a, step(halted, pb::StepKind::StepOver)).await);
        }
        assert_eq!(current(&d), "(Delay forSeconds: 3) wait");
        let mut stepper = client(&a).await;
        let cut =
            tokio::time::timeout(Duration::from_millis(300), one(&mut stepper, step(halted, pb::StepKind::StepOver)))
                .await;
        assert!(cut.is_err(), "the step was cut off");
        drop(stepper);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let d = debugged(one(&mut in_a, Op::Stack(pb::FrameRef { process: halted, frame: 0 })).await);
        assert_eq!(d.kind, "interrupt", "{d:?}");
        assert!(d.frames.iter().any(|f| f.label == "Slow>>run"), "{d:?}");
        let d = debugged(one(&mut in_a, Op::Proceed(pb::ProcessRef { process: halted })).await);
        assert_eq!(d.ended.expect("it ends").print_string, "1");
    });
}
