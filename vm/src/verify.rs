//! The bytecode verifier: checks, once per compiled method or block, the invariants the
//! interpreter relies on to read registers, literals, caches and instructions without bounds
//! checks.
//!
//! **Invariant (checked here):** every register an instruction names is below the code's
//! `frame_size` (for a send, its receiver and all its arguments); every literal and cache
//! index is in range; every jump lands on an instruction; the last instruction does not fall
//! through; a compare-and-branch is followed by the instruction its fallback resumes at; no
//! instruction is a breakpoint's.

use crate::bytecode::{CompiledCode, Instr};

/// Checks `code`; the error names the first offending instruction.
pub fn verify(code: &CompiledCode) -> Result<(), String> {
    let fs = usize::from(code.frame_size);
    let n = code.instrs.len();
    let lits = code.literals.len();
    let caches = code.caches.len();
    if 1 + usize::from(code.num_args) + usize::from(code.num_copied) + usize::from(code.num_temps) > fs {
        return Err("frame too small for its arguments and temporaries".into());
    }
    let reg = |pc: usize, r: u8| {
        if usize::from(r) < fs { Ok(()) } else { Err(format!("pc {pc}: register {r} out of frame")) }
    };
    let span = |pc: usize, first: u8, count: usize| {
        if usize::from(first) + count <= fs {
            Ok(())
        } else {
            Err(format!("pc {pc}: registers {first}+{count} out of frame"))
        }
    };
    let lit = |pc: usize, i: u16| {
        if usize::from(i) < lits { Ok(()) } else { Err(format!("pc {pc}: literal {i} out of range")) }
    };
    let cache = |pc: usize, i: u16| {
        if usize::from(i) < caches { Ok(()) } else { Err(format!("pc {pc}: cache {i} out of range")) }
    };
    let target = |pc: usize, offset: i64| {
        let t = pc as i64 + 1 + offset;
        if (0..n as i64).contains(&t) { Ok(()) } else { Err(format!("pc {pc}: jump to {t} outside the code")) }
    };
    for (pc, i) in code.instrs.iter().enumerate() {
        match i {
            Instr::Move { dst, src } => reg(pc, dst).and(reg(pc, src)),
            Instr::LoadLit { dst, lit: l } | Instr::GetGlobal { dst, lit: l } => reg(pc, dst).and(lit(pc, l)),
            Instr::SetGlobal { lit: l, src } => reg(pc, src).and(lit(pc, l)),
            Instr::LoadInt { dst, .. }
            | Instr::LoadNil { dst }
            | Instr::LoadTrue { dst }
            | Instr::LoadFalse { dst }
            | Instr::LoadContext { dst }
            | Instr::GetIvar { dst, .. }
            | Instr::MakeVector { dst, .. } => reg(pc, dst),
            Instr::SetIvar { src, .. } => reg(pc, src),
            Instr::GetVector { dst, vec, .. } => reg(pc, dst).and(reg(pc, vec)),
            Instr::SetVector { vec, src, .. } => reg(pc, vec).and(reg(pc, src)),
            Instr::MakeClosure { dst, first, count, .. } | Instr::MakeArray { dst, first, count } => {
                reg(pc, dst).and(span(pc, first, usize::from(count)))
            }
            Instr::Send { a, nargs, lit: l, cache: c } | Instr::SuperSend { a, nargs, lit: l, cache: c } => {
                span(pc, a, 1 + usize::from(nargs)).and(lit(pc, l)).and(cache(pc, c))
            }
            Instr::AtPut { dst, r, i: idx, v } => reg(pc, dst).and(reg(pc, r)).and(reg(pc, idx)).and(reg(pc, v)),
            Instr::AtPutLit { dst, r, i: idx, lit: l } => {
                reg(pc, dst).and(reg(pc, r)).and(reg(pc, idx)).and(lit(pc, l))
            }
            Instr::Bin { dst, x, y, .. } | Instr::IdEq { dst, x, y } | Instr::IdNe { dst, x, y } => {
                reg(pc, dst).and(reg(pc, x)).and(reg(pc, y))
            }
            Instr::BinImm { dst, x, .. } | Instr::IsNil { dst, x, .. } | Instr::Class { dst, x } => {
                reg(pc, dst).and(reg(pc, x))
            }
            Instr::CmpJump { x, y, t, sense, offset, .. } => reg(pc, x)
                .and(reg(pc, y))
                .and(reg(pc, t))
                .and(target(pc, i64::from(offset)))
                .and(followed(code, pc, sense)),
            Instr::CmpImmJump { x, t, sense, offset, .. } => {
                reg(pc, x).and(reg(pc, t)).and(target(pc, i64::from(offset))).and(followed(code, pc, sense))
            }
            Instr::Jump { offset } => target(pc, i64::from(offset)),
            Instr::JumpIfTrue { r, offset }
            | Instr::JumpIfFalse { r, offset }
            | Instr::JumpIfNil { r, offset }
            | Instr::JumpIfNotNil { r, offset } => reg(pc, r).and(target(pc, i64::from(offset))),
            Instr::Return { r } | Instr::BlockReturn { r } | Instr::NonLocalReturn { r } => reg(pc, r),
            // Only a breakpoint puts one in, over verified code.
            Instr::Break { .. } => Err(format!("pc {pc}: a breakpoint in compiled code")),
        }?;
    }
    match code.instrs.last() {
        Some(Instr::Return { .. } | Instr::BlockReturn { .. } | Instr::NonLocalReturn { .. } | Instr::Jump { .. }) => {
            Ok(())
        }
        _ => Err("the code can run past its last instruction".into()),
    }
}

/// A compare-and-branch must be followed by the conditional jump its fallback resumes at
/// (and that jump by an instruction, since the fast path skips it).
fn followed(code: &CompiledCode, pc: usize, sense: bool) -> Result<(), String> {
    match (code.instrs.get(pc + 1), sense) {
        (Some(Instr::JumpIfFalse { .. }), false) | (Some(Instr::JumpIfTrue { .. }), true)
            if pc + 2 < code.instrs.len() =>
        {
            Ok(())
        }
        _ => Err(format!("pc {pc}: compare-and-branch without its fallback jump")),
    }
}
