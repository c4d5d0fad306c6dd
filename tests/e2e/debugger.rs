//! The debugger's operations on a real gem over gRPC: a doit's error names its kept process;
//! its stack, a frame, each step kind, restart, return, proceed, terminate, evaluation in a
//! frame and edit and continue answer what the debugger shows in the same round trip;
//! errors for a process that is gone, a frame out of range, a bad expression; a forked
//! process's error as an event; and `onyx processes` / `onyx stack`.

use std::process::Command;

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{Agent, GemProcess, client, error, evaluate, execute, op, printed, repository, runtime};

const SETUP: &str =
    "Object subclass: #Dbg instanceVariableNames: 'log' classVariableNames: '' package: 'Tests-Debugger'.
Dbg compile: 'three
	| a b |
	self halt.
	a := 3.
	b := a + 4.
	^ a * b'.
Dbg compile: 'callee
	^ 10'.
Dbg compile: 'caller
	| r |
	self halt.
	r := self callee.
	^ r + 1'.
Dbg compile: 'deep: n
	n = 0 ifTrue: [^ 1 / 0].
	^ self deep: n - 1'.
nil";

/// The process of the next event saying a process failed where no tool looked.
pub(crate) async fn failed(events: &mut tonic::Streaming<pb::Event>) -> u64 {
    let next = async {
        loop {
            let e = events.message().await.expect("the stream").expect("an event");
            if let Some(pb::event::Event::Process(p)) = e.event
                && p.change == "failed"
            {
                return p.process;
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), next).await.expect("the event comes")
}

/// Defines `Dbg`, then runs `source`, which stops; answers the kept process.
async fn stopped(agent: &mut Agent, source: &str) -> u64 {
    let out = execute(agent, vec![evaluate(SETUP), evaluate(source)]).await;
    assert_eq!(printed(&out[0]), "nil");
    let e = error(&out[1]);
    assert!(e.process != 0, "the error names its process: {e:?}");
    e.process
}

pub(crate) async fn one(agent: &mut Agent, o: Op) -> Outcome {
    execute(agent, vec![op(o)]).await.remove(0)
}

pub(crate) fn debugged(outcome: Outcome) -> pb::Debugged {
    match outcome {
        Outcome::Debugged(d) => d,
        other => panic!("expected what a debugger shows, got {other:?}"),
    }
}

pub(crate) fn step(process: u64, kind: pb::StepKind) -> Op {
    Op::Step(pb::Step { process, frame: 0, kind: kind as i32, offset: 0 })
}

/// The source of the top frame's current step point.
pub(crate) fn current(d: &pb::Debugged) -> String {
    let f = d.frame.as_ref().expect("the top frame, whole");
    f.source.get(f.start as usize..f.end as usize).unwrap_or_default().to_string()
}

pub(crate) fn variable<'a>(d: &'a pb::Debugged, name: &str) -> &'a str {
    let f = d.frame.as_ref().expect("the top frame");
    &f.variables.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no {name}: {:?}", f.variables)).print_string
}

#[test]
fn a_halted_doit_is_debugged_step_by_step_in_one_round_trip_each() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let p = stopped(&mut agent, "Dbg new three").await;
        let stack = debugged(one(&mut agent, Op::Stack(pb::FrameRef { process: p, frame: 0 })).await);
        assert_eq!(stack.kind, "halt");
        assert_eq!(stack.total, 2);
        assert_eq!(stack.frames[0].label, "Dbg>>three");
        assert_eq!(current(&stack), "self halt");
        let method = stack.frame.as_ref().and_then(|f| f.method.clone()).expect("a method");
        assert_eq!(method.selector, "three");
        // Each step answers the stack's top frames and the top frame, whole.
        let d = debugged(one(&mut agent, step(p, pb::StepKind::StepOver)).await);
        assert_eq!((d.kind.as_str(), current(&d).as_str()), ("step", "a := 3"));
        assert_eq!(d.frames.len(), 2);
        let d = debugged(one(&mut agent, step(p, pb::StepKind::StepOver)).await);
        assert_eq!(current(&d), "a + 4");
        assert_eq!(variable(&d, "a"), "3");
        assert_eq!(variable(&d, "self"), "a Dbg");
        // Evaluate in the frame, assigning: the frame goes on with it.
        let e = one(
            &mut agent,
            Op::EvaluateInFrame(pb::FrameSource { process: p, frame: 0, source: "a := 10. a * 2".into() }),
        )
        .await;
        assert_eq!(printed(&e), "20");
        let d = debugged(one(&mut agent, step(p, pb::StepKind::StepOver)).await);
        assert_eq!(variable(&d, "b"), "14");
        // Proceed: the doit ends, with its value.
        let d = debugged(one(&mut agent, Op::Proceed(pb::ProcessRef { process: p })).await);
        assert_eq!(d.ended.expect("ended").print_string, "140");
        // The process is gone.
        let gone = one(&mut agent, Op::Frame(pb::FrameRef { process: p, frame: 0 })).await;
        assert_eq!(error(&gone).code, pb::Code::NotFound as i32);
    });
}

