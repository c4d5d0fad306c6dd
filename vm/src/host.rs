//! The host's view of a VM: evaluate source, send messages, run a process for a time slice
//! and regain control, interrupt it, and read results and error reports.

use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::bytecode::{CacheEntry, CompiledCode, Instr, Instrs};
use crate::compiler::{self, Mode, ast::Span};
use crate::error::{ErrorReport, EvalError};
use crate::heap::Body;
use crate::interpreter::Stop;
use crate::native_vec::NativeVec;
use crate::process::{Frame, ProcessState, Status};
use crate::scheduler::USER_PRIORITY;

use crate::value::Value;
use crate::vm::Vm;

/// The state of an evaluation after a time slice.
#[derive(Debug)]
pub enum Poll {
    /// The process finished (or stopped for good).
    Done(Result<Value, EvalError>),
    /// It is still running; poll again.
    Running,
}

impl Vm {
    /// Compiles `source` as a doit and runs it to completion; other processes run meanwhile.
    pub fn evaluate(&mut self, source: &str) -> Result<Value, EvalError> {
        let process = self.spawn_doit(source, Value::NIL)?;
        self.finish(process)
    }

    /// Compiles a doit with `receiver` as `self` and makes a ready process for it.
    pub fn spawn_doit(&mut self, source: &str, receiver: Value) -> Result<Value, EvalError> {
        let class = self.class_of(receiver);
        let code = compiler::compile(self, source, class, Mode::Doit).map_err(EvalError::Compile)?;
        let process = self.spawn_code(code, receiver, &[]);
        Ok(process)
    }

    /// Makes a ready process that sends `selector` to `receiver` with `args` (at most 15, as
    /// for any Smalltalk message; further ones are not passed).
    pub fn spawn_send(&mut self, receiver: Value, selector: &str, args: &[Value]) -> Value {
        let sel = self.intern(selector);
        let nargs = args.len().min(15) as u8;
        let code = Rc::new(CompiledCode {
            instrs: Instrs::new(vec![Instr::Send { a: 0, nargs, lit: 0, cache: 0 }, Instr::Return { r: 0 }], 0),
            literals: Box::new([sel]),
            blocks: NativeVec::new(),
            special_selectors: Box::new([]),
            num_args: 0,
            num_copied: 0,
            num_temps: 0,
            frame_size: u16::from(nargs) + 3,
            primitive: 0,
            selector: self.known.sel_do_it,
            method_class: std::cell::Cell::new(Value::NIL),
            protocol: std::cell::Cell::new(Value::NIL),
            source: Rc::from(format!("DoIt\n\t^ receiver {selector} ...").as_str()),
            step_points: Box::new([]),
            var_names: Box::new([]),
            pragmas: Value::NIL,
            caches: Box::new([std::cell::Cell::new(CacheEntry::default())]),
            special_caches: Box::new([]),
            is_block: false,
            span: Span::default(),
            native: Default::default(),
        });
        debug_assert!(crate::verify::verify(&code).is_ok());
        self.spawn_code(code, receiver, args)
    }

    /// Makes a ready process whose only frame runs `code` (a method's) for `receiver` with
    /// `args` in the registers after it.
    pub(crate) fn spawn_code(&mut self, code: Rc<CompiledCode>, receiver: Value, args: &[Value]) -> Value {
        let method = self.new_method(code.clone());
        let mut state = Box::new(ProcessState::new());
        state.host = true;
        state.stack.resize((code.frame_size as usize).max(1 + args.len()), Value::NIL);
        state.stack[0] = receiver;
        for (slot, &a) in state.stack.iter_mut().skip(1).zip(args) {
            *slot = a;
        }
        let id = self.new_frame_id();
        crate::process::push_frame(&mut state.frames, Rc::as_ptr(&code), method, Value::NIL, 0, 0, id, id);
        let process = self.new_process_object(state, USER_PRIORITY);
        self.make_ready(process);
        process
    }

    /// Sends a message and runs it to completion.
    pub fn send(&mut self, receiver: Value, selector: &str, args: &[Value]) -> Result<Value, EvalError> {
        let process = self.spawn_send(receiver, selector, args);
        self.finish(process)
    }

    /// Sends a message and runs it for at most `limit`: one still running then is stopped
    /// and answers [`EvalError::Interrupted`]. What tools send runs this way, so a method that
    /// never returns costs them an error, not the thread.
    pub fn send_within(
        &mut self,
        receiver: Value,
        selector: &str,
        args: &[Value],
        limit: Duration,
    ) -> Result<Value, EvalError> {
        let process = self.spawn_send(receiver, selector, args);
        self.finish_within(process, limit)
    }

    /// Compiles `source` as a doit and runs it for at most `limit`, as [`Vm::send_within`].
    pub fn evaluate_within(&mut self, source: &str, limit: Duration) -> Result<Value, EvalError> {
        let process = self.spawn_doit(source, Value::NIL)?;
        self.finish_within(process, limit)
    }

