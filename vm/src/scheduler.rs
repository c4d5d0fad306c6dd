//! The process scheduler: ready queues by priority, the running process, semaphores and
//! timers (for Delay). Preemption: a process made ready at a higher priority than the running
//! one takes over at once; the preempted process goes back to the front of its queue.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use crate::heap::{Body, ProcessBody, Queued};
use crate::process::{ProcessState, Status};
use crate::value::Value;
use crate::vm::Vm;

/// Slot indices of Process objects.
pub mod process_slots {
    /// `priority` (SmallInteger 1..100)
    pub const PRIORITY: usize = 0;
    /// `myList`: the Semaphore the process waits on, or nil.
    pub const MY_LIST: usize = 2;
    /// Named slots of a Process.
    pub const SIZE: usize = 3;
}

/// Highest process priority.
pub const MAX_PRIORITY: usize = 100;
/// The priority of user evaluations.
pub const USER_PRIORITY: i64 = 40;

/// A semaphore to signal at a deadline.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Timer {
    pub at: Instant,
    pub seq: u64,
    pub semaphore: Value,
}

/// The ready processes, one FIFO queue per priority, with a bit per non-empty queue so the
/// highest-priority ready process is found without scanning.
#[derive(Debug)]
pub(crate) struct ReadyQueues {
    queues: Vec<VecDeque<Value>>,
    /// Bit `p` is set exactly when `queues[p]` is not empty.
    mask: u128,
}

impl Default for ReadyQueues {
    fn default() -> Self {
        ReadyQueues { queues: (0..=MAX_PRIORITY).map(|_| VecDeque::new()).collect(), mask: 0 }
    }
}

impl ReadyQueues {
    pub fn push_back(&mut self, priority: usize, p: Value) {
        if let Some(q) = self.queues.get_mut(priority) {
            q.push_back(p);
            self.mask |= 1 << priority;
        }
    }

    pub fn push_front(&mut self, priority: usize, p: Value) {
        if let Some(q) = self.queues.get_mut(priority) {
            q.push_front(p);
            self.mask |= 1 << priority;
        }
    }

    /// The highest priority with a ready process.
    pub fn highest(&self) -> Option<usize> {
        if self.mask == 0 { None } else { Some(127 - self.mask.leading_zeros() as usize) }
    }

    /// Removes the first process of the highest non-empty queue.
    pub fn pop_highest(&mut self) -> Option<Queued> {
        let priority = self.highest()?;
        let q = self.queues.get_mut(priority)?;
        let process = q.pop_front()?;
        if q.is_empty() {
            self.mask &= !(1 << priority);
        }
        Some(Queued { process, priority })
    }

    /// Whether a process is ready at `priority`.
    pub fn any_at(&self, priority: usize) -> bool {
        priority < 128 && self.mask & (1 << priority) != 0
    }

    /// Removes `p` from whichever queue holds it.
    pub fn remove(&mut self, p: Value) {
        for (priority, q) in self.queues.iter_mut().enumerate() {
            q.retain(|&x| x != p);
            if q.is_empty() {
                self.mask &= !(1 << priority);
            }
        }
    }

    /// Every ready process.
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        self.queues.iter().flat_map(|q| q.iter().copied())
    }

    /// How many processes are ready.
    pub fn len(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}

/// Scheduler state.
#[derive(Debug)]
pub(crate) struct Scheduler {
    /// The running process, or nil.
    pub active: Value,
    /// The running process's frames (moved out of its body while it runs). Boxed, so that a
    /// process switch moves a pointer, not the state.
    pub state: Box<ProcessState>,
    /// An empty state to put in place of the running one when it stops (saves an allocation
    /// per switch).
    pub spare: Option<Box<ProcessState>>,
    /// The running process's priority (kept here: preemption checks read it on every signal).
    pub active_priority: usize,
    /// Ready processes by priority.
    pub ready: ReadyQueues,
    /// Pending timers, earliest first.
    pub timers: BinaryHeap<Reverse<Timer>>,
    pub timer_seq: u64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler {
            active: Value::NIL,
            state: Box::default(),
            spare: None,
            active_priority: 0,
            ready: ReadyQueues::default(),
            timers: BinaryHeap::new(),
            timer_seq: 0,
        }
    }
}

