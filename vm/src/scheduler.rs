//! The process scheduler: ready queues by priority, the running process, semaphores and
//! timers (for Delay). Preemption: a process made ready at a higher priority than the running
//! one takes over at once; the preempted process goes back to the front of its queue.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use crate::heap::{Body, ProcessBody, ProcessList};
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
/// highest-priority ready process is found without scanning. The queues are linked through
/// the process bodies (see [`ProcessList`]).
#[derive(Debug)]
pub(crate) struct ReadyQueues {
    queues: Vec<ProcessList>,
    /// Bit `p` is set exactly when `queues[p]` is not empty.
    mask: u128,
}

impl Default for ReadyQueues {
    fn default() -> Self {
        ReadyQueues { queues: (0..=MAX_PRIORITY).map(|_| ProcessList::default()).collect(), mask: 0 }
    }
}

impl ReadyQueues {
    /// Appends a process to the queue of its priority; answers false if it is queued already.
    ///
    /// # Safety
    /// As for [`ProcessList::push_back`].
    #[inline(always)]
    pub unsafe fn push_back(&mut self, body: *mut ProcessBody) -> bool {
        // SAFETY: as the caller promises.
        let priority = unsafe { (*body).priority };
        let Some(q) = self.queues.get_mut(priority) else { return false };
        // SAFETY: as the caller promises.
        let pushed = unsafe { q.push_back(body) };
        self.mask |= u128::from(pushed) << priority;
        pushed
    }

    /// Puts a process first in the queue of its priority (a preempted one goes on first).
    ///
    /// # Safety
    /// As for [`ProcessList::push_back`].
    pub unsafe fn push_front(&mut self, body: *mut ProcessBody) -> bool {
        // SAFETY: as the caller promises.
        let priority = unsafe { (*body).priority };
        let Some(q) = self.queues.get_mut(priority) else { return false };
        // SAFETY: as the caller promises.
        let pushed = unsafe { q.push_front(body) };
        self.mask |= u128::from(pushed) << priority;
        pushed
    }

    /// The queues (one per priority, never reallocated) and the mask, for native code.
    pub fn raw(&mut self) -> (*mut ProcessList, *mut u128) {
        (self.queues.as_mut_ptr(), &mut self.mask)
    }

    /// The highest priority with a ready process.
    #[inline(always)]
    pub fn highest(&self) -> Option<usize> {
        if self.mask == 0 { None } else { Some(127 - self.mask.leading_zeros() as usize) }
    }

    /// Removes the first process of the highest non-empty queue.
    #[inline(always)]
    pub fn pop_highest(&mut self) -> Option<*mut ProcessBody> {
        let priority = self.highest()?;
        let q = self.queues.get_mut(priority)?;
        let body = q.pop_front()?;
        if q.is_empty() {
            self.mask &= !(1 << priority);
        }
        Some(body)
    }

    /// Whether a process is ready at `priority`.
    pub fn any_at(&self, priority: usize) -> bool {
        priority < 128 && self.mask & (1 << priority) != 0
    }

    /// Removes `p` from whichever queue holds it.
    pub fn remove(&mut self, p: Value) {
        for (priority, q) in self.queues.iter_mut().enumerate() {
            if q.remove(p) && q.is_empty() {
                self.mask &= !(1 << priority);
            }
        }
    }

    /// Every ready process.
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        self.queues.iter().flat_map(ProcessList::processes)
    }

    /// How many processes are ready.
    pub fn len(&self) -> usize {
        self.queues.iter().map(|q| q.iter().count()).sum()
    }
}

/// Scheduler state.
#[derive(Debug)]
pub(crate) struct Scheduler {
    /// The running process, or nil.
    pub active: Value,
    /// The running process's body (null when none runs): a wait queues it without going
    /// through the object table.
    pub active_body: *mut ProcessBody,
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
            active_body: std::ptr::null_mut(),
            state: Box::default(),
            spare: None,
            active_priority: 0,
            ready: ReadyQueues::default(),
            timers: BinaryHeap::new(),
            timer_seq: 0,
        }
    }
}

impl Vm {
    /// Creates a suspended process object with `state`.
    pub(crate) fn new_process_object(&mut self, mut state: Box<ProcessState>, priority: i64) -> Value {
        // A process may do what its creator (the running process, or the host) may.
        state.may_change_code = self.may_change_code;
        state.serial = self.debug.next_serial();
        let priority = priority.clamp(1, MAX_PRIORITY as i64);
        let mut slots = vec![Value::NIL; process_slots::SIZE];
        slots[process_slots::PRIORITY] = Value::small(priority);
        let named = self.format_of(self.known.process).map_or(process_slots::SIZE, |(_, n)| n);
        slots.resize(named.max(process_slots::SIZE), Value::NIL);
        let body = Body::Process(Box::new(ProcessBody::new(slots, Some(state), priority as usize)));
        self.heap.alloc(self.known.process, named, body)
    }