    /// The `printString` of a value.
    pub fn print_string(&mut self, v: Value) -> Result<String, EvalError> {
        let s = self.send(v, "printString", &[])?;
        Ok(self.string_of(s).unwrap_or_default())
    }

    /// The `printString` of a value, computed within `limit` (see [`Vm::send_within`]).
    pub fn print_string_within(&mut self, v: Value, limit: Duration) -> Result<String, EvalError> {
        let s = self.send_within(v, "printString", &[], limit)?;
        Ok(self.string_of(s).unwrap_or_default())
    }

    /// Runs until `process` finishes or `limit` has passed; then stops it where it is.
    pub fn finish_within(&mut self, process: Value, limit: Duration) -> Result<Value, EvalError> {
        let deadline = Instant::now().checked_add(limit);
        loop {
            let left = deadline.map_or(Duration::from_millis(50), |d| d.saturating_duration_since(Instant::now()));
            if let Poll::Done(result) = self.poll(process, left.min(Duration::from_millis(50))) {
                return result;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(EvalError::Interrupted(self.interrupt_process(process)));
            }
        }
    }

    /// Runs until `process` finishes.
    pub fn finish(&mut self, process: Value) -> Result<Value, EvalError> {
        loop {
            if let Poll::Done(result) = self.poll(process, Duration::from_millis(50)) {
                return result;
            }
        }
    }

    /// Runs ready processes for at most `slice` (a few milliseconds more at worst) and answers
    /// whether `process` is done.
    ///
    /// A process the host turns to (a new one, or one it polls again after polling another)
    /// runs first. Polled again with nothing in between, it goes on where the scheduler was
    /// at the end of its last slice: if it had yielded to a process of its priority, that
    /// one runs on first, as Smalltalk's scheduling says.
    pub fn poll(&mut self, process: Value, slice: Duration) -> Poll {
        let deadline = Instant::now() + slice;
        self.watch = Some(process);
        self.watch_stopped = false;
        if self.host_turn != process {
            self.run_first(process);
            self.host_turn = process;
        }
        let outcome = loop {
            if let Some(done) = self.outcome_of(process) {
                break Poll::Done(done);
            }
            match self.run(Some(deadline)) {
                Stop::Watched => continue,
                Stop::Timeslice => break Poll::Running,
                Stop::Interrupted => {
                    self.interrupt.store(false, Ordering::Relaxed);
                    let report = self.interrupt_process(process);
                    break Poll::Done(Err(EvalError::Interrupted(report)));
                }
                Stop::Idle if self.interrupt.load(Ordering::Relaxed) => {
                    self.interrupt.store(false, Ordering::Relaxed);
                    let report = self.interrupt_process(process);
                    break Poll::Done(Err(EvalError::Interrupted(report)));
                }
                Stop::Idle if self.long_ops_pending() => {
                    // Waiting for work on other threads: sleep until one answers, a timer is
                    // due or the slice ends, unless an answer already made a process ready.
                    self.finish_long_ops();
                    if self.scheduler.active.is_nil() && self.scheduler.ready.len() == 0 {
                        let now = Instant::now();
                        if now >= deadline {
                            break Poll::Running;
                        }
                        let wake = self.next_timer().unwrap_or(deadline).min(deadline);
                        self.long_ops_done.wait(wake.saturating_duration_since(now));
                        self.fire_timers(Instant::now());
                    }
                }
                Stop::Idle => match self.next_timer() {
                    Some(at) => {
                        let now = Instant::now();
                        if now >= deadline {
                            break Poll::Running;
                        }
                        if at > now {
                            std::thread::sleep((at - now).min(deadline - now));
                        }
                        self.fire_timers(Instant::now());
                    }
                    None => {
                        if let Some(done) = self.outcome_of(process) {
                            break Poll::Done(done);
                        }
                        let report = self.report_of(process, "the process is waiting and nothing can wake it");
                        break Poll::Done(Err(EvalError::Deadlock(report)));
                    }
                },
            }
        };
        self.watch = None;
        self.watch_stopped = false;
        if let Poll::Done(_) = outcome {
            self.host_turn = Value::NIL;
        }
        outcome
    }

    /// Lets the host's `process` run now if it is ready: the running process (the host may
    /// have left one running at the end of an earlier time slice) goes back to the front of
    /// its ready queue.
    fn run_first(&mut self, process: Value) {
        let active = self.scheduler.active;
        if active == process || self.status_of(process) != Some(Status::Ready) {
            return;
        }
        if !active.is_nil() {
            self.requeue_active_first();
        }
        self.scheduler.ready.remove(process);
        self.activate_process(process);
    }

    /// The result of a process that stopped, or `None` while it can still run.
    fn outcome_of(&mut self, process: Value) -> Option<Result<Value, EvalError>> {
        if process == self.scheduler.active {
            return None;
        }
        let Some(Body::Process(p)) = self.heap.get(process).map(|o| &o.body) else {
            return Some(Ok(Value::NIL));
        };
        let state = p.state.as_ref()?;
        match state.status {
            Status::Terminated => Some(Ok(state.result)),
            Status::Suspended if state.stepped => Some(Err(EvalError::Stopped)),
            Status::Suspended => Some(Err(match &state.error {
                Some(report) => EvalError::Unhandled((**report).clone()),
                None => EvalError::Deadlock(ErrorReport {
                    class_name: "Suspended".into(),
                    description: "the process was suspended".into(),
                    stack: Vec::new(),
                }),
            })),
            Status::Ready | Status::Waiting | Status::Running => None,
        }
    }

