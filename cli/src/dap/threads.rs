//! The debug adapter's threads: every process a gem of the stone keeps suspended, and the
//! processes of the gem attached to (so that one can be paused). Each (gem's agent, process)
//! keeps one thread id for the adapter's life. The gem's events tell of processes that stop
//! or go on in any gem; [`listen`] turns them into `stopped` and `continued` events.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use dap::events::{ContinuedEventBody, Event, StoppedEventBody};
use dap::types::StoppedEventReason;
use onyx_protocol::agent::{self as pb, event::Event as GemEvent, operation::Op, result::Outcome};
use onyx_protocol::client::AgentSession;

use super::Out;

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
            if self.stopped.insert(id) {
                events.push(Event::Stopped(StoppedEventBody {
                    reason: reason(&p.kind),
                    description: Some(format!("{} in {}", p.reason, p.method)),
                    thread_id: Some(id),
                    preserve_focus_hint: None,
                    text: Some(p.reason.clone()),
                    all_threads_stopped: Some(false),
                    hit_breakpoint_ids: None,
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

/// Listens to the events of the gem `session` is logged in to, until they end, and tells
/// the client of every process that stops or goes on in any gem of the stone.
pub async fn listen(mut session: AgentSession, threads: Shared, out: Out) {
    let Ok(mut events) = session.events().await else { return };
    while let Ok(Some(event)) = events.message().await {
        let Some(GemEvent::Suspended(gem)) = event.event else { continue };
        let known = threads.lock().map(|t| t.agent_of(gem.session)).unwrap_or_default();
        let agent = match known {
            Some(agent) => agent,
            None => {
                let ops = vec![Op::Sessions(pb::Empty {})];
                let Ok(reply) = session.execute(onyx_protocol::client::batch(ops)).await else { continue };
                let Some(Outcome::Sessions(list)) = reply.results.into_iter().next().and_then(|r| r.outcome) else {
                    continue;
                };
                let Ok(mut t) = threads.lock() else { return };
                t.learn(&list.sessions);
                match t.agent_of(gem.session) {
                    Some(agent) => agent,
                    None => continue,
                }
            }
        };
        let told = match threads.lock() {
            Ok(mut t) => t.suspended(&agent, &gem.processes),
            Err(_) => return,
        };
        super::send_events(&out, told);
    }
}
