//! The stone's sessions from the command line, as an administrator sees them: `onyx sessions`
//! (each session's user as the stone checked it at login, its gem, its view and its locks),
//! `onyx stop-session` and `onyx remove-locks` (an administrator's rights, which the stone
//! checks).

use std::process::ExitCode;

use anyhow::{Result, bail};
use onyx_protocol::agent::{self as pb, administer_session::Act, operation::Op, result::Outcome};

use crate::client::execute_once;

/// Prints the stone's sessions, one a line, and with `locks` each session's locked objects.
pub fn list(gem: &str, locks: bool) -> Result<ExitCode> {
    let sessions = match execute_once(gem, vec![Op::Sessions(pb::Empty {})])?.into_iter().next() {
        Some(Outcome::Sessions(s)) => s,
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            return Ok(ExitCode::FAILURE);
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    };
    let held: Vec<Op> = sessions
        .sessions
        .iter()
        .filter(|s| locks && s.locks > 0)
        .map(|s| Op::AdministerSession(pb::AdministerSession { session: s.session, act: Act::ListLocks as i32 }))
        .collect();
    let held = if held.is_empty() { Vec::new() } else { execute_once(gem, held)? };
    for s in &sessions.sessions {
        let this = if s.this_gem { " (this gem)" } else { "" };
        let agent = if s.agent.is_empty() { "no agent".to_string() } else { format!("agent {}", s.agent) };
        println!(
            "{} {}{this}  {} pid {}, {agent}, view {} ({} behind), {} locks",
            s.session, s.user, s.host, s.pid, s.view, s.behind, s.locks
        );
    }
    let mut failed = false;
    for outcome in held {
        match outcome {
            Outcome::SessionLocks(l) => {
                for lock in l.locks {
                    println!("  session {}: {} lock on object {}", l.session, kind(lock.write), lock.oop);
                }
            }
            Outcome::Error(e) => {
                eprintln!("{}", e.message);
                failed = true;
            }
            other => bail!("the gem answered out of turn: {other:?}"),
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn kind(write: bool) -> &'static str {
    if write { "write" } else { "read" }
}

/// Stops a session or removes its locks, and says what it held.
pub fn administer(gem: &str, session: u64, act: Act) -> Result<ExitCode> {
    let op = Op::AdministerSession(pb::AdministerSession { session, act: act as i32 });
    match execute_once(gem, vec![op])?.into_iter().next() {
        Some(Outcome::SessionLocks(l)) => {
            let done = if act == Act::Stop { "stopped" } else { "has no locks now" };
            println!("session {session} {done}; it held {} locks", l.locks.len());
            Ok(ExitCode::SUCCESS)
        }
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            Ok(ExitCode::FAILURE)
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    }
}
