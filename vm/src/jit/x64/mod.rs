//! The x86-64 code generator: one machine-code template per instruction, over the frame's
//! registers in memory, with out-of-line exits to the interpreter for every slow path.
//!
//! Machine registers: `rbx` points at register 0 of the running frame's window, `r12` at the
//! [`JitCtx`]; `r13`-`r15` hold the constants of immediate floats' encoding (`float.rs`);
//! the rest are scratch within one instruction. Native code never calls and never
//! allocates: a send that activates native code pushes the frame and jumps, and a return
//! pops it and jumps to the caller's entry for its saved pc. The one native stack frame is
//! the trampoline's, which every exit unwinds.

// dynasm converts a register chosen at run time (`Rx(n)`, `Rq(n)`) with `.into()`.
#![allow(clippy::useless_conversion)]

use std::collections::HashMap;
use std::mem::offset_of;
use std::sync::OnceLock;

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, ExecutableBuffer, dynasm, x64::Assembler};

use super::{JitCtx, Native, REASON_CHECK, REASON_EXEC, REASON_RESUME};
use crate::bytecode::{BinOp, CacheEntry, CompiledCode, Instr};
use crate::heap::object::{NOT_LOADED, PERSISTENT};
use crate::heap::{Body, Heap, Object, Slots};
use crate::process::frame_layout as fl;
use crate::value::Value;
use onyx_record::word::{TAG_CHAR, TAG_INT};

macro_rules! asm {
    ($ops:expr; $($t:tt)*) => {
        dynasm!($ops ; .arch x64 ; $($t)*)
    };
}

mod calls;
mod float;
mod float_run;
mod primitives;
mod process;
mod slots;

use calls::SpecialSend;
use float::{FloatOut, FloatPath};
use float_run::FloatRun;

/// An offset as an x86 displacement (every layout offset used here is small).
const fn d(offset: usize) -> i32 {
    offset as i32
}

const C_FRAMES: i32 = d(offset_of!(JitCtx, frames));
const C_FRAMES_LEN: i32 = d(offset_of!(JitCtx, frames_len));
const C_FRAMES_CAP: i32 = d(offset_of!(JitCtx, frames_cap));
const C_DEPTH_LIMIT: i32 = d(offset_of!(JitCtx, depth_limit));
const C_STACK: i32 = d(offset_of!(JitCtx, stack));
const C_STACK_END: i32 = d(offset_of!(JitCtx, stack_end));
const C_OBJECTS: i32 = d(offset_of!(JitCtx, objects));
const C_OBJECTS_LEN: i32 = d(offset_of!(JitCtx, objects_len));
const C_SMALL_INTEGER: i32 = d(offset_of!(JitCtx, small_integer));
const C_SMALL_FLOAT: i32 = d(offset_of!(JitCtx, small_float));
const C_CHARACTER: i32 = d(offset_of!(JitCtx, character));
const C_UNDEFINED_OBJECT: i32 = d(offset_of!(JitCtx, undefined_object));
const C_TRUE_CLASS: i32 = d(offset_of!(JitCtx, true_class));
const C_FALSE_CLASS: i32 = d(offset_of!(JitCtx, false_class));
const C_ARRAY: i32 = d(offset_of!(JitCtx, array));
const C_STRING: i32 = d(offset_of!(JitCtx, string));
const C_BYTE_ARRAY: i32 = d(offset_of!(JitCtx, byte_array));
const C_EPOCH: i32 = d(offset_of!(JitCtx, epoch));
const C_NEXT_ID: i32 = d(offset_of!(JitCtx, next_frame_id));
const C_COUNTDOWN: i32 = d(offset_of!(JitCtx, countdown));
const C_PRIMITIVE: i32 = d(offset_of!(JitCtx, primitive));
const C_MAKE_OBJECT: i32 = d(offset_of!(JitCtx, make_object));
const C_REFILL: i32 = d(offset_of!(JitCtx, refill));

