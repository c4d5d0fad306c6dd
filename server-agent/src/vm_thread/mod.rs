//! The gem's VM thread: it owns the VM, takes [`Work`] from the front ends (the agent's
//! gRPC service today) through a channel, and runs it, each batch with its user's privilege.
//! The work is in the gem's own terms (`ops::request`), so any front end can hand it the same
//! work. An evaluation runs in time slices; between slices the thread takes new batches and
//! runs them too, so the tools are answered while Smalltalk code runs (an endless loop
//! included) and an interrupt reaches a running evaluation within a slice. `watch.rs` keeps
//! what the gem says of itself in the stone's list of sessions, and hears what others do.

mod relogin;
mod room;
mod watch;

pub use relogin::{Login, Relogin};
pub use room::{OPERATION_ROOM, Room};
pub use watch::{Watch, host_name};

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use onyx_vm::{DebugEvent, EvalError, Poll, Value, Vm};
use tokio::sync::{broadcast, oneshot};

use crate::ops::debugger::DebugRequest;
use crate::ops::request::{
    Answer, BatchAnswer, Done, Evaluate, Event, Failure, InspectRequest, Listed, Operation, Outcome, Page, Paged,
    ProcessChange, Proof, Request, TestRef, TransactionStatus,
};
use crate::ops::{self, State};
use onyx_record::{StoneError, UserInfo};

/// How long an evaluation runs before the thread looks for other work.
const SLICE: Duration = Duration::from_millis(5);

/// How long a pause's batch waits for the process to stop before it answers that the process
/// is still pausing.
const PAUSE_WAIT: Duration = Duration::from_secs(1);

/// What the front ends ask of the VM thread.
pub enum Work {
    /// A batch of a logged-in user.
    Batch(Job),
    /// A login to the agent, for the stone to check: the gem's own user, or one who may debug
    /// others' gems.
    Authenticate {
        /// Who they say they are, and their proof.
        proof: Proof,
        /// Where the stone's word goes: the user as it knows them.
        reply: oneshot::Sender<Result<UserInfo, StoneError>>,
    },
    /// A user logged in; `done` is told once the stone's list of sessions names them.
    LoggedIn {
        /// The user.
        user: String,
        /// Told when done.
        done: oneshot::Sender<()>,
    },
    /// A login ended: the handles it held are released.
    LoggedOut(u64),
}

/// A batch and where its answer goes.
pub struct Job {
    /// The operations, in order; one that did not validate answers its failure in its place.
    pub operations: Vec<Result<Operation, Failure>>,
    /// Where the answer goes.
    pub reply: oneshot::Sender<BatchAnswer>,
    /// When it reached the gem.
    pub arrived: Instant,
    /// The login that sent it: the handles it names are that login's.
    pub login: u64,
    /// Whether the batch's user may change code.
    pub may_change_code: bool,
    /// The room its reply has for the answers.
    pub room: Room,
}

/// A batch under way: the operations left, the results so far, and the evaluation it waits
/// for, if any.
struct Running {
    ops: std::vec::IntoIter<Result<Operation, Failure>>,
    results: Vec<Done>,
    evaluation: Option<Evaluation>,
    /// A pause the batch waits for, and when its operation began.
    pausing: Option<(ops::debugger::Pausing, Instant)>,
    job_reply: Option<oneshot::Sender<BatchAnswer>>,
    arrived: Instant,
    login: u64,
    may_change_code: bool,
    /// The part of a list the current operation asked for.
    page: Option<Page>,
    /// With auto-commit on: the commit that followed the batch.
    auto_committed: Option<Outcome>,
    /// The transaction's state once the batch was done.
    transaction: Option<TransactionStatus>,
    /// The client went away before the answer: what it started was stopped, and nothing of
    /// the batch is committed for it.
    abandoned: bool,
    /// The room left in the reply.
    room: Room,
}

/// What an interrupt asked to stop: evaluations by tag (0: all), or the debugger operation of
/// `login` that runs `process` (when not 0).
#[derive(Clone, Copy)]
struct Interrupting {
    login: u64,
    tag: u64,
    process: u64,
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
    /// For a debugger's operation: what runs, and what its outcome answers.
    debug: Option<ops::debugger::Running>,
    /// Tests run for a test runner: the value is their results.
    tests: bool,
}