#[test]
fn into_return_restart_and_edit_and_continue() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let p = stopped(&mut agent, "Dbg new caller").await;
        debugged(one(&mut agent, step(p, pb::StepKind::StepOver)).await);
        let d = debugged(one(&mut agent, step(p, pb::StepKind::StepInto)).await);
        assert_eq!(d.frames[0].label, "Dbg>>callee");
        let ret = Op::ReturnValue(pb::FrameSource { process: p, frame: 0, source: "6 * 7".into() });
        let d = debugged(one(&mut agent, ret).await);
        assert_eq!(d.frames[0].label, "Dbg>>caller");
        assert_eq!(variable(&d, "r"), "42");
        let d = debugged(one(&mut agent, Op::Restart(pb::FrameRef { process: p, frame: 0 })).await);
        assert_eq!(current(&d), "self halt");
        assert_eq!(variable(&d, "r"), "nil");
        // Accept a new version of the method: the frame runs it from its start.
        let source = "caller\n\t| r |\n\tr := 100.\n\t^ r + 1".to_string();
        let d = debugged(one(&mut agent, Op::Accept(pb::FrameSource { process: p, frame: 0, source })).await);
        assert_eq!(current(&d), "r := 100");
        let d = debugged(one(&mut agent, Op::Proceed(pb::ProcessRef { process: p })).await);
        assert_eq!(d.ended.expect("ended").print_string, "101");
        // A compile error keeps everything as it was, and says where.
        let p = stopped(&mut agent, "Dbg new caller").await;
        let bad = Op::Accept(pb::FrameSource { process: p, frame: 0, source: "caller\n\t^ ".into() });
        let e = one(&mut agent, bad).await;
        assert_eq!(error(&e).code, pb::Code::CompileError as i32);
        let still = debugged(one(&mut agent, Op::Frame(pb::FrameRef { process: p, frame: 0 })).await);
        assert_eq!(current(&still), "self halt");
    });
}

#[test]
fn bad_requests_are_errors_and_lose_nothing() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let p = stopped(&mut agent, "Dbg new three").await;
        let out = execute(
            &mut agent,
            vec![
                op(Op::Frame(pb::FrameRef { process: p, frame: 99 })),
                op(Op::Stack(pb::FrameRef { process: 12345, frame: 0 })),
                op(Op::EvaluateInFrame(pb::FrameSource { process: p, frame: 0, source: "a +".into() })),
                op(step(12345, pb::StepKind::StepOver)),
                op(Op::Step(pb::Step { process: p, frame: 0, kind: pb::StepKind::StepRunTo as i32, offset: 9999 })),
                op(Op::Terminate(pb::ProcessRef { process: 12345 })),
            ],
        )
        .await;
        assert_eq!(error(&out[0]).code, pb::Code::NotFound as i32, "a frame out of range");
        assert_eq!(error(&out[1]).code, pb::Code::NotFound as i32, "no such process");
        assert_eq!(error(&out[2]).code, pb::Code::CompileError as i32, "a bad expression");
        assert_eq!(error(&out[3]).code, pb::Code::NotFound as i32);
        assert_eq!(error(&out[4]).code, pb::Code::Invalid as i32, "no step point there");
        assert_eq!(error(&out[5]).code, pb::Code::NotFound as i32);
        let d = debugged(one(&mut agent, Op::Frame(pb::FrameRef { process: p, frame: 0 })).await);
        assert_eq!(current(&d), "self halt", "the process is where it was");
        // An expression that fails in a frame: its own error, and the frame stays.
        let e =
            one(&mut agent, Op::EvaluateInFrame(pb::FrameSource { process: p, frame: 0, source: "1/0".into() })).await;
        assert_eq!(error(&e).code, pb::Code::SmalltalkError as i32);
        let d = debugged(one(&mut agent, Op::Terminate(pb::ProcessRef { process: p })).await);
        assert!(d.ended.is_some());
    });
}

#[test]
fn a_deep_stack_comes_a_page_at_a_time() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let p = stopped(&mut agent, "Dbg new deep: 10000").await;
        let stack = pb::Operation {
            op: Some(Op::Stack(pb::FrameRef { process: p, frame: 0 })),
            page: Some(pb::Page { from: 0, size: 30 }),
        };
        let reply = agent.execute(pb::Batch { operations: vec![stack] }).await.expect("answered").into_inner();
        let d = debugged(reply.results[0].outcome.clone().expect("an outcome"));
        assert!(d.total > 10_000, "{}", d.total);
        assert_eq!(d.frames.len(), 30);
    });
}

