//! The gem's VM thread: it owns the VM, takes batches from the agent's RPC threads through a
//! channel, and runs them, each with its user's privilege. An evaluation runs in time slices; between slices the thread takes
//! new batches and runs them too, so the tools are answered while Smalltalk code runs (an
//! endless loop included) and an interrupt reaches a running evaluation within a slice.

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_vm::{EvalError, Poll, Value, Vm};
use tokio::sync::{broadcast, oneshot};

use super::inspect::Handles;
use super::ops::{self, Failure};
use super::search::CodeIndex;
use super::watch::{self, Watch};
use crate::users;

/// How long an evaluation runs before the thread looks for other work.
const SLICE: Duration = Duration::from_millis(5);

/// What the agent's RPC threads ask of the VM thread.
pub enum Work {
    /// A batch of a logged-in user.
    Batch(Job),
    /// The profile of a user who logs in (the password is checked off the VM thread).
    Profile { user: String, reply: oneshot::Sender<Result<Option<users::Profile>, String>> },
    /// A user logged in.
    LoggedIn(String),
    /// A login ended: the handles it held are released.
    LoggedOut(u64),
}

/// A batch from a client and where its answer goes. The users it adds carry their
/// password's hash in place of the password.
pub struct Job {
    pub batch: pb::Batch,
    pub reply: oneshot::Sender<pb::BatchResult>,
    pub arrived: Instant,
    /// The login that sent it: the handles it names are that login's.
    pub login: u64,
    /// Whether the batch's user may change code.
    pub may_change_code: bool,
}

/// A batch under way: the operations left, the results so far, and the evaluation it waits
/// for, if any.
struct Running {
    ops: std::vec::IntoIter<pb::Operation>,
    results: Vec<pb::Result>,
    evaluation: Option<Evaluation>,
    job_reply: Option<oneshot::Sender<pb::BatchResult>>,
    arrived: Instant,
    login: u64,
    may_change_code: bool,
    /// The part of a list the current operation asked for.
    page: Option<pb::Page>,
    /// With auto-commit on: the commit that followed the batch.
    auto_committed: Option<Result<Outcome, Failure>>,
}

/// A doit's process, running.
struct Evaluation {
    process: Value,
    started: Instant,
    deadline: Option<Instant>,
    /// Answer the value inspected.
    inspect: bool,
    /// No handle is kept on the value.
    forget: bool,
    /// The client's name for it (0: none), for an interrupt of it alone.
    tag: u64,
}

