//! Native code: a baseline compiler from verified register code to machine code, and the
//! protocol by which native code and the interpreter hand the running frame to each other.
//!
//! Native code runs the top frame of the active process exactly as the interpreter would.
//! It keeps every Smalltalk register in the frame's window on the value stack and pushes and
//! pops the same [`Frame`]s, so frames stay readable from Rust and any frame can continue in
//! the interpreter at any instruction. It runs the fast paths: moves and constants,
//! SmallInteger arithmetic, comparisons and branches, Array `at:`/`at:put:`, instance
//! variables, temp vectors and globals, sends and super sends that hit their inline cache and
//! activate a method with native code, and returns into native code. Two hooks into the VM
//! keep it in native code where Rust must do the work: primitives (after which it continues
//! in whatever frame or process the primitive left on top, natively if it can) and making
//! closures and other objects. Everything else it leaves to the interpreter by *exiting*: it
//! answers an [`Exit`], and the interpreter runs that one instruction (or its interrupt
//! check) and enters native code again at the next.
//!
//! Code is compiled per [`CompiledCode`] once it has been entered [`JitConfig`] times, and
//! lives as long as the code (a frame keeps its method, and so its native code, alive).
//! The code generator exists for x86-64 (`x64`); elsewhere nothing is compiled and the
//! interpreter runs everything.

// Without a code generator, the parts only it uses are unused.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

#[cfg(target_arch = "x86_64")]
mod x64;

use std::cell::{Cell, OnceCell};

use crate::bytecode::{CacheEntry, CompiledCode};
use crate::heap::{Heap, Object, ProcessList};
use crate::process::Frame;
use crate::value::Value;

/// When code is compiled to native code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JitConfig {
    /// Never: the interpreter runs everything.
    Off,
    /// After the interpreter has entered code (activated it, returned into it, or resumed it
    /// after an interrupt check) this many times; 0 compiles at first entry.
    After(u32),
}

impl Default for JitConfig {
    fn default() -> Self {
        JitConfig::After(50)
    }
}

/// The native code of one [`CompiledCode`], with its entry table.
pub(crate) struct Native {
    /// Keeps the machine code mapped.
    #[cfg(target_arch = "x86_64")]
    _buffer: dynasmrt::ExecutableBuffer,
    /// The address of each instruction's native code, or 0 where native code would exit
    /// at once (the interpreter runs those instructions).
    entries: Box<[usize]>,
    /// The callees sends were specialised on: held weakly, so that no other code can take
    /// the place of one that is gone while the machine code compares addresses with it.
    _callees: Vec<std::rc::Weak<CompiledCode>>,
}

impl Native {
    /// Where the machine code is: its start and length.
    fn range(&self) -> Option<(usize, usize)> {
        #[cfg(target_arch = "x86_64")]
        return Some((self._buffer.ptr(dynasmrt::AssemblyOffset(0)) as usize, self._buffer.len()));
        #[cfg(not(target_arch = "x86_64"))]
        None
    }
}

/// Per-code JIT state: the entry table native code reads, the native code, and a counter.
#[derive(Default)]
pub struct NativeSlot {
    /// `native`'s entry table, or null until compiled. Native code reads it to find where to
    /// continue a caller or start a callee.
    table: Cell<*const usize>,
    native: OnceCell<Option<Native>>,
    heat: Cell<u32>,
}

impl std::fmt::Debug for NativeSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSlot").field("compiled", &!self.table.get().is_null()).finish()
    }
}

impl NativeSlot {
    /// Byte offset of the entry table pointer, for native code.
    pub(crate) const TABLE_OFFSET: usize = std::mem::offset_of!(NativeSlot, table);

    /// The native entry for instruction `pc`, if the code is compiled and `pc` has one.
    #[inline(always)]
    pub(crate) fn entry(&self, pc: usize) -> Option<usize> {
        let table = self.table.get();
        if table.is_null() {
            return None;
        }
        let native = self.native.get()?.as_ref()?;
        native.entries.get(pc).copied().filter(|&e| e != 0)
    }

    /// Whether the code has native code.
    #[inline(always)]
    pub(crate) fn is_compiled(&self) -> bool {
        !self.table.get().is_null()
    }

    /// Sets the native code aside (a breakpoint is patched into the instructions it was
    /// made from): nothing enters it, and native code calling or returning into this code
    /// leaves it to the interpreter. The machine code stays mapped.
    pub(crate) fn set_aside(&self) {
        self.table.set(std::ptr::null());
    }

