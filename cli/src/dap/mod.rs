//! `onyx dap`: a Debug Adapter Protocol server on stdin and stdout, for VS Code and every
//! editor that speaks DAP. It attaches to a gem's agent (`attach` with `gem`, the user and
//! password from `ONYX_USER` and `ONYX_PASSWORD`), and shows as threads the processes every
//! gem of the stone keeps suspended, and that gem's own processes (to pause one). Debugging a
//! process of another gem logs in to that gem's agent as a debugger, with a one-time ticket
//! the stone issues through the gem attached to (the password goes to that gem alone). Breakpoints set in the
//! editor are the stone's (`breakpoints.rs`), and so is the exception filter of all errors (a
//! breakpoint where errors are signalled, for as long as the session); `threads.rs` keeps the
//! threads and turns the gems' events into DAP's (the transcripts of every gem it may log in
//! to among them); `debug.rs` answers stacks, variables, evaluations and steps.

mod breakpoints;
mod debug;
mod threads;
mod wire;

use std::collections::{HashMap, HashSet};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use dap::base_message::Sendable;
use dap::events::Event;
use dap::prelude::{Command, ResponseBody};
use dap::requests::{SetBreakpointsArguments, SetExceptionBreakpointsArguments, SetFunctionBreakpointsArguments};
use dap::responses::{
    Response, ResponseMessage, SetBreakpointsResponse, SetExceptionBreakpointsResponse, SetFunctionBreakpointsResponse,
    ThreadsResponse,
};
use dap::types::{Capabilities, ExceptionBreakpointsFilter, Source, Thread};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_protocol::client::{self, AgentSession};

use crate::client::credentials;
pub use breakpoints::method_named;
use breakpoints::{How, Placed, Wanted};
use threads::{Listener, Process, Shared};

/// Where responses and events go (the listener writes events from its own task).
pub type Out = Arc<Mutex<wire::Writer>>;

/// Sends `events` to the client (a client gone is seen by the request loop).
pub fn send_events(out: &Out, events: Vec<Event>) {
    if let Ok(mut out) = out.lock() {
        for event in events {
            let _ = out.send(Sendable::Event(event));
        }
    }
}

/// Serves one debug session on stdin and stdout; `gem` is where to attach when the client's
/// `attach` names none.
pub fn serve(gem: Option<String>) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
    let mut input = std::io::stdin().lock();
    let out: Out = Arc::new(Mutex::new(wire::Writer::stdout()));
    let mut adapter = Adapter {
        default_gem: gem,
        home: String::new(),
        sessions: HashMap::new(),
        threads: Shared::default(),
        out: out.clone(),
        tables: debug::Tables::default(),
        placed: Placed::default(),
        listening: HashSet::new(),
    };
    loop {
        let (seq, command, reply, after, disconnect) = match wire::read(&mut input)? {
            wire::Incoming::Request(request, command) => {
                let disconnect = matches!(request.command, Command::Disconnect(_));
                let (reply, after) = runtime.block_on(adapter.handle(request.command));
                (request.seq, command, reply, after, disconnect)
            }
            wire::Incoming::Unreadable { seq, command, why } => {
                eprintln!("onyx dap: request {seq} ({command}) could not be read: {why}");
                let reply = Err(format!("onyx dap does not answer {command:?} so: {why}"));
                (seq, command, reply, Vec::new(), false)
            }
            wire::Incoming::End => break,
        };
        let response = match reply {
            Ok(body) => Response { request_seq: seq, success: true, message: None, body: Some(body), error: None },
            Err(message) => Response {
                request_seq: seq,
                success: false,
                message: Some(ResponseMessage::Error(message)),
                body: None,
                error: None,
            },
        };
        if let Ok(mut out) = out.lock() {
            out.respond(response, &command)?;
        }
        send_events(&out, after);
        if disconnect {
            break;
        }
    }
    runtime.block_on(async {
        // The filter of all errors lasts as long as the session that set it.
        if let Err(e) = adapter.place(ALL_ERRORS, &[], &Source::default()).await {
            eprintln!("onyx dap: the breakpoint on every error signalled could not be removed: {e}");
        }
        adapter.logout().await;
    });
    Ok(ExitCode::SUCCESS)
}

