//! The command line as a client of a gem's agent, as topaz is of a GemStone gem: each
//! command sends one batch and prints what comes back (`onyx eval --gem`, `onyx commit`,
//! `onyx abort`, `onyx add-user`, `onyx classes`, `onyx source`, `onyx senders`,
//! `onyx implementors`, `onyx processes`, `onyx stack`, `onyx break`, `onyx breakpoints`,
//! `onyx unbreak`).

use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_protocol::client::{self, AgentSession, LoginError};
use onyx_protocol::peer::{self, Peer};
use onyx_server_agent::users;

/// What a client command asks of the gem.
pub enum Request {
    /// A doit, stopped after the time given.
    Eval(String, std::time::Duration),
    Commit,
    Abort,
    /// Adds a user and commits.
    AddUser {
        user: String,
        password: String,
        may_change_code: bool,
        groups: Vec<String>,
    },
    /// The classes of a package, or the packages.
    Classes(Option<String>),
    /// `Class>>selector` or `Class class>>selector`.
    Source(String),
    Senders(String),
    Implementors(String),
    /// The gem's processes.
    Processes,
    /// Sets a breakpoint at a line of a method.
    Break {
        method: String,
        line: u32,
        condition: Option<String>,
        log: Option<String>,
        once: bool,
        this_gem: bool,
    },
    /// The stone's breakpoints.
    Breakpoints,
    /// Removes a breakpoint.
    Unbreak(u64),
}

/// Sends `request` to the agent at `gem` and prints the answer; an error answer goes to
/// standard error and the exit status is 1.
pub fn run(gem: &str, request: Request) -> Result<ExitCode> {
    let op = match request {
        Request::Eval(source, limit) => {
            let time_limit_ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
            Op::Evaluate(pb::Evaluate { source, time_limit_ms, receiver: 0, inspect: false, forget: false, tag: 0 })
        }
        Request::Commit => Op::CommitTransaction(pb::Empty {}),
        Request::Abort => Op::AbortTransaction(pb::Empty {}),
        Request::AddUser { user, password, may_change_code, groups } => {
            if password.is_empty() {
                bail!("give the new user's password on standard input");
            }
            // The commit comes only after the user was added.
            let add = Op::AddUser(pb::AddUser { user, password, may_change_code, groups });
            if let Some(Outcome::Error(e)) = execute_once(gem, vec![add])?.into_iter().next() {
                eprintln!("{}", e.message);
                return Ok(ExitCode::FAILURE);
            }
            Op::CommitTransaction(pb::Empty {})
        }
        Request::Classes(None) => Op::Packages(pb::Empty {}),
        Request::Classes(Some(package)) => Op::Classes(pb::PackageRef { package, ..Default::default() }),
        Request::Source(name) => Op::MethodSource(method_ref(&name)?),
        Request::Senders(selector) => Op::Senders(pb::SelectorRef { selector }),
        Request::Implementors(selector) => Op::Implementors(pb::SelectorRef { selector }),
        Request::Processes => Op::Processes(pb::Empty {}),
        Request::Break { method, line, condition, log, once, this_gem } => Op::SetBreakpoint(pb::SetBreakpoint {
            method: Some(method_ref(&method)?),
            at: Some(pb::set_breakpoint::At::Line(line)),
            condition: condition.unwrap_or_default(),
            log: log.unwrap_or_default(),
            once,
            enabled: true,
            scope: if this_gem { pb::BreakpointScope::ThisGem } else { pb::BreakpointScope::EveryGem } as i32,
            ..Default::default()
        }),
        Request::Breakpoints => Op::Breakpoints(pb::Empty {}),
        Request::Unbreak(id) => {
            let remove = Op::RemoveBreakpoint(pb::BreakpointRef { id });
            return match execute_once(gem, vec![remove])?.into_iter().next() {
                Some(Outcome::Error(e)) => {
                    eprintln!("{}", e.message);
                    Ok(ExitCode::FAILURE)
                }
                _ => {
                    println!("breakpoint {id} removed");
                    Ok(ExitCode::SUCCESS)
                }
            };
        }
    };
    print(gem, vec![op])
}

/// One breakpoint as `onyx breakpoints` lists it.
fn breakpoint_line(b: &pb::BreakpointInfo) -> String {
    let at = if b.line == 0 { "not in this gem".to_string() } else { format!("line {}", b.line) };
    let mut notes = onyx_protocol::describe::breakpoint_kind(b);
    if b.scope_session != 0 {
        notes.push(format!("session {} only", b.scope_session));
    }
    if b.orphaned {
        notes.push("orphaned".into());
    } else if !b.enabled {
        notes.push("disabled".into());
    }
    let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
    let hits = onyx_protocol::describe::breakpoint_hits(b);
    format!("{} {}>>{} {at}{notes}, hits {hits}, set by {}", b.id, b.class_name, b.selector, b.owner)
}

