//! Runs of float arithmetic kept in SSE registers. Within one basic block, a run of `+ - * /`
//! and comparisons (with the constants and moves between them, and the `sqrt` and getter
//! sends their inline caches say they may answer) gets a second copy of its code, ahead of
//! the instructions' own: for operands that are all immediate floats. That copy checks the
//! run's inputs once, decodes each once, keeps every intermediate result in an SSE register
//! and encodes only what the run leaves in registers, storing it at the end. Whatever it does
//! not handle (an input or a getter's answer that is not an immediate float, a send whose
//! cache now holds another method, a zero divisor, a result that must be boxed) it finds
//! before it stores anything, and goes on in the instructions' own code from the run's
//! start, which does it all again from the unchanged registers (their SmallInteger fast
//! paths first, floats out of line, sends for the rest).

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};
use onyx_record::word::TAG_FLOAT;

use super::float::EXACT;
use super::*;

/// The SSE register kept for scratch (a divisor's zero check); the run's values use the rest.
const SCRATCH: u8 = 15;
/// General registers that hold the run's results between encoding and storing (`rcx`,
/// `r8`-`r11`, `rbp`): encoding uses `rax` and `rdx`, comparing `rdx`, `rsi` and `rdi`.
const HOLDERS: [u8; 6] = [1, 8, 9, 10, 11, 5];
/// The fewest float operations that make a run worth its second copy: a single one is the
/// instruction's own float path.
const MIN_OPS: usize = 2;

/// What a register holds at a point of a run.
#[derive(Clone, Copy, PartialEq)]
enum Val {
    /// A double in an SSE register.
    Xmm(u8),
    /// A constant.
    Word(Value),
    /// Whether comparison `op` of two doubles holds: `true` or `false`.
    Bool(BinOp, u8, u8),
    /// What register `r` held when the run started.
    Alias(u8),
}

/// One step of a run's computation, in SSE registers each written once.
#[derive(Clone, Copy)]
enum Step {
    /// `xmm[dst] := value`
    Constant { dst: u8, value: f64 },
    /// `xmm[dst] := xmm[x] op xmm[y]` for `+ - * /`.
    Arith { op: BinOp, dst: u8, x: u8, y: u8 },
    /// `xmm[dst] := xmm[x] sqrt`, while the send's cache still holds `Float>>sqrt`.
    Sqrt { dst: u8, x: u8, send: CachedSend },
    /// `xmm[dst] :=` slot `slot` of the object register `obj` held when the run started,
    /// while the send's cache still holds that getter for the object's class.
    Get { dst: u8, obj: u8, slot: i32, send: CachedSend },
}

/// A send whose inline cache held a method when the code was compiled: its cache entry's
/// address and the method's code (kept from being freed by the caller's native code, so that
/// its address names it).
#[derive(Clone, Copy)]
pub(super) struct CachedSend {
    pub(super) entry: i64,
    pub(super) code: i64,
}

/// A send without arguments a run computes itself, by what its inline cache held.
#[derive(Clone, Copy)]
pub(super) enum RunSend {
    /// The primitive `Float>>sqrt`.
    Sqrt(CachedSend),
    /// A getter of the receiver's instance variable in slot `.1`.
    Getter(CachedSend, i32),
}

/// How a run ends.
#[derive(Clone, Copy)]
enum End {
    /// On at instruction `pc`.
    Next(usize),
    /// The compare-and-branch at `pc`: jumps by `offset` when `xmm[x] op xmm[y]` is `sense`,
    /// else skips the instruction after it.
    Branch { pc: usize, op: BinOp, x: u8, y: u8, sense: bool, offset: i16 },
}

/// A run of float code, planned from the instructions at its start.
#[derive(Clone)]
pub(super) struct FloatRun {
    /// The registers it reads before writing them, each with the SSE register it decodes to.
    inputs: Vec<(u8, u8)>,
    steps: Vec<Step>,
    /// Every register it writes, with what it leaves there.
    writes: Vec<(u8, Val)>,
    end: End,
    /// SSE registers used.
    xmms: u8,
    /// Float operations (arithmetic and comparisons).
    ops: usize,
}

