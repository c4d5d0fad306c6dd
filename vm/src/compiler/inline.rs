//! Inlined control structures: `ifTrue:` and friends, `and:`/`or:`, the `ifNil:` family,
//! `whileTrue:`/`whileFalse:`/`repeat`, `timesRepeat:` and `to:do:`/`to:by:do:`. Their literal
//! blocks become jumps in the enclosing function; no closure is created.

use super::ast::{Block, Expr, Message, Span};
use super::codegen::{CResult, Gen, Place, contains_assign};
use super::scope::literal_step;
use crate::bytecode::{BinOp, Instr, Reg};

fn block_of(e: &Expr) -> Option<&Block> {
    match e {
        Expr::Block(b) => Some(b),
        _ => None,
    }
}

/// Compiles an inlined block's statements into `t`.
fn inline_block(g: &mut Gen<'_>, b: &Block, t: Reg) -> CResult<()> {
    let saved = g.enter_inlined(b)?;
    let result = g.stmts_to(&b.body, t);
    g.leave_inlined(saved);
    result
}

/// Binds the argument of a one-argument inlined block to the value in `src`, then runs it.
fn inline_block_with_arg(g: &mut Gen<'_>, b: &Block, src: Reg, t: Reg) -> CResult<()> {
    let saved = g.enter_inlined(b)?;
    let result = (|| {
        if let Some(p) = b.params.first() {
            let place = g.place(p, false)?;
            g.store(&place, src);
        }
        g.stmts_to(&b.body, t)
    })();
    g.leave_inlined(saved);
    result
}