const O_SIZE: i32 = d(std::mem::size_of::<Object>());
const O_CLASS: i32 = d(offset_of!(Object, class));
const O_FLAGS: i32 = d(offset_of!(Object, flags));
const O_BODY: i32 = d(offset_of!(Object, body));
const O_SLOTS_PTR: i32 = O_BODY + d(Body::PAYLOAD_OFFSET + Slots::PTR_OFFSET);
const O_SLOTS_LEN: i32 = O_BODY + d(Body::PAYLOAD_OFFSET + Slots::LEN_OFFSET);
/// A method's body: the address its `Rc<CompiledCode>` holds (see [`rc_code`]).
const O_METHOD_RC: i32 = O_BODY + d(Body::PAYLOAD_OFFSET);

const E_CLASS: i32 = d(offset_of!(CacheEntry, class));
const E_METHOD: i32 = d(offset_of!(CacheEntry, method));
const E_EPOCH: i32 = d(offset_of!(CacheEntry, epoch));
const E_CODE: i32 = d(offset_of!(CacheEntry, code));

const CC_PRIMITIVE: i32 = d(CompiledCode::PRIMITIVE_OFFSET);
const CC_NUM_ARGS: i32 = d(CompiledCode::NUM_ARGS_OFFSET);
const CC_NUM_TEMPS: i32 = d(CompiledCode::NUM_TEMPS_OFFSET);
const CC_NUM_COPIED: i32 = d(CompiledCode::NUM_COPIED_OFFSET);
const CC_BLOCKS_PTR: i32 = d(CompiledCode::BLOCKS_PTR_OFFSET);
const CC_BLOCKS_LEN: i32 = d(CompiledCode::BLOCKS_LEN_OFFSET);
const CC_FRAME_SIZE: i32 = d(CompiledCode::FRAME_SIZE_OFFSET);
const CC_TABLE: i32 = d(CompiledCode::NATIVE_TABLE_OFFSET);
const CC_METHOD_CLASS: i32 = d(CompiledCode::METHOD_CLASS_OFFSET);
const CC_QUICK: i32 = d(CompiledCode::QUICK_OFFSET);
const SUPERCLASS_SLOT: usize = crate::vm::class_slots::SUPERCLASS;

const F_SIZE: i32 = d(fl::SIZE);

const NIL: i32 = Value::NIL.bits() as i32;
const TRUE: i32 = Value::TRUE.bits() as i32;
const FALSE: i32 = Value::FALSE.bits() as i32;

/// The displacement of register `r` in the window.
fn reg(r: u8) -> i32 {
    i32::from(r) * 8
}

/// An exit word: reason in the high half, pc in the low half.
fn exit_word(reason: u64, pc: usize) -> i64 {
    ((reason << 32) | pc as u64) as i64
}

/// The entry and exit code shared by all native code: saves the callee-saved registers,
/// loads `rbx`/`r12` and jumps to the entry. Every method's `->exit` undoes exactly this.
struct Trampoline {
    _buffer: ExecutableBuffer,
    enter: EnterFn,
}

type EnterFn = unsafe extern "sysv64" fn(*mut JitCtx, *mut Value, usize) -> u64;

/// Bytes from the address an `Rc<CompiledCode>` holds to the code (see
/// [`CompiledCode::rc_offset`]), as a displacement.
fn rc_code() -> i32 {
    static OFFSET: OnceLock<i32> = OnceLock::new();
    *OFFSET.get_or_init(|| d(CompiledCode::rc_offset()))
}

fn trampoline() -> Option<&'static Trampoline> {
    static TRAMPOLINE: OnceLock<Option<Trampoline>> = OnceLock::new();
    TRAMPOLINE
        .get_or_init(|| {
            let mut ops = Assembler::new().ok()?;
            let start = ops.offset();
            asm!(ops
                ; push rbx ; push rbp ; push r12 ; push r13 ; push r14 ; push r15
                ; sub rsp, 8
                ; mov r12, rdi
                ; mov rbx, rsi
                ; mov r13, QWORD float::OFFSET
                ; mov r14, QWORD float::LOW
                ; mov r15, QWORD float::SPAN
                ; jmp rdx
            );
            let buffer = ops.finalize().ok()?;
            // SAFETY: the code at `start` follows the sysv64 convention for this signature.
            let enter = unsafe { std::mem::transmute::<*const u8, EnterFn>(buffer.ptr(start)) };
            Some(Trampoline { _buffer: buffer, enter })
        })
        .as_ref()
}