impl FloatRun {
    /// The run starting at instruction `first` and the pc after it, when there is one worth
    /// compiling: no instruction after the first is a jump target (`targets`). `sends` says
    /// which sends through an inline cache the run may compute itself.
    pub(super) fn plan(
        code: &CompiledCode,
        targets: &[bool],
        first: usize,
        sends: &mut dyn FnMut(u16) -> Option<RunSend>,
    ) -> Option<(FloatRun, usize)> {
        let mut run = FloatRun {
            inputs: Vec::new(),
            steps: Vec::new(),
            writes: Vec::new(),
            end: End::Next(first),
            xmms: 0,
            ops: 0,
        };
        let mut pc = first;
        while let Some(instr) = code.instrs.get(pc) {
            if pc > first && targets.get(pc).copied().unwrap_or(true) {
                break;
            }
            let mut next = run.clone();
            let ends = next.step(code, pc, instr, sends);
            if ends.is_none() || !next.fits() {
                break;
            }
            run = next;
            pc += 1;
            if ends == Some(true) {
                break;
            }
        }
        if let End::Next(_) = run.end {
            // Verified code ends in a return, which no run takes in.
            code.instrs.get(pc)?;
            run.end = End::Next(pc);
        }
        if run.ops < MIN_OPS {
            return None;
        }
        // Scratch registers (above the temporaries) that nothing reads after the run are
        // left as they were: their values stay in SSE registers only.
        let scratch = 1 + usize::from(code.num_args) + usize::from(code.num_copied) + usize::from(code.num_temps);
        let after = match run.end {
            End::Next(pc) => vec![pc],
            End::Branch { pc, offset, .. } => vec![pc + 2, landing(pc, i64::from(offset)).unwrap_or(usize::MAX)],
        };
        run.writes.retain(|&(r, _)| usize::from(r) < scratch || read_later(code, r, &after));
        Some((run, pc))
    }

    /// Adds instruction `pc` to the run: `Some(true)` when it ends the run, `None` when it
    /// cannot be part of it (the run is then left half-changed: the caller drops it).
    fn step(
        &mut self,
        code: &CompiledCode,
        pc: usize,
        instr: Instr,
        sends: &mut dyn FnMut(u16) -> Option<RunSend>,
    ) -> Option<bool> {
        match instr {
            Instr::LoadNil { dst } => self.write(dst, Val::Word(Value::NIL)),
            Instr::LoadTrue { dst } => self.write(dst, Val::Word(Value::TRUE)),
            Instr::LoadFalse { dst } => self.write(dst, Val::Word(Value::FALSE)),
            Instr::LoadInt { dst, value } => self.write(dst, Val::Word(Value::small(i64::from(value)))),
            Instr::LoadLit { dst, lit } => self.write(dst, Val::Word(*code.literals.get(usize::from(lit))?)),
            Instr::Move { dst, src } => self.write(dst, self.val(src).unwrap_or(Val::Alias(src))),
            Instr::Bin { op, dst, x, y } => self.binary(op, dst, x, Some(y), 0)?,
            Instr::BinImm { op, dst, x, imm } => self.binary(op, dst, x, None, i64::from(imm))?,
            // The answer lands in `a`; the registers above it are the callee's, which the
            // sender no longer needs.
            Instr::Send { a, nargs: 0, cache, .. } => {
                let dst = self.xmm();
                match (self.val(a), sends(cache)?) {
                    (Some(Val::Xmm(x)), RunSend::Sqrt(send)) => {
                        self.steps.push(Step::Sqrt { dst, x, send });
                        self.ops += 1;
                    }
                    (_, RunSend::Getter(send, slot)) => {
                        let obj = self.original(a)?;
                        self.steps.push(Step::Get { dst, obj, slot, send });
                    }
                    _ => return None,
                }
                self.write(a, Val::Xmm(dst));
            }
            Instr::CmpJump { op, x, y, sense, offset, .. } => {
                let (x, y) = self.operands(x, Some(y), 0)?;
                return self.branch(pc, op, x, y, sense, offset);
            }
            Instr::CmpImmJump { op, x, imm, sense, offset, .. } => {
                let (x, y) = self.operands(x, None, i64::from(imm))?;
                return self.branch(pc, op, x, y, sense, offset);
            }
            _ => return None,
        }
        Some(false)
    }

    /// Whether the run still has the machine registers it needs.
    fn fits(&self) -> bool {
        let held = self.writes.iter().filter(|(_, v)| matches!(v, Val::Xmm(_) | Val::Bool(..))).count();
        self.xmms < SCRATCH && held <= HOLDERS.len()
    }

