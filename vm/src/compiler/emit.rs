//! Emission helpers for code generation: instructions, step points, scratch registers,
//! literals, inline-cache slots, jumps and their patching, and conditional branches (with the
//! fused compare-and-branch for SmallInteger comparisons), and what an expression is (a direct
//! operation, simple, holding an assignment) as the code generator decides by it.

use super::ast::{Expr, Literal, Span, Stmt};
use super::codegen::{CResult, Gen};
use crate::bytecode::{BinOp, Instr, Reg, StepPoint};
use crate::value::Value;

/// Most registers one activation may use.
pub(super) const MAX_REGS: usize = 250;

impl Gen<'_> {
    pub fn emit(&mut self, i: Instr) -> usize {
        self.fun.instrs.push(i);
        self.fun.instrs.len() - 1
    }

    pub fn pc(&self) -> usize {
        self.fun.instrs.len()
    }

    /// A step point here: a send (or another place a debugger stops at) about to run
    /// `span`. A statement's step point with nothing but loads since becomes this one, so a
    /// debugger stops once before a statement's first send and shows the send, as Pharo's
    /// does.
    pub fn step(&mut self, span: Span) {
        let pc = self.pc() as u32;
        let statement = std::mem::take(&mut self.fun.statement_step);
        if let Some(last) = self.fun.steps.last_mut()
            && (last.pc == pc || (statement && last.span.start <= span.start && span.end <= last.span.end))
        {
            last.pc = pc;
            last.span = span;
            return;
        }
        self.fun.steps.push(StepPoint { pc, span });
    }

    /// The step point of a statement starting here.
    pub fn statement_step(&mut self, span: Span) {
        self.step(span);
        self.fun.statement_step = true;
    }

    pub fn alloc(&mut self, span: Span) -> CResult<Reg> {
        let r = self.fun.next;
        if r >= MAX_REGS {
            return Err(self.err(span, "expression too complex (out of registers)"));
        }
        self.fun.next += 1;
        self.fun.max = self.fun.max.max(self.fun.next);
        Ok(r as Reg)
    }

    pub fn release_to(&mut self, r: usize) {
        self.fun.next = r;
    }

    /// Makes sure `t + 1` exists for instructions whose fallback uses it.
    pub fn reserve_pair(&mut self, t: Reg) {
        self.fun.max = self.fun.max.max(t as usize + 2);
    }

    pub fn lit(&mut self, v: Value, span: Span) -> CResult<u16> {
        if let Some(i) = self.fun.literals.iter().position(|&x| x == v && !self.is_fresh_literal(x)) {
            return Ok(i as u16);
        }
        if self.fun.literals.len() >= u16::MAX as usize {
            return Err(self.err(span, "too many literals"));
        }
        self.fun.literals.push(v);
        Ok((self.fun.literals.len() - 1) as u16)
    }

    fn is_fresh_literal(&self, v: Value) -> bool {
        // Symbols and bindings are shared; other literal objects each get their own slot.
        v.is_object() && !self.vm.is_symbol(v) && self.vm.class_of(v) != self.vm.known.association
    }

    pub fn new_cache(&mut self, span: Span) -> CResult<u16> {
        if self.fun.caches == u16::MAX {
            return Err(self.err(span, "too many sends"));
        }
        self.fun.caches += 1;
        Ok(self.fun.caches - 1)
    }

    /// Emits a jump to be patched; answers its index.
    pub fn jump_placeholder(&mut self, i: Instr) -> usize {
        self.emit(i)
    }

    /// Points the jump at `at` to `target`.
    pub fn patch(&mut self, at: usize, target: usize) {
        let offset = target as i32 - (at as i32 + 1);
        if let Some(i) = self.fun.instrs.get_mut(at) {
            match i {
                Instr::Jump { offset: o }
                | Instr::JumpIfTrue { offset: o, .. }
                | Instr::JumpIfFalse { offset: o, .. }
                | Instr::JumpIfNil { offset: o, .. }
                | Instr::JumpIfNotNil { offset: o, .. } => *o = offset,
                Instr::CmpJump { offset: o, .. } | Instr::CmpImmJump { offset: o, .. } => {
                    *o = i16::try_from(offset).unwrap_or(i16::MAX);
                    if i16::try_from(offset).is_err() {
                        self.too_large = true;
                    }
                }
                _ => {}
            }
        }
    }

    /// Evaluates `cond` and jumps when it is false; answers the jumps to patch to the target.
    pub fn jump_if_false(&mut self, cond: &Expr, span: Span) -> CResult<Vec<usize>> {
        self.jump_if(cond, false, span)
    }

    /// Evaluates `cond` and jumps when it equals `sense`; answers the jumps to patch to the
    /// target. A SmallInteger comparison becomes one compare-and-branch instruction (plus the
    /// conditional jump its fallback send uses).
    pub fn jump_if(&mut self, cond: &Expr, sense: bool, span: Span) -> CResult<Vec<usize>> {
        let mark = self.fun.next;
        if let Expr::Send(send) = cond
            && send.message.args.len() == 1
            && !matches!(&send.receiver, Expr::Variable(id) if id.name == "super")
            && let Some(op) = BinOp::for_selector(&send.message.selector)
            && matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne)
        {
            let arg = &send.message.args[0];
            let x = self.operand(&send.receiver, contains_assign(arg))?;
            let imm = match arg {
                Expr::Literal(Literal::Integer(super::ast::IntLit::Small(n)), _) => i8::try_from(*n).ok(),
                _ => None,
            };
            let (first, t) = match imm {
                Some(imm) => {
                    let t = self.alloc(span)?;
                    self.reserve_pair(t);
                    self.step(send.span);
                    (self.emit(Instr::CmpImmJump { op, x, imm, t, sense, offset: 0 }), t)
                }
                None => {
                    let y = self.operand(arg, false)?;
                    let t = self.alloc(span)?;
                    self.reserve_pair(t);
                    self.step(send.span);
                    (self.emit(Instr::CmpJump { op, x, y, t, sense, offset: 0 }), t)
                }
            };
            let second = self.emit(if sense {
                Instr::JumpIfTrue { r: t, offset: 0 }
            } else {
                Instr::JumpIfFalse { r: t, offset: 0 }
            });
            self.release_to(mark);
            return Ok(vec![first, second]);
        }
        let r = self.operand(cond, false)?;
        let j = self.emit(if sense { Instr::JumpIfTrue { r, offset: 0 } } else { Instr::JumpIfFalse { r, offset: 0 } });
        self.release_to(mark);
        Ok(vec![j])
    }

    pub fn jump_back(&mut self, target: usize) {
        let at = self.pc();
        self.emit(Instr::Jump { offset: target as i32 - (at as i32 + 1) });
    }
}

