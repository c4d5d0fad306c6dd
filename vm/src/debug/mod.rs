//! The debugger's side of the VM: the suspended processes a host keeps for its tools (a
//! process stopped by an error nobody handled, a halt or a step), what became of them as
//! events, and the list of every process of the VM.
//!
//! A process that stops with an error while no host watches it (a forked process) is kept
//! here at once; a host keeps the processes of its own evaluations with [`Vm::keep_suspended`].
//! At most [`Registry::limit`] are kept: past it the oldest is terminated (its unwind blocks
//! run) and only its report remains. `frames.rs` reads their stacks, `step.rs` steps, restarts,
//! returns from and resumes them, `in_frame.rs` evaluates code in one of their frames;
//! `breakpoints.rs` keeps the breakpoints, `hit.rs` stops processes at them and `shared.rs`
//! applies the stone's; `pause.rs` stops a running process where a debugger asks.

pub mod breakpoints;
pub mod frames;
pub(crate) mod hit;
mod in_frame;
mod pause;
pub mod shared;
pub mod step;

use std::collections::VecDeque;

pub use in_frame::FrameBinding;
pub use step::StepKind;

use crate::error::ErrorReport;
use crate::heap::Body;
use crate::process::{ProcessState, Status};
use crate::value::Value;
use crate::vm::Vm;

/// How many suspended processes a VM keeps unless told otherwise.
pub const DEFAULT_KEPT: usize = 50;

/// How many reports of processes terminated for want of room are remembered.
const FORGOTTEN_REPORTS: usize = 50;

/// What happened to a kept process, for the host to tell its tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DebugEvent {
    /// The process (by serial) stopped while a host ran it (its evaluation, a debugger's
    /// step) and is kept.
    Suspended(u64),
    /// The process stopped (an error, a halt) where no host watched it (a forked process)
    /// and is kept: nobody knows of it unless told.
    Failed(u64),
    /// It runs again.
    Resumed(u64),
    /// It is gone: terminated, finished, or dropped to make room.
    Terminated(u64),
}

/// Why a process is stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// An error nobody handled: its class and description.
    Error {
        /// The exception's class name.
        class_name: String,
        /// Its description.
        description: String,
    },
    /// `halt` or `Halt signal`.
    Halt(String),
    /// A breakpoint: which, and where.
    Breakpoint(String),
    /// The host interrupted it.
    Interrupt,
    /// A debugger paused it.
    Pause,
    /// A debugger's step reached where it was to stop.
    Step,
    /// Suspended by Smalltalk code (`suspend`).
    Suspended,
}

impl Reason {
    fn of(state: &ProcessState) -> Reason {
        match &state.error {
            Some(report) if report.class_name == "Halt" => Reason::Halt(report.description.clone()),
            Some(report) if report.class_name == "Breakpoint" => Reason::Breakpoint(report.description.clone()),
            Some(report) if report.class_name == "Interrupt" => Reason::Interrupt,
            Some(report) if report.class_name == "Pause" => Reason::Pause,
            Some(report) => {
                Reason::Error { class_name: report.class_name.clone(), description: report.description.clone() }
            }
            None if state.stepped => Reason::Step,
            None => Reason::Suspended,
        }
    }
}

/// One process as a process browser lists it.
#[derive(Clone, Debug)]
pub struct ProcessView {
    /// Its number in the VM.
    pub serial: u64,
    /// The Process object.
    pub process: Value,
    /// Running, ready, waiting, suspended.
    pub status: Status,
    /// Its priority.
    pub priority: usize,
    /// Why it is stopped, for a suspended one.
    pub reason: Option<Reason>,
    /// Whether the VM keeps it for a debugger.
    pub kept: bool,
    /// The label of the frame a debugger shows at the top.
    pub top: String,
    /// How many frames a debugger shows.
    pub depth: usize,
}

/// The kept processes and what became of them.
#[derive(Debug)]
pub struct Registry {
    /// Suspended processes kept for a debugger, oldest first.
    kept: VecDeque<Value>,
    /// How many are kept at most.
    pub limit: usize,
    /// Reports of processes terminated to make room (serial and report), oldest first.
    forgotten: VecDeque<(u64, ErrorReport)>,
    events: Vec<DebugEvent>,
    /// The step under way, if any (see `step.rs`).
    pub(crate) step: Option<step::StepGoal>,
    /// Processes asked to pause that have not stopped yet (see `pause.rs`).
    pub(crate) pausing: Vec<Value>,
    /// The breakpoints (see `breakpoints.rs`).
    pub(crate) breakpoints: breakpoints::Breakpoints,
    /// What this gem applied of the stone's breakpoints (see `shared.rs`).
    pub(crate) from_stone: shared::FromStone,
    /// The serial the next process gets.
    next_serial: u64,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            kept: VecDeque::new(),
            limit: DEFAULT_KEPT,
            forgotten: VecDeque::new(),
            events: Vec::new(),
            step: None,
            pausing: Vec::new(),
            breakpoints: breakpoints::Breakpoints::default(),
            from_stone: shared::FromStone::default(),
            next_serial: 1,
        }
    }
}

impl Registry {
    /// A new process's serial.
    pub(crate) fn next_serial(&mut self) -> u64 {
        let s = self.next_serial;
        self.next_serial += 1;
        s
    }