pub(super) fn inline_send(
    g: &mut Gen<'_>,
    receiver: &Expr,
    msg: &Message,
    _blocks: &[usize],
    t: Reg,
    span: Span,
) -> CResult<()> {
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
                None => {
                    g.emit(Instr::LoadNil { dst: t });
                }
            }
            let j_end = g.jump_placeholder(Instr::Jump { offset: 0 });
            let else_pc = g.pc();
            for j in jf {
                g.patch(j, else_pc);
            }
            match else_b {
                Some(b) => inline_block(g, b, t)?,
                None => {
                    g.emit(Instr::LoadNil { dst: t });
                }
            }
            let end = g.pc();
            g.patch(j_end, end);
            Ok(())
        }
        "and:" | "or:" => {
            g.expr_to(receiver, t)?;
            g.step(span);
            let j = if msg.selector == "and:" {
                g.jump_placeholder(Instr::JumpIfFalse { r: t, offset: 0 })
            } else {
                g.jump_placeholder(Instr::JumpIfTrue { r: t, offset: 0 })
            };
            if let Some(b) = arg(0) {
                inline_block(g, b, t)?;
            }
            let end = g.pc();
            g.patch(j, end);
            Ok(())
        }
        "ifNil:" | "ifNotNil:" | "ifNil:ifNotNil:" | "ifNotNil:ifNil:" => {
            g.expr_to(receiver, t)?;
            g.step(span);
            let (nil_b, not_nil_b) = match msg.selector.as_str() {
                "ifNil:" => (arg(0), None),
                "ifNotNil:" => (None, arg(0)),
                "ifNil:ifNotNil:" => (arg(0), arg(1)),
                _ => (arg(1), arg(0)),
            };
            // t holds the receiver. Not nil: run the notNil block (or keep the receiver).
            let j_nil = g.jump_placeholder(Instr::JumpIfNil { r: t, offset: 0 });
            if let Some(b) = not_nil_b {
                inline_block_with_arg(g, b, t, t)?;
            }
            let j_end = g.jump_placeholder(Instr::Jump { offset: 0 });
            let nil_pc = g.pc();
            g.patch(j_nil, nil_pc);
            match nil_b {
                Some(b) => inline_block(g, b, t)?,
                None => {
                    g.emit(Instr::LoadNil { dst: t });
                }
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
            if msg.selector == "whileTrue:"
                && cond.temps.is_empty()
                && let [super::ast::Stmt::Expr(test)] = cond.body.as_slice()
            {
                let saved = g.enter_inlined(cond)?;
                let exits = g.jump_if_false(test, span);
                g.leave_inlined(saved);
                let exits = exits?;
                if let Some(body) = arg(0) {
                    let body_t = g.alloc(body.span)?;
                    inline_block(g, body, body_t)?;
                    g.release_to(body_t as usize);
                }
                g.jump_back(top);
                let end = g.pc();
                for j in exits {
                    g.patch(j, end);
                }
                g.emit(Instr::LoadNil { dst: t });
                g.release_to(mark);
                return Ok(());
            }
            inline_block(g, cond, t)?;
            g.step(span);
            match msg.selector.as_str() {
                "repeat" => {
                    g.jump_back(top);
                }
                "whileTrue" => {
                    let at = g.pc();
                    g.emit(Instr::JumpIfTrue { r: t, offset: top as i32 - (at as i32 + 1) });
                }
                "whileFalse" => {
                    let at = g.pc();
                    g.emit(Instr::JumpIfFalse { r: t, offset: top as i32 - (at as i32 + 1) });
                }
                sel => {
                    let exit = if sel == "whileTrue:" {
                        g.jump_placeholder(Instr::JumpIfFalse { r: t, offset: 0 })
                    } else {
                        g.jump_placeholder(Instr::JumpIfTrue { r: t, offset: 0 })
                    };
                    if let Some(body) = arg(0) {
                        let body_t = g.alloc(body.span)?;
                        inline_block(g, body, body_t)?;
                        g.release_to(body_t as usize);
                    }
                    g.jump_back(top);
                    let end = g.pc();
                    g.patch(exit, end);
                }
            }
            g.emit(Instr::LoadNil { dst: t });
            Ok(())
        }
        "timesRepeat:" => {
            // t := receiver (the limit); i := 1; [i <= t] whileTrue: [body. i := i + 1]
            g.expr_to(receiver, t)?;
            let i = g.alloc(span)?;
            let c = g.alloc(span)?;
            g.reserve_pair(c);
            g.emit(Instr::LoadInt { dst: i, value: 1 });
            let top = g.pc();
            g.step(span);
            let exit = g.emit(Instr::CmpJump { op: BinOp::Le, x: i, y: t, t: c, offset: 0 });
            let exit2 = g.emit(Instr::JumpIfFalse { r: c, offset: 0 });
            if let Some(body) = arg(0) {
                inline_block(g, body, c)?;
            }
            g.emit(Instr::BinImm { op: BinOp::Add, dst: i, x: i, imm: 1 });
            g.jump_back(top);
            let end = g.pc();
            g.patch(exit, end);
            g.patch(exit2, end);
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
            // t := receiver (the start, also the value of the loop); limit := stop.
            g.expr_to(receiver, t)?;
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
                g.emit(Instr::Move { dst: i, src: t });
                let c = g.alloc(span)?;
                g.reserve_pair(c);
                let top = g.pc();
                g.step(span);
                let op = if step > 0 { BinOp::Le } else { BinOp::Ge };
                let exit = g.emit(Instr::CmpJump { op, x: i, y: limit, t: c, offset: 0 });
                let exit2 = g.emit(Instr::JumpIfFalse { r: c, offset: 0 });
                g.stmts_to(&body.body, c)?;
                g.emit(Instr::BinImm { op: BinOp::Add, dst: i, x: i, imm: step as i16 });
                g.jump_back(top);
                let end = g.pc();
                g.patch(exit, end);
                g.patch(exit2, end);
                Ok(())
            })();
            g.leave_inlined(saved);
            result
        }
        _ => Err(g.err(span, "internal error: unknown inlined selector")),
    };
    g.release_to(mark);
    let _ = contains_assign;
    result
}