/// The adapter's state: its logins to gems, the threads, and the ids it gave out.
struct Adapter {
    default_gem: Option<String>,
    /// The gem attached to.
    home: String,
    /// A login to each gem's agent used, by address.
    sessions: HashMap<String, AgentSession>,
    threads: Shared,
    out: Out,
    tables: debug::Tables,
    placed: Placed,
    /// The gems whose transcripts are told (or that refused).
    listening: HashSet<String>,
}

/// The exception filters offered: errors signalled (handled or not), and unhandled errors.
const ALL_ERRORS: &str = "errors";
const UNHANDLED: &str = "unhandled";

/// Where an error is signalled, and what makes it one: the stone's breakpoint behind the
/// filter of all errors.
const SIGNAL: (&str, &str, &str) = ("Exception", "signal", "self isKindOf: Error");

/// A request's answer (or why not), and the events to send after it.
type Handled = (Result<ResponseBody, String>, Vec<Event>);

impl Adapter {
    async fn handle(&mut self, command: Command) -> Handled {
        let answer = match command {
            Command::Initialize(_) => {
                let capabilities = Capabilities {
                    supports_configuration_done_request: Some(true),
                    supports_function_breakpoints: Some(true),
                    supports_conditional_breakpoints: Some(true),
                    supports_hit_conditional_breakpoints: Some(true),
                    supports_log_points: Some(true),
                    exception_breakpoint_filters: Some(filters()),
                    supports_restart_frame: Some(true),
                    supports_terminate_threads_request: Some(true),
                    ..Default::default()
                };
                return (Ok(ResponseBody::Initialize(capabilities)), vec![Event::Initialized]);
            }
            Command::Attach(args) => self.attach(args.additional_data).await.map(|()| ResponseBody::Attach),
            Command::Launch(_) => Err("onyx dap attaches to a gem's agent: use an attach configuration".into()),
            Command::ConfigurationDone => {
                return match self.look().await {
                    Ok((events, _)) => (Ok(ResponseBody::ConfigurationDone), events),
                    Err(e) => (Err(e), Vec::new()),
                };
            }
            Command::SetBreakpoints(args) => self.set_breakpoints(args).await,
            Command::SetFunctionBreakpoints(args) => self.set_function_breakpoints(args).await,
            Command::SetExceptionBreakpoints(args) => self.set_exception_breakpoints(args).await,
            Command::Threads => self.threads().await,
            Command::Disconnect(_) => Ok(ResponseBody::Disconnect),
            other => return self.debug(other).await,
        };
        (answer, Vec::new())
    }

    /// Logs in to the gem named by the attach arguments (or on the command line), and
    /// listens to its events.
    async fn attach(&mut self, args: Option<serde_json::Value>) -> Result<(), String> {
        let named = args.as_ref().and_then(|a| a.get("gem")).and_then(|g| g.as_str()).map(str::to_string);
        let gem =
            named.or_else(|| self.default_gem.clone()).ok_or("attach names no gem: give \"gem\": \"host:port\"")?;
        let (user, password) = credentials();
        let session = AgentSession::login(&gem, &user, &password).await.map_err(|e| e.to_string())?;
        let listener = AgentSession::login(&gem, &user, &password).await.map_err(|e| e.to_string())?;
        self.sessions.insert(gem.clone(), session);
        self.listening.insert(gem.clone());
        self.home = gem;
        let told = self.placed.told.clone();
        tokio::spawn(threads::listen(
            listener,
            Listener { threads: self.threads.clone(), told, out: self.out.clone() },
        ));
        Ok(())
    }