/// The priority in a Process's named slots (a nonsense priority counts as the user's).
fn priority_in(slots: &[Value]) -> usize {
    let p = slots.get(process_slots::PRIORITY).and_then(|v| v.as_int());
    p.map_or(USER_PRIORITY as usize, |p| p.clamp(1, MAX_PRIORITY as i64) as usize)
}

impl Vm {
    /// Creates a suspended process object with `state`.
    pub(crate) fn new_process_object(&mut self, mut state: Box<ProcessState>, priority: i64) -> Value {
        // A process may do what its creator (the running process, or the host) may.
        state.may_change_code = self.may_change_code;
        state.serial = self.debug.next_serial();
        let mut slots = vec![Value::NIL; process_slots::SIZE];
        slots[process_slots::PRIORITY] = Value::small(priority.clamp(1, MAX_PRIORITY as i64));
        let named = self.format_of(self.known.process).map_or(process_slots::SIZE, |(_, n)| n);
        slots.resize(named.max(process_slots::SIZE), Value::NIL);
        let body = Body::Process(Box::new(ProcessBody { slots, state: Some(state) }));
        self.heap.alloc(self.known.process, named, body)
    }

    /// The priority of a process.
    pub(crate) fn priority_of(&self, process: Value) -> usize {
        self.heap.get(process).and_then(|o| o.slots()).map_or(USER_PRIORITY as usize, priority_in)
    }

    pub(crate) fn body_state_mut(&mut self, process: Value) -> Option<&mut Option<Box<ProcessState>>> {
        match &mut self.heap.get_mut(process)?.body {
            Body::Process(p) => Some(&mut p.state),
            _ => None,
        }
    }

    /// The status of a process that is not running.
    pub(crate) fn status_of(&mut self, process: Value) -> Option<Status> {
        if process == self.scheduler.active {
            return Some(self.scheduler.state.status);
        }
        self.body_state_mut(process).and_then(|s| s.as_ref().map(|s| s.status))
    }

    /// Sets the status of a process, running or not.
    pub(crate) fn set_status(&mut self, process: Value, status: Status) {
        if process == self.scheduler.active {
            self.scheduler.state.status = status;
        } else if let Some(Some(s)) = self.body_state_mut(process) {
            s.status = status;
        }
    }

    /// Puts a process in its ready queue; answers whether it should preempt the running one.
    pub(crate) fn make_ready(&mut self, process: Value) -> bool {
        let priority =
            if process == self.scheduler.active { self.scheduler.active_priority } else { self.priority_of(process) };
        self.ready_waiter(Queued { process, priority })
    }

    /// Puts a process in the ready queue of the priority given with it (a waiter a signal
    /// woke, whose priority the semaphore kept); answers whether it should preempt the
    /// running one. The process object is only written to, so that finding the queue does
    /// not wait on reading it.
    pub(crate) fn ready_waiter(&mut self, w: Queued) -> bool {
        if w.process == self.scheduler.active {
            self.scheduler.state.status = Status::Ready;
            self.heap.set_slot(w.process, process_slots::MY_LIST, Value::NIL);
        } else if let Some(Body::Process(body)) = self.heap.get_mut(w.process).map(|o| &mut o.body) {
            if let Some(state) = body.state.as_deref_mut() {
                state.status = Status::Ready;
            }
            // (`myList` is the scheduler's bookkeeping: no write barrier.)
            if let Some(list) = body.slots.get_mut(process_slots::MY_LIST) {
                *list = Value::NIL;
            }
        } else {
            return false;
        }
        self.scheduler.ready.push_back(w.priority, w.process);
        !self.scheduler.active.is_nil() && w.priority > self.scheduler.active_priority
    }

    /// Stops running the active process (its status must already say why) and saves its state.
    pub(crate) fn deactivate(&mut self) {
        let active = self.scheduler.active;
        if active.is_nil() {
            return;
        }
        let fresh = self.scheduler.spare.take().unwrap_or_default();
        let state = std::mem::replace(&mut self.scheduler.state, fresh);
        if let Some(slot) = self.body_state_mut(active) {
            *slot = Some(state);
        }
        self.scheduler.active = Value::NIL;
    }

