//! `onyx bench spread`: how long a breakpoint set through one gem takes to stop a process of
//! another. Gem A runs a forked loop that calls a method every millisecond; each run sets a
//! breakpoint on it through gem B and times, from B's answer, until A's process list shows the
//! loop stopped there (A is asked every 2 ms, with `processes`, which does not itself make A
//! look at the stone's breakpoints). Then the breakpoint is removed, A is made to see that at
//! once, and the loop proceeded. A gem looks every second, so the figure spreads over 0-1 s.
//!
//! It also times, for each stop, how long gem B's event stream took to tell of it: from when
//! A noted the process suspended (the `since` of the suspended process, by the clock of the
//! machine both gems run on) until B's `suspended` event naming it arrived.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_protocol::client::AgentSession;

use crate::client::login;

/// What `onyx bench spread` does.
pub struct SpreadBench<'a> {
    /// The gem whose loop stops.
    pub gem: &'a str,
    /// The gem the breakpoints are set through.
    pub setter: &'a str,
    pub runs: usize,
}

const SETUP: &str =
    "Object subclass: #SpreadBench instanceVariableNames: '' classVariableNames: '' package: 'Bench-Spread'.
SpreadBench compile: 'tick: n
	^ n + 1'.
System commitTransaction.
[| n | n := 0. [true] whileTrue: [n := SpreadBench new tick: n. (Delay forMilliseconds: 1) wait]]
	forkAt: Processor userBackgroundPriority.
nil";

async fn batch(session: &mut AgentSession, ops: Vec<Op>) -> Result<Vec<Outcome>> {
    let operations = ops.into_iter().map(|op| pb::Operation { op: Some(op), page: None }).collect();
    let reply = session.execute(pb::Batch { operations }).await.map_err(|s| anyhow!("the gem: {}", s.message()))?;
    let outcomes: Vec<Outcome> = reply.results.into_iter().filter_map(|r| r.outcome).collect();
    if let Some(Outcome::Error(e)) = outcomes.iter().find(|o| matches!(o, Outcome::Error(_))) {
        bail!("the gem answered an error: {}", e.message);
    }
    Ok(outcomes)
}

/// The process of `session`'s gem stopped at a breakpoint, if one is.
async fn stopped(session: &mut AgentSession) -> Result<Option<u64>> {
    let out = batch(session, vec![Op::Processes(pb::Empty {})]).await?;
    let Some(Outcome::Processes(list)) = out.into_iter().next() else { bail!("no process list") };
    Ok(list.processes.iter().find(|p| p.reason.starts_with("breakpoint")).map(|p| p.process))
}

/// Runs the benchmark.
pub fn run(b: &SpreadBench) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(bench(b))
}

async fn bench(b: &SpreadBench<'_>) -> Result<ExitCode> {
    let mut a = login(b.gem).await?;
    let mut setter = login(b.setter).await?;
    let setup = Op::Evaluate(pb::Evaluate { source: SETUP.into(), forget: true, ..Default::default() });
    batch(&mut a, vec![setup]).await?;
    batch(&mut setter, vec![Op::AbortTransaction(pb::Empty {})]).await?;
    let mut told = tell(&mut setter).await?;
    let mut times = Vec::new();
    let mut tellings = Vec::new();
    for _ in 0..b.runs.max(1) {
        let set = Op::SetBreakpoint(pb::SetBreakpoint {
            method: Some(pb::MethodRef {
                class: Some(pb::ClassRef { class_name: "SpreadBench".into(), meta: false }),
                selector: "tick:".into(),
            }),
            at: Some(pb::set_breakpoint::At::Line(2)),
            enabled: true,
            ..Default::default()
        });
        let set_at = now_micros();
        let out = batch(&mut setter, vec![set]).await?;
        let started = Instant::now();
        let Some(Outcome::Breakpoints(list)) = out.into_iter().next() else { bail!("no breakpoint set") };
        let id = list.breakpoints.first().map(|b| b.id).ok_or_else(|| anyhow!("no breakpoint set"))?;
        let process = loop {
            if let Some(p) = stopped(&mut a).await? {
                break p;
            }
            if started.elapsed() > Duration::from_secs(10) {
                bail!("gem {} never stopped at the breakpoint", b.gem);
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        times.push(started.elapsed());
        tellings.push(told_of(&mut told, process, set_at).await?);
        batch(&mut setter, vec![Op::RemoveBreakpoint(pb::BreakpointRef { id })]).await?;
        // Listing makes A see the removal now; then the loop goes on.
        batch(&mut a, vec![Op::Breakpoints(pb::Empty {}), Op::Proceed(pb::ProcessRef { process })]).await?;
        // A stops just after it looked: wait a part of a second taken from the clock's
        // nanoseconds, so that the next breakpoint falls anywhere in A's second.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        tokio::time::sleep(Duration::from_millis(u64::from(nanos % 1000))).await;
    }
    println!("breakpoint set through {} to a process of {} stopped at it: {}", b.setter, b.gem, summary(&mut times));
    println!("a stop in {} to the suspended event in {}: {}", b.gem, b.setter, summary(&mut tellings));
    Ok(ExitCode::SUCCESS)
}

/// Median, least and most of `times`, in milliseconds.
fn summary(times: &mut [Duration]) -> String {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let (min, max) = (times.first().copied().unwrap_or_default(), times.last().copied().unwrap_or_default());
    format!("median {:.0} ms, min {:.0} ms, max {:.0} ms ({} runs)", ms(median), ms(min), ms(max), times.len())
}

/// Microseconds since the Unix epoch, now.
fn now_micros() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
}

/// A suspended process an event told of: its number, since when it is suspended, and when
/// the event arrived (microseconds since the Unix epoch).
type Told = (u64, u64, u64);

/// The suspended processes `session`'s event stream tells of, each stamped as it arrives.
async fn tell(session: &mut AgentSession) -> Result<tokio::sync::mpsc::UnboundedReceiver<Told>> {
    let mut events = session.events().await.map_err(|s| anyhow!("the gem's events: {}", s.message()))?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(Some(e)) = events.message().await {
            if let Some(pb::event::Event::Suspended(s)) = e.event {
                let now = now_micros();
                for p in s.processes {
                    if tx.send((p.process, p.since_micros, now)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    Ok(rx)
}

/// How long after `process` stopped (after `set_at`) an event told of it.
async fn told_of(told: &mut tokio::sync::mpsc::UnboundedReceiver<Told>, process: u64, set_at: u64) -> Result<Duration> {
    let wait = async {
        while let Some((p, since, at)) = told.recv().await {
            // What events said of an earlier stop is passed over.
            if p == process && since >= set_at {
                return Some(Duration::from_micros(at.saturating_sub(since)));
            }
        }
        None
    };
    match tokio::time::timeout(Duration::from_secs(10), wait).await {
        Ok(Some(d)) => Ok(d),
        _ => bail!("no suspended event told of process {process}"),
    }
}
