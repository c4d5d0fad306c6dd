//! Stepping a suspended process, with Pharo's and GemStone's meanings (into, over, through,
//! out, run to here), and the other ways a debugger lets it go on: restart a frame (in a new
//! version of its method, for edit and continue), return a value from a frame, proceed,
//! terminate.
//!
//! A step sets a [`StepGoal`] and makes the process ready; while a goal is set the dispatch
//! loop runs in its stepping form (`Vm::run` picks it: no native code, a check before each
//! instruction of the stepped process), and stops the process before the first instruction
//! that meets the goal. Without a goal the loop is the one code always runs in, unchanged.
//! Restart, return and terminate push a send onto the process (`Context>>restartFromDebugger:`,
//! `return:`, `Process>>unwindAndTerminate:`) so the unwind blocks above run as Smalltalk, as
//! they would for the same message sent by the program, and then stop as a step over does.

use std::rc::Rc;

use crate::heap::Body;
use crate::process::{Frame, Status};
use crate::value::Value;
use crate::vm::Vm;

/// How far a step goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Into the method or block the next send runs (or to the next step point of the frame
    /// if it runs none).
    Into,
    /// To the next step point of the frame (or of its sender, once it returned).
    Over,
    /// As over, but stopping in the blocks of the frame's method when they run (and, from
    /// a block, in the method's next block to run rather than in the frames between).
    Through,
    /// Back in the sender, at its next step point.
    Out,
    /// To the step point at this instruction of the frame.
    RunTo(u32),
}

/// A step under way.
#[derive(Clone, Debug)]
pub(crate) struct StepGoal {
    /// The stepped process.
    pub process: Value,
    kind: StepKind,
    /// The frame index the step stops in (lowered as frames return).
    depth: usize,
    /// The id of the stepped frame, and of the newest frame when the step began: frames with
    /// larger ids were made during the step.
    frame: u64,
    newest: u64,
    /// The home activation of the stepped frame (through stops in its blocks), and its
    /// frame index.
    home: u64,
    home_depth: usize,
    /// Where the process stood when the step began (top frame id and pc), and whether it
    /// has moved from there: the step stops nowhere before it moved. (The loop may look at
    /// the same instruction twice, around an interrupt check.)
    origin: Option<(u64, usize)>,
    moved: bool,
    /// A frame returned during the step: its sender stops at its return too if no step
    /// point comes first, so a debugger shows it before it ends (as Pharo's does).
    returned: bool,
}

/// Why a debugger's request could not be done.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DebugError {
    /// No kept, suspended process has that serial.
    #[error("no suspended process {0}")]
    NoProcess(u64),
    /// The process has no frame with that index.
    #[error("the process has no frame {0}")]
    NoFrame(usize),
    /// The request cannot be done to that frame.
    #[error("{0}")]
    Refused(String),
    /// Code to evaluate in a frame did not compile.
    #[error("{0}")]
    Compile(crate::error::CompileError),
}

impl Vm {
    /// The kept, suspended process with `serial`.
    pub fn suspended(&self, serial: u64) -> Result<Value, DebugError> {
        match self.kept_process(serial) {
            Some(p) if self.state_of(p).is_some_and(|s| s.status == Status::Suspended) => Ok(p),
            _ => Err(DebugError::NoProcess(serial)),
        }
    }

    /// The index in the process's frames of the debugger's frame `index` (0: the frame
    /// shown at the top).
    pub(crate) fn frame_position(&self, process: Value, index: usize) -> Result<usize, DebugError> {
        let shown = self.state_of(process).and_then(|s| s.shown_top()).ok_or(DebugError::NoFrame(index))?;
        shown.checked_sub(index).ok_or(DebugError::NoFrame(index))
    }

    /// Steps frame `index` of a kept, suspended process: it is made ready, and stops where
    /// the step says (or at an error or halt on the way, or when it ends). The host then
    /// runs it as any evaluation ([`Vm::poll`]), which answers [`crate::EvalError::Stopped`]
    /// when the step stopped.
    pub fn step(&mut self, serial: u64, index: usize, kind: StepKind) -> Result<Value, DebugError> {
        let process = self.suspended(serial)?;
        let at = self.frame_position(process, index)?;
        let frame = self.state_of(process).and_then(|s| s.frames.get(at).cloned()).ok_or(DebugError::NoFrame(index))?;
        if let StepKind::RunTo(pc) = kind
            && !frame.code().step_points.iter().any(|s| s.pc == pc)
        {
            return Err(DebugError::Refused(format!("instruction {pc} is not a step point of the frame")));
        }
        let (kind, depth) = match kind {
            // Out of the bottom frame is to the end.
            StepKind::Out if at == 0 => return Ok(self.proceed_process(process)),
            StepKind::Out => (StepKind::Over, at - 1),
            // Below the frames of a signal (a halt, an error): its pending send is the signal,
            // which into does not enter.
            StepKind::Into if self.state_of(process).is_some_and(|s| s.frames.len() > at + 1) => (StepKind::Over, at),
            k => (k, at),
        };
        self.begin_step(process, kind, depth, &frame);
        Ok(process)
    }

