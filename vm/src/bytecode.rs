//! The instruction set and the compiled form of methods and blocks.
//!
//! Onyx compiles to register code in the manner of Lua 5: each activation owns a window of
//! registers on its process's value stack. Register 0 holds the receiver, then come the
//! arguments, the copied values (blocks only), the temporaries and finally scratch registers
//! for expression evaluation. A send puts the receiver and its arguments in consecutive
//! registers `a, a+1, ...`; the callee's register window starts at `a`, so arguments are never
//! copied, and the result comes back in register `a`.
//!
//! **Invariant:** at a send, every register of the sender that is still live is below `a`
//! (the compiler sends from its highest allocated register). The collector, which traces the
//! value stack up to the top frame's window only, and `terminateTo:`, which lets the running
//! frame overlap its target's scratch registers, rely on it.
//!
//! Instructions are 8 bytes (see the size test). Operations on the common special selectors
//! (`+`, `<`, `at:` ...) have their own instructions with a SmallInteger fast path; when the fast
//! path does not apply they turn into an ordinary send with the receiver and argument copied to
//! `dst` and `dst + 1` (the compiler reserves both).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::compiler::ast::Span;
use crate::native_vec::NativeVec;
use crate::value::Value;

/// A register number inside an activation's window.
pub type Reg = u8;

/// Binary operations with an inline fast path; the fallback sends the selector named by
/// [`BinOp::selector`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `=`
    Eq,
    /// `~=`
    Ne,
    /// `//`
    Div,
    /// `\\`
    Mod,
    /// `bitAnd:`
    BitAnd,
    /// `bitOr:`
    BitOr,
    /// `bitXor:`
    BitXor,
    /// `bitShift:`
    BitShift,
    /// `at:`
    At,
    /// `/` (a Float, or for SmallIntegers an exact quotient: the fast paths leave a Fraction to
    /// the method)
    Slash,
}

impl BinOp {
    /// Every operation, in discriminant order.
    pub const ALL: [BinOp; 17] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Lt,
        BinOp::Gt,
        BinOp::Le,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Div,
        BinOp::Mod,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::BitShift,
        BinOp::At,
        BinOp::Slash,
    ];

    /// The selector sent when the fast path does not apply.
    pub fn selector(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "=",
            BinOp::Ne => "~=",
            BinOp::Div => "//",
            BinOp::Mod => "\\\\",
            BinOp::BitAnd => "bitAnd:",
            BinOp::BitOr => "bitOr:",
            BinOp::BitXor => "bitXor:",
            BinOp::BitShift => "bitShift:",
            BinOp::At => "at:",
            BinOp::Slash => "/",
        }
    }

    /// Whether the operation has a fast path for Floats (with Floats or SmallIntegers as the
    /// other operand), in the interpreter and in native code alike.
    pub fn has_float_path(self) -> bool {
        matches!(
            self,
            BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::Slash
                | BinOp::Lt
                | BinOp::Gt
                | BinOp::Le
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
        )
    }

    /// The operation compiled for a binary or one-argument keyword selector, if any.
    pub fn for_selector(selector: &str) -> Option<BinOp> {
        BinOp::ALL.into_iter().find(|op| op.selector() == selector)
    }
}

