//! The debug adapter's threads: every process a gem of the stone keeps suspended, and the
//! processes of the gem attached to (so that one can be paused). Each (gem's agent, process)
//! keeps one thread id for the adapter's life. The gem's events tell of processes that stop
//! or go on in any gem, of its transcript, and of changes to the stone's breakpoints;
//! [`listen`] turns them into `stopped`, `continued`, `output` and `breakpoint` events, and
//! `terminated` when the gem goes. [`transcript`] tells another gem's transcript.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use dap::events::{ContinuedEventBody, Event, OutputEventBody, StoppedEventBody};
use dap::types::{OutputEventCategory, StoppedEventReason};
use onyx_protocol::agent::{self as pb, event::Event as GemEvent, operation::Op, result::Outcome};
use onyx_protocol::client::AgentSession;

use super::Out;
use super::breakpoints::{self, Told};

/// A thread: a process of a gem.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Process {
    /// The gem's agent.
    pub agent: String,
    pub process: u64,
}

/// The threads known, and which are stopped.
#[derive(Default)]
pub struct Threads {
    ids: HashMap<Process, i64>,
    by_id: Vec<Process>,
    stopped: HashSet<i64>,
    /// Each gem's session number, to its agent.
    agents: HashMap<u64, String>,
    /// The sessions of the stone's latest list, with the agent each advertises.
    listed: Vec<(u64, String)>,
    /// The breakpoints behind the filter of all errors: a stop there is an exception's.
    pub exceptions: HashSet<u64>,
    /// Whether processes stopped by unhandled errors go untold (the editor's filter is off).
    pub hide_unhandled: bool,
}

/// Shared between the requests and the listener.
pub type Shared = Arc<Mutex<Threads>>;

impl Threads {
    /// The thread id of `process` (made on first sight).
    pub fn id(&mut self, process: Process) -> i64 {
        if let Some(id) = self.ids.get(&process) {
            return *id;
        }
        self.by_id.push(process.clone());
        let id = self.by_id.len() as i64;
        self.ids.insert(process, id);
        id
    }

    /// The process of thread `id`.
    pub fn process(&self, id: i64) -> Option<Process> {
        usize::try_from(id - 1).ok().and_then(|i| self.by_id.get(i)).cloned()
    }

    /// Whether thread `id` is stopped.
    pub fn is_stopped(&self, id: i64) -> bool {
        self.stopped.contains(&id)
    }

    /// Notes that thread `id` stopped (by a step, a pause) or went on.
    pub fn set_stopped(&mut self, id: i64, stopped: bool) {
        if stopped {
            self.stopped.insert(id);
        } else {
            self.stopped.remove(&id);
        }
    }

    /// Notes where each session's gem listens.
    pub fn learn(&mut self, sessions: &[pb::GemSession]) {
        for s in sessions {
            self.agents.insert(s.session, s.agent.clone());
        }
        self.listed = sessions.iter().map(|s| (s.session, s.agent.clone())).collect();
    }

    /// The session that advertises the agent at `agent` in the latest list, if exactly one
    /// does (an address is only what a session says: a ticket to it is good at that session's
    /// gem alone, so two claims leave the adapter nothing to attach to).
    pub fn session_at(&self, agent: &str) -> Result<u64, String> {
        let mut claims = self.listed.iter().filter(|(_, a)| a == agent).map(|(s, _)| *s);
        match (claims.next(), claims.next()) {
            (Some(session), None) => Ok(session),
            (None, _) => Err(format!("no session of the stone lists the agent at {agent}")),
            (Some(a), Some(b)) => Err(format!("sessions {a} and {b} both list the agent at {agent}")),
        }
    }

    /// The gem of `session`'s agent, if known.
    pub fn agent_of(&self, session: u64) -> Option<String> {
        self.agents.get(&session).cloned()
    }

    /// Takes the processes the gem at `agent` keeps suspended now: answers a `stopped` event
    /// for each that was not stopped, and a `continued` one for each stopped there before
    /// that is no longer.
    pub fn suspended(&mut self, agent: &str, now: &[pb::SuspendedProcess]) -> Vec<Event> {
        let mut events = Vec::new();
        let mut here = HashSet::new();
        for p in now {
            let id = self.id(Process { agent: agent.to_string(), process: p.process });
            here.insert(id);
            let hit = if p.kind == "breakpoint" { breakpoint_of(&p.reason) } else { None };
            let signalled = hit.is_some_and(|b| self.exceptions.contains(&b));
            let untold = p.kind == "error" && self.hide_unhandled;
            if self.stopped.insert(id) && !untold {
                let (reason, description) = match signalled {
                    true => (StoppedEventReason::Exception, format!("an error was signalled ({})", p.method)),
                    false => (reason(&p.kind), format!("{} in {}", p.reason, p.method)),
                };
                events.push(Event::Stopped(StoppedEventBody {
                    reason,
                    description: Some(description),
                    thread_id: Some(id),
                    preserve_focus_hint: None,
                    text: Some(p.reason.clone()),
                    all_threads_stopped: Some(false),
                    hit_breakpoint_ids: hit.map(|b| vec![b as i64]),
                }));
            }
        }
        let went: Vec<i64> = (self.stopped.iter().copied())
            .filter(|id| !here.contains(id) && self.process(*id).is_some_and(|p| p.agent == agent))
            .collect();
        for id in went {
            self.stopped.remove(&id);
            events.push(Event::Continued(ContinuedEventBody { thread_id: id, all_threads_continued: Some(false) }));
        }
        events
    }
}

