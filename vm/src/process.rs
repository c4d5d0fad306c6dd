//! Processes: explicit frame stacks and the value stack their registers live on.
//!
//! A process never uses the Rust stack for Smalltalk calls: a send pushes a [`Frame`] and
//! returns to the interpreter loop. So a process can be stopped between any two instructions,
//! its frames read (receiver, arguments, temporaries, step point) and resumed later.

use std::rc::Rc;

use crate::bytecode::CompiledCode;
use crate::value::Value;

/// One activation of a method or block.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The code being run (a method's or a block's).
    pub code: Rc<CompiledCode>,
    /// The home CompiledMethod object.
    pub method: Value,
    /// The BlockClosure for block activations, nil for methods.
    pub closure: Value,
    /// The next instruction to run. In a frame below the top it is the instruction after the
    /// pending send.
    pub pc: u32,
    /// The stack index of register 0 (the receiver).
    pub base: u32,
    /// The stack index where the answer goes when this activation returns (a register of
    /// the caller).
    pub ret: u32,
    /// A number unique to this activation (contexts and closures refer to frames by it).
    pub id: u64,
    /// The id of the home method activation (its own id for a method).
    pub home: u64,
    /// The reified Context, or nil until `thisContext` asks for it.
    pub context: Value,
}

impl Frame {
    /// The stack index one past this frame's registers.
    pub fn top(&self) -> usize {
        self.base as usize + self.code.frame_size as usize
    }
}

/// Where a process stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Running now.
    Running,
    /// In a ready queue.
    Ready,
    /// Waiting on a semaphore.
    Waiting,
    /// Suspended (by `suspend`, or by an unhandled error or an interrupt).
    Suspended,
    /// Finished or terminated.
    Terminated,
}

/// The execution state of a process.
#[derive(Clone, Debug)]
pub struct ProcessState {
    /// The registers of every frame, bottom frame first.
    pub stack: Vec<Value>,
    /// The frames, bottom first.
    pub frames: Vec<Frame>,
    /// Where the process stands.
    pub status: Status,
    /// What the bottom frame answered once the process finished.
    pub result: Value,
    /// The error that suspended the process, if an unhandled error did.
    pub error: Option<crate::error::ErrorReport>,
    /// A recursion error was signalled and the stack has not shrunk back since.
    pub overflow_signalled: bool,
}

impl ProcessState {
    /// A process with no frames yet.
    pub fn new() -> ProcessState {
        ProcessState {
            stack: Vec::with_capacity(256),
            frames: Vec::with_capacity(32),
            status: Status::Suspended,
            result: Value::NIL,
            error: None,
            overflow_signalled: false,
        }
    }

    /// The index one past the live registers of the top frame.
    pub fn live_top(&self) -> usize {
        self.frames.last().map_or(0, Frame::top).min(self.stack.len())
    }

    /// Calls `f` with every value the process holds (for the collector).
    pub fn trace(&self, f: &mut impl FnMut(Value)) {
        self.stack.iter().take(self.live_top()).for_each(|&v| f(v));
        for frame in &self.frames {
            f(frame.method);
            f(frame.closure);
            f(frame.context);
        }
        f(self.result);
    }

    /// The index of the frame with activation id `id`.
    pub fn frame_index(&self, id: u64) -> Option<usize> {
        self.frames.iter().rposition(|f| f.id == id)
    }
}

impl Default for ProcessState {
    fn default() -> Self {
        ProcessState::new()
    }
}