    fn branch(&mut self, pc: usize, op: BinOp, x: u8, y: u8, sense: bool, offset: i16) -> Option<bool> {
        Cond::of(op)?;
        self.ops += 1;
        self.end = End::Branch { pc, op, x, y, sense, offset };
        Some(true)
    }

    /// `R[dst] := R[x] op R[y]` (or `op imm` without `y`).
    fn binary(&mut self, op: BinOp, dst: u8, x: u8, y: Option<u8>, imm: i64) -> Option<()> {
        let (xx, yy) = self.operands(x, y, imm)?;
        let val = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Slash => {
                let dst = self.xmm();
                self.steps.push(Step::Arith { op, dst, x: xx, y: yy });
                Val::Xmm(dst)
            }
            _ => {
                Cond::of(op)?;
                Val::Bool(op, xx, yy)
            }
        };
        self.ops += 1;
        self.write(dst, val);
        Some(())
    }

    /// The SSE registers of a float operation's operands: `R[x]` and `R[y]` (or the
    /// SmallInteger `imm`). Two SmallIntegers are not a float operation.
    fn operands(&mut self, x: u8, y: Option<u8>, imm: i64) -> Option<(u8, u8)> {
        let x = self.operand(x)?;
        let y = match y {
            Some(y) => self.operand(y)?,
            None => Operand::Int(imm),
        };
        match (x, y) {
            (Operand::Int(_), Operand::Int(_)) => None,
            (x, y) => Some((self.double(x)?, self.double(y)?)),
        }
    }

    fn operand(&mut self, r: u8) -> Option<Operand> {
        match self.val(r) {
            Some(Val::Xmm(x)) => Some(Operand::Double(x)),
            Some(Val::Word(v)) => match (v.as_float(), v.as_int()) {
                (Some(f), _) => Some(Operand::Float(f)),
                (_, Some(n)) => Some(Operand::Int(n)),
                _ => None,
            },
            Some(Val::Bool(..)) => None,
            Some(Val::Alias(_)) | None => {
                let original = self.original(r)?;
                Some(Operand::Double(self.input_of(original)))
            }
        }
    }

    /// The register whose value at the run's start `r` holds now, if it holds one.
    fn original(&self, r: u8) -> Option<u8> {
        match self.val(r) {
            None => Some(r),
            Some(Val::Alias(src)) => Some(src),
            Some(_) => None,
        }
    }

    /// An operand in an SSE register (a constant loaded into a new one).
    fn double(&mut self, operand: Operand) -> Option<u8> {
        let value = match operand {
            Operand::Double(x) => return Some(x),
            Operand::Float(f) => f,
            Operand::Int(n) if (-EXACT..=EXACT).contains(&n) => n as f64,
            Operand::Int(_) => return None,
        };
        let dst = self.xmm();
        self.steps.push(Step::Constant { dst, value });
        Some(dst)
    }

    /// The SSE register of input `r`, a register the run has not written.
    fn input_of(&mut self, r: u8) -> u8 {
        if let Some(&(_, x)) = self.inputs.iter().find(|(i, _)| *i == r) {
            return x;
        }
        let x = self.xmm();
        self.inputs.push((r, x));
        x
    }

    fn xmm(&mut self) -> u8 {
        self.xmms += 1;
        self.xmms - 1
    }

    fn val(&self, r: u8) -> Option<Val> {
        self.writes.iter().find(|(w, _)| *w == r).map(|&(_, v)| v)
    }

    fn write(&mut self, r: u8, val: Val) {
        match self.writes.iter_mut().find(|(w, _)| *w == r) {
            Some(w) => w.1 = val,
            None => self.writes.push((r, val)),
        }
    }
}

/// A float operation's operand as planned.
#[derive(Clone, Copy)]
enum Operand {
    /// In an SSE register.
    Double(u8),
    /// A Float constant.
    Float(f64),
    /// A SmallInteger constant.
    Int(i64),
}

/// How an instruction uses a register.
#[derive(PartialEq)]
enum Use {
    /// It may read the value the register holds before it.
    Read,
    /// It writes the register without reading it first.
    Write,
    /// It leaves the register alone.
    Not,
}