/// The breakpoint a reason names (`breakpoint 7 at line 3`).
fn breakpoint_of(reason: &str) -> Option<u64> {
    reason.strip_prefix("breakpoint ")?.split(' ').next()?.parse().ok()
}

/// Why a process stopped, as DAP names it.
pub fn reason(why: &str) -> StoppedEventReason {
    match why {
        "breakpoint" => StoppedEventReason::Breakpoint,
        "pause" => StoppedEventReason::Pause,
        "step" => StoppedEventReason::Step,
        "halt" | "interrupt" | "suspended" => StoppedEventReason::String(why.to_string()),
        _ => StoppedEventReason::Exception,
    }
}

/// What the listener of the gem attached to tells the client of.
pub struct Listener {
    pub threads: Shared,
    pub told: Told,
    pub out: Out,
}

/// Listens to the events of the gem `session` is logged in to, until they end: tells the
/// client of every process that stops or goes on in any gem of the stone, of the gem's
/// transcript, of its breakpoints moved, orphaned or removed, and that the session is over
/// when the gem goes.
pub async fn listen(mut session: AgentSession, to: Listener) {
    let Ok(mut events) = session.events().await else { return };
    while let Ok(Some(event)) = events.message().await {
        let told = match event.event {
            Some(GemEvent::Suspended(gem)) => match stopped_or_went(&mut session, &to.threads, gem).await {
                Some(told) => told,
                None => continue,
            },
            Some(GemEvent::Transcript(text)) => vec![output(OutputEventCategory::Stdout, text)],
            Some(GemEvent::Breakpoints(_)) => {
                let ops = vec![Op::Breakpoints(pb::Empty {})];
                let Ok(reply) = session.execute(onyx_protocol::client::batch(ops)).await else { continue };
                match reply.results.into_iter().next().and_then(|r| r.outcome) {
                    Some(Outcome::Breakpoints(list)) => breakpoints::changes(&to.told, &list.breakpoints),
                    _ => continue,
                }
            }
            Some(GemEvent::Relogged(r)) => vec![console(format!(
                "the gem lost its stone and logged in again as session {}: its processes were lost\n",
                r.session
            ))],
            _ => continue,
        };
        super::send_events(&to.out, told);
    }
    super::send_events(&to.out, vec![console("the gem attached to went\n".into()), Event::Terminated(None)]);
}

/// The events for a gem's suspended processes now (its agent learnt from the stone when not
/// known yet).
async fn stopped_or_went(session: &mut AgentSession, threads: &Shared, gem: pb::GemSuspended) -> Option<Vec<Event>> {
    let known = threads.lock().ok()?.agent_of(gem.session);
    let agent = match known {
        Some(agent) => agent,
        None => {
            let ops = vec![Op::Sessions(pb::Empty {})];
            let reply = session.execute(onyx_protocol::client::batch(ops)).await.ok()?;
            let Some(Outcome::Sessions(list)) = reply.results.into_iter().next().and_then(|r| r.outcome) else {
                return None;
            };
            let mut t = threads.lock().ok()?;
            t.learn(&list.sessions);
            t.agent_of(gem.session)?
        }
    };
    Some(threads.lock().ok()?.suspended(&agent, &gem.processes))
}

/// Tells the transcript of another gem (at `agent`), each line marked with the gem, until
/// its events end.
pub async fn transcript(mut session: AgentSession, agent: String, out: Out) {
    let Ok(mut events) = session.events().await else { return };
    let mut line_start = true;
    while let Ok(Some(event)) = events.message().await {
        let Some(GemEvent::Transcript(text)) = event.event else { continue };
        let mut marked = String::with_capacity(text.len() + agent.len() + 8);
        for piece in text.split_inclusive('\n') {
            if line_start {
                marked.push_str(&format!("[{agent}] "));
            }
            marked.push_str(piece);
            line_start = piece.ends_with('\n');
        }
        super::send_events(&out, vec![output(OutputEventCategory::Stdout, marked)]);
    }
}

/// An `output` event.
fn output(category: OutputEventCategory, output: String) -> Event {
    Event::Output(OutputEventBody { category: Some(category), output, ..Default::default() })
}

/// A message from the adapter itself, for the editor's console.
pub fn console(text: String) -> Event {
    output(OutputEventCategory::Console, text)
}