    /// Tells the transcript of the gem at `agent` from now on (log points write there), or
    /// why it cannot, once.
    async fn listen_to(&mut self, agent: &str) {
        if !self.listening.insert(agent.to_string()) {
            return;
        }
        match self.attach_to(agent).await {
            Ok(session) => {
                tokio::spawn(threads::transcript(session, agent.to_string(), self.out.clone()));
            }
            Err(e) => send_events(
                &self.out,
                vec![threads::console(format!("the transcript of gem {agent} is not shown: {e}\n"))],
            ),
        }
    }

    /// Reads every gem's suspended processes, and the attached gem's processes: a `stopped`
    /// event for each not told of yet. The stone's lists may be a second old: each gem that
    /// lists some is asked for its own list, the truth about its processes (a gem the adapter
    /// cannot log in to shows none).
    async fn look(&mut self) -> Result<(Vec<Event>, Vec<pb::ProcessEntry>), String> {
        let home = self.home.clone();
        let mut answers = self.execute(&home, vec![Op::Sessions(pb::Empty {}), Op::Processes(pb::Empty {})]).await?;
        let (Some(Outcome::Processes(processes)), Some(Outcome::Sessions(list))) = (answers.pop(), answers.pop())
        else {
            return Err("the gem did not list its sessions and processes".into());
        };
        self.threads.lock().map_err(|_| "the thread table is lost")?.learn(&list.sessions);
        let processes = processes.processes;
        let mut fresh = Vec::new();
        for s in &list.sessions {
            let mut suspended = s.suspended.clone();
            let mut theirs = None;
            if s.agent != home && !suspended.is_empty() {
                match self.one(&s.agent, Op::Processes(pb::Empty {})).await {
                    Ok(Outcome::Processes(p)) => theirs = Some(p.processes),
                    // What a session lists of itself is only its word: a process shows as a
                    // thread once its own gem, logged in to, says it is there.
                    _ => suspended.clear(),
                }
            }
            let truth = if s.agent == home { Some(&processes) } else { theirs.as_ref() };
            if let Some(truth) = truth {
                suspended.retain(|p| truth.iter().any(|q| q.process == p.process && q.status == "suspended"));
            }
            fresh.push((s.agent.clone(), suspended));
        }
        for s in list.sessions.iter().filter(|s| !s.agent.is_empty()) {
            self.listen_to(&s.agent).await;
        }
        let mut t = self.threads.lock().map_err(|_| "the thread table is lost")?;
        let events = fresh.iter().flat_map(|(agent, suspended)| t.suspended(agent, suspended)).collect();
        Ok((events, processes))
    }

    /// The stopped threads of every gem, and the processes of the gem attached to.
    async fn threads(&mut self) -> Result<ResponseBody, String> {
        let (events, processes) = self.look().await?;
        send_events(&self.out, events);
        let home = self.home.clone();
        let mut t = self.threads.lock().map_err(|_| "the thread table is lost")?;
        for p in processes.iter().filter(|p| p.status != "suspended" || p.kept) {
            t.id(Process { agent: home.clone(), process: p.process });
        }
        let mut threads = Vec::new();
        for id in 1.. {
            let Some(p) = t.process(id) else { break };
            let stopped = t.is_stopped(id);
            let running = p.agent == home && processes.iter().any(|q| q.process == p.process);
            if stopped || running {
                let state = if stopped { "stopped" } else { "running" };
                threads.push(Thread { id, name: format!("process {} in gem {} ({state})", p.process, p.agent) });
            }
        }
        Ok(ResponseBody::Threads(ThreadsResponse { threads }))
    }