    /// Sets the goal and lets the process run.
    fn begin_step(&mut self, process: Value, kind: StepKind, depth: usize, frame: &Frame) {
        let newest = self.next_frame_id;
        let home_depth = self.state_of(process).and_then(|s| s.frame_index(frame.home)).unwrap_or(depth);
        self.debug.step = Some(StepGoal {
            process,
            kind,
            depth,
            frame: frame.id,
            newest,
            home: frame.home,
            home_depth,
            origin: None,
            moved: false,
            returned: false,
        });
        self.resume_kept(process);
    }

    /// Lets a kept process run again (its error report cleared).
    fn resume_kept(&mut self, process: Value) {
        if let Some(state) = self.idle_state_mut(process) {
            state.error = None;
            state.stepped = false;
            state.shown_top = None;
        }
        self.unkeep(process, super::DebugEvent::Resumed);
        self.make_ready(process);
    }

    /// Whether kept process `serial` is one Smalltalk code forked (which goes on in the
    /// background once proceeded) rather than one a host waits for.
    pub fn is_forked(&self, serial: u64) -> bool {
        self.kept_process(serial).and_then(|p| self.state_of(p)).is_some_and(|s| !s.host)
    }

    /// Lets a kept, suspended process go on as if nothing had stopped it (an error's
    /// `signal` answers nil, a halt returns).
    pub fn proceed(&mut self, serial: u64) -> Result<Value, DebugError> {
        let process = self.suspended(serial)?;
        Ok(self.proceed_process(process))
    }

    fn proceed_process(&mut self, process: Value) -> Value {
        if self.debug.step.as_ref().is_some_and(|g| g.process == process) {
            self.debug.step = None;
        }
        self.resume_kept(process);
        process
    }

    /// Restarts frame `index` of a kept, suspended process: the unwind blocks of the frames
    /// above it run, then it runs again from its start, in `method` if given (a new version
    /// of its method: edit and continue), and stops at its first step point.
    pub fn restart(&mut self, serial: u64, index: usize, method: Option<Value>) -> Result<Value, DebugError> {
        let process = self.suspended(serial)?;
        let at = self.frame_position(process, index)?;
        let frame = self.state_of(process).and_then(|s| s.frames.get(at).cloned()).ok_or(DebugError::NoFrame(index))?;
        if let Some(m) = method {
            let code = self.code_of(m).ok_or_else(|| DebugError::Refused("not a method".into()))?;
            if !frame.closure.is_nil() || code.num_args != frame.code().num_args || code.is_block {
                return Err(DebugError::Refused("the new method does not fit the frame".into()));
            }
        }
        let ctx = crate::primitives::context::context_for_id(self, process, frame.id);
        let selector = self.intern("restartFromDebugger:");
        self.inject(process, ctx, selector, &[method.unwrap_or(Value::NIL)])?;
        self.begin_step(process, StepKind::Over, at, &frame);
        Ok(process)
    }

    /// Returns `value` from frame `index` of a kept, suspended process to its sender (the
    /// unwind blocks above the sender run), which stops at its next step point.
    pub fn return_from(&mut self, serial: u64, index: usize, value: Value) -> Result<Value, DebugError> {
        let process = self.suspended(serial)?;
        let at = self.frame_position(process, index)?;
        let frame = self.state_of(process).and_then(|s| s.frames.get(at).cloned()).ok_or(DebugError::NoFrame(index))?;
        let ctx = crate::primitives::context::context_for_id(self, process, frame.id);
        let selector = self.intern("return:");
        self.inject(process, ctx, selector, &[value])?;
        match at.checked_sub(1) {
            Some(sender) => self.begin_step(process, StepKind::Over, sender, &frame),
            None => {
                self.proceed_process(process);
            }
        }
        Ok(process)
    }

    /// Terminates a kept, suspended process: its unwind blocks run, then it ends.
    pub fn terminate(&mut self, serial: u64) -> Result<Value, DebugError> {
        let process = self.suspended(serial)?;
        self.unkeep(process, super::DebugEvent::Terminated);
        self.terminate_unwinding(process);
        Ok(process)
    }

    /// Makes a suspended process run its unwind blocks and end.
    pub(crate) fn terminate_unwinding(&mut self, process: Value) {
        if self.debug.step.as_ref().is_some_and(|g| g.process == process) {
            self.debug.step = None;
        }
        let selector = self.intern("unwindAndTerminate:");
        let ctx = self.state_of(process).and_then(|s| s.frames.last().map(|f| f.id));
        let ctx = ctx.map_or(Value::NIL, |id| crate::primitives::context::context_for_id(self, process, id));
        if let Some(state) = self.idle_state_mut(process) {
            state.error = None;
            state.stepped = false;
            state.shown_top = None;
        }
        if self.inject(process, process, selector, &[ctx]).is_ok() {
            self.make_ready(process);
        } else {
            self.unlink(process);
            self.set_status(process, Status::Terminated);
        }
    }