/// One instruction. Jump offsets are relative to the instruction after the jump. Field
/// names follow the variant descriptions (`dst` is written, `x`/`y`/`src` are read).
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Instr {
    /// `R[dst] := R[src]`
    Move { dst: Reg, src: Reg },
    /// `R[dst] := literal[lit]`
    LoadLit { dst: Reg, lit: u16 },
    /// `R[dst] := SmallInteger value`
    LoadInt { dst: Reg, value: i32 },
    /// `R[dst] := nil`
    LoadNil { dst: Reg },
    /// `R[dst] := true`
    LoadTrue { dst: Reg },
    /// `R[dst] := false`
    LoadFalse { dst: Reg },
    /// `R[dst] := thisContext`
    LoadContext { dst: Reg },
    /// `R[dst] := self instVarAt: index + 1`
    GetIvar { dst: Reg, index: u16 },
    /// `self instVarAt: index + 1 put: R[src]`
    SetIvar { index: u16, src: Reg },
    /// `R[dst] := (literal[lit]) value` where the literal is a binding (an Association).
    GetGlobal { dst: Reg, lit: u16 },
    /// `(literal[lit]) value: R[src]`
    SetGlobal { lit: u16, src: Reg },
    /// `R[dst] := Array new: size` (a temp vector holding captured, assigned variables).
    MakeVector { dst: Reg, size: u8 },
    /// `R[dst] := R[vec] at: index + 1`
    GetVector { dst: Reg, vec: Reg, index: u8 },
    /// `R[vec] at: index + 1 put: R[src]`
    SetVector { vec: Reg, index: u8, src: Reg },
    /// `R[dst] := a BlockClosure` for `blocks[block]`, copying `R[first] .. R[first+count-1]`.
    MakeClosure { dst: Reg, block: u16, first: Reg, count: u8 },
    /// `R[dst] := Array with: R[first] ... with: R[first+count-1]` (brace arrays).
    MakeArray { dst: Reg, first: Reg, count: u8 },
    /// Send `literal[lit]` to `R[a]` with arguments `R[a+1] .. R[a+nargs]`; result in `R[a]`.
    Send { a: Reg, nargs: u8, lit: u16, cache: u16 },
    /// As [`Instr::Send`] but the lookup starts in the superclass of the method's class.
    SuperSend { a: Reg, nargs: u8, lit: u16, cache: u16 },
    /// `R[dst] := R[x] op R[y]` with a SmallInteger/Float fast path.
    Bin { op: BinOp, dst: Reg, x: Reg, y: Reg },
    /// `R[dst] := R[x] op imm` for a SmallInteger literal argument (`- n` is `+ -n`).
    BinImm { op: BinOp, dst: Reg, x: Reg, imm: i16 },
    /// Compare and branch: if `R[x] op R[y]` equals `sense`, jump by `offset`; otherwise skip
    /// the next instruction. When there is no fast path the comparison is sent, its answer
    /// lands in `R[t]`, and the next instruction (a `JumpIfFalse`, or a `JumpIfTrue` when
    /// `sense` is true, to the same target) decides.
    CmpJump { op: BinOp, x: Reg, y: Reg, t: Reg, sense: bool, offset: i16 },
    /// As [`Instr::CmpJump`] with a small SmallInteger literal as the argument.
    CmpImmJump { op: BinOp, x: Reg, imm: i8, t: Reg, sense: bool, offset: i16 },
    /// `R[dst] := R[r] at: R[i] put: R[v]` with a fast path for Arrays; else a send of
    /// `at:put:`.
    AtPut { dst: Reg, r: Reg, i: Reg, v: Reg },
    /// As [`Instr::AtPut`] with a literal as the value (`flags at: k put: false`).
    AtPutLit { dst: Reg, r: Reg, i: Reg, lit: u16 },
    /// `R[dst] := R[x] == R[y]`
    IdEq { dst: Reg, x: Reg, y: Reg },
    /// `R[dst] := R[x] ~~ R[y]`
    IdNe { dst: Reg, x: Reg, y: Reg },
    /// `R[dst] := R[x] isNil` (`notNil` when `negate`).
    IsNil { dst: Reg, x: Reg, negate: bool },
    /// `R[dst] := R[x] class`
    Class { dst: Reg, x: Reg },
    /// Unconditional jump.
    Jump { offset: i32 },
    /// Jump if `R[r]` is true; `false` falls through; anything else is sent `mustBeBoolean`.
    JumpIfTrue { r: Reg, offset: i32 },
    /// Jump if `R[r]` is false; `true` falls through; anything else is sent `mustBeBoolean`.
    JumpIfFalse { r: Reg, offset: i32 },
    /// Jump if `R[r]` is nil.
    JumpIfNil { r: Reg, offset: i32 },
    /// Jump if `R[r]` is not nil.
    JumpIfNotNil { r: Reg, offset: i32 },
    /// Return `R[r]` from the method (in a method activation).
    Return { r: Reg },
    /// Return `R[r]` from the block to its caller.
    BlockReturn { r: Reg },
    /// `^ R[r]` inside a block: return from the block's home method.
    NonLocalReturn { r: Reg },
    /// A breakpoint, patched over the instruction at a step point (which the VM keeps aside
    /// in breakpoint patch `slot`: see `crate::debug::breakpoints`). The compiler never emits
    /// it and the verifier refuses it.
    Break { slot: u32 },
}

impl Instr {
    /// How far this instruction jumps (from the instruction after it), if it jumps.
    pub fn jump_offset(&self) -> Option<i64> {
        match *self {
            Instr::Jump { offset }
            | Instr::JumpIfTrue { offset, .. }
            | Instr::JumpIfFalse { offset, .. }
            | Instr::JumpIfNil { offset, .. }
            | Instr::JumpIfNotNil { offset, .. } => Some(i64::from(offset)),
            Instr::CmpJump { offset, .. } | Instr::CmpImmJump { offset, .. } => Some(i64::from(offset)),
            _ => None,
        }
    }

