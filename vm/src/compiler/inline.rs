//! Inlined control structures: `ifTrue:` and friends, `and:`/`or:`, the `ifNil:` family,
//! `whileTrue:`/`whileFalse:`/`repeat`, `timesRepeat:` and `to:do:`/`to:by:do:`. Their literal
//! blocks become jumps in the enclosing function; no closure is created.
//!
//! Each form compiles either for its value (into a register) or, as a statement, for its
//! effect only: then missing branches and the loops' `nil` answers cost nothing, and loop
//! bodies are statements too.

use super::ast::{Block, Expr, Message, Span, Stmt};
use super::codegen::{CResult, Gen, Place};
use super::scope::literal_step;
use crate::bytecode::{BinOp, Instr, Reg};

fn block_of(e: &Expr) -> Option<&Block> {
    match e {
        Expr::Block(b) => Some(b),
        _ => None,
    }
}

/// Compiles an inlined block's statements into `t` (or for effect).
fn inline_block(g: &mut Gen<'_>, b: &Block, t: Option<Reg>) -> CResult<()> {
    let saved = g.enter_inlined(b)?;
    let result = g.stmts_to(&b.body, t);
    g.leave_inlined(saved);
    result
}

/// Binds the argument of a one-argument inlined block to the value in `src`, then runs it.
fn inline_block_with_arg(g: &mut Gen<'_>, b: &Block, src: Reg, t: Option<Reg>) -> CResult<()> {
    let saved = g.enter_inlined(b)?;
    let result = (|| {
        if let Some(p) = b.params.first() {
            let place = g.place(p, false)?;
            g.store(&place, src)?;
        }
        g.stmts_to(&b.body, t)
    })();
    g.leave_inlined(saved);
    result
}

/// `nil` into `t` when the form's value is wanted.
fn nil_to(g: &mut Gen<'_>, t: Option<Reg>) {
    if let Some(t) = t {
        g.emit(Instr::LoadNil { dst: t });
    }
}

/// The bottom test of a rotated counting loop: back to `body_pc` while `i op limit`.
fn rotated_test(g: &mut Gen<'_>, op: BinOp, i: Reg, limit: Reg, c: Reg, body_pc: usize) {
    let again = g.emit(Instr::CmpJump { op, x: i, y: limit, t: c, sense: true, offset: 0 });
    let again2 = g.emit(Instr::JumpIfTrue { r: c, offset: 0 });
    g.patch(again, body_pc);
    g.patch(again2, body_pc);
}

