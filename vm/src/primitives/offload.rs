//! Work too long for the VM thread: multiplying, dividing, printing, the gcd, the square root
//! and powers of integers of tens of thousands of bits and more take time that grows faster
//! than their size (seconds for millions of digits), and a socket waits on the network. Such
//! a primitive runs on a thread of its own while its process waits, as on a semaphore; the VM meanwhile
//! runs other processes and the host's other work, and an interrupt or a time limit stops
//! the waiting process like any other. The answer is handed over at the VM's next
//! interrupt check (or while it idles), and dropped if the process stopped waiting.
//!
//! The thread cannot be stopped part way: an interrupted operation runs to its end on its
//! own thread, and its answer is dropped.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::time::Duration;

use num_bigint::BigInt;

use super::sockets::Net;
use super::{Args, Prim, PrimResult};
use crate::error::ErrorReport;
use crate::heap::Body;
use crate::process::Status;
use crate::scheduler::process_slots;
use crate::value::Value;
use crate::vm::Vm;

/// Operands of this many bits or more make an operation long enough to run off the VM
/// thread (a gcd of this size takes a few milliseconds; starting a thread, some tens of
/// microseconds).
pub(crate) const LONG_BITS: u64 = 1 << 15;

/// What a long operation answers.
pub(crate) enum Answer {
    Integer(BigInt),
    Text(String),
    /// A ByteArray.
    Bytes(Vec<u8>),
    /// A socket, answered as its handle.
    Socket(Net),
    Nil,
}

/// What the threads of long operations ring when an answer is ready: a VM with nothing to
/// run but waits for answers sleeps on it instead of looking again and again.
pub(crate) struct Doorbell {
    ring: Sender<()>,
    rung: Receiver<()>,
}

impl Default for Doorbell {
    fn default() -> Self {
        let (ring, rung) = mpsc::channel();
        Doorbell { ring, rung }
    }
}

impl Doorbell {
    /// Waits until an answer may be ready, or `limit` has passed.
    pub(crate) fn wait(&self, limit: Duration) {
        if self.rung.recv_timeout(limit).is_ok() {
            // Answers that came together rang once each: one look takes them all.
            while self.rung.try_recv().is_ok() {}
        }
    }
}

/// An operation running on its own thread, and the process waiting for it.
pub(crate) struct LongOp {
    process: Value,
    /// What the process waits on (the collector keeps it, and through it the process).
    semaphore: Value,
    /// Where in the process's stack the answer goes.
    ret: usize,
    answer: Receiver<Answer>,
}

impl LongOp {
    /// What the collector must keep for this operation.
    pub(crate) fn root(&self) -> Value {
        self.semaphore
    }
}

/// Runs `work` on a thread of its own; the running process waits for its answer.
pub(crate) fn run_long(vm: &mut Vm, a: Args, work: impl FnOnce() -> Answer + Send + 'static) -> PrimResult {
    // A gem may not have brought the class in yet.
    let class = vm.known.semaphore;
    vm.fault_in(class);
    let (_, named) = vm.format_of(class).ok_or(Prim::Fail)?;
    let semaphore = vm.heap.alloc(class, named, Body::Semaphore(Box::default()));
    let (send, answer) = mpsc::channel();
    let ring = vm.long_ops_done.ring.clone();
    std::thread::Builder::new()
        .name("onyx-long-primitive".into())
        .spawn(move || {
            // A panic drops `send`: the waiting process is told the operation failed.
            if let Ok(answer) = catch_unwind(AssertUnwindSafe(work)) {
                let _ = send.send(answer);
            }
            // The answer (or, after a panic, the closed channel) is there before the bell.
            drop(send);
            let _ = ring.send(());
        })
        .map_err(|_| Prim::Fail)?;
    let process = vm.scheduler.active;
    if let Some(slot) = vm.scheduler.state.stack.get_mut(a.ret) {
        *slot = Value::NIL;
    }
    match vm.wait_semaphore(semaphore) {
        Some(true) => {
            vm.long_ops.push(LongOp { process, semaphore, ret: a.ret, answer });
            Err(Prim::Switched)
        }
        // A new semaphore has no signals: the process always waits.
        _ => Err(Prim::Fail),
    }
}

impl Vm {
    /// Whether an operation is running off the VM thread.
    pub(crate) fn long_ops_pending(&self) -> bool {
        !self.long_ops.is_empty()
    }

    /// Hands finished operations their answers, making their processes ready. Answers
    /// whether one of them should preempt the running process.
    pub(crate) fn finish_long_ops(&mut self) -> bool {
        let mut preempt = false;
        let mut i = 0;
        while let Some(op) = self.long_ops.get(i) {
            let answer = match op.answer.try_recv() {
                Ok(answer) => Some(answer),
                Err(TryRecvError::Empty) => {
                    i += 1;
                    continue;
                }
                Err(TryRecvError::Disconnected) => None,
            };
            let op = self.long_ops.swap_remove(i);
            preempt |= self.deliver(op, answer);
        }
        preempt
    }

    fn deliver(&mut self, op: LongOp, answer: Option<Answer>) -> bool {
        let waiting = self.status_of(op.process) == Some(Status::Waiting)
            && self.heap.slot(op.process, process_slots::MY_LIST) == Some(op.semaphore);
        if !waiting {
            // Interrupted or terminated meanwhile: nobody wants the answer.
            return false;
        }
        let Some(answer) = answer else {
            self.unlink(op.process);
            self.set_status(op.process, Status::Suspended);
            let report = self.report_of(op.process, "a primitive failed on its thread");
            let report = ErrorReport { class_name: "VMError".into(), ..report };
            if let Some(Some(state)) = self.body_state_mut(op.process) {
                state.error = Some(Box::new(report));
            }
            return false;
        };
        let value = match answer {
            Answer::Integer(n) => self.new_integer(n),
            Answer::Text(s) => self.new_string(&s),
            Answer::Bytes(b) => self.heap.alloc(self.known.byte_array, 0, Body::Bytes(b.into())),
            Answer::Socket(net) => Value::small(self.sockets.insert(net)),
            Answer::Nil => Value::NIL,
        };
        if let Some(Some(state)) = self.body_state_mut(op.process)
            && let Some(slot) = state.stack.get_mut(op.ret)
        {
            *slot = value;
        }
        self.signal_semaphore(op.semaphore).unwrap_or(false)
    }
}