    pub(crate) fn report_of(&mut self, process: Value, description: &str) -> ErrorReport {
        let frames: Vec<Frame> = match self.heap.get(process).map(|o| &o.body) {
            Some(Body::Process(p)) => {
                p.state.as_ref().map(|s| s.frames.iter().rev().cloned().collect()).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        let stack = frames
            .iter()
            .map(|f| {
                let start =
                    f.code().step_point_at((f.pc as usize).saturating_sub(1)).map_or(0, |s| s.span.start as usize);
                let (line, column) = compiler::parser::line_col(&f.code().source, start);
                let label = format!(
                    "{}>>{}",
                    self.class_name(f.code().method_class.get()),
                    self.string_of(f.code().selector).unwrap_or_default()
                );
                crate::error::FrameInfo { label, line, column }
            })
            .collect();
        ErrorReport { class_name: "Deadlock".into(), description: description.into(), stack }
    }

    /// Stops `process` where it is and suspends it, answering a report of its stack.
    pub fn interrupt_process(&mut self, process: Value) -> ErrorReport {
        if self.host_turn == process {
            self.host_turn = Value::NIL;
        }
        if process == self.scheduler.active {
            // The host stops a process of its own: no failure nobody sees.
            let watch = self.watch.replace(process);
            self.suspend_active_with_error("Interrupt", "interrupted".into());
            self.watch = watch;
            self.watch_stopped = false;
            if let Some(Body::Process(p)) = self.heap.get(process).map(|o| &o.body)
                && let Some(report) = p.state.as_ref().and_then(|s| s.error.clone())
            {
                return *report;
            }
        }
        self.unlink(process);
        self.set_status(process, Status::Suspended);
        let report = self.report_of(process, "interrupted");
        let report = ErrorReport { class_name: "Interrupt".into(), ..report };
        if let Some(state) = self.idle_state_mut(process) {
            state.error = Some(Box::new(report.clone()));
        }
        report
    }

    /// Lets a suspended process (interrupted, or stopped by an error a debugger dealt with)
    /// run again from where it stands. Answers false if it was not suspended.
    pub fn resume_process(&mut self, process: Value) -> bool {
        if self.status_of(process) != Some(Status::Suspended) || process == self.scheduler.active {
            return false;
        }
        if let Some(state) = self.idle_state_mut(process) {
            state.error = None;
            state.stepped = false;
            state.shown_top = None;
        }
        self.unkeep(process, crate::debug::DebugEvent::Resumed);
        self.make_ready(process);
        true
    }

    /// Keeps `v` alive across collections until [`Vm::release`].
    pub fn retain(&mut self, v: Value) {
        self.handles.push(v);
    }

    /// Releases one [`Vm::retain`] of `v`.
    pub fn release(&mut self, v: Value) {
        if let Some(i) = self.handles.iter().rposition(|&h| h == v) {
            self.handles.swap_remove(i);
        }
    }

    /// Runs the collector now (between evaluations, a safepoint).
    pub fn collect_now(&mut self) -> usize {
        let freed = self.collect_garbage();
        self.check_memory();
        freed
    }
}

/// How often a host running only the VM's background looks whether work on other threads
/// has answered.
const BACKGROUND_LOOK: Duration = Duration::from_millis(2);

impl Vm {
    /// Runs the processes that are ready while the host runs nothing of its own (forked
    /// processes, timers that fell due), for at most `slice`. Answers when there is more to
    /// run: now, at the next timer, or `None` when nothing is left.
    pub fn run_background(&mut self, slice: Duration) -> Option<Instant> {
        let now = Instant::now();
        self.fire_timers(now);
        // A process waiting on another thread's work (a socket, long arithmetic) is ready
        // again once the work is done.
        self.finish_long_ops();
        if self.scheduler.active.is_nil() && self.scheduler.ready.len() == 0 {
            return self.next_wake();
        }
        self.watch = None;
        match self.run(Some(now + slice)) {
            Stop::Timeslice | Stop::Watched => Some(Instant::now()),
            Stop::Interrupted => {
                self.interrupt.store(false, Ordering::Relaxed);
                Some(Instant::now())
            }
            Stop::Idle => self.next_wake(),
        }
    }

    /// When the background next has something to do: at the next timer, and soon while work
    /// on other threads is under way (its answer may come any moment; the host's own loop
    /// waits on its requests, not on this VM's doorbell).
    fn next_wake(&self) -> Option<Instant> {
        let soon = self.long_ops_pending().then(|| Instant::now() + BACKGROUND_LOOK);
        [self.next_timer(), soon].into_iter().flatten().min()
    }
}