    /// The message this instruction sends when its fast path does not apply (the messages
    /// the compiler compiles to instructions of their own: arithmetic and comparisons,
    /// `at:put:`, `==`, `~~`, `isNil`, `notNil`, `class`); `None` for the others.
    pub fn sent_selector(&self) -> Option<&'static str> {
        match *self {
            Instr::Bin { op, .. }
            | Instr::BinImm { op, .. }
            | Instr::CmpJump { op, .. }
            | Instr::CmpImmJump { op, .. } => Some(op.selector()),
            Instr::AtPut { .. } | Instr::AtPutLit { .. } => Some("at:put:"),
            Instr::IdEq { .. } => Some("=="),
            Instr::IdNe { .. } => Some("~~"),
            Instr::IsNil { negate, .. } => Some(if negate { "notNil" } else { "isNil" }),
            Instr::Class { .. } => Some("class"),
            _ => None,
        }
    }
}

/// A place where the debugger can stop: the instruction at `pc` and the source it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepPoint {
    /// The instruction index.
    pub pc: u32,
    /// The source range (a statement or a message send).
    pub span: Span,
}

/// Where a named variable lives in an activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarLoc {
    /// In a register.
    Reg(Reg),
    /// In slot `index` of the temp vector held in register `vec`.
    Vector {
        /// The register holding the temp vector.
        vec: Reg,
        /// The slot in it.
        index: u8,
    },
}

/// An inline cache entry of one send site.
#[derive(Clone, Copy, Debug)]
pub struct CacheEntry {
    /// The receiver class the entry is valid for.
    pub class: Value,
    /// The method found (a CompiledMethod), or nil.
    pub method: Value,
    /// The VM's cache epoch when the entry was filled; older entries are stale.
    pub epoch: u32,
    /// The method's code. Only dereferenced while `epoch` is the VM's epoch: the epoch changes
    /// at every collection and every method change, so until then the method (which owns the
    /// code) is alive.
    pub code: *const CompiledCode,
}

impl Default for CacheEntry {
    fn default() -> Self {
        CacheEntry { class: Value::NIL, method: Value::NIL, epoch: u32::MAX, code: std::ptr::null() }
    }
}

/// A code's instructions. They never change but for a breakpoint's [`Instr::Break`] patched
/// over one of them in place (the original kept here and put back when the breakpoint goes),
/// so frames running the code keep their pointer to it and meet the breakpoint. Everything
/// but the dispatch loop reads the instructions as compiled.
pub struct Instrs {
    run: Box<[Cell<Instr>]>,
    /// The instructions under a [`Instr::Break`], by pc.
    patched: RefCell<Vec<(u32, Instr)>>,
    /// What a quick method does (see [`quick`]), 0 for any other code and while a
    /// breakpoint is patched in: native code answers a send of a quick method without a frame.
    quick: Cell<u32>,
    /// The quick form of the instructions as compiled.
    quick_compiled: u32,
}

/// The forms of a quick method, as [`Instrs`] keeps them: the form in the high half, its
/// operand (an instance variable's index, or the bits of nil, true or false) in the low half.
pub mod quick {
    /// `^ self`.
    pub const SELF: u32 = 1 << 16;
    /// `^ ivar`, the instance variable's index in the low half.
    pub const GETTER: u32 = 2 << 16;
    /// `ivar := arg` (answering self), the instance variable's index in the low half.
    pub const SETTER: u32 = 3 << 16;
    /// `^ nil`, `^ true` or `^ false`, the constant's bits in the low half.
    pub const CONSTANT: u32 = 4 << 16;
}

/// The quick form of a method's instructions, or 0.
fn quick_form(instrs: &[Instr], num_args: u8) -> u32 {
    let constant = |v: Value| quick::CONSTANT | v.bits() as u32;
    match *instrs {
        [Instr::Return { r: 0 }] => quick::SELF,
        [Instr::GetIvar { dst, index }, Instr::Return { r }] if r == dst => quick::GETTER | u32::from(index),
        [Instr::SetIvar { index, src: 1 }, Instr::Return { r: 0 }] if num_args == 1 => quick::SETTER | u32::from(index),
        [Instr::LoadNil { dst }, Instr::Return { r }] if r == dst => constant(Value::NIL),
        [Instr::LoadTrue { dst }, Instr::Return { r }] if r == dst => constant(Value::TRUE),
        [Instr::LoadFalse { dst }, Instr::Return { r }] if r == dst => constant(Value::FALSE),
        _ => 0,
    }
}