/// Runs native code from `entry` until it exits; answers the exit word.
///
/// # Safety
/// See [`super::enter`].
pub(super) unsafe fn enter(ctx: &mut JitCtx, regs: *mut Value, entry: usize) -> u64 {
    match trampoline() {
        // SAFETY: as the caller promises; `compile` only succeeds once the trampoline exists.
        Some(t) => unsafe { (t.enter)(ctx, regs, entry) },
        None => exit_word(REASON_RESUME, 0) as u64,
    }
}

/// Compiles `code`, or answers `None` if the machine code cannot be made. The inline
/// caches of cache epoch `epoch` are current: a send specialises on what they hold (methods
/// of `heap`).
pub(super) fn compile(code: &CompiledCode, epoch: u32, heap: &Heap) -> Option<Native> {
    trampoline()?;
    let mut g = Gen {
        ops: Assembler::new().ok()?,
        labels: Vec::new(),
        stubs: HashMap::new(),
        floats: Vec::new(),
        specials: Vec::new(),
        targets: float_run::jump_targets(code),
        handover: None,
        invalid: false,
        code,
        epoch,
        heap,
        callees: Vec::new(),
    };
    g.labels = (0..code.instrs.len()).map(|_| g.ops.new_dynamic_label()).collect();
    let mut starts = Vec::with_capacity(code.instrs.len());
    let targets = g.targets.clone();
    let mut after_run = 0;
    for (pc, instr) in code.instrs.iter().enumerate() {
        let label = g.labels[pc];
        let start = g.ops.offset();
        asm!(g.ops; =>label);
        if pc >= after_run
            && let Some((run, after)) = FloatRun::plan(code, &targets, pc, &mut |cache| g.run_send(cache))
        {
            g.float_run(&run);
            after_run = after;
        }
        starts.push(g.instr(pc, instr).then_some(start));
    }
    g.finish_floats();
    g.finish_specials();
    g.finish_stubs();
    if g.invalid {
        return None;
    }
    let buffer = g.ops.finalize().ok()?;
    let entries = starts.iter().map(|start| start.map_or(0, |s| buffer.ptr(s) as usize)).collect();
    Some(Native { _buffer: buffer, entries, _callees: g.callees })
}

struct Gen<'a> {
    ops: Assembler,
    labels: Vec<DynamicLabel>,
    /// Out-of-line exits by (reason, pc).
    stubs: HashMap<(u64, usize), DynamicLabel>,
    /// Out-of-line float arithmetic and comparisons.
    floats: Vec<FloatPath>,
    /// Out-of-line sends of special selectors.
    specials: Vec<SpecialSend>,
    /// Which instructions some jump lands on.
    targets: Vec<bool>,
    /// The instance variable instruction the one just emitted hands the receiver's slots
    /// over to, with the label past its own look-up.
    handover: Option<(usize, DynamicLabel)>,
    /// Set when the code jumps outside itself: it is not compiled.
    invalid: bool,
    code: &'a CompiledCode,
    /// The current inline cache epoch: entries of it point at live code.
    epoch: u32,
    /// The methods the caches refer to.
    heap: &'a Heap,
    /// The callees sends are specialised on (see `Native`).
    callees: Vec<std::rc::Weak<CompiledCode>>,
}

