//! Brace arrays (`{ a. b. c }`): their elements are statements, as in Pharo, so one may
//! return (`{ a. ^ b }`); a short one is made at once from consecutive registers, a longer one
//! filled element by element, so that an array has no length limit.

use super::ast::{Expr, Ident, Literal, Message, Span, Stmt};
use super::codegen::{CResult, Gen};
use crate::bytecode::{Instr, Reg};

/// A brace array of at most this many elements is made at once from consecutive registers;
/// a longer one is filled element by element.
const MADE_AT_ONCE: usize = 200;

impl Gen<'_> {
    /// The array of `items` into `t`.
    pub(super) fn brace_to(&mut self, items: &[Stmt], span: Span, t: Reg) -> CResult<()> {
        if items.len() > MADE_AT_ONCE {
            return self.long_brace_to(items, span, t);
        }
        let mark = self.fun.next;
        for (i, item) in items.iter().enumerate() {
            let r = if i == 0 { t } else { self.alloc(item.span())? };
            self.element_to(item, r)?;
        }
        self.emit(Instr::MakeArray { dst: t, first: t, count: items.len() as u8 });
        self.release_to(mark);
        Ok(())
    }

    /// A brace array of more elements than registers hold at once, as Pharo compiles one:
    /// `Array new: n`, then each element put at its index as it is evaluated.
    fn long_brace_to(&mut self, items: &[Stmt], span: Span, t: Reg) -> CResult<()> {
        let array = Expr::Variable(Ident { name: "Array".into(), span });
        let size = i64::try_from(items.len()).map_err(|_| self.err(span, "brace array too long"))?;
        let size = Expr::Literal(Literal::Integer(super::ast::IntLit::Small(size)), span);
        let new = Message { selector: "new:".into(), args: vec![size], selector_span: span, span };
        self.send_to(&array, &new, t, span)?;
        let mark = self.fun.next;
        let (index, value, put) = (self.alloc(span)?, self.alloc(span)?, self.alloc(span)?);
        for (at, item) in (1..).zip(items) {
            self.emit(Instr::LoadInt { dst: index, value: at });
            self.element_to(item, value)?;
            self.step(item.span());
            self.emit(Instr::AtPut { dst: put, r: t, i: index, v: value });
        }
        self.release_to(mark);
        Ok(())
    }

    /// A brace array's element into `t`; one that returns (`{ a. ^ b }`) returns there.
    fn element_to(&mut self, item: &Stmt, t: Reg) -> CResult<()> {
        match item {
            Stmt::Expr(e) => self.expr_to(e, t),
            Stmt::Return(e, span) => self.return_stmt(e, *span),
        }
    }
}