/// Compiles an inlined send into `t`, or for its effect when `t` is `None`.
pub(super) fn inline_send(g: &mut Gen<'_>, receiver: &Expr, msg: &Message, t: Option<Reg>, span: Span) -> CResult<()> {
    // Sent all the same: its senders are found by it.
    g.sends_specially(&msg.selector);
    let arg = |i: usize| msg.args.get(i).and_then(block_of);
    let mark = g.fun.next;
    let result = match msg.selector.as_str() {
        "ifTrue:" | "ifFalse:" | "ifTrue:ifFalse:" | "ifFalse:ifTrue:" => {
            g.step(span);
            let (then_b, else_b) = match msg.selector.as_str() {
                "ifTrue:" => (arg(0), None),
                "ifFalse:" => (None, arg(0)),
                "ifTrue:ifFalse:" => (arg(0), arg(1)),
                _ => (arg(1), arg(0)),
            };
            let jf = g.jump_if_false(receiver, span)?;
            g.release_to(mark);
            match then_b {
                Some(b) => inline_block(g, b, t)?,
                None => nil_to(g, t),
            }
            if else_b.is_none() && t.is_none() {
                let end = g.pc();
                for j in jf {
                    g.patch(j, end);
                }
                return Ok(());
            }
            let j_end = g.jump_placeholder(Instr::Jump { offset: 0 });
            let else_pc = g.pc();
            for j in jf {
                g.patch(j, else_pc);
            }
            match else_b {
                Some(b) => inline_block(g, b, t)?,
                None => nil_to(g, t),
            }
            let end = g.pc();
            g.patch(j_end, end);
            Ok(())
        }
        "and:" | "or:" => {
            let t = match t {
                Some(t) => t,
                None => g.alloc(span)?,
            };
            g.expr_to(receiver, t)?;
            g.step(span);
            let j = if msg.selector == "and:" {
                g.jump_placeholder(Instr::JumpIfFalse { r: t, offset: 0 })
            } else {
                g.jump_placeholder(Instr::JumpIfTrue { r: t, offset: 0 })
            };
            if let Some(b) = arg(0) {
                inline_block(g, b, Some(t))?;
            }
            let end = g.pc();
            g.patch(j, end);
            Ok(())
        }
        "ifNil:" | "ifNotNil:" | "ifNil:ifNotNil:" | "ifNotNil:ifNil:" => {
            let v = match t {
                Some(t) => t,
                None => g.alloc(span)?,
            };
            g.expr_to(receiver, v)?;
            g.step(span);
            let (nil_b, not_nil_b) = match msg.selector.as_str() {
                "ifNil:" => (arg(0), None),
                "ifNotNil:" => (None, arg(0)),
                "ifNil:ifNotNil:" => (arg(0), arg(1)),
                _ => (arg(1), arg(0)),
            };
            // v holds the receiver. Not nil: run the notNil block (or keep the receiver).
            let j_nil = g.jump_placeholder(Instr::JumpIfNil { r: v, offset: 0 });
            if let Some(b) = not_nil_b {
                inline_block_with_arg(g, b, v, t)?;
            }
            let j_end = g.jump_placeholder(Instr::Jump { offset: 0 });
            let nil_pc = g.pc();
            g.patch(j_nil, nil_pc);
            match nil_b {
                Some(b) => inline_block(g, b, t)?,
                None => nil_to(g, t),
            }
            let end = g.pc();
            g.patch(j_end, end);
            Ok(())
        }
        "whileTrue:" | "whileFalse:" | "whileTrue" | "whileFalse" | "repeat" => {
            let Some(cond) = block_of(receiver) else {
                return Err(g.err(span, "internal error: loop receiver is not a block"));
            };
            let top = g.pc();
            if matches!(msg.selector.as_str(), "whileTrue:" | "whileFalse:")
                && cond.temps.is_empty()
                && let [Stmt::Expr(test)] = cond.body.as_slice()
            {
                // Rotated: the body, then the test at the bottom, which jumps back while the
                // loop goes on (one compare-and-branch per iteration for a comparison).
                let to_test = g.jump_placeholder(Instr::Jump { offset: 0 });
                let body_pc = g.pc();
                if let Some(body) = arg(0) {
                    inline_block(g, body, None)?;
                }
                let test_pc = g.pc();
                g.patch(to_test, test_pc);
                let saved = g.enter_inlined(cond)?;
                let again = g.jump_if(test, msg.selector == "whileTrue:", span);
                g.leave_inlined(saved);
                for j in again? {
                    g.patch(j, body_pc);
                }
            } else {
                let c = g.alloc(span)?;
                if msg.selector == "repeat" {
                    inline_block(g, cond, None)?;
                } else {
                    inline_block(g, cond, Some(c))?;
                }
                g.step(span);
                match msg.selector.as_str() {
                    "repeat" => g.jump_back(top),
                    "whileTrue" => {
                        let at = g.pc();
                        g.emit(Instr::JumpIfTrue { r: c, offset: top as i32 - (at as i32 + 1) });
                    }
                    "whileFalse" => {
                        let at = g.pc();
                        g.emit(Instr::JumpIfFalse { r: c, offset: top as i32 - (at as i32 + 1) });
                    }
                    sel => {
                        let exit = if sel == "whileTrue:" {
                            g.jump_placeholder(Instr::JumpIfFalse { r: c, offset: 0 })
                        } else {
                            g.jump_placeholder(Instr::JumpIfTrue { r: c, offset: 0 })
                        };
                        if let Some(body) = arg(0) {
                            inline_block(g, body, None)?;
                        }
                        g.jump_back(top);
                        let end = g.pc();
                        g.patch(exit, end);
                    }
                }
            }
            nil_to(g, t);
            Ok(())
        }
        "timesRepeat:" => {
            // limit := receiver; i := 1; [i <= limit] whileTrue: [body. i := i + 1]
            let limit = g.alloc(span)?;
            g.expr_to(receiver, limit)?;
            let i = g.alloc(span)?;
            let c = g.alloc(span)?;
            g.reserve_pair(c);
            g.emit(Instr::LoadInt { dst: i, value: 1 });
            let to_test = g.jump_placeholder(Instr::Jump { offset: 0 });
            let body_pc = g.pc();
            if let Some(body) = arg(0) {
                inline_block(g, body, None)?;
            }
            g.emit(Instr::BinImm { op: BinOp::Add, dst: i, x: i, imm: 1 });
            let test_pc = g.pc();
            g.patch(to_test, test_pc);
            g.step(span);
            rotated_test(g, BinOp::Le, i, limit, c, body_pc);
            if let Some(t) = t {
                g.emit(Instr::Move { dst: t, src: limit });
            }
            Ok(())
        }
        "to:do:" | "to:by:do:" => {
            let (body_index, step) = if msg.selector == "to:do:" {
                (1, 1)
            } else {
                (2, msg.args.get(1).and_then(literal_step).unwrap_or(1))
            };
            let Some(body) = arg(body_index) else {
                return Err(g.err(span, "internal error: loop body is not a block"));
            };
            let Some(stop) = msg.args.first() else {
                return Err(g.err(span, "internal error: loop limit missing"));
            };
            // start := receiver (also the value of the loop); limit := stop.
            let start = match t {
                Some(t) => t,
                None => g.alloc(span)?,
            };
            g.expr_to(receiver, start)?;
            let limit = g.alloc(stop.span())?;
            g.expr_to(stop, limit)?;
            let saved = g.enter_inlined(body)?;
            let result = (|| {
                let Some(p) = body.params.first() else {
                    return Err(g.err(body.span, "internal error: loop block has no argument"));
                };
                let Place::Reg(i) = g.place(p, false)? else {
                    return Err(g.err(p.span, "internal error: loop variable not in a register"));
                };
                g.emit(Instr::Move { dst: i, src: start });
                let c = g.alloc(span)?;
                g.reserve_pair(c);
                let to_test = g.jump_placeholder(Instr::Jump { offset: 0 });
                let body_pc = g.pc();
                g.stmts_to(&body.body, None)?;
                g.emit(Instr::BinImm { op: BinOp::Add, dst: i, x: i, imm: step as i16 });
                let test_pc = g.pc();
                g.patch(to_test, test_pc);
                g.step(span);
                let op = if step > 0 { BinOp::Le } else { BinOp::Ge };
                rotated_test(g, op, i, limit, c, body_pc);
                Ok(())
            })();
            g.leave_inlined(saved);
            result
        }
        _ => Err(g.err(span, "internal error: unknown inlined selector")),
    };
    g.release_to(mark);
    result
}