/// How `instr` uses register `r`; anything not told apart here counts as a read.
fn use_of(instr: Instr, r: u8) -> Use {
    let written = |dst: u8| if dst == r { Use::Write } else { Use::Not };
    match instr {
        Instr::Move { dst, src } if src != r => written(dst),
        Instr::LoadLit { dst, .. }
        | Instr::LoadInt { dst, .. }
        | Instr::LoadNil { dst }
        | Instr::LoadTrue { dst }
        | Instr::LoadFalse { dst }
        | Instr::GetIvar { dst, .. }
        | Instr::GetGlobal { dst, .. } => written(dst),
        // The send a fast path falls back on writes `dst` and `dst + 1` before reading them.
        Instr::Bin { dst, x, y, .. } if x != r && y != r => written(dst),
        Instr::BinImm { dst, x, .. } if x != r => written(dst),
        Instr::CmpJump { x, y, .. } if x != r && y != r => Use::Not,
        Instr::CmpImmJump { x, .. } if x != r => Use::Not,
        Instr::Jump { .. } => Use::Not,
        // The activation ends: its registers with it.
        Instr::Return { r: x } | Instr::BlockReturn { r: x } if x != r => Use::Write,
        Instr::JumpIfTrue { r: c, .. }
        | Instr::JumpIfFalse { r: c, .. }
        | Instr::JumpIfNil { r: c, .. }
        | Instr::JumpIfNotNil { r: c, .. }
            if c != r =>
        {
            Use::Not
        }
        // Nothing the sender still needs is at or above a send's receiver (see `bytecode`).
        Instr::Send { a, nargs, .. } | Instr::SuperSend { a, nargs, .. } => {
            if r < a {
                Use::Not
            } else if u16::from(r) > u16::from(a) + u16::from(nargs) {
                Use::Write
            } else {
                Use::Read
            }
        }
        _ => Use::Read,
    }
}

/// Whether some path from the instructions at `from` reads register `r` before writing it.
fn read_later(code: &CompiledCode, r: u8, from: &[usize]) -> bool {
    let mut seen = vec![false; code.instrs.len()];
    let mut paths = from.to_vec();
    while let Some(mut pc) = paths.pop() {
        while let Some(instr) = code.instrs.get(pc) {
            if std::mem::replace(&mut seen[pc], true) {
                break;
            }
            match use_of(instr, r) {
                Use::Read => return true,
                Use::Write => break,
                Use::Not => {}
            }
            let Some(offset) = instr.jump_offset() else {
                pc += 1;
                continue;
            };
            let Some(target) = landing(pc, offset) else { return true };
            if !matches!(instr, Instr::Jump { .. }) {
                paths.push(pc + 1);
            }
            pc = target;
        }
    }
    false
}

/// Where a jump by `offset` at instruction `pc` lands.
fn landing(pc: usize, offset: i64) -> Option<usize> {
    usize::try_from(pc as i64 + 1 + offset).ok()
}

/// Which instructions some jump lands on.
pub(super) fn jump_targets(code: &CompiledCode) -> Vec<bool> {
    let mut targets = vec![false; code.instrs.len()];
    for (pc, instr) in code.instrs.iter().enumerate() {
        let target = instr.jump_offset().and_then(|offset| landing(pc, offset));
        if let Some(t) = target.and_then(|t| targets.get_mut(t)) {
            *t = true;
        }
    }
    targets
}