    /// Takes back native code set aside, if there is any.
    pub(crate) fn take_back(&self) {
        if let Some(Some(native)) = self.native.get() {
            self.table.set(native.entries.as_ptr());
        }
    }
}

/// Counts an entry into `code` and compiles it once it is hot (adding one to `compiled` when
/// it does), specialising sends on what their inline caches of cache epoch `epoch` hold (the
/// methods in `heap`). Answers whether the code runs natively.
#[inline(always)]
pub(crate) fn warm(code: &CompiledCode, config: JitConfig, epoch: u32, heap: &Heap, compiled: &mut usize) -> bool {
    let JitConfig::After(threshold) = config else { return false };
    if code.native.is_compiled() {
        return true;
    }
    warm_slow(code, threshold, epoch, heap, compiled)
}

#[cold]
fn warm_slow(code: &CompiledCode, threshold: u32, epoch: u32, heap: &Heap, compiled: &mut usize) -> bool {
    let slot = &code.native;
    if slot.native.get().is_some() || code.instrs.is_patched() {
        // Compiled before and found unsuitable, or set aside while a breakpoint is in it.
        return false;
    }
    let heat = slot.heat.get().saturating_add(1);
    slot.heat.set(heat);
    if heat <= threshold {
        return false;
    }
    let native = compile(code, epoch, heap);
    if let Some(n) = &native {
        slot.table.set(n.entries.as_ptr());
        perf_map::note(code, n);
    }
    let ok = native.is_some();
    *compiled += usize::from(ok);
    let _ = slot.native.set(native);
    ok
}

/// With `ONYX_PERF_MAP` set, each method compiled is named in `/tmp/perf-PID.map`, where
/// Linux's `perf report` finds the names of code it did not load from a file.
mod perf_map {
    use std::io::Write as _;
    use std::sync::{Mutex, OnceLock};

    use super::{CompiledCode, Native};