impl Evaluation {
    /// A process started at `started` that may run for `limit`, answering its value's
    /// printString with a handle on it.
    fn of(process: Value, started: Instant, limit: Duration) -> Evaluation {
        let deadline = started.checked_add(limit);
        Evaluation { process, started, deadline, inspect: false, forget: false, tag: 0, debug: None, tests: false }
    }
}

/// The VM thread's loop: until every sender of `work` is gone. No evaluation runs longer than
/// `eval_limit`, whatever its client asked for.
pub fn run(
    vm: &mut Vm,
    work: &Receiver<Work>,
    events: &broadcast::Sender<Event>,
    mut watch: Watch,
    eval_limit: Duration,
    mut relogin: Relogin,
) {
    let mut running: Vec<Running> = Vec::new();
    let mut state = State { eval_limit, events: Some(events.clone()), ..State::default() };
    loop {
        if watch.look(vm, events).is_err() {
            relogin.lose();
        }
        if relogin.is_lost() {
            let failure = relogin.failure();
            for mut r in running.drain(..) {
                r.lose(&failure, state.auto_commit);
                r.finish();
            }
            state.handles.forget_all();
            state.index = ops::search::CodeIndex::default();
            match relogin.try_login() {
                Some(new) => {
                    *vm = new;
                    watch.rejoin(vm);
                    let _ = events.send(Event::Relogged { session: vm.session_id().unwrap_or_default() });
                }
                None => {
                    match work.recv_timeout(Duration::from_millis(200)) {
                        Ok(w) => refuse(vm, w, &failure, &mut state, &mut watch),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                    continue;
                }
            }
        }
        if running.is_empty() {
            // Nothing of the tools' runs: the gem's own processes (forked ones, timers) do.
            let wait = vm
                .run_background(SLICE)
                .map_or(watch::EVERY, |at| at.saturating_duration_since(Instant::now()).min(watch::EVERY));
            match work.recv_timeout(wait) {
                Ok(w) => take(vm, w, &mut running, &mut state, &mut watch),
                Err(RecvTimeoutError::Timeout) => {}
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
            vm.set_may_change_code(r.may_change_code);
            r.advance(vm, &mut state, &mut |i| interrupt.push(i));
        }
        if !interrupt.is_empty() {
            for r in &mut running {
                r.interrupt(vm, &mut state, &interrupt);
            }
        }
        for r in &mut running {
            if r.is_done() && state.auto_commit && r.auto_committed.is_none() && !r.abandoned {
                vm.set_may_change_code(r.may_change_code);
                r.auto_committed = Some(ops::transaction::commit(vm, &mut state.handles.of(r.login)));
            }
            if r.is_done() && r.transaction.is_none() && !r.abandoned {
                r.transaction = ops::transaction::state(vm, state.auto_commit).ok();
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
        state.transcript.collect(vm);
        let text = state.transcript.take_pending();
        if !text.is_empty() {
            // Nobody listening is fine: the transcript is for whoever is.
            let _ = events.send(Event::Transcript(text));
        }
        let debug_events = vm.take_debug_events();
        if !debug_events.is_empty() {
            watch.suspended_changed(vm);
        }
        for e in debug_events {
            let (process, change) = match e {
                DebugEvent::Suspended(p) => (p, ProcessChange::Suspended),
                DebugEvent::Failed(p) => {
                    // Nobody looked: the report of an error goes to the object log too (a
                    // process stopped at a breakpoint or paused waits for a debugger instead).
                    let for_debugger = vm
                        .kept_process(p)
                        .and_then(|process| vm.stop_reason(process))
                        .is_some_and(|r| matches!(r, onyx_vm::Reason::Breakpoint(_) | onyx_vm::Reason::Pause));
                    if !for_debugger && let Err(why) = ops::object_log::report(vm, p) {
                        let text = format!("The report of process {p} could not go to the object log: {why}\n");
                        let _ = events.send(Event::Transcript(text));
                    }
                    (p, ProcessChange::Failed)
                }
                DebugEvent::Resumed(p) => (p, ProcessChange::Resumed),
                DebugEvent::Terminated(p) => (p, ProcessChange::Terminated),
            };
            let _ = events.send(Event::Process { process, change });
        }
    }
}

/// Answers work that came while the stone is lost: every operation with `failure`.
fn refuse(vm: &mut Vm, work: Work, failure: &Failure, state: &mut State, watch: &mut Watch) {
    match work {
        Work::Batch(job) => {
            let mut r = Running::new(job);
            r.lose(failure, state.auto_commit);
            r.finish();
        }
        Work::Authenticate { reply, .. } => {
            let _ = reply.send(Err(StoneError::Unavailable(failure.message.clone())));
        }
        Work::LoggedIn { user, done } => {
            watch.logged_in(vm, user);
            let _ = done.send(());
        }
        Work::LoggedOut(login) => {
            state.ended.insert(login);
        }
    }
}

/// Starts a batch, or answers a profile or notes a login at once.
fn take(vm: &mut Vm, work: Work, running: &mut Vec<Running>, state: &mut State, watch: &mut Watch) {
    match work {
        Work::Batch(job) => running.push(Running::new(job)),
        Work::Authenticate { proof, reply } => {
            let answer = match proof {
                Proof::Password(user, password) => vm.admit(&user, &password.0),
                Proof::Ticket(ticket) => vm.redeem_ticket(&ticket.0),
            };
            // A client that gave up no longer wants the answer.
            let _ = reply.send(answer);
        }
        Work::LoggedIn { user, done } => {
            watch.logged_in(vm, user);
            let _ = done.send(());
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
            ops: job.operations.into_iter(),
            results: Vec::new(),
            evaluation: None,
            pausing: None,
            job_reply: Some(job.reply),
            arrived: job.arrived,
            login: job.login,
            may_change_code: job.may_change_code,
            page: None,
            auto_committed: None,
            transaction: None,
            abandoned: false,
            room: job.room,
        }
    }

    /// Runs operations until one waits for an evaluation that is still running (which gets
    /// one time slice) or none is left. Tells `interrupt` what an operation asked to
    /// interrupt: a tag (0: all), or the process a debugger operation runs.
    fn advance(&mut self, vm: &mut Vm, state: &mut State, interrupt: &mut impl FnMut(Interrupting)) {
        loop {
            if !self.abandoned && self.job_reply.as_ref().is_some_and(oneshot::Sender::is_closed) {
                // The client went away (its call cancelled, its process gone): what it started
                // stops, and the rest of its batch is dropped.
                self.abandoned = true;
                if let Some(e) = self.evaluation.take() {
                    vm.interrupt_process(e.process);
                    // A debugged process stays attachable: a debugger cut off mid-step leaves
                    // it suspended and kept, never stuck where nobody sees it.
                    if e.debug.as_ref().is_some_and(|d| matches!(d, ops::debugger::Running::Process(_))) {
                        vm.keep_suspended(e.process);
                    }
                    vm.release(e.process);
                }
                self.pausing = None;
                self.ops = Vec::new().into_iter();
                return;
            }
            if let Some((pausing, started)) = &self.pausing {
                match pausing.answer(vm, &mut state.handles.of(self.login)) {
                    Some(outcome) => {
                        let started = *started;
                        self.pausing = None;
                        self.push(started, outcome);
                        continue;
                    }
                    None => {
                        // Nothing of the batch runs meanwhile: the gem's own processes do.
                        let next = vm.run_background(SLICE).unwrap_or_else(|| Instant::now() + SLICE);
                        std::thread::sleep(next.saturating_duration_since(Instant::now()).min(SLICE));
                        return;
                    }
                }
            }
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
            if let Some(refusal) = self.room.refusal() {
                self.push(started, Err(refusal));
                continue;
            }
            let operation = match operation {
                Ok(operation) => operation,
                Err(failure) => {
                    self.push(started, Err(failure));
                    continue;
                }
            };
            self.page = operation.page;
            match operation.request {
                Request::Evaluate(e) => self.start_evaluating(vm, state, e, started),
                Request::RunTests { tests, package } => self.start_tests(vm, state, &tests, package, started),
                Request::Debug(DebugRequest::Pause(serial)) => match ops::debugger::pause(vm, serial) {
                    Ok(process) => {
                        let until = started + PAUSE_WAIT;
                        self.pausing = Some((ops::debugger::Pausing { serial, process, until }, started));
                    }
                    Err(failure) => self.push(started, Err(failure)),
                },
                Request::Debug(d)
                    if !matches!(
                        d,
                        DebugRequest::Processes | DebugRequest::Stack { .. } | DebugRequest::Frame { .. }
                    ) =>
                {
                    self.start_debugging(vm, state, &d, started)
                }
                Request::Interrupt { tag, process } => {
                    interrupt(Interrupting { login: self.login, tag, process });
                    self.push(started, Ok(Answer::Done));
                }
                request => {
                    let outcome = ops::run(vm, state, self.login, request, self.page);
                    self.push(started, outcome);
                }
            }
        }
    }

    /// Spawns a doit's process, which later slices run.
    fn start_evaluating(&mut self, vm: &mut Vm, state: &mut State, e: Evaluate, started: Instant) {
        let receiver = match e.receiver {
            None => Ok(Value::NIL),
            Some(handle) => state.handles.of(self.login).get(vm, handle),
        };
        let spawned = receiver.and_then(|r| vm.spawn_doit(&e.source, r).map_err(|error| ops::eval_failure(vm, error)));
        match spawned {
            Ok(process) => {
                vm.retain(process);
                let limit = e.time_limit.map_or(state.eval_limit, |l| l.min(state.eval_limit));
                let evaluation = Evaluation::of(process, started, limit);
                self.evaluation = Some(Evaluation { inspect: e.inspect, forget: e.forget, tag: e.tag, ..evaluation });
            }
            Err(failure) => self.push(started, Err(failure)),
        }
    }

    /// Starts what a debugger's operation lets run (a step, a restart, an evaluation in a
    /// frame, ...), which later slices run as a doit.
    fn start_debugging(&mut self, vm: &mut Vm, state: &State, d: &DebugRequest, started: Instant) {
        if let Some(outcome) = ops::debugger::proceed_forked(vm, d) {
            self.push(started, outcome);
            return;
        }
        match ops::debugger::start(vm, d) {
            Ok((process, running)) => self.run_debugged(vm, state, process, running, started),
            Err(failure) => self.push(started, Err(failure)),
        }
    }

    fn run_debugged(
        &mut self,
        vm: &mut Vm,
        state: &State,
        process: Value,
        running: ops::debugger::Running,
        started: Instant,
    ) {
        vm.retain(process);
        self.evaluation =
            Some(Evaluation { debug: Some(running), ..Evaluation::of(process, started, state.eval_limit) });
    }

    /// Starts running tests, which later slices run as a doit (under the gem's time limit;
    /// an interrupt of every evaluation stops them).
    fn start_tests(
        &mut self,
        vm: &mut Vm,
        state: &State,
        tests: &[TestRef],
        package: Option<String>,
        started: Instant,
    ) {
        match ops::tests::spawn(vm, tests, package.as_deref()) {
            Ok(process) => {
                vm.retain(process);
                let evaluation = Evaluation::of(process, started, state.eval_limit);
                self.evaluation = Some(Evaluation { forget: true, tests: true, ..evaluation });
            }
            Err(failure) => self.push(started, Err(failure)),
        }
    }

    /// Stops this batch's running evaluation if an interrupt (login, tag) names it: tag 0
    /// names every evaluation, another tag the evaluation of that login with that tag. It
    /// answers an interrupted error.
    fn interrupt(&mut self, vm: &mut Vm, state: &mut State, asked: &[Interrupting]) {
        let named = |e: &Evaluation| {
            asked.iter().any(|i| match i.process {
                0 => i.tag == 0 || (i.tag == e.tag && i.login == self.login),
                process => i.login == self.login && e.debug.as_ref().is_some_and(|d| d.runs(process)),
            })
        };
        if let Some(e) = &self.evaluation
            && named(e)
        {
            let (process, started) = (e.process, e.started);
            let report = vm.interrupt_process(process);
            self.done_evaluating(vm, state, started, Err(EvalError::Interrupted(report)));
        }
    }

    fn done_evaluating(&mut self, vm: &mut Vm, state: &mut State, started: Instant, result: Result<Value, EvalError>) {
        let Some(evaluation) = self.evaluation.take() else { return };
        let Evaluation { process, inspect, forget, debug, tests, .. } = evaluation;
        vm.release(process);
        if let Some(running) = debug {
            let mut handles = state.handles.of(self.login);
            match ops::debugger::stopped(vm, &mut handles, running, process, result) {
                Ok(outcome) => self.push(started, outcome),
                Err((next, running)) => self.run_debugged(vm, state, next, running, started),
            }
            return;
        }
        // A doit an error, a halt or an interrupt stopped is kept, to debug.
        if matches!(result, Err(EvalError::Unhandled(_) | EvalError::Interrupted(_))) {
            vm.keep_suspended(process);
        }
        let outcome = match result {
            Ok(value) if tests => ops::tests::results(vm, value),
            Ok(value) if inspect && value.is_object() => {
                let mut handles = state.handles.of(self.login);
                let handle = handles.handle(vm, value);
                ops::inspect::inspect(vm, &mut handles, InspectRequest { handle, from: 1, page_size: 0 })
            }
            Ok(value) => ops::evaluated(vm, &mut state.handles.of(self.login), !forget, value),
            Err(error) => {
                let failure = ops::eval_failure(vm, error);
                Err(ops::debugger::with_process(vm, process, failure))
            }
        };
        self.push(started, outcome);
    }

    fn push(&mut self, started: Instant, outcome: Outcome) {
        let outcome = outcome.map(|answer| paged(answer, self.page.take())).map_err(room::bounded);
        let done = self.room.fit(Done { outcome, server_time: started.elapsed() });
        self.results.push(done);
    }

    /// The stone is lost: the evaluation under way and every operation left answer `failure`
    /// (its process went with the old VM), and nothing is committed.
    fn lose(&mut self, failure: &Failure, auto_commit: bool) {
        let now = Instant::now();
        if self.evaluation.take().is_some() || self.pausing.take().is_some() {
            self.push(now, Err(failure.clone()));
        }
        let left = std::mem::replace(&mut self.ops, Vec::new().into_iter());
        for _ in left {
            self.push(now, Err(failure.clone()));
        }
        self.abandoned = true;
        if auto_commit && self.auto_committed.is_none() {
            self.auto_committed = Some(Err(failure.clone()));
        }
    }

    /// Whether every operation of the batch is done.
    fn is_done(&self) -> bool {
        self.evaluation.is_none() && self.pausing.is_none() && self.ops.len() == 0
    }

    /// Answers the batch if all its operations are done; answers whether it was.
    fn finish(&mut self) -> bool {
        if !self.is_done() {
            return false;
        }
        if let Some(reply) = self.job_reply.take() {
            let results = std::mem::take(&mut self.results);
            let auto_commit = self.auto_committed.take();
            let transaction = self.transaction.take();
            // A client that gave up no longer wants the answer.
            let _ = reply.send(BatchAnswer { results, server_time: self.arrived.elapsed(), auto_commit, transaction });
        }
        true
    }
}

/// A list answer cut to the part `page` asks for (whole without one), saying where that
/// part stands.
fn paged(answer: Answer, page: Option<Page>) -> Answer {
    fn cut<T>(list: Listed<T>, page: Option<Page>) -> Listed<T> {
        let mut items = list.items;
        let total = items.len();
        let from = page.map_or(0, |p| usize::try_from(p.from).unwrap_or(usize::MAX)).min(total);
        let size = page.map_or(total, |p| if p.size == 0 { total } else { p.size as usize });
        let end = from.saturating_add(size).min(total);
        let items: Vec<T> = items.drain(from..end).collect();
        Listed { items, paged: Some(Paged { total: total as u64, next: if end < total { end as u64 } else { 0 } }) }
    }
    match answer {
        Answer::Names(n) => Answer::Names(cut(n, page)),
        Answer::Classes(c) => Answer::Classes(cut(c, page)),
        Answer::Methods(m) => Answer::Methods(cut(m, page)),
        Answer::Versions(v) => Answer::Versions(cut(v, page)),
        other => other,
    }
}