/// Whether an expression compiles to one instruction that may write any register (not a
/// real send, whose answer lands in its receiver register).
pub(super) fn is_direct_op(e: &Expr) -> bool {
    let Expr::Send(send) = e else { return false };
    if matches!(&send.receiver, Expr::Variable(id) if id.name == "super") {
        return false;
    }
    let sel = send.message.selector.as_str();
    match send.message.args.len() {
        0 => matches!(sel, "class" | "isNil" | "notNil"),
        1 => BinOp::for_selector(sel).is_some() || sel == "==" || sel == "~~",
        _ => false,
    }
}

/// Whether an expression is a literal or a variable (cheap, no side effects).
pub(super) fn is_simple(e: &Expr) -> bool {
    matches!(e, Expr::Literal(..) | Expr::Variable(..))
}

/// Whether evaluating `e` may assign a variable of the current function.
pub(super) fn contains_assign(e: &Expr) -> bool {
    match e {
        Expr::Literal(..) | Expr::Variable(..) | Expr::Block(..) => false,
        Expr::Assign { .. } => true,
        Expr::Send(s) => {
            contains_assign(&s.receiver)
                || s.message.args.iter().any(|a| match a {
                    Expr::Block(b) => b.body.iter().any(|st| match st {
                        Stmt::Expr(x) | Stmt::Return(x, _) => contains_assign(x),
                    }),
                    other => contains_assign(other),
                })
        }
        Expr::Cascade { receiver, messages, .. } => {
            contains_assign(receiver) || messages.iter().any(|m| m.args.iter().any(contains_assign))
        }
        Expr::Brace(items, _) => items.iter().any(|st| match st {
            Stmt::Expr(x) | Stmt::Return(x, _) => contains_assign(x),
        }),
    }
}