impl Gen<'_> {
    /// With a receiver's class in `rcx`: to `miss` unless the send's inline cache entry is
    /// for that class, of the current epoch, and holds the method `send` was compiled on.
    fn still_cached(&mut self, send: CachedSend, miss: DynamicLabel) {
        self.cache_hit(send.entry, miss);
        asm!(self.ops
            ; mov rcx, QWORD send.code
            ; cmp rcx, [rdx + E_CODE]
            ; jne =>miss
        );
    }

    /// Emits the float copy of `run`; on anything it does not handle it goes on after
    /// itself, where the caller emits the instructions' own code.
    pub(super) fn float_run(&mut self, run: &FloatRun) {
        let own = self.ops.new_dynamic_label();
        if let Some((&(first, _), rest)) = run.inputs.split_first() {
            // Tags 101 and (unused) 111 are the only ones whose bits and to 101.
            asm!(self.ops; mov rax, [rbx + reg(first)]);
            for &(r, _) in rest {
                asm!(self.ops; and rax, [rbx + reg(r)]);
            }
            asm!(self.ops; and eax, 7 ; cmp eax, TAG_FLOAT as i32 ; jne =>own);
            for &(r, x) in &run.inputs {
                asm!(self.ops; mov rdx, [rbx + reg(r)]);
                self.decode_rdx(x);
            }
        }
        for &step in &run.steps {
            match step {
                Step::Constant { dst, value } => {
                    asm!(self.ops; mov rax, QWORD value.to_bits() as i64 ; movq Rx(dst), rax);
                }
                Step::Sqrt { dst, x, send } => {
                    asm!(self.ops; mov rcx, [r12 + C_SMALL_FLOAT]);
                    self.still_cached(send, own);
                    asm!(self.ops; sqrtsd Rx(dst), Rx(x));
                }
                Step::Get { dst, obj, slot, send } => {
                    asm!(self.ops; mov rax, [rbx + reg(obj)]);
                    self.body_entry(Body::SLOTS_TAG, NOT_LOADED, own);
                    asm!(self.ops
                        ; mov r11, rdx
                        ; mov rcx, [rdx + O_CLASS]
                    );
                    self.still_cached(send, own);
                    asm!(self.ops
                        ; cmp QWORD [r11 + O_SLOTS_LEN], slot
                        ; jbe =>own
                        ; mov rsi, [r11 + O_SLOTS_PTR]
                        ; mov rdx, [rsi + 8 * slot]
                        ; mov eax, edx
                        ; and eax, 7
                        ; cmp eax, TAG_FLOAT as i32
                        ; jne =>own
                    );
                    self.decode_rdx(dst);
                }
                Step::Arith { op, dst, x, y } => {
                    asm!(self.ops; movapd Rx(dst), Rx(x));
                    match op {
                        BinOp::Add => asm!(self.ops; addsd Rx(dst), Rx(y)),
                        BinOp::Sub => asm!(self.ops; subsd Rx(dst), Rx(y)),
                        BinOp::Mul => asm!(self.ops; mulsd Rx(dst), Rx(y)),
                        // A zero (or NaN) divisor is the method's: ZeroDivide.
                        _ => asm!(self.ops
                            ; xorpd Rx(SCRATCH), Rx(SCRATCH)
                            ; ucomisd Rx(y), Rx(SCRATCH)
                            ; je =>own
                            ; divsd Rx(dst), Rx(y)
                        ),
                    }
                }
            }
        }
        let mut holders = HOLDERS.iter();
        let mut held = Vec::with_capacity(run.writes.len());
        for &(r, val) in &run.writes {
            if let Val::Word(_) | Val::Alias(_) = val {
                continue;
            }
            let Some(&h) = holders.next() else {
                // `FloatRun::fits` keeps the run within the holders.
                self.invalid = true;
                return;
            };
            match val {
                Val::Bool(op, x, y) => {
                    self.compare(op, x, y);
                    asm!(self.ops; mov Rq(h), rdx);
                }
                Val::Xmm(x) => {
                    self.encode(x, own);
                    asm!(self.ops; mov Rq(h), rax);
                }
                Val::Word(_) | Val::Alias(_) => {}
            }
            held.push((r, h));
        }
        // Copies first, while every register still holds what it held at the run's start.
        for &(r, val) in &run.writes {
            if let Val::Alias(src) = val
                && src != r
            {
                asm!(self.ops; mov rax, [rbx + reg(src)] ; mov [rbx + reg(r)], rax);
            }
        }
        for &(r, val) in &run.writes {
            if let Val::Word(v) = val {
                self.store_const(r, v);
            }
        }
        for (r, h) in held {
            asm!(self.ops; mov [rbx + reg(r)], Rq(h));
        }
        match run.end {
            End::Next(pc) => {
                let next = self.labels[pc];
                asm!(self.ops; jmp =>next);
            }
            End::Branch { pc, op, x, y, sense, offset } => {
                self.compare(op, x, y);
                let skip = self.target(pc, 1);
                asm!(self.ops; cmp edx, TRUE);
                if sense {
                    asm!(self.ops; jne =>skip);
                } else {
                    asm!(self.ops; je =>skip);
                }
                self.jump(pc, i64::from(offset));
                if offset == 0 {
                    let next = self.target(pc, 0);
                    asm!(self.ops; jmp =>next);
                }
            }
        }
        asm!(self.ops; =>own);
    }
}
