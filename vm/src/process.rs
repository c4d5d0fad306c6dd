//! Processes: explicit frame stacks and the value stack their registers live on.
//!
//! A process never uses the Rust stack for Smalltalk calls: a send pushes a [`Frame`] and
//! returns to the interpreter loop. So a process can be stopped between any two instructions,
//! its frames read (receiver, arguments, temporaries, step point) and resumed later.

use crate::bytecode::CompiledCode;
use crate::native_vec::NativeVec;
use crate::value::Value;

/// One activation of a method or block.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The code being run (a method's or a block's). **Invariant:** owned by `method` (its
    /// code, or one of its blocks), which this frame keeps alive: the collector traces every
    /// frame's method, and a CompiledMethod's code never changes. Frames are made only by
    /// [`push_frame`], whose callers pass a method and code that belong together.
    code: *const CompiledCode,
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

/// Byte offsets and size of [`Frame`], for native code (which pushes and pops frames).
pub(crate) mod frame_layout {
    use super::Frame;
    use std::mem::offset_of;

    pub const SIZE: usize = std::mem::size_of::<Frame>();
    pub const CODE: usize = offset_of!(Frame, code);
    pub const METHOD: usize = offset_of!(Frame, method);
    pub const CLOSURE: usize = offset_of!(Frame, closure);
    pub const PC: usize = offset_of!(Frame, pc);
    pub const BASE: usize = offset_of!(Frame, base);
    pub const RET: usize = offset_of!(Frame, ret);
    pub const ID: usize = offset_of!(Frame, id);
    pub const HOME: usize = offset_of!(Frame, home);
    pub const CONTEXT: usize = offset_of!(Frame, context);

    // Native code pops frames by lowering the vector's length: nothing may need dropping.
    const _: () = assert!(!std::mem::needs_drop::<Frame>());
}

/// Pushes a frame onto `frames`, writing each field in place. `code` must be owned by
/// `method` (see the invariant on [`Frame`]'s code).
///
/// Building a `Frame` on the Rust stack and moving it into the vector costs a
/// store-forwarding stall on every send (the move reads 16 bytes that were written as two
/// 8-byte halves); writing the fields straight into the vector's spare slot avoids it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_frame(
    frames: &mut NativeVec<Frame>,
    code: *const CompiledCode,
    method: Value,
    closure: Value,
    base: u32,
    ret: u32,
    id: u64,
    home: u64,
) {
    frames.reserve(1);
    let len = frames.len();
    // SAFETY: the slot is the vector's first spare one (capacity was reserved above);
    // `write_frame` initialises it whole before `set_len` makes it part of the vector.
    unsafe {
        write_frame(frames.as_mut_ptr().add(len), code, method, closure, base, ret, id, home);
        frames.set_len(len + 1);
    }
}

/// Writes a new frame (at pc 0, without a context) at `p`.
///
/// # Safety
/// `p` is valid for writes and the frame there, if any, needs no drop; `code` and `method`
/// belong together (see [`Frame::code`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn write_frame(
    p: *mut Frame,
    code: *const CompiledCode,
    method: Value,
    closure: Value,
    base: u32,
    ret: u32,
    id: u64,
    home: u64,
) {
    // SAFETY: as the caller promises; every field is written exactly once, so no
    // uninitialised field is ever read or dropped.
    unsafe {
        std::ptr::addr_of_mut!((*p).code).write(code);
        std::ptr::addr_of_mut!((*p).method).write(method);
        std::ptr::addr_of_mut!((*p).closure).write(closure);
        std::ptr::addr_of_mut!((*p).pc).write(0);
        std::ptr::addr_of_mut!((*p).base).write(base);
        std::ptr::addr_of_mut!((*p).ret).write(ret);
        std::ptr::addr_of_mut!((*p).id).write(id);
        std::ptr::addr_of_mut!((*p).home).write(home);
        std::ptr::addr_of_mut!((*p).context).write(Value::NIL);
    }
}