    /// The body of a process object, as a pointer the queues can hold.
    fn process_body(&mut self, process: Value) -> Option<*mut ProcessBody> {
        match &mut self.heap.get_mut(process)?.body {
            Body::Process(body) => Some(&mut **body as *mut ProcessBody),
            _ => None,
        }
    }

    /// The priority of a process.
    pub(crate) fn priority_of(&self, process: Value) -> usize {
        if process == self.scheduler.active {
            return self.scheduler.active_priority;
        }
        match self.heap.get(process).map(|o| &o.body) {
            Some(Body::Process(body)) => body.priority,
            _ => USER_PRIORITY as usize,
        }
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
        match self.process_body(process) {
            // SAFETY: a body just found in the table is live.
            Some(body) => unsafe { self.ready_body(body) },
            None => false,
        }
    }

    /// Puts the process whose body is `body` (one in no queue, e.g. a waiter a signal took
    /// off its semaphore) in the ready queue of its priority; answers whether it should
    /// preempt the running one. A process in a queue already is left where it is.
    ///
    /// # Safety
    /// `body` is a live process body.
    #[inline(always)]
    pub(crate) unsafe fn ready_body(&mut self, body: *mut ProcessBody) -> bool {
        // SAFETY: as the caller promises.
        let b = unsafe { &mut *body };
        if b.queued {
            return false;
        }
        match b.state.as_deref_mut() {
            Some(state) => state.status = Status::Ready,
            None if b.process == self.scheduler.active => self.scheduler.state.status = Status::Ready,
            None => {}
        }
        // (`myList` is the scheduler's bookkeeping: no write barrier.)
        if let Some(list) = b.slots.get_mut(process_slots::MY_LIST) {
            *list = Value::NIL;
        }
        let priority = b.priority;
        // SAFETY: a ready process is a root of the collector, so its body stays live.
        unsafe { self.scheduler.ready.push_back(body) };
        !self.scheduler.active.is_nil() && priority > self.scheduler.active_priority
    }

    /// Puts the running process back first in its ready queue (it was preempted, or a host
    /// runs another first) and stops running it.
    pub(crate) fn requeue_active_first(&mut self) {
        let body = self.scheduler.active_body;
        if body.is_null() {
            return;
        }
        self.scheduler.state.status = Status::Ready;
        self.deactivate();
        // SAFETY: the body of the process that was running is live.
        unsafe { self.scheduler.ready.push_front(body) };
    }

    /// Stops running the active process (its status must already say why) and saves its state.
    pub(crate) fn deactivate(&mut self) {
        let body = self.scheduler.active_body;
        if body.is_null() {
            self.scheduler.active = Value::NIL;
            return;
        }
        let fresh = self.scheduler.spare.take().unwrap_or_default();
        let state = std::mem::replace(&mut self.scheduler.state, fresh);
        // SAFETY: the running process is a root of the collector, so its body is live.
        unsafe { (*body).state = Some(state) };
        self.scheduler.active = Value::NIL;
        self.scheduler.active_body = std::ptr::null_mut();
    }

    /// Makes `process` the running one (the previous one must have been deactivated).
    pub(crate) fn activate_process(&mut self, process: Value) {
        let Some(body) = self.process_body(process) else { return };
        // SAFETY: a body just found in the table is live.
        let b = unsafe { &mut *body };
        let state = b.state.take().unwrap_or_default();
        let mut old = std::mem::replace(&mut self.scheduler.state, state);
        if old.frames.is_empty() && old.stack.capacity() == 0 {
            old.status = Status::Suspended;
            self.scheduler.spare = Some(old);
        }
        self.scheduler.active = process;
        self.scheduler.active_body = body;
        self.scheduler.active_priority = b.priority;
        self.now_running();
    }

    /// What follows from the process now in `scheduler.state` running.
    #[inline(always)]
    fn now_running(&mut self) {
        let state = &mut *self.scheduler.state;
        state.status = Status::Running;
        self.may_change_code = state.may_change_code;
        let extra = if state.overflow_signalled { 10_000 } else { 0 };
        self.depth_limit = self.config.max_depth + extra;
    }

    /// The highest-priority ready process, removed from its queue.
    pub(crate) fn take_next_ready(&mut self) -> Option<Value> {
        // SAFETY: a body in a ready queue is live.
        self.scheduler.ready.pop_highest().map(|body| unsafe { (*body).process })
    }