    /// Makes `process` the running one (the previous one must have been deactivated).
    pub(crate) fn activate_process(&mut self, process: Value) {
        // One visit to the process object: its state and its priority.
        let (state, priority) = match self.heap.get_mut(process).map(|o| &mut o.body) {
            Some(Body::Process(body)) => (body.state.take(), priority_in(&body.slots)),
            _ => (None, USER_PRIORITY as usize),
        };
        let state = state.unwrap_or_default();
        let mut old = std::mem::replace(&mut self.scheduler.state, state);
        if old.frames.is_empty() && old.stack.capacity() == 0 {
            old.status = Status::Suspended;
            self.scheduler.spare = Some(old);
        }
        self.scheduler.state.status = Status::Running;
        self.scheduler.active = process;
        self.scheduler.active_priority = priority;
        self.may_change_code = self.scheduler.state.may_change_code;
        let extra = if self.scheduler.state.overflow_signalled { 10_000 } else { 0 };
        self.depth_limit = self.config.max_depth + extra;
    }

    /// The highest-priority ready process, removed from its queue.
    pub(crate) fn take_next_ready(&mut self) -> Option<Queued> {
        self.scheduler.ready.pop_highest()
    }

    /// Preempts the running process in favour of a higher-priority ready one.
    pub(crate) fn preempt(&mut self) {
        let active = self.scheduler.active;
        if active.is_nil() {
            return;
        }
        let p = self.scheduler.active_priority;
        if self.scheduler.ready.highest().is_none_or(|h| h <= p) {
            return;
        }
        self.scheduler.state.status = Status::Ready;
        self.deactivate();
        self.scheduler.ready.push_front(p, active);
        if let Some(next) = self.take_next_ready() {
            self.activate_process(next.process);
        }
    }

    /// Switches to the next ready process after the active one stopped (its status must
    /// already say why), if any is ready.
    ///
    /// This is the process switch of `wait`, `yield` and preemption, so it visits each process
    /// object once, the next one for its saved state and priority and the stopped one to save
    /// its state, and hands the two over without a placeholder state in between.
    pub(crate) fn switch_to_next(&mut self) {
        let active = self.scheduler.active;
        let Some(Queued { process: next, priority }) = self.take_next_ready() else {
            self.deactivate();
            return;
        };
        if active.is_nil() || next == active {
            self.deactivate();
            self.activate_process(next);
            return;
        }
        let state = match self.heap.get_mut(next).map(|o| &mut o.body) {
            Some(Body::Process(body)) => body.state.take(),
            _ => None,
        };
        let old = std::mem::replace(&mut self.scheduler.state, state.unwrap_or_default());
        if let Some(slot) = self.body_state_mut(active) {
            *slot = Some(old);
        }
        self.scheduler.state.status = Status::Running;
        self.scheduler.active = next;
        self.scheduler.active_priority = priority;
        self.may_change_code = self.scheduler.state.may_change_code;
        let extra = if self.scheduler.state.overflow_signalled { 10_000 } else { 0 };
        self.depth_limit = self.config.max_depth + extra;
    }

    /// `Processor yield`: let other ready processes of the same priority run.
    pub(crate) fn yield_active(&mut self) {
        let active = self.scheduler.active;
        let p = self.priority_of(active);
        if !self.scheduler.ready.any_at(p) {
            return;
        }
        self.scheduler.state.status = Status::Ready;
        self.deactivate();
        self.scheduler.ready.push_back(p, active);
        if let Some(next) = self.take_next_ready() {
            self.activate_process(next.process);
        }
    }

    /// Sets the priority of a process that is not ready (a ready one is unlinked first): in
    /// its slot, in the scheduler if it runs, and in its entry of the semaphore it waits on.
    pub(crate) fn set_priority(&mut self, process: Value, priority: usize) {
        self.heap.set_slot(process, process_slots::PRIORITY, Value::small(priority as i64));
        if process == self.scheduler.active {
            self.scheduler.active_priority = priority;
        }
        let list = self.heap.slot(process, process_slots::MY_LIST).unwrap_or(Value::NIL);
        if let Some(Body::Semaphore(s)) = self.heap.get_mut(list).map(|o| &mut o.body) {
            s.waiting.iter_mut().filter(|w| w.process == process).for_each(|w| w.priority = priority);
        }
    }