impl Frame {
    /// The code being run.
    #[inline(always)]
    pub fn code(&self) -> &CompiledCode {
        // SAFETY: see the invariant on `code`: the method this frame holds owns the code, and
        // the method lives at least as long as the frame.
        unsafe { &*self.code }
    }

    /// The code being run, as a pointer (the dispatch loop keeps it in a local).
    #[inline(always)]
    pub(crate) fn code_ptr(&self) -> *const CompiledCode {
        self.code
    }

    /// The stack index one past this frame's registers.
    pub fn top(&self) -> usize {
        self.base as usize + self.code().frame_size as usize
    }

    /// Makes the frame run `code` (which `method` must own, as for [`push_frame`]) from its
    /// first instruction: a restart, in a new version of the method for edit and continue.
    pub(crate) fn restart_in(&mut self, method: Value, code: &std::rc::Rc<CompiledCode>) {
        self.code = std::rc::Rc::as_ptr(code);
        self.method = method;
        self.pc = 0;
    }
}

/// Where a process stands (`repr(u8)`: native code sets it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
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
    pub stack: NativeVec<Value>,
    /// The frames, bottom first.
    pub frames: NativeVec<Frame>,
    /// Where the process stands.
    pub status: Status,
    /// What the bottom frame answered once the process finished.
    pub result: Value,
    /// The error that suspended the process, if an unhandled error did.
    pub error: Option<Box<crate::error::ErrorReport>>,
    /// A recursion error was signalled and the stack has not shrunk back since.
    pub overflow_signalled: bool,
    /// Whether the process may change code: its creator's privilege (see
    /// `Vm::may_change_code`), in force while it runs.
    pub may_change_code: bool,
    /// The process's number in its VM (from 1; 0 until it is made a Process), by which
    /// hosts and tools name it.
    pub serial: u64,
    /// The index of the frame a debugger shows at the top: the one that signalled the error
    /// that suspended the process (the frames of the exception machinery above it are
    /// hidden); `None` for the top frame.
    pub shown_top: Option<usize>,
    /// The process stopped where a debugger's step was to stop.
    pub stepped: bool,
    /// A breakpoint's condition or log expression runs above one of its frames (see
    /// `crate::debug::hit`).
    pub(crate) break_check: Option<crate::debug::hit::BreakCheck>,
    /// The breakpoint (frame id and pc) the process stopped at, which it passes when it goes
    /// on.
    pub(crate) break_passing: Option<(u64, u32)>,
    /// A host made it to evaluate something and waits for its outcome (a doit, a send, an
    /// evaluation in a frame); false for a process Smalltalk code forked.
    pub host: bool,
}

impl ProcessState {
    /// A process with no frames yet.
    pub fn new() -> ProcessState {
        ProcessState {
            stack: NativeVec::with_capacity(256),
            frames: NativeVec::with_capacity(32),
            status: Status::Suspended,
            result: Value::NIL,
            error: None,
            overflow_signalled: false,
            may_change_code: true,
            serial: 0,
            shown_top: None,
            stepped: false,
            break_check: None,
            break_passing: None,
            host: false,
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

    /// The index of the frame a debugger shows at the top (see `shown_top`).
    pub fn shown_top(&self) -> Option<usize> {
        let top = self.frames.len().checked_sub(1)?;
        Some(self.shown_top.map_or(top, |s| s.min(top)))
    }
}

impl Default for ProcessState {
    /// An empty state that allocates nothing (the placeholder left behind by a process
    /// switch).
    fn default() -> Self {
        ProcessState {
            stack: NativeVec::new(),
            frames: NativeVec::new(),
            status: Status::Suspended,
            result: Value::NIL,
            error: None,
            overflow_signalled: false,
            may_change_code: true,
            serial: 0,
            shown_top: None,
            stepped: false,
            break_check: None,
            break_passing: None,
            host: false,
        }
    }
}