impl Gen<'_> {
    /// The label of an exit with `reason` at `pc`, emitted after the body.
    fn stub(&mut self, reason: u64, pc: usize) -> DynamicLabel {
        let ops = &mut self.ops;
        *self.stubs.entry((reason, pc)).or_insert_with(|| ops.new_dynamic_label())
    }

    fn exec(&mut self, pc: usize) -> DynamicLabel {
        self.stub(REASON_EXEC, pc)
    }

    fn finish_stubs(&mut self) {
        let mut stubs: Vec<_> = self.stubs.iter().map(|(&k, &l)| (k, l)).collect();
        stubs.sort_by_key(|&(k, _)| k);
        for ((reason, pc), label) in stubs {
            let word = exit_word(reason, pc);
            asm!(self.ops
                ; =>label
                ; mov rax, QWORD word
                ; jmp ->exit
            );
        }
        let resume = exit_word(REASON_RESUME, 0);
        asm!(self.ops
            ; ->resume:
            ; mov rax, QWORD resume
            ; ->exit:
            ; add rsp, 8
            ; pop r15 ; pop r14 ; pop r13 ; pop r12 ; pop rbp ; pop rbx
            ; ret
        );
    }

    /// Emits instruction `pc`; answers whether it has a native entry.
    fn instr(&mut self, pc: usize, instr: Instr) -> bool {
        match instr {
            Instr::Move { dst, src } => {
                asm!(self.ops; mov rax, [rbx + reg(src)] ; mov [rbx + reg(dst)], rax);
            }
            Instr::LoadLit { dst, lit } => {
                let v = self.code.literals.get(lit as usize).copied().unwrap_or(Value::NIL);
                self.store_const(dst, v);
            }
            Instr::LoadInt { dst, value } => self.store_const(dst, Value::small(i64::from(value))),
            Instr::LoadNil { dst } => self.store_const(dst, Value::NIL),
            Instr::LoadTrue { dst } => self.store_const(dst, Value::TRUE),
            Instr::LoadFalse { dst } => self.store_const(dst, Value::FALSE),
            Instr::GetIvar { dst, index } => self.receiver_slot(pc, i32::from(index), Access::Load(dst)),
            Instr::SetIvar { index, src } => {
                self.receiver_slot(pc, i32::from(index), Access::Store(Src::Reg(src)));
            }
            Instr::GetVector { dst, vec, index } => {
                asm!(self.ops; mov rax, [rbx + reg(vec)]);
                self.fixed_slot(pc, i32::from(index), Access::Load(dst));
            }
            Instr::SetVector { vec, index, src } => {
                asm!(self.ops; mov rax, [rbx + reg(vec)]);
                self.fixed_slot(pc, i32::from(index), Access::Store(Src::Reg(src)));
            }
            Instr::GetGlobal { dst, lit } => {
                let assoc = self.code.literals.get(lit as usize).copied().unwrap_or(Value::NIL);
                asm!(self.ops; mov rax, QWORD assoc.bits() as i64);
                self.fixed_slot(pc, 1, Access::Load(dst));
            }
            Instr::Bin { op, dst, x, y } => return self.binary(pc, op, dst, x, Src::Reg(y)),
            Instr::BinImm { op, dst, x, imm } => {
                return self.binary(pc, op, dst, x, Src::Const(Value::small(i64::from(imm))));
            }
            Instr::CmpJump { op, x, y, t, sense, offset } => {
                return self.compare_and_branch(pc, op, x, Src::Reg(y), t, (sense, offset));
            }
            Instr::CmpImmJump { op, x, imm, t, sense, offset } => {
                let y = Src::Const(Value::small(i64::from(imm)));
                return self.compare_and_branch(pc, op, x, y, t, (sense, offset));
            }
            Instr::AtPut { dst, r, i, v } => self.at_put(pc, dst, r, i, Src::Reg(v)),
            Instr::AtPutLit { dst, r, i, lit } => {
                let v = self.code.literals.get(lit as usize).copied().unwrap_or(Value::NIL);
                self.at_put(pc, dst, r, i, Src::Const(v));
            }
            Instr::IdEq { dst, x, y } | Instr::IdNe { dst, x, y } => {
                let equal = matches!(instr, Instr::IdEq { .. });
                asm!(self.ops; mov rax, [rbx + reg(x)] ; cmp rax, [rbx + reg(y)]);
                self.set_boolean(dst, if equal { Cond::E } else { Cond::Ne });
            }
            Instr::IsNil { dst, x, negate } => {
                asm!(self.ops; cmp QWORD [rbx + reg(x)], NIL);
                self.set_boolean(dst, if negate { Cond::Ne } else { Cond::E });
            }
            Instr::Jump { offset } => self.jump(pc, i64::from(offset)),
            Instr::JumpIfTrue { r, offset } | Instr::JumpIfFalse { r, offset } => {
                let (taken, other) =
                    if matches!(instr, Instr::JumpIfTrue { .. }) { (TRUE, FALSE) } else { (FALSE, TRUE) };
                let exec = self.exec(pc);
                let fall = self.ops.new_dynamic_label();
                asm!(self.ops
                    ; mov rax, [rbx + reg(r)]
                    ; cmp rax, other
                    ; je =>fall
                    ; cmp rax, taken
                    ; jne =>exec
                );
                self.jump(pc, i64::from(offset));
                asm!(self.ops; =>fall);
            }
            Instr::JumpIfNil { r, offset } | Instr::JumpIfNotNil { r, offset } => {
                let target = self.target(pc, i64::from(offset));
                asm!(self.ops; cmp QWORD [rbx + reg(r)], NIL);
                if matches!(instr, Instr::JumpIfNil { .. }) {
                    asm!(self.ops; je =>target);
                } else {
                    asm!(self.ops; jne =>target);
                }
            }
            Instr::Send { a, nargs, cache, .. } => self.send(pc, a, nargs, cache, false),
            Instr::SuperSend { a, nargs, cache, .. } => self.send(pc, a, nargs, cache, true),
            Instr::Return { r } | Instr::BlockReturn { r } => self.ret(pc, r),
            Instr::LoadContext { .. }
            | Instr::MakeVector { .. }
            | Instr::MakeClosure { .. }
            | Instr::MakeArray { .. }
            | Instr::Class { .. } => {
                asm!(self.ops
                    ; mov rdi, r12
                    ; mov rsi, rbx
                    ; mov edx, pc as i32
                    ; call QWORD [r12 + C_MAKE_OBJECT]
                );
            }
            Instr::SetGlobal { .. } | Instr::NonLocalReturn { .. } | Instr::Break { .. } => {
                let word = exit_word(REASON_EXEC, pc);
                asm!(self.ops; mov rax, QWORD word ; jmp ->exit);
                return false;
            }
        }
        true
    }

    fn store_const(&mut self, dst: u8, v: Value) {
        asm!(self.ops; mov rax, QWORD v.bits() as i64 ; mov [rbx + reg(dst)], rax);
    }

    /// Loads an operand into `rcx`.
    fn load_rcx(&mut self, src: Src) {
        match src {
            Src::Reg(r) => asm!(self.ops; mov rcx, [rbx + reg(r)]),
            Src::Const(v) => asm!(self.ops; mov rcx, QWORD v.bits() as i64),
        }
    }

    /// `R[dst] := cond ? true : false` from the flags.
    fn set_boolean(&mut self, dst: u8, cond: Cond) {
        asm!(self.ops; mov edx, FALSE ; mov esi, TRUE);
        match cond {
            Cond::E => asm!(self.ops; cmove edx, esi),
            Cond::Ne => asm!(self.ops; cmovne edx, esi),
            Cond::L => asm!(self.ops; cmovl edx, esi),
            Cond::G => asm!(self.ops; cmovg edx, esi),
            Cond::Le => asm!(self.ops; cmovle edx, esi),
            Cond::Ge => asm!(self.ops; cmovge edx, esi),
        }
        asm!(self.ops; mov [rbx + reg(dst)], rdx);
    }

    /// Goes to `otherwise` unless `rax` and `rcx` are both SmallIntegers.
    fn check_ints(&mut self, otherwise: DynamicLabel, y_is_const: bool) {
        asm!(self.ops; lea rdx, [rax - 1]);
        if !y_is_const {
            asm!(self.ops; lea rsi, [rcx - 1] ; or rdx, rsi);
        }
        asm!(self.ops; test dl, 7 ; jnz =>otherwise);
    }

    fn binary(&mut self, pc: usize, op: BinOp, dst: u8, x: u8, y: Src) -> bool {
        // Whatever the fast paths do not do is the message's send.
        let slow = self.special_send(pc, x, [y, y], 1, dst);
        if op == BinOp::At {
            self.at(slow, dst, x, y);
            return true;
        }
        asm!(self.ops; mov rax, [rbx + reg(x)]);
        self.load_rcx(y);
        let done = self.ops.new_dynamic_label();
        let otherwise =
            if op.has_float_path() { self.float_path(pc, op, x, y, FloatOut::Store { dst, done }, slow) } else { slow };
        self.check_ints(otherwise, matches!(y, Src::Const(_)));
        match op {
            BinOp::Add => asm!(self.ops; sub rax, 1 ; add rax, rcx ; jo =>slow ; mov [rbx + reg(dst)], rax),
            BinOp::Sub => asm!(self.ops; sub rax, rcx ; jo =>slow ; add rax, 1 ; mov [rbx + reg(dst)], rax),
            BinOp::Mul => asm!(self.ops
                ; sub rax, 1 ; sar rcx, 3 ; imul rax, rcx ; jo =>slow ; add rax, 1
                ; mov [rbx + reg(dst)], rax
            ),
            BinOp::BitAnd => asm!(self.ops; and rax, rcx ; mov [rbx + reg(dst)], rax),
            BinOp::BitOr => asm!(self.ops; or rax, rcx ; mov [rbx + reg(dst)], rax),
            BinOp::BitXor => asm!(self.ops; xor rax, rcx ; or rax, 1 ; mov [rbx + reg(dst)], rax),
            BinOp::Div | BinOp::Mod => self.floor_divide(slow, op == BinOp::Div, dst),
            // Two SmallIntegers: the method answers (an Integer or a Fraction).
            BinOp::Slash => asm!(self.ops; jmp =>slow),
            BinOp::BitShift => self.bit_shift(slow, dst),
            _ => {
                let cond = Cond::of(op).unwrap_or(Cond::E);
                asm!(self.ops; cmp rax, rcx);
                self.set_boolean(dst, cond);
            }
        }
        asm!(self.ops; =>done);
        true
    }

    /// `//` or `\\` of the SmallIntegers in `rax` and `rcx`: rounding toward negative
    /// infinity, as Smalltalk does; exits for a zero divisor or a result beyond SmallInteger.
    fn floor_divide(&mut self, slow: DynamicLabel, quotient: bool, dst: u8) {
        asm!(self.ops
            ; sar rax, 3
            ; sar rcx, 3
            ; test rcx, rcx
            ; jz =>slow
            ; cqo
            ; idiv rcx
            // Truncated to floored: when the remainder's sign differs from the divisor's.
            ; test rdx, rdx
            ; jz >floored
            ; mov rsi, rdx
            ; xor rsi, rcx
            ; jns >floored
            ; sub rax, 1
            ; add rdx, rcx
            ; floored:
        );
        if !quotient {
            asm!(self.ops; mov rax, rdx);
        }
        self.tag_checked(slow, dst);
    }

    /// `rax bitShift: rcx` for shifts that stay SmallIntegers (right shifts always do).
    fn bit_shift(&mut self, slow: DynamicLabel, dst: u8) {
        asm!(self.ops
            ; sar rax, 3
            ; sar rcx, 3
            ; js >right
            ; cmp rcx, 63
            ; ja =>slow
            ; mov rsi, rax
            ; shl rsi, cl
            ; mov rdi, rsi
            ; sar rdi, cl
            ; cmp rdi, rax
            ; jne =>slow
            ; mov rax, rsi
            ; jmp >shifted
            ; right:
            ; neg rcx
            ; cmp rcx, 63
            ; jbe >count
            ; mov ecx, 63
            ; count:
            ; sar rax, cl
            ; shifted:
        );
        self.tag_checked(slow, dst);
    }

    /// `R[dst] :=` the integer in `rax` as a SmallInteger; goes to `slow` if it does not fit.
    fn tag_checked(&mut self, slow: DynamicLabel, dst: u8) {
        asm!(self.ops
            ; mov rsi, rax
            ; shl rsi, 3
            ; mov rdi, rsi
            ; sar rdi, 3
            ; cmp rdi, rax
            ; jne =>slow
            ; or rsi, 1
            ; mov [rbx + reg(dst)], rsi
        );
    }

    /// `x op y`, jumping by `offset` when it is `sense`; a send answers into `t`, which the
    /// next instruction tests.
    fn compare_and_branch(&mut self, pc: usize, op: BinOp, x: u8, y: Src, t: u8, branch: (bool, i16)) -> bool {
        let (sense, offset) = branch;
        let Some(cond) = Cond::of(op) else {
            let word = exit_word(REASON_EXEC, pc);
            asm!(self.ops; mov rax, QWORD word ; jmp ->exit);
            return false;
        };
        let cond = if sense { cond } else { cond.negate() };
        asm!(self.ops; mov rax, [rbx + reg(x)]);
        self.load_rcx(y);
        let taken = self.ops.new_dynamic_label();
        let skip = self.target(pc, 1);
        let slow = self.special_send(pc, x, [y, y], 1, t);
        let floats = self.float_path(pc, op, x, y, FloatOut::Branch { taken, skip, sense }, slow);
        self.check_ints(floats, matches!(y, Src::Const(_)));
        asm!(self.ops; cmp rax, rcx);
        match cond {
            Cond::E => asm!(self.ops; je =>taken),
            Cond::Ne => asm!(self.ops; jne =>taken),
            Cond::L => asm!(self.ops; jl =>taken),
            Cond::G => asm!(self.ops; jg =>taken),
            Cond::Le => asm!(self.ops; jle =>taken),
            Cond::Ge => asm!(self.ops; jge =>taken),
        }
        asm!(self.ops; jmp =>skip ; =>taken);
        self.jump(pc, i64::from(offset));
        true
    }

    /// The label of the instruction `offset` after the one following `pc`.
    fn target(&mut self, pc: usize, offset: i64) -> DynamicLabel {
        let t = usize::try_from(pc as i64 + 1 + offset).ok();
        match t.and_then(|t| self.labels.get(t)) {
            Some(&label) => label,
            None => {
                // Verified code never jumps outside itself; if it did, no native code.
                self.invalid = true;
                self.labels[pc]
            }
        }
    }

    /// An unconditional jump; backward jumps count toward the interrupt check.
    fn jump(&mut self, pc: usize, offset: i64) {
        let target = self.target(pc, offset);
        if offset < 0 {
            let t = (pc as i64 + 1 + offset) as usize;
            let check = self.stub(REASON_CHECK, t);
            asm!(self.ops; sub QWORD [r12 + C_COUNTDOWN], 1 ; jle =>check);
        }
        if offset != 0 {
            asm!(self.ops; jmp =>target);
        }
    }
}

/// An operand: a register or a constant.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    Reg(u8),
    Const(Value),
}

/// A slot access: load into a register, or store an operand.
enum Access {
    Load(u8),
    Store(Src),
}

/// A signed comparison.
#[derive(Clone, Copy)]
enum Cond {
    E,
    Ne,
    L,
    G,
    Le,
    Ge,
}

impl Cond {
    fn of(op: BinOp) -> Option<Cond> {
        Some(match op {
            BinOp::Lt => Cond::L,
            BinOp::Gt => Cond::G,
            BinOp::Le => Cond::Le,
            BinOp::Ge => Cond::Ge,
            BinOp::Eq => Cond::E,
            BinOp::Ne => Cond::Ne,
            _ => return None,
        })
    }

    fn negate(self) -> Cond {
        match self {
            Cond::E => Cond::Ne,
            Cond::Ne => Cond::E,
            Cond::L => Cond::Ge,
            Cond::G => Cond::Le,
            Cond::Le => Cond::G,
            Cond::Ge => Cond::L,
        }
    }
}