/// The VM thread's loop: until every sender of `work` is gone.
pub fn run(vm: &mut Vm, work: &Receiver<Work>, events: &broadcast::Sender<pb::Event>, mut watch: Watch) {
    let mut running: Vec<Running> = Vec::new();
    let mut state = State::default();
    loop {
        watch.look(vm, events);
        if running.is_empty() {
            match work.recv_timeout(watch::EVERY) {
                Ok(w) => take(vm, w, &mut running, &mut state, &mut watch),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        loop {
            match work.try_recv() {
                Ok(w) => take(vm, w, &mut running, &mut state, &mut watch),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
        let mut interrupt = Vec::new();
        for r in &mut running {
            vm.may_change_code = r.may_change_code;
            let login = r.login;
            r.advance(vm, &mut state, &mut |tag| interrupt.push((login, tag)));
        }
        if !interrupt.is_empty() {
            for r in &mut running {
                r.interrupt(vm, &mut state, &interrupt);
            }
        }
        for r in &mut running {
            if r.is_done() && state.auto_commit && r.auto_committed.is_none() {
                vm.may_change_code = r.may_change_code;
                r.auto_committed = Some(ops::commit(vm, &mut state.handles.of(r.login)));
            }
        }
        running.retain_mut(|r| {
            let finished = r.finish();
            // A login that ended while its batch ran leaves nothing behind.
            if finished && state.ended.contains(&r.login) {
                state.handles.forget_login(vm, r.login);
            }
            !finished
        });
        state.transcript.collect(vm, events);
    }
}

/// Starts a batch, or answers a profile or notes a login at once.
fn take(vm: &mut Vm, work: Work, running: &mut Vec<Running>, state: &mut State, watch: &mut Watch) {
    match work {
        Work::Batch(job) => running.push(Running::new(job)),
        Work::Profile { user, reply } => {
            // Before anyone has logged in the session holds no work: the login sees the
            // latest commit (a user added since the gem started included).
            if !state.logged_in {
                let _ = vm.abort_transaction();
            }
            // A client that gave up no longer wants the answer.
            let _ = reply.send(users::profile(vm, &user));
        }
        Work::LoggedIn(user) => {
            state.logged_in = true;
            watch.logged_in(vm, user);
        }
        Work::LoggedOut(login) => {
            state.handles.forget_login(vm, login);
            state.ended.insert(login);
        }
    }
}

impl Running {
    fn new(job: Job) -> Running {
        Running {
            ops: job.batch.operations.into_iter(),
            results: Vec::new(),
            evaluation: None,
            job_reply: Some(job.reply),
            arrived: job.arrived,
            login: job.login,
            may_change_code: job.may_change_code,
            page: None,
            auto_committed: None,
        }
    }

    /// Runs operations until one waits for an evaluation that is still running (which gets
    /// one time slice) or none is left. Tells `interrupt` the tag of the evaluations an
    /// operation asked to interrupt (0: all).
    fn advance(&mut self, vm: &mut Vm, state: &mut State, interrupt: &mut impl FnMut(u64)) {
        loop {
            if let Some(e) = &self.evaluation {
                let (process, started, deadline) = (e.process, e.started, e.deadline);
                match vm.poll(process, SLICE) {
                    Poll::Running if deadline.is_some_and(|d| Instant::now() >= d) => {
                        let report = vm.interrupt_process(process);
                        self.done_evaluating(vm, state, started, Err(EvalError::Interrupted(report)));
                    }
                    Poll::Running => return,
                    Poll::Done(result) => self.done_evaluating(vm, state, started, result),
                }
                continue;
            }
            let Some(operation) = self.ops.next() else { return };
            let started = Instant::now();
            self.page = operation.page;
            match operation.op {
                Some(Op::Evaluate(e)) => {
                    let receiver =
                        if e.receiver == 0 { Ok(Value::NIL) } else { state.handles.of(self.login).get(vm, e.receiver) };
                    let spawned = receiver.and_then(|r| vm.spawn_doit(&e.source, r).map_err(ops::eval_failure));
                    match spawned {
                        Ok(process) => {
                            vm.retain(process);
                            let limit = Duration::from_millis(e.time_limit_ms);
                            let deadline = (e.time_limit_ms > 0).then(|| started.checked_add(limit)).flatten();
                            self.evaluation = Some(Evaluation {
                                process,
                                started,
                                deadline,
                                inspect: e.inspect,
                                forget: e.forget,
                                tag: e.tag,
                            });
                        }
                        Err(failure) => self.push(started, Err(failure)),
                    }
                }
                Some(Op::Interrupt(i)) => {
                    interrupt(i.tag);
                    self.push(started, Ok(Outcome::Done(pb::Empty {})));
                }
                Some(op) => {
                    let outcome = ops::run(vm, state, self.login, op);
                    self.push(started, outcome);
                }
                None => self.push(started, Err(Failure::new(pb::Code::Invalid, "an empty operation"))),
            }
        }
    }

    /// Stops this batch's running evaluation if an interrupt (login, tag) names it: tag 0
    /// names every evaluation, another tag the evaluation of that login with that tag. It
    /// answers an interrupted error.
    fn interrupt(&mut self, vm: &mut Vm, state: &mut State, tags: &[(u64, u64)]) {
        let named = |e: &Evaluation| tags.iter().any(|&(login, tag)| tag == 0 || (tag == e.tag && login == self.login));
        if let Some(e) = &self.evaluation
            && named(e)
        {
            let (process, started) = (e.process, e.started);
            let report = vm.interrupt_process(process);
            self.done_evaluating(vm, state, started, Err(EvalError::Interrupted(report)));
        }
    }

    fn done_evaluating(&mut self, vm: &mut Vm, state: &mut State, started: Instant, result: Result<Value, EvalError>) {
        let (inspect, forget) = self.evaluation.take().map_or((false, false), |e| {
            vm.release(e.process);
            (e.inspect, e.forget)
        });
        let outcome = match result {
            Ok(value) if inspect && value.is_object() => {
                let mut handles = state.handles.of(self.login);
                let handle = handles.handle(vm, value);
                super::inspect::inspect(vm, &mut handles, &pb::Inspect { handle, from: 1, page_size: 0 })
            }
            Ok(value) if forget => ops::evaluated(vm, None, value),
            Ok(value) => ops::evaluated(vm, Some(&mut state.handles.of(self.login)), value),
            Err(error) => Err(ops::eval_failure(error)),
        };
        self.push(started, outcome);
    }

    fn push(&mut self, started: Instant, outcome: Result<Outcome, Failure>) {
        let outcome = match outcome {
            Ok(o) => paged(o, self.page.take()),
            Err(f) => Outcome::Error(f.into_error()),
        };
        let server_micros = micros(started.elapsed());
        self.results.push(pb::Result { server_micros, outcome: Some(outcome) });
    }

    /// Whether every operation of the batch is done.
    fn is_done(&self) -> bool {
        self.evaluation.is_none() && self.ops.len() == 0
    }

    /// Answers the batch if all its operations are done; answers whether it was.
    fn finish(&mut self) -> bool {
        if !self.is_done() {
            return false;
        }
        if let Some(reply) = self.job_reply.take() {
            let results = std::mem::take(&mut self.results);
            let auto_commit = self.auto_committed.take().map(|outcome| {
                let outcome = outcome.unwrap_or_else(|f| Outcome::Error(f.into_error()));
                pb::Result { server_micros: 0, outcome: Some(outcome) }
            });
            let server_micros = micros(self.arrived.elapsed());
            // A client that gave up no longer wants the answer.
            let _ = reply.send(pb::BatchResult { results, server_micros, auto_commit });
        }
        true
    }
}

/// A list outcome cut to the part `page` asks for (whole without one), saying where that
/// part stands.
fn paged(outcome: Outcome, page: Option<pb::Page>) -> Outcome {
    fn cut<T>(items: &mut Vec<T>, page: Option<pb::Page>) -> Option<pb::Paged> {
        let total = items.len();
        let from = page.map_or(0, |p| usize::try_from(p.from).unwrap_or(usize::MAX)).min(total);
        let size = page.map_or(total, |p| if p.size == 0 { total } else { p.size as usize });
        let end = from.saturating_add(size).min(total);
        *items = items.drain(from..end).collect();
        Some(pb::Paged { total: total as u64, next: if end < total { end as u64 } else { 0 } })
    }
    match outcome {
        Outcome::Names(mut n) => {
            n.paged = cut(&mut n.names, page);
            Outcome::Names(n)
        }
        Outcome::Classes(mut c) => {
            c.paged = cut(&mut c.classes, page);
            Outcome::Classes(c)
        }
        Outcome::Methods(mut m) => {
            m.paged = cut(&mut m.methods, page);
            Outcome::Methods(m)
        }
        other => other,
    }
}

/// What the VM thread keeps for its clients between batches.
#[derive(Default)]
pub struct State {
    pub transcript: Transcript,
    pub handles: Handles,
    /// Every batch is followed by a commit.
    pub auto_commit: bool,
    /// Senders and implementors of every selector.
    pub index: CodeIndex,
    /// Logins that ended.
    pub ended: std::collections::HashSet<u64>,
    /// Whether a user has logged in (and the session may hold their work).
    pub logged_in: bool,
}

/// What Smalltalk code wrote to the Transcript: sent as events as it comes, and kept (the
/// last [`Transcript::KEPT`] bytes) until a client reads it.
#[derive(Default)]
pub struct Transcript {
    pub unread: String,
    /// Taken from the VM and not sent as an event yet.
    pending: String,
}

impl Transcript {
    const KEPT: usize = 1 << 20;

    pub fn collect_quietly(&mut self, vm: &mut Vm) {
        let text = vm.take_transcript();
        if text.is_empty() {
            return;
        }
        self.unread.push_str(&text);
        if self.unread.len() > Self::KEPT {
            let cut = self.unread.len() - Self::KEPT;
            let cut = (cut..self.unread.len()).find(|&i| self.unread.is_char_boundary(i)).unwrap_or(0);
            self.unread.drain(..cut);
        }
        self.pending.push_str(&text);
    }

    fn collect(&mut self, vm: &mut Vm, events: &broadcast::Sender<pb::Event>) {
        self.collect_quietly(vm);
        if !self.pending.is_empty() {
            let text = std::mem::take(&mut self.pending);
            // Nobody listening is fine: the transcript is for whoever is.
            let _ = events.send(pb::Event { event: Some(pb::event::Event::Transcript(text)) });
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