    /// Values the registry holds (for the collector).
    pub(crate) fn roots(&self, out: &mut Vec<Value>) {
        out.extend(self.kept.iter().copied());
        if let Some(goal) = &self.step {
            out.push(goal.process);
        }
        out.extend(self.pausing.iter().copied());
        self.breakpoints.roots(out);
    }
}

impl Vm {
    /// The state of a process, running or not.
    pub(crate) fn state_of(&self, process: Value) -> Option<&ProcessState> {
        if process == self.scheduler.active {
            return Some(&self.scheduler.state);
        }
        match &self.heap.get(process)?.body {
            Body::Process(p) => p.state.as_deref(),
            _ => None,
        }
    }

    /// The state of a process that is not running.
    pub(crate) fn idle_state_mut(&mut self, process: Value) -> Option<&mut ProcessState> {
        if process == self.scheduler.active {
            return None;
        }
        match &mut self.heap.get_mut(process)?.body {
            Body::Process(p) => p.state.as_deref_mut(),
            _ => None,
        }
    }

    /// The serial of a process (0 if it is none).
    pub fn process_serial(&self, process: Value) -> u64 {
        self.state_of(process).map_or(0, |s| s.serial)
    }

    /// Keeps a suspended process for a debugger (the host's own evaluations are not kept
    /// unless it asks). Past the limit the oldest kept process is terminated.
    pub fn keep_suspended(&mut self, process: Value) {
        self.keep(process, DebugEvent::Suspended);
    }

    /// Keeps a suspended process, telling the host's tools with `event`.
    pub(crate) fn keep(&mut self, process: Value, event: fn(u64) -> DebugEvent) {
        if self.debug.kept.contains(&process) || self.status_of(process) != Some(Status::Suspended) {
            return;
        }
        self.debug.kept.push_back(process);
        let serial = self.process_serial(process);
        self.debug.events.push(event(serial));
        while self.debug.kept.len() > self.debug.limit.max(1) {
            let Some(oldest) = self.debug.kept.pop_front() else { break };
            if let Some(state) = self.state_of(oldest) {
                let report = state.error.as_deref().cloned().unwrap_or_else(|| ErrorReport {
                    class_name: "Suspended".into(),
                    description: "suspended".into(),
                    stack: Vec::new(),
                });
                let serial = state.serial;
                self.debug.forgotten.push_back((serial, report));
                if self.debug.forgotten.len() > FORGOTTEN_REPORTS {
                    self.debug.forgotten.pop_front();
                }
            }
            self.terminate_unwinding(oldest);
        }
    }

    /// The kept process with `serial`.
    pub fn kept_process(&self, serial: u64) -> Option<Value> {
        self.debug.kept.iter().copied().find(|&p| self.process_serial(p) == serial)
    }

    /// The kept suspended processes, oldest first.
    pub fn kept_processes(&self) -> Vec<Value> {
        self.debug.kept.iter().copied().collect()
    }

    /// The reports of processes terminated to make room for newer ones (serial and report).
    pub fn forgotten_reports(&self) -> Vec<(u64, ErrorReport)> {
        self.debug.forgotten.iter().cloned().collect()
    }

    /// Stops keeping `process` (it runs again, or is gone), telling the host's tools.
    pub(crate) fn unkeep(&mut self, process: Value, event: fn(u64) -> DebugEvent) {
        if let Some(i) = self.debug.kept.iter().position(|&p| p == process) {
            self.debug.kept.remove(i);
            let serial = self.process_serial(process);
            self.debug.events.push(event(serial));
        }
    }

    /// Takes the events since the last call.
    pub fn take_debug_events(&mut self) -> Vec<DebugEvent> {
        std::mem::take(&mut self.debug.events)
    }

    /// How many suspended processes are kept at most (at least 1).
    pub fn set_kept_limit(&mut self, limit: usize) {
        self.debug.limit = limit.max(1);
    }

    /// Why a suspended process is stopped (`None` for one that is not suspended).
    pub fn stop_reason(&self, process: Value) -> Option<Reason> {
        let state = self.state_of(process)?;
        (state.status == Status::Suspended).then(|| Reason::of(state))
    }

    /// Every process of the VM that has not ended: the running one, the ready ones, those
    /// waiting, and the suspended ones (kept or not), by serial.
    pub fn processes(&self) -> Vec<ProcessView> {
        let class = self.known.process;
        let mut out: Vec<ProcessView> = self
            .heap
            .all_objects()
            .filter(|(_, o)| o.class == class)
            .filter_map(|(v, _)| self.process_view(v))
            .filter(|p| p.serial != 0)
            .collect();
        out.sort_by_key(|p| p.serial);
        out
    }

    /// One process as a process browser lists it; `None` for one that ended.
    pub fn process_view(&self, process: Value) -> Option<ProcessView> {
        let state = self.state_of(process)?;
        if state.status == Status::Terminated || state.frames.is_empty() {
            return None;
        }
        let shown = state.shown_top()?;
        let top = state.frames.get(shown).map_or_else(String::new, |f| {
            let receiver = state.stack.get(f.base as usize).copied().unwrap_or(Value::NIL);
            self.frame_label_for(f, receiver)
        });
        Some(ProcessView {
            serial: state.serial,
            process,
            status: state.status,
            priority: self.priority_of(process),
            reason: (state.status == Status::Suspended).then(|| Reason::of(state)),
            kept: self.debug.kept.contains(&process),
            top,
            depth: shown + 1,
        })
    }
}