    /// Removes a process from the ready queue or semaphore it waits in.
    pub(crate) fn unlink(&mut self, process: Value) {
        self.scheduler.ready.remove(process);
        let list = self.heap.slot(process, process_slots::MY_LIST).unwrap_or(Value::NIL);
        if let Some(Body::Semaphore(s)) = self.heap.get_mut(list).map(|o| &mut o.body) {
            s.waiting.retain(|w| w.process != process);
        }
        self.heap.set_slot(process, process_slots::MY_LIST, Value::NIL);
    }

    /// `Semaphore>>signal`. Answers whether a process switch may be due (`None`: `sem` is
    /// not a semaphore).
    pub(crate) fn signal_semaphore(&mut self, sem: Value) -> Option<bool> {
        let waiter = match self.heap.get_mut(sem).map(|o| &mut o.body) {
            Some(Body::Semaphore(s)) => match s.waiting.pop_front() {
                Some(w) => w,
                None => {
                    s.excess_signals = s.excess_signals.saturating_add(1);
                    return Some(false);
                }
            },
            _ => return None,
        };
        Some(self.ready_waiter(waiter))
    }

    /// `Semaphore>>wait` for the running process. Answers true if the process now waits
    /// (`None`: `sem` is not a semaphore).
    pub(crate) fn wait_semaphore(&mut self, sem: Value) -> Option<bool> {
        let active = self.scheduler.active;
        let priority = self.scheduler.active_priority;
        match self.heap.get_mut(sem).map(|o| &mut o.body) {
            Some(Body::Semaphore(s)) => {
                if s.excess_signals > 0 {
                    s.excess_signals -= 1;
                    return Some(false);
                }
                s.waiting.push_back(Queued { process: active, priority });
            }
            _ => return None,
        }
        if let Some(list) =
            self.heap.get_mut(active).and_then(|o| o.slots_mut()).and_then(|s| s.get_mut(process_slots::MY_LIST))
        {
            *list = sem;
        }
        self.scheduler.state.status = Status::Waiting;
        self.switch_to_next();
        Some(true)
    }

    /// Schedules `sem` to be signalled at `at`.
    pub(crate) fn add_timer(&mut self, at: Instant, semaphore: Value) {
        self.scheduler.timer_seq += 1;
        let seq = self.scheduler.timer_seq;
        self.scheduler.timers.push(Reverse(Timer { at, seq, semaphore }));
    }

    /// Cancels the timers of `sem`.
    pub(crate) fn cancel_timers(&mut self, sem: Value) {
        let timers = std::mem::take(&mut self.scheduler.timers);
        self.scheduler.timers = timers.into_iter().filter(|t| t.0.semaphore != sem).collect();
    }

    /// Signals every timer that is due; answers whether a higher-priority process is ready.
    pub(crate) fn fire_timers(&mut self, now: Instant) -> bool {
        let mut preempt = false;
        while let Some(Reverse(t)) = self.scheduler.timers.peek() {
            if t.at > now {
                break;
            }
            let sem = t.semaphore;
            self.scheduler.timers.pop();
            preempt |= self.signal_semaphore(sem).unwrap_or(false);
        }
        preempt
    }

    /// The earliest pending timer.
    pub(crate) fn next_timer(&self) -> Option<Instant> {
        self.scheduler.timers.peek().map(|t| t.0.at)
    }

    /// Values the scheduler holds (for the collector).
    pub(crate) fn scheduler_roots(&self, out: &mut Vec<Value>) {
        out.push(self.scheduler.active);
        self.scheduler.state.trace(&mut |v| out.push(v));
        out.extend(self.scheduler.ready.iter());
        out.extend(self.scheduler.timers.iter().map(|t| t.0.semaphore));
        out.extend(self.long_ops.iter().map(crate::primitives::offload::LongOp::root));
    }
}
