//! Pausing a process that runs (or waits to): a debugger asks, and the process stops at the
//! next step point it reaches, suspended with the reason `Pause` and kept for a debugger as
//! a breakpoint's stop is.
//!
//! A pause asked for sets no goal of a step: the process joins the VM's list of processes
//! to pause, and while that list is not empty the dispatch loop runs in its stepping form
//! (`Vm::run`), which looks before each instruction of a process on the list whether it
//! stands at a step point. A process that waits (on a semaphore, a delay) stops when it
//! wakes; one that ends, or stops for another reason first, leaves the list.

use crate::process::Status;
use crate::value::Value;
use crate::vm::Vm;

use super::step::DebugError;

impl Vm {
    /// Asks process `serial` (running, ready or waiting) to stop at its next step point.
    /// Answers the process; asking again is no matter.
    pub fn pause(&mut self, serial: u64) -> Result<Value, DebugError> {
        let view = self.processes().into_iter().find(|p| p.serial == serial).ok_or(DebugError::NoProcess(serial))?;
        if view.status == Status::Suspended {
            return Err(DebugError::Refused(format!("the process {serial} is suspended already")));
        }
        if !self.debug.pausing.contains(&view.process) {
            self.debug.pausing.push(view.process);
        }
        Ok(view.process)
    }

    /// Whether `process` was asked to pause and has not stopped yet.
    pub fn is_pausing(&self, process: Value) -> bool {
        self.debug.pausing.contains(&process)
    }

    /// Forgets the pauses of processes that stopped or ended some other way; answers whether
    /// a pause is still waiting for its process.
    pub(crate) fn pauses_pending(&mut self) -> bool {
        if self.debug.pausing.is_empty() {
            return false;
        }
        let mut pausing = std::mem::take(&mut self.debug.pausing);
        pausing.retain(|&p| {
            matches!(self.state_of(p).map(|s| s.status), Some(Status::Ready | Status::Running | Status::Waiting))
        });
        self.debug.pausing = pausing;
        !self.debug.pausing.is_empty()
    }

    /// Whether the running process, asked to pause, stands at a step point of its top frame
    /// at `pc`: then it is stopped there (called only in the stepping form of the loop).
    pub(crate) fn pause_stops_at(&mut self, pc: usize) -> bool {
        let active = self.scheduler.active;
        // Not inside a breakpoint's condition or log expression.
        if self.scheduler.state.break_check.is_some() {
            return false;
        }
        let Some(i) = self.debug.pausing.iter().position(|&p| p == active) else { return false };
        let Some(top) = self.scheduler.state.frames.last() else { return false };
        let code = top.code();
        if code.step_points.binary_search_by_key(&(pc as u32), |s| s.pc).is_err() {
            return false;
        }
        let frame = top.id;
        self.debug.pausing.swap_remove(i);
        self.stop_here(frame, pc as u32, "Pause", "paused".into());
        true
    }
}