#[test]
fn a_forked_process_that_fails_is_an_event_and_listed() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let mut events = agent.events(pb::EventsRequest {}).await.expect("events").into_inner();
        let out = execute(&mut agent, vec![evaluate(SETUP), evaluate("[Dbg new deep: 3] fork. nil")]).await;
        assert_eq!(printed(&out[1]), "nil");
        let suspended = failed(&mut events).await;
        let Outcome::Processes(list) = one(&mut agent, Op::Processes(pb::Empty {})).await else { panic!("a list") };
        let entry = list.processes.iter().find(|p| p.process == suspended).expect("listed");
        assert!(entry.kept && entry.status == "suspended" && entry.reason.contains("ZeroDivide"), "{entry:?}");

        // The command line shows the same, as Topaz's STACK does.
        let run = |args: &[&str]| {
            let out = Command::new(onyx_tests::onyx()).args(args).args(["--gem", &gem.addr]).output().expect("runs");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let listed = run(&["processes"]);
        assert!(listed.lines().any(|l| l.starts_with(&format!("{suspended} suspended (kept)"))), "{listed}");
        let missing =
            Command::new(onyx_tests::onyx()).args(["stack", "99999", "--gem", &gem.addr]).output().expect("runs");
        assert!(!missing.status.success());
        assert!(String::from_utf8_lossy(&missing.stderr).contains("no suspended process 99999"));
        let printed_stack = run(&["stack", &suspended.to_string()]);
        assert!(printed_stack.contains("Dbg>>deep:") && printed_stack.contains("    n = 0"), "{printed_stack}");
    });
}

#[test]
fn a_step_that_runs_on_is_interrupted_by_its_process_and_answers_where_it_stands() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let p = stopped(&mut agent, "| n | self halt. n := 0. [true] whileTrue: [n := n + 1]. n").await;
        debugged(one(&mut agent, step(p, pb::StepKind::StepOver)).await);
        // Out of the doit's frame: it runs the endless loop, and the same login stops it.
        let mut stepping = agent.clone();
        let endless = tokio::spawn(async move { one(&mut stepping, step(p, pb::StepKind::StepOut)).await });
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert!(!endless.is_finished(), "the step runs on");
        // Another login's interrupt of the process stops nothing.
        let mut other = client(&gem).await;
        one(&mut other, Op::Interrupt(pb::Interrupt { tag: 0, process: p })).await;
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert!(!endless.is_finished(), "another login's interrupt stopped it");
        one(&mut agent, Op::Interrupt(pb::Interrupt { tag: 0, process: p })).await;
        let d = debugged(
            tokio::time::timeout(std::time::Duration::from_secs(10), endless).await.expect("in time").expect("ran"),
        );
        assert_eq!(d.kind, "interrupt");
        assert!(d.frames[0].label.contains("DoIt"), "{:?}", d.frames);
        let n =
            one(&mut agent, Op::EvaluateInFrame(pb::FrameSource { process: p, frame: 0, source: "n".into() })).await;
        let n: u64 = printed(&n).parse().unwrap_or(0);
        assert!(n > 0, "the loop ran");
        one(&mut agent, Op::Terminate(pb::ProcessRef { process: p })).await;
    });
}

#[test]
fn a_user_who_may_not_change_code_steps_and_inspects_but_does_not_edit_methods() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let add = Op::AddUser(pb::AddUser {
            user: "reader".into(),
            password: "pw".into(),
            may_change_code: false,
            groups: Vec::new(),
        });
        assert!(matches!(one(&mut agent, add).await, Outcome::Done(_)));
        let readers = GemProcess::start_as(&stone, "reader", "pw");
        let mut reader = crate::agent::login(&readers, "reader", "pw").await.expect("logs in");
        let out = execute(&mut reader, vec![evaluate("3 zork")]).await;
        let p = error(&out[0]).process;
        assert!(p != 0, "the reader's own process is kept");
        let d = debugged(one(&mut reader, Op::Stack(pb::FrameRef { process: p, frame: 0 })).await);
        let frame = d.frame.expect("the top frame");
        assert!(frame.method.is_some(), "a method's frame: {}", frame.label);
        assert!(frame.variables.iter().any(|v| v.name == "self" && v.print_string == "3"), "{:?}", frame.variables);
        let accept = Op::Accept(pb::FrameSource { process: p, frame: 0, source: frame.source.clone() });
        let refused = one(&mut reader, accept).await;
        assert!(error(&refused).message.contains("may not change code"), "{refused:?}");
        debugged(one(&mut reader, step(p, pb::StepKind::StepOver)).await);
        one(&mut reader, Op::Terminate(pb::ProcessRef { process: p })).await;
    });
}