    /// Pushes onto a process that is not running a send of `selector` to `receiver` with
    /// `args`; it runs when the process next runs, above the frames it had, and its answer is
    /// dropped.
    pub(crate) fn inject(
        &mut self,
        process: Value,
        receiver: Value,
        selector: Value,
        args: &[Value],
    ) -> Result<(), DebugError> {
        let refused = || DebugError::Refused("the process cannot run that now".into());
        if process == self.scheduler.active {
            return Err(refused());
        }
        let class = self.class_of(receiver);
        let method = self.lookup(class, selector).ok_or_else(refused)?;
        let code: Rc<_> = self.code_of(method).ok_or_else(refused)?;
        if usize::from(code.num_args) != args.len() {
            return Err(refused());
        }
        let id = self.new_frame_id();
        let Some(Body::Process(p)) = self.heap.get_mut(process).map(|o| &mut o.body) else { return Err(refused()) };
        let Some(state) = p.state.as_mut() else { return Err(refused()) };
        // Where the process goes now it meets a breakpoint it stopped at anew.
        state.break_passing = None;
        let at = state.frames.last().map_or(0, Frame::top);
        let top = at + (code.frame_size as usize).max(1 + args.len());
        if state.stack.len() < top {
            state.stack.resize(top, Value::NIL);
        }
        state.stack[at] = receiver;
        for (slot, &a) in state.stack.iter_mut().skip(at + 1).zip(args) {
            *slot = a;
        }
        for s in state.stack.iter_mut().take(top).skip(at + 1 + args.len()) {
            *s = Value::NIL;
        }
        crate::process::push_frame(
            &mut state.frames,
            Rc::as_ptr(&code),
            method,
            Value::NIL,
            at as u32,
            at as u32,
            id,
            id,
        );
        Ok(())
    }

    /// Whether the stepping loop stops the running process before the instruction at `pc`
    /// of its top frame (called only while a step is under way).
    pub(crate) fn step_stops_at(&mut self, pc: usize) -> bool {
        let active = self.scheduler.active;
        let Some(goal) = self.debug.step.as_mut() else { return false };
        // Nor inside a breakpoint's condition or log expression.
        if goal.process != active || self.scheduler.state.break_check.is_some() {
            return false;
        }
        let frames = &self.scheduler.state.frames;
        let Some(top) = frames.last() else { return false };
        let here = (top.id, pc);
        match goal.origin {
            None => {
                goal.origin = Some(here);
                return false;
            }
            Some(origin) if origin == here && !goal.moved => return false,
            Some(_) => goal.moved = true,
        }
        let d = frames.len() - 1;
        if d < goal.depth {
            goal.depth = d;
            goal.returned = true;
            // Run to here in a frame that returned first: on as over, in the sender.
            if let StepKind::RunTo(_) = goal.kind {
                goal.kind = StepKind::Over;
            }
        }
        let code = top.code();
        let at_step_point = code.step_points.binary_search_by_key(&(pc as u32), |s| s.pc).is_ok();
        // After a frame returned, the frame it returned to also stops at its own return.
        let at_return = goal.returned
            && matches!(
                code.instrs.get(pc),
                Some(crate::bytecode::Instr::Return { .. } | crate::bytecode::Instr::NonLocalReturn { .. })
            );
        if !at_step_point && !at_return {
            return false;
        }
        match goal.kind {
            StepKind::Over | StepKind::Out => d <= goal.depth,
            StepKind::Into => d <= goal.depth || (at_step_point && top.id >= goal.newest),
            // In the method the step began in, or any of its blocks, wherever they run; once
            // that method returned, as over.
            StepKind::Through => (at_step_point && top.home == goal.home) || d < goal.home_depth,
            StepKind::RunTo(target) => at_step_point && top.id == goal.frame && pc as u32 == target,
        }
    }

    /// Stops the running process where its step was to stop.
    pub(crate) fn stop_stepped(&mut self) {
        self.debug.step = None;
        let state = &mut self.scheduler.state;
        state.error = None;
        state.stepped = true;
        state.shown_top = None;
        state.status = Status::Suspended;
        let process = self.scheduler.active;
        if Some(process) == self.watch {
            self.watch_stopped = true;
        }
        self.switch_to_next();
        self.keep_suspended(process);
    }

    /// The running process stopped or ended: a step it was taking is over.
    pub(crate) fn end_step_of_active(&mut self) {
        if self.debug.step.as_ref().is_some_and(|g| g.process == self.scheduler.active) {
            self.debug.step = None;
        }
    }
}