    /// Sets the breakpoints of one source (a Tonel file, or a method shown from a frame).
    async fn set_breakpoints(&mut self, args: SetBreakpointsArguments) -> Result<ResponseBody, String> {
        let asked: Vec<(u32, Result<How, String>)> = (args.breakpoints.unwrap_or_default().into_iter())
            .map(|b| (b.line.max(0) as u32, How::read(b.condition, b.hit_condition, b.log_message)))
            .collect();
        let (key, wanted) = if let Some(path) = &args.source.path {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            let methods = breakpoints::tonel_methods(&text);
            self.placed.learn_file(path, &methods);
            let wanted: Vec<Wanted> = (asked.into_iter())
                .map(|(line, how)| match methods.iter().find(|m| m.header <= line && line < m.end) {
                    Some(m) => Wanted::new(Ok(m.method.clone()), line - m.header + 1, m.header - 1, how),
                    None => Wanted::new(Err(format!("line {line} is in no method of {path}")), line, 0, how),
                })
                .collect();
            (path.clone(), wanted)
        } else {
            let reference = args.source.source_reference.unwrap_or(0);
            let method = (self.tables.method_of_source(reference))
                .ok_or("this source is a doit's, or no longer shown: it holds no breakpoints".to_string());
            let wanted: Vec<Wanted> =
                asked.into_iter().map(|(line, how)| Wanted::new(method.clone(), line, 0, how)).collect();
            (format!("#{reference}"), wanted)
        };
        let breakpoints = self.place(&key, &wanted, &args.source).await?;
        Ok(ResponseBody::SetBreakpoints(SetBreakpointsResponse { breakpoints }))
    }

    /// Sets breakpoints on methods named `Foo>>bar` (at their first statement).
    async fn set_function_breakpoints(
        &mut self,
        args: SetFunctionBreakpointsArguments,
    ) -> Result<ResponseBody, String> {
        let wanted: Vec<Wanted> = (args.breakpoints.into_iter())
            .map(|b| {
                let method = breakpoints::method_named(&b.name)
                    .ok_or(format!("{:?} names no method (write Class>>selector)", b.name));
                Wanted::new(method, 1, 0, How::read(b.condition, b.hit_condition, None))
            })
            .collect();
        let breakpoints = self.place("functions", &wanted, &Source::default()).await?;
        Ok(ResponseBody::SetFunctionBreakpoints(SetFunctionBreakpointsResponse { breakpoints }))
    }

    /// Sets the exception filters: all errors is a breakpoint of the stone where errors are
    /// signalled (for every gem, until the filter is cleared or the session ends); unhandled
    /// errors are told as stops (their processes are kept suspended in any case).
    async fn set_exception_breakpoints(
        &mut self,
        args: SetExceptionBreakpointsArguments,
    ) -> Result<ResponseBody, String> {
        let on = |filter: &str| args.filters.iter().any(|f| f == filter);
        let (class, selector, condition) = SIGNAL;
        let wanted: Vec<Wanted> = if on(ALL_ERRORS) {
            let method = pb::MethodRef {
                class: Some(pb::ClassRef { class_name: class.into(), meta: false }),
                selector: selector.into(),
            };
            vec![Wanted::new(Ok(method), 1, 0, Ok(How { condition: condition.into(), ..How::default() }))]
        } else {
            Vec::new()
        };
        let placed = self.place(ALL_ERRORS, &wanted, &Source::default()).await?;
        let mut t = self.threads.lock().map_err(|_| "the thread table is lost")?;
        t.exceptions = placed.iter().filter_map(|b| b.id).map(|id| id as u64).collect();
        t.hide_unhandled = !on(UNHANDLED);
        let answers = (args.filters.iter())
            .map(|f| match f.as_str() {
                ALL_ERRORS => placed.first().cloned().unwrap_or_default(),
                UNHANDLED => dap::types::Breakpoint { verified: true, ..Default::default() },
                other => dap::types::Breakpoint {
                    message: Some(format!("no exception filter {other:?}: {ALL_ERRORS} or {UNHANDLED}")),
                    ..Default::default()
                },
            })
            .collect();
        Ok(ResponseBody::SetExceptionBreakpoints(SetExceptionBreakpointsResponse { breakpoints: Some(answers) }))
    }