impl Instrs {
    /// The instructions of code taking `num_args` arguments.
    pub fn new(instrs: Vec<Instr>, num_args: u8) -> Instrs {
        let quick = quick_form(&instrs, num_args);
        Instrs {
            run: instrs.into_iter().map(Cell::new).collect(),
            patched: RefCell::new(Vec::new()),
            quick: Cell::new(quick),
            quick_compiled: quick,
        }
    }

    /// Byte offset of the quick form, which native code reads.
    pub(crate) const QUICK_OFFSET: usize = std::mem::offset_of!(Instrs, quick);

    /// The quick form in effect (0 while a breakpoint is patched in).
    pub fn quick(&self) -> u32 {
        self.quick.get()
    }

    /// The instruction compiled at `pc`.
    pub fn get(&self, pc: usize) -> Option<Instr> {
        match self.run.get(pc)?.get() {
            i @ Instr::Break { .. } => self.original(pc).or(Some(i)),
            i => Some(i),
        }
    }

    fn original(&self, pc: usize) -> Option<Instr> {
        self.patched.borrow().iter().find(|(at, _)| *at as usize == pc).map(|&(_, i)| i)
    }

    /// The instruction that runs at `pc` (a [`Instr::Break`] where one is patched), unchecked.
    ///
    /// # Safety
    /// `pc` is less than [`Instrs::len`].
    #[inline(always)]
    pub(crate) unsafe fn running(&self, pc: usize) -> Instr {
        // SAFETY: as the caller promises.
        unsafe { self.run.get_unchecked(pc) }.get()
    }

    /// How many instructions there are.
    pub fn len(&self) -> usize {
        self.run.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.run.is_empty()
    }

    /// The instructions as compiled, in order.
    pub fn iter(&self) -> impl Iterator<Item = Instr> + '_ {
        (0..self.len()).filter_map(|pc| self.get(pc))
    }

    /// The instructions as compiled.
    pub fn to_vec(&self) -> Vec<Instr> {
        self.iter().collect()
    }

    /// The last instruction.
    pub fn last(&self) -> Option<Instr> {
        self.len().checked_sub(1).and_then(|pc| self.get(pc))
    }

    /// Whether any breakpoint is patched in.
    pub fn is_patched(&self) -> bool {
        !self.patched.borrow().is_empty()
    }

    /// Patches a [`Instr::Break`] over the instruction at `pc` (or changes the one there);
    /// answers false for a pc out of range.
    pub(crate) fn patch(&self, pc: usize, slot: u32) -> bool {
        let Some(cell) = self.run.get(pc) else { return false };
        let was = cell.replace(Instr::Break { slot });
        if !matches!(was, Instr::Break { .. }) {
            self.patched.borrow_mut().push((pc as u32, was));
        }
        self.quick.set(0);
        true
    }

    /// Puts back the instruction a [`Instr::Break`] at `pc` covers.
    pub(crate) fn unpatch(&self, pc: usize) {
        let mut patched = self.patched.borrow_mut();
        if let Some(i) = patched.iter().position(|(at, _)| *at as usize == pc)
            && let Some(cell) = self.run.get(pc)
        {
            cell.set(patched.swap_remove(i).1);
        }
        if patched.is_empty() {
            self.quick.set(self.quick_compiled);
        }
    }
}

