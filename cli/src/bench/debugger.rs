//! `onyx bench debugger`: the debugger's operations as a gem's agent answers them, in server
//! time: a step over in a method 50 frames deep, the first page of the stack of a
//! 10,000-frame recursion (what opening a debugger on a stack overflow costs), and selecting
//! a frame deep in it.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_protocol::client::AgentSession;

use crate::client::login;

/// What `onyx bench debugger` does.
pub struct DebuggerBench<'a> {
    pub gem: &'a str,
    pub runs: usize,
}

/// A class whose `down:` recurses, then halts before a loop that steps over stay in.
const SETUP: &str =
    "Object subclass: #DebuggerBench instanceVariableNames: '' classVariableNames: '' package: 'Bench-Debugger'.
DebuggerBench compile: 'down: n
	| sum |
	n > 0 ifTrue: [^ self down: n - 1].
	sum := 0.
	self halt.
	1 to: 1000000000 do: [:i | sum := sum + i. sum := sum * 1].
	^ sum'.
nil";

/// Runs the debugger's benchmark.
pub fn run(b: &DebuggerBench) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(bench(b))
}

/// One operation; its outcome and the server time the gem spent on it.
async fn one(session: &mut AgentSession, op: Op, page: Option<pb::Page>) -> Result<(Outcome, Duration)> {
    let batch = pb::Batch { operations: vec![pb::Operation { op: Some(op), page }] };
    let reply = session.execute(batch).await.map_err(|s| anyhow!("the gem: {}", s.message()))?;
    let result = reply.results.into_iter().next().ok_or_else(|| anyhow!("the gem answered nothing"))?;
    // The batch's server time: from its arrival at the gem to its reply.
    let time = Duration::from_micros(reply.server_micros);
    match result.outcome {
        Some(Outcome::Error(e)) if e.process == 0 => bail!("the gem answered an error: {}", e.message),
        Some(outcome) => Ok((outcome, time)),
        None => bail!("the gem answered nothing"),
    }
}

/// Runs `down: depth`, which halts: answers the kept process.
async fn halted(session: &mut AgentSession, depth: u32) -> Result<u64> {
    let source = format!("DebuggerBench new down: {depth}");
    let op = Op::Evaluate(pb::Evaluate { source, forget: true, ..Default::default() });
    match one(session, op, None).await? {
        (Outcome::Error(e), _) => Ok(e.process),
        (other, _) => bail!("the halt did not stop: {other:?}"),
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn show(name: &str, times: Vec<Duration>) {
    let n = times.len();
    println!("{name}: {:.3} ms server time (median of {n})", median(times).as_secs_f64() * 1e3);
}

async fn bench(b: &DebuggerBench<'_>) -> Result<ExitCode> {
    let mut session = login(b.gem).await?;
    let setup = Op::Evaluate(pb::Evaluate { source: SETUP.into(), forget: true, ..Default::default() });
    one(&mut session, setup, None).await?;
    let runs = b.runs.max(1);

    // Steps over a statement of a method 50 frames deep, each answering the top 20 frames
    // and the top frame whole.
    let process = halted(&mut session, 49).await?;
    let mut steps = Vec::new();
    for _ in 0..runs {
        let step = Op::Step(pb::Step { process, frame: 0, kind: pb::StepKind::StepOver.into(), offset: 0 });
        let (outcome, time) = one(&mut session, step, None).await?;
        match outcome {
            Outcome::Debugged(d) if d.total >= 50 => steps.push(time),
            other => bail!("a step did not stop in the method 50 frames deep: {other:?}"),
        }
    }
    one(&mut session, Op::Terminate(pb::ProcessRef { process }), None).await?;
    show("step over, 50 frames deep", steps);

    // The first page of a 10,000-frame stack, and a frame near its bottom.
    let (mut opens, mut deep) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let process = halted(&mut session, 9_999).await?;
        let page = Some(pb::Page { from: 0, size: 50 });
        let (outcome, time) = one(&mut session, Op::Stack(pb::FrameRef { process, frame: 0 }), page).await?;
        match outcome {
            Outcome::Debugged(d) if d.total >= 10_000 && d.frames.len() == 50 => opens.push(time),
            other => bail!("the stack did not come: {other:?}"),
        }
        let frame = Op::Frame(pb::FrameRef { process, frame: 9_990 });
        deep.push(one(&mut session, frame, None).await?.1);
        one(&mut session, Op::Terminate(pb::ProcessRef { process }), None).await?;
    }
    show("first page (50 frames) of a 10,000-frame stack, with the top frame", opens);
    show("frame 9,990 of a 10,000-frame stack", deep);
    session.logout().await.map_err(|s| anyhow!("the gem at {}: {}", b.gem, s.message()))?;
    Ok(ExitCode::SUCCESS)
}