/// Runs `ops` as one batch and prints the first error, or else the last outcome.
fn print(gem: &str, ops: Vec<Op>) -> Result<ExitCode> {
    let outcomes = execute_once(gem, ops)?;
    let failed = outcomes
        .iter()
        .position(|o| matches!(o, Outcome::Error(_) | Outcome::Committed(pb::Committed { committed: false, .. })));
    let outcome = failed
        .or(outcomes.len().checked_sub(1))
        .and_then(|i| outcomes.into_iter().nth(i))
        .ok_or_else(|| anyhow!("the gem at {gem} answered nothing"))?;
    match outcome {
        Outcome::Error(e) => {
            eprintln!("{}", e.message);
            for frame in &e.stack {
                eprintln!("  {frame}");
            }
            if e.process != 0 {
                eprintln!("(the gem keeps the process as {}: onyx stack {} --gem {gem})", e.process, e.process);
            }
            return Ok(ExitCode::FAILURE);
        }
        Outcome::Evaluated(e) => println!("{}", e.print_string),
        Outcome::Committed(c) if c.committed => println!("committed"),
        Outcome::Committed(c) => {
            let objects: Vec<&str> = c.conflicts.iter().map(|f| f.print_string.as_str()).collect();
            eprintln!("the commit failed: another session changed {}", objects.join(", "));
            return Ok(ExitCode::FAILURE);
        }
        Outcome::Done(_) => println!("aborted"),
        Outcome::Names(n) => n.names.iter().for_each(|name| println!("{name}")),
        Outcome::Classes(c) => {
            for class in c.classes {
                println!("{} ({})", class.name, if class.superclass.is_empty() { "nil" } else { &class.superclass });
            }
        }
        Outcome::MethodSource(m) => println!("{}", m.source),
        Outcome::Methods(m) => {
            for method in m.methods {
                let side = if method.meta { " class" } else { "" };
                println!("{}{side}>>{}", method.class_name, method.selector);
            }
        }
        Outcome::Breakpoints(list) => {
            for b in list.breakpoints {
                println!("{}", breakpoint_line(&b));
            }
        }
        Outcome::Processes(list) => {
            for p in list.processes {
                let kept = if p.kept { " (kept)" } else { "" };
                let reason = if p.reason.is_empty() { String::new() } else { format!(": {}", p.reason) };
                println!(
                    "{} {}{kept}{reason}  {} [{} frames, priority {}]",
                    p.process, p.status, p.top, p.depth, p.priority
                );
            }
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The most frames `onyx stack` prints.
const STACK_FRAMES: u32 = 1000;

/// Prints a suspended process's stack, each frame with its variables: one batch for the
/// stack, one for the frames' variables. With `pause`, the process runs or waits, and is
/// paused first (its stack then comes in pages of the agent's size).
pub fn stack(gem: &str, process: u64, pause: bool) -> Result<ExitCode> {
    let stack = if pause {
        pb::Operation { op: Some(Op::Pause(pb::ProcessRef { process })), page: None }
    } else {
        pb::Operation {
            op: Some(Op::Stack(pb::FrameRef { process, frame: 0 })),
            page: Some(pb::Page { from: 0, size: STACK_FRAMES }),
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let mut session = login(gem).await?;
        let first = session.execute(pb::Batch { operations: vec![stack] }).await;
        let first = first.map_err(|s| anyhow!(peer::call_error(&s, gem, Peer::Gem)))?;
        let debugged = match first.results.into_iter().next().and_then(|r| r.outcome) {
            Some(Outcome::Debugged(d)) => d,
            Some(Outcome::Error(e)) => {
                eprintln!("{}", e.message);
                return Ok(ExitCode::FAILURE);
            }
            other => bail!("the gem answered out of turn: {other:?}"),
        };
        if debugged.kind == "pausing" {
            println!("process {process}: pausing (it stops at its next step point when it runs)");
            return Ok(ExitCode::SUCCESS);
        }
        println!("process {}: {} {}", debugged.process, debugged.kind, debugged.reason);
        let ops = debugged.frames.iter().map(|f| Op::Frame(pb::FrameRef { process, frame: f.index })).collect();
        let details = execute(&mut session, ops).await?;
        for (entry, result) in debugged.frames.iter().zip(details.results) {
            println!("{} {} (line {}:{})", entry.index, entry.label, entry.line, entry.column);
            if let Some(Outcome::Debugged(pb::Debugged { frame: Some(frame), .. })) = result.outcome {
                for v in frame.variables {
                    println!("    {} = {}", v.name, v.print_string);
                }
            }
        }
        let shown = debugged.frames.len() as u64;
        if debugged.total > shown {
            println!("... {} more frames", debugged.total - shown);
        }
        session.logout().await.map_err(|s| anyhow!(peer::call_error(&s, gem, Peer::Gem)))?;
        Ok(ExitCode::SUCCESS)
    })
}

/// `Class>>selector` or `Class class>>selector`.
fn method_ref(name: &str) -> Result<pb::MethodRef> {
    crate::dap::method_named(name).ok_or_else(|| anyhow!("{name:?} names no method (write Class>>selector)"))
}

/// Who the command line logs in as, to a stone or a gem's agent: `ONYX_USER` (default
/// DataCurator) with `ONYX_PASSWORD` (default GemStone's swordfish).
pub fn credentials() -> (String, String) {
    let user = std::env::var("ONYX_USER").unwrap_or_else(|_| "DataCurator".into());
    let password = std::env::var("ONYX_PASSWORD").unwrap_or_else(|_| users::DEFAULT_PASSWORD.into());
    (user, password)
}

/// Logs in to the gem's agent at `gem` as [`credentials`] say.
pub async fn login(gem: &str) -> Result<AgentSession> {
    let (user, password) = credentials();
    AgentSession::login(gem, &user, &password).await.map_err(|e: LoginError| anyhow!(e))
}

/// Runs `ops` as one batch of `session`.
pub async fn execute(session: &mut AgentSession, ops: Vec<Op>) -> Result<pb::BatchResult> {
    let gem = session.address().to_string();
    session.execute(client::batch(ops)).await.map_err(|s| anyhow!(peer::call_error(&s, &gem, Peer::Gem)))
}

/// Operations in one batch of a new login; their outcomes.
pub(crate) fn execute_once(gem: &str, ops: Vec<Op>) -> Result<Vec<Outcome>> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let mut session = login(gem).await?;
        let reply = execute(&mut session, ops).await?;
        finish(session, reply).await
    })
}