impl std::fmt::Debug for Instrs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The executable form of a method or of one block inside it.
#[derive(Debug)]
pub struct CompiledCode {
    /// The instructions.
    pub instrs: Instrs,
    /// Literal constants, selectors and global bindings referenced by the instructions.
    pub literals: Box<[Value]>,
    /// The blocks this code creates with [`Instr::MakeClosure`] (a vector native code reads:
    /// it activates a closure's block itself).
    pub blocks: NativeVec<Rc<CompiledCode>>,
    /// Number of arguments.
    pub num_args: u8,
    /// Number of copied values (blocks): registers after the arguments.
    pub num_copied: u8,
    /// Number of temporaries: registers after arguments and copied values, nil on entry.
    pub num_temps: u8,
    /// Registers the activation needs, scratch included.
    pub frame_size: u16,
    /// The primitive to try before running the instructions (0 = none).
    pub primitive: u16,
    /// The selector (of the home method, for blocks).
    pub selector: Value,
    /// The class the method is installed in (nil until installed).
    pub method_class: Cell<Value>,
    /// The method's protocol (a Symbol such as `#accessing`), or nil.
    pub protocol: Cell<Value>,
    /// The home method's whole source text.
    pub source: Rc<str>,
    /// Step points, sorted by `pc`.
    pub step_points: Box<[StepPoint]>,
    /// Names of the arguments, copied values and temporaries visible in this activation.
    pub var_names: Box<[(String, VarLoc)]>,
    /// The pragmas as an Array of Arrays `#(selector arg...)`, or nil.
    pub pragmas: Value,
    /// One inline cache per send site.
    pub caches: Box<[Cell<CacheEntry>]>,
    /// One inline cache per instruction that stands for a message when its fast path does
    /// not apply (arithmetic, comparisons, `at:`, `at:put:` on other receivers), by pc.
    pub special_caches: Box<[SpecialCache]>,
    /// Whether this is a block.
    pub is_block: bool,
    /// The source range of a block (the whole source for a method).
    pub span: Span,
    /// Native code, once the code is hot.
    pub native: crate::jit::NativeSlot,
    /// The selectors this method and its blocks send that no send instruction names among
    /// the literals: the control structures the compiler inlined (`ifTrue:`, `whileTrue:`,
    /// `to:do:`, ...) and the messages it compiled to instructions of their own
    /// ([`Instr::sent_selector`]). With the literals' symbols they are every message the
    /// method sends, as its senders are found by them (empty for blocks). The compiler is
    /// the one source of this list.
    pub special_selectors: Box<[Value]>,
}

impl CompiledCode {
    /// Byte offsets of the fields native code reads.
    pub(crate) const PRIMITIVE_OFFSET: usize = std::mem::offset_of!(CompiledCode, primitive);
    pub(crate) const NUM_ARGS_OFFSET: usize = std::mem::offset_of!(CompiledCode, num_args);
    pub(crate) const NUM_COPIED_OFFSET: usize = std::mem::offset_of!(CompiledCode, num_copied);
    pub(crate) const NUM_TEMPS_OFFSET: usize = std::mem::offset_of!(CompiledCode, num_temps);
    pub(crate) const BLOCKS_PTR_OFFSET: usize = std::mem::offset_of!(CompiledCode, blocks) + NativeVec::PTR_OFFSET;
    pub(crate) const BLOCKS_LEN_OFFSET: usize = std::mem::offset_of!(CompiledCode, blocks) + NativeVec::LEN_OFFSET;
    pub(crate) const FRAME_SIZE_OFFSET: usize = std::mem::offset_of!(CompiledCode, frame_size);
    pub(crate) const METHOD_CLASS_OFFSET: usize = std::mem::offset_of!(CompiledCode, method_class);
    pub(crate) const QUICK_OFFSET: usize = std::mem::offset_of!(CompiledCode, instrs) + Instrs::QUICK_OFFSET;
    pub(crate) const NATIVE_TABLE_OFFSET: usize =
        std::mem::offset_of!(CompiledCode, native) + crate::jit::NativeSlot::TABLE_OFFSET;

    /// Bytes from the address an `Rc<CompiledCode>` holds to the code it shares: native code
    /// reaches a method's code, and its blocks', through the `Rc`s that hold them.
    pub(crate) fn rc_offset() -> usize {
        const {
            assert!(size_of::<Rc<CompiledCode>>() == size_of::<usize>());
            assert!(size_of::<Rc<std::mem::MaybeUninit<CompiledCode>>>() == size_of::<usize>());
        }
        // The shared allocation of an uninitialised value has the layout of an initialised one.
        let rc = Rc::<CompiledCode>::new_uninit();
        // SAFETY: an `Rc` of a sized type is exactly one pointer (asserted above), which is
        // read here as an address and not used.
        let held: usize = unsafe { std::mem::transmute_copy(&rc) };
        Rc::as_ptr(&rc) as usize - held
    }
}

/// The inline cache of an instruction that sends a special selector when its fast path does
/// not apply.
#[derive(Debug)]
pub struct SpecialCache {
    /// The instruction's pc.
    pub pc: u32,
    /// Its cache entry.
    pub entry: Cell<CacheEntry>,
}