    /// Replaces the breakpoints of `key` with `wanted`, in one batch through the gem attached to.
    async fn place(
        &mut self,
        key: &str,
        wanted: &[Wanted],
        shown: &Source,
    ) -> Result<Vec<dap::types::Breakpoint>, String> {
        let ops = self.placed.replace(key, wanted);
        let removed = ops.iter().filter(|op| matches!(op, Op::RemoveBreakpoint(_))).count();
        let home = self.home.clone();
        let outcomes = if ops.is_empty() { Vec::new() } else { self.execute(&home, ops).await? };
        Ok(self.placed.answered(key, wanted, removed, outcomes, shown))
    }

    /// The login to the gem at `agent` (made on first use: another gem's as a debugger).
    async fn session(&mut self, agent: &str) -> Result<&mut AgentSession, String> {
        if !self.sessions.contains_key(agent) {
            let session = self.attach_to(agent).await?;
            self.sessions.insert(agent.to_string(), session);
        }
        self.sessions.get_mut(agent).ok_or_else(|| "no login".to_string())
    }

    /// A new login to the agent at `agent`, another gem's of the stone, with a ticket the
    /// stone issues through the gem attached to: the password the user gave goes only to the
    /// gem they named.
    async fn attach_to(&mut self, agent: &str) -> Result<AgentSession, String> {
        let session = self.threads.lock().map_err(|_| "the thread table is lost")?.session_at(agent)?;
        let home = self.home.clone();
        let home = self.sessions.get(&home).ok_or("not attached to a gem")?;
        home.attach(session, agent).await.map_err(|e| format!("{agent}: {e}"))
    }

    /// Runs `ops` as one batch in the gem at `agent`: their outcomes.
    async fn execute(&mut self, agent: &str, ops: Vec<Op>) -> Result<Vec<Outcome>, String> {
        let session = self.session(agent).await?;
        let reply = session.execute(client::batch(ops)).await.map_err(|s| format!("{agent}: {}", s.message()))?;
        Ok(reply.results.into_iter().filter_map(|r| r.outcome).collect())
    }

    /// Runs one operation in the gem at `agent`: its outcome, an error's message as `Err`.
    async fn one(&mut self, agent: &str, op: Op) -> Result<Outcome, String> {
        match self.execute(agent, vec![op]).await?.pop() {
            Some(Outcome::Error(e)) => Err(e.message),
            Some(outcome) => Ok(outcome),
            None => Err(format!("{agent} answered nothing")),
        }
    }

    /// Logs out of every gem (the processes debugged stay as they are).
    async fn logout(&mut self) {
        for (_, session) in self.sessions.drain() {
            let _ = session.logout().await;
        }
    }
}

/// The exception filters the editor offers.
fn filters() -> Vec<ExceptionBreakpointsFilter> {
    let filter = |filter: &str, label: &str, description: &str, default| ExceptionBreakpointsFilter {
        filter: filter.into(),
        label: label.into(),
        description: Some(description.into()),
        default: Some(default),
        ..Default::default()
    };
    vec![
        filter(
            ALL_ERRORS,
            "All errors",
            "Stop every process of every gem where an error is signalled, handled or not (a breakpoint of the stone, until cleared)",
            false,
        ),
        filter(
            UNHANDLED,
            "Unhandled errors",
            "Tell of processes an unhandled error stopped (they stay suspended in any case)",
            true,
        ),
    ]
}

/// An error for a request naming a thread, frame or reference this adapter did not give.
fn unknown(what: &str, id: i64) -> String {
    format!("no {what} {id}: it is no longer shown (the process went on)")
}

/// The process of thread `id`.
fn process_of(threads: &Shared, id: i64) -> Result<Process, String> {
    threads.lock().map_err(|_| "the thread table is lost".to_string())?.process(id).ok_or_else(|| unknown("thread", id))
}