/// As [`execute_once`], while `tell` hears how far the batch has come, as the gem tells it
/// (a load, a save, a merge).
pub(crate) fn execute_telling(gem: &str, ops: Vec<Op>, tell: &mut dyn FnMut(&pb::Progress)) -> Result<Vec<Outcome>> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let mut session = login(gem).await?;
        let mut events = session.events().await.map_err(|s| anyhow!(peer::call_error(&s, gem, Peer::Gem)))?;
        let reply = {
            let batch = execute(&mut session, ops);
            tokio::pin!(batch);
            loop {
                tokio::select! {
                    reply = &mut batch => break reply?,
                    event = events.message() => match event {
                        Ok(Some(pb::Event { event: Some(pb::event::Event::Progress(p)) })) => tell(&p),
                        Ok(Some(_)) => {}
                        // No more progress to hear: the reply is all there is to wait for.
                        Ok(None) | Err(_) => break (&mut batch).await?,
                    },
                }
            }
        };
        finish(session, reply).await
    })
}

/// The outcomes of `reply` (printStrings read whole), and the login ended.
async fn finish(mut session: AgentSession, reply: pb::BatchResult) -> Result<Vec<Outcome>> {
    let mut outcomes: Vec<Outcome> = reply.results.into_iter().filter_map(|r| r.outcome).collect();
    for outcome in &mut outcomes {
        if let Outcome::Evaluated(e) = outcome
            && e.rest != 0
        {
            read_rest(&mut session, e).await?;
        }
    }
    let gem = session.address().to_string();
    session.logout().await.map_err(|s| anyhow!(peer::call_error(&s, &gem, Peer::Gem)))?;
    Ok(outcomes)
}

/// Reads the rest of a printString too long for one reply, a part at a time, onto its start.
async fn read_rest(session: &mut AgentSession, e: &mut pb::Evaluated) -> Result<()> {
    let mut from = e.print_string.chars().count() as u64;
    while from != 0 {
        let read = Op::ReadText(pb::TextRef { handle: e.rest });
        let operation = pb::Operation { op: Some(read), page: Some(pb::Page { from, size: 0 }) };
        let gem = session.address().to_string();
        let reply = session
            .execute(pb::Batch { operations: vec![operation] })
            .await
            .map_err(|s| anyhow!(peer::call_error(&s, &gem, Peer::Gem)))?;
        match reply.results.into_iter().next().and_then(|r| r.outcome) {
            Some(Outcome::Text(part)) => {
                e.print_string.push_str(&part.text);
                from = part.paged.map_or(0, |p| p.next);
            }
            Some(Outcome::Error(failure)) => bail!("reading the printString: {}", failure.message),
            other => bail!("the gem answered out of turn: {other:?}"),
        }
    }
    let release = Op::Release(pb::Handles { handles: vec![e.rest] });
    execute(session, vec![release]).await?;
    Ok(())
}