/// A cache for each instruction of `instrs` that may send a special selector.
pub fn special_caches_for(instrs: &[Instr]) -> Box<[SpecialCache]> {
    let sends = |i: &Instr| {
        matches!(
            i,
            Instr::Bin { .. }
                | Instr::BinImm { .. }
                | Instr::CmpJump { .. }
                | Instr::CmpImmJump { .. }
                | Instr::AtPut { .. }
                | Instr::AtPutLit { .. }
        )
    };
    let pcs = instrs.iter().enumerate().filter(|(_, i)| sends(i));
    pcs.map(|(pc, _)| SpecialCache { pc: pc as u32, entry: Cell::new(CacheEntry::default()) }).collect()
}

impl CompiledCode {
    /// The inline cache of the special send at `pc`, if the instruction there has one.
    pub fn special_cache(&self, pc: usize) -> Option<&Cell<CacheEntry>> {
        let i = self.special_caches.binary_search_by_key(&(pc as u32), |c| c.pc).ok()?;
        self.special_caches.get(i).map(|c| &c.entry)
    }

    /// The step point in effect at instruction `pc`: the last one at or before it.
    pub fn step_point_at(&self, pc: usize) -> Option<StepPoint> {
        let idx = self.step_points.partition_point(|sp| sp.pc as usize <= pc);
        idx.checked_sub(1).and_then(|i| self.step_points.get(i)).copied()
    }
}

/// A listing of `code` (and, for a method, of its blocks): one instruction per line with its
/// index, the literal a send names, and the step points.
pub fn disassemble(code: &CompiledCode, name_of: &dyn Fn(Value) -> String) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut one = |title: &str, c: &CompiledCode| {
        let _ = writeln!(
            out,
            "{title} (frame {}, args {}, copied {}, temps {})",
            c.frame_size, c.num_args, c.num_copied, c.num_temps
        );
        for (pc, i) in c.instrs.iter().enumerate() {
            let i = &i;
            let mark = if c.step_points.iter().any(|s| s.pc as usize == pc) { '*' } else { ' ' };
            let note = match i {
                Instr::Send { lit, .. } | Instr::SuperSend { lit, .. } | Instr::LoadLit { lit, .. } => {
                    c.literals.get(*lit as usize).map(|&v| format!("  ; {}", name_of(v))).unwrap_or_default()
                }
                _ => String::new(),
            };
            let _ = writeln!(out, "{mark}{pc:4}  {i:?}{note}");
        }
    };
    one("method", code);
    for (i, b) in code.blocks.iter().enumerate() {
        one(&format!("block {i}"), b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_are_eight_bytes() {
        assert_eq!(std::mem::size_of::<Instr>(), 8);
    }

    /// Native code finds a method's code through its object's body, and a closure's block
    /// through the method's blocks, at the offsets these constants name.
    #[test]
    fn native_code_reaches_a_methods_code_and_blocks() {
        let mut vm = crate::Vm::boot(&crate::KernelSource::embedded().without_tests()).unwrap();
        let class = vm.known.undefined_object;
        let code = crate::compiler::compile(&mut vm, "[:x | x] value: 3", class, crate::compiler::Mode::Doit).unwrap();
        let body = crate::heap::Body::Method(code.clone());
        assert_eq!(body.tag(), crate::heap::Body::METHOD_TAG);
        let base = (&body as *const crate::heap::Body).cast::<u8>();
        // SAFETY: reads the payload (the Rc's pointer) at the documented offset, and the code's
        // blocks vector at its offsets, as native code does.
        unsafe {
            let held = *base.add(crate::heap::Body::PAYLOAD_OFFSET).cast::<usize>();
            let at = (held + CompiledCode::rc_offset()) as *const u8;
            assert_eq!(at, Rc::as_ptr(&code).cast::<u8>());
            assert_eq!(*at.add(CompiledCode::BLOCKS_LEN_OFFSET).cast::<usize>(), 1);
            let blocks = *at.add(CompiledCode::BLOCKS_PTR_OFFSET).cast::<*const usize>();
            let block = (*blocks + CompiledCode::rc_offset()) as *const CompiledCode;
            assert_eq!(block, Rc::as_ptr(&code.blocks[0]));
            assert_eq!(*block.cast::<u8>().add(CompiledCode::NUM_COPIED_OFFSET), code.blocks[0].num_copied);
        }
    }

    #[test]
    fn binop_selectors_round_trip() {
        for op in BinOp::ALL {
            assert_eq!(BinOp::for_selector(op.selector()), Some(op));
        }
        assert_eq!(BinOp::for_selector("foo"), None);
    }
}