    /// Preempts the running process in favour of a higher-priority ready one.
    pub(crate) fn preempt(&mut self) {
        if self.scheduler.active.is_nil() {
            return;
        }
        let p = self.scheduler.active_priority;
        if self.scheduler.ready.highest().is_none_or(|h| h <= p) {
            return;
        }
        self.requeue_active_first();
        if let Some(next) = self.take_next_ready() {
            self.activate_process(next);
        }
    }

    /// Switches to the next ready process after the active one stopped (its status must
    /// already say why), if any is ready.
    ///
    /// This is the process switch of `wait`, `yield` and preemption: it reaches both
    /// processes through their bodies (the ready queue's and the scheduler's pointers) and
    /// hands their states over without a placeholder state in between.
    #[inline(always)]
    pub(crate) fn switch_to_next(&mut self) {
        let active = self.scheduler.active_body;
        let Some(next) = self.scheduler.ready.pop_highest() else {
            self.deactivate();
            return;
        };
        if active.is_null() || next == active {
            self.deactivate();
            // SAFETY: a body taken from a ready queue is live.
            let process = unsafe { (*next).process };
            self.activate_process(process);
            return;
        }
        // SAFETY: `next` came from a ready queue and `active` is the running process's body,
        // both live, and they are different bodies.
        let (next_body, active_body) = unsafe { (&mut *next, &mut *active) };
        let state = next_body.state.take().unwrap_or_default();
        active_body.state = Some(std::mem::replace(&mut self.scheduler.state, state));
        self.scheduler.active = next_body.process;
        self.scheduler.active_body = next;
        self.scheduler.active_priority = next_body.priority;
        self.now_running();
    }

    /// `Processor yield`: let other ready processes of the same priority run.
    pub(crate) fn yield_active(&mut self) {
        let body = self.scheduler.active_body;
        if body.is_null() || !self.scheduler.ready.any_at(self.scheduler.active_priority) {
            return;
        }
        self.scheduler.state.status = Status::Ready;
        self.deactivate();
        // SAFETY: the body of the process that was running is live.
        unsafe { self.scheduler.ready.push_back(body) };
        if let Some(next) = self.take_next_ready() {
            self.activate_process(next);
        }
    }

    /// Sets the priority of a process that is not ready (a ready one is unlinked first): in
    /// its slot, in its body, and in the scheduler if it runs.
    pub(crate) fn set_priority(&mut self, process: Value, priority: usize) {
        self.heap.set_slot(process, process_slots::PRIORITY, Value::small(priority as i64));
        if let Some(Body::Process(body)) = self.heap.get_mut(process).map(|o| &mut o.body) {
            body.priority = priority;
        }
        if process == self.scheduler.active {
            self.scheduler.active_priority = priority;
        }
    }

    /// Removes a process from the ready queue or semaphore it waits in.
    pub(crate) fn unlink(&mut self, process: Value) {
        self.scheduler.ready.remove(process);
        let list = self.heap.slot(process, process_slots::MY_LIST).unwrap_or(Value::NIL);
        if let Some(Body::Semaphore(s)) = self.heap.get_mut(list).map(|o| &mut o.body) {
            s.waiting.remove(process);
        }
        self.heap.set_slot(process, process_slots::MY_LIST, Value::NIL);
    }

    /// `Semaphore>>signal`. Answers whether a process switch may be due (`None`: `sem` is
    /// not a semaphore).
    #[inline(always)]
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
        // SAFETY: a body taken from a semaphore's queue is live.
        Some(unsafe { self.ready_body(waiter) })
    }

    /// `Semaphore>>wait` for the running process. Answers true if the process now waits
    /// (`None`: `sem` is not a semaphore).
    #[inline(always)]
    pub(crate) fn wait_semaphore(&mut self, sem: Value) -> Option<bool> {
        let active = self.scheduler.active_body;
        match self.heap.get_mut(sem).map(|o| &mut o.body) {
            Some(Body::Semaphore(s)) => {
                if s.excess_signals > 0 {
                    s.excess_signals -= 1;
                    return Some(false);
                }
                // SAFETY: the running process's body is live, and a waiter is traced by its
                // semaphore (and names it in `myList`), so it stays live while it waits.
                if active.is_null() || !unsafe { s.waiting.push_back(active) } {
                    return None;
                }
            }
            _ => return None,
        }
        // SAFETY: as above.
        let body = unsafe { &mut *active };
        if let Some(list) = body.slots.get_mut(process_slots::MY_LIST) {
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