    pub(super) fn note(code: &CompiledCode, native: &Native) {
        static MAP: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
        let map = MAP.get_or_init(|| {
            std::env::var_os("ONYX_PERF_MAP")?;
            let path = std::env::temp_dir().join(format!("perf-{}.map", std::process::id()));
            std::fs::File::create(path).ok().map(Mutex::new)
        });
        let (Some(file), Some((start, len))) = (map, native.range()) else { return };
        let pattern = code.source.lines().next().unwrap_or("").trim();
        let name = if code.is_block { format!("[] in {pattern}") } else { pattern.to_string() };
        if let Ok(mut f) = file.lock() {
            let _ = writeln!(f, "{start:x} {len:x} {name}");
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn compile(code: &CompiledCode, epoch: u32, heap: &Heap) -> Option<Native> {
    x64::compile(code, epoch, heap)
}

#[cfg(not(target_arch = "x86_64"))]
fn compile(_code: &CompiledCode, _epoch: u32, _heap: &Heap) -> Option<Native> {
    None
}

/// What native code shares with the interpreter while it runs: the running process's frame
/// and value stacks as raw parts, and the VM state the fast paths read. The interpreter
/// fills it before entering native code and takes the frame count, the next frame id and
/// the interrupt countdown back after it exits.
#[repr(C)]
pub(crate) struct JitCtx {
    /// Start of the process's frame vector.
    pub frames: *mut Frame,
    /// Frames in use (native code pushes and pops within the capacity).
    pub frames_len: usize,
    /// The frame vector's capacity.
    pub frames_cap: usize,
    /// Frames at which a send leaves the recursion check to the interpreter.
    pub depth_limit: usize,
    /// Start of the value stack.
    pub stack: *mut Value,
    /// One past the value stack's last initialised slot.
    pub stack_end: *mut Value,
    /// Start of the object table.
    pub objects: *const Object,
    /// Entries in the object table.
    pub objects_len: usize,
    /// The class of SmallIntegers.
    pub small_integer: Value,
    /// The class of immediate floats.
    pub small_float: Value,
    /// The class of Characters.
    pub character: Value,
    /// The classes of nil, true and false.
    pub undefined_object: Value,
    pub true_class: Value,
    pub false_class: Value,
    /// The class Array.
    pub array: Value,
    /// The classes String, Symbol and ByteArray.
    pub string: Value,
    pub symbol: Value,
    pub byte_array: Value,
    /// The class BlockClosure.
    pub block_closure: Value,
    /// The ready queues, one per priority, and the mask of the non-empty ones (see
    /// `scheduler::ReadyQueues`): native code makes a process a signal wakes ready.
    pub ready: *mut ProcessList,
    pub ready_mask: *mut u128,
    /// The scheduler: native code reads the running process's body and priority there and
    /// switches processes on `wait` (see `x64/process.rs`).
    pub scheduler: *mut crate::scheduler::Scheduler,
    /// The inline cache epoch.
    pub epoch: u64,
    /// The id for the next activation.
    pub next_frame_id: u64,
    /// Sends and backward jumps left before an interrupt check.
    pub countdown: i64,
    /// The VM, for [`JitCtx::primitive`].
    pub vm: *mut crate::vm::Vm,
    /// What native code calls for a send whose method has a primitive: runs it (or the
    /// method, if it fails) and answers where to go on (see [`Next`]).
    pub primitive: PrimitiveFn,
    /// What native code calls to run an instruction that makes an object (a closure, a temp
    /// vector, a brace array, `thisContext`, a class): with the context, the frame's
    /// registers and the instruction's pc.
    pub make_object: MakeObjectFn,
    /// What native code calls when a send misses its inline cache: with the context, the
    /// cache, the receiver's class, the running code and the send's pc. Looks the method up
    /// and fills the cache; answers 1 when the entry is good for this epoch, 0 when the
    /// interpreter must send (nothing found, or the lookup changed the epoch).
    pub refill: RefillFn,
}

/// Where native code goes on after the primitive hook, answered in two registers.
#[repr(C)]
pub(crate) struct Next {
    /// [`Next::GO_ON`]: after the send, in the sending frame; [`Next::EXIT`]: exit to the
    /// interpreter; otherwise a native entry of the (new) top frame's code.
    pub entry: usize,
    /// The register window of the frame native code goes on in.
    pub regs: *mut Value,
}

impl Next {
    pub const GO_ON: usize = 0;
    pub const EXIT: usize = 1;
}

/// See [`JitCtx::refill`].
pub(crate) type RefillFn =
    unsafe extern "sysv64" fn(*mut JitCtx, *const Cell<CacheEntry>, Value, *const CompiledCode, u64) -> u64;

/// See [`JitCtx::make_object`].
pub(crate) type MakeObjectFn = unsafe extern "sysv64" fn(*mut JitCtx, *mut Value, u64);

/// See [`JitCtx::primitive`]: called with the context, the send's cache entry (filled in
/// this epoch, for a method with a primitive), the sending frame's registers, the receiver's
/// register, the argument count and the register the answer goes to.
pub(crate) type PrimitiveFn =
    unsafe extern "sysv64" fn(*mut JitCtx, *const CacheEntry, *mut Value, u64, u64, u64) -> Next;

/// Why native code gave the frame back to the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Run the instruction at this pc of the top frame, then continue natively.
    Exec(u32),
    /// The interrupt countdown ran out; the top frame continues at this pc after the check.
    Check(u32),
    /// The top frame (a caller returned to, or a callee just activated) has no native code
    /// at its pc; the interpreter continues it at its saved pc.
    Resume,
}

const REASON_EXEC: u64 = 0;
const REASON_CHECK: u64 = 1;
const REASON_RESUME: u64 = 2;

impl Exit {
    fn decode(word: u64) -> Exit {
        let pc = word as u32;
        match word >> 32 {
            REASON_EXEC => Exit::Exec(pc),
            REASON_CHECK => Exit::Check(pc),
            _ => Exit::Resume,
        }
    }
}

/// Enters native code at `entry` with the top frame's registers at `regs`.
///
/// # Safety
/// `entry` comes from the entry table of the top frame's code, `regs` points to that frame's
/// register 0, and `ctx` describes the active process's stacks and the heap as they are now;
/// nothing else touches them until this returns.
#[cfg(target_arch = "x86_64")]
pub(crate) unsafe fn enter(ctx: &mut JitCtx, regs: *mut Value, entry: usize) -> Exit {
    // SAFETY: as the caller promises.
    Exit::decode(unsafe { x64::enter(ctx, regs, entry) })
}

/// Never called: no code is compiled on this architecture.
///
/// # Safety
/// None needed.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) unsafe fn enter(_ctx: &mut JitCtx, _regs: *mut Value, _entry: usize) -> Exit {
    Exit::Resume
}
