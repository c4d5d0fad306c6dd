//! Code generation: walks the syntax tree and emits register code, literals and step points.
//!
//! Register discipline: `expr_to(e, t)` evaluates `e` into register `t`, where `t` is the
//! highest allocated register (everything above it is free scratch). Variables of the function
//! have fixed registers below the scratch area.

use std::collections::HashMap;
use std::rc::Rc;

use super::ast::{Block, Expr, Ident, Literal, Message, MethodNode, Span, Stmt};
use super::emit::{MAX_REGS, contains_assign, is_direct_op, is_simple};
use super::literals::literal_value;
use super::scope::{Analysis, ScopeId, VarId};
use super::{error_at, inline};
use crate::bytecode::{BinOp, CacheEntry, CompiledCode, Instr, Reg, StepPoint, VarLoc};
use crate::error::CompileError;
use crate::native_vec::NativeVec;
use crate::value::Value;
use crate::vm::{Vm, class_slots};

pub(super) type CResult<T> = Result<T, CompileError>;

/// The function (method or real block) being generated.
pub(super) struct Fun {
    pub scope: ScopeId,
    pub cur: ScopeId,
    pub instrs: Vec<Instr>,
    pub literals: Vec<Value>,
    pub steps: Vec<StepPoint>,
    pub caches: u16,
    pub next: usize,
    pub max: usize,
    /// The first scratch register (after arguments, copied values and temporaries).
    pub scratch_base: usize,
    pub regs: HashMap<VarId, Reg>,
    pub vector: Option<Reg>,
    pub outer_vectors: HashMap<ScopeId, Reg>,
    pub num_args: u8,
    pub num_copied: u8,
    pub num_temps: u8,
    pub var_names: Vec<(String, VarLoc)>,
    pub span: Span,
    /// Set while the last step point is a statement's with no instruction of its own yet
    /// that a debugger would stop at: the statement's first send takes its place.
    pub statement_step: bool,
}

/// Where a name refers to.
pub(super) enum Place {
    SelfRef,
    Super,
    Context,
    Reg(Reg),
    Vector(Reg, u8),
    Ivar(u16),
    Binding(Value),
    /// A variable of the frame a debugger evaluates in: slot `.0` of the Array
    /// `Gen::frame_vars` holds.
    Frame(u8),
}

pub(super) struct Gen<'a> {
    pub vm: &'a mut Vm,
    pub an: &'a Analysis,
    pub source: &'a str,
    pub class: Value,
    pub ivars: Vec<String>,
    pub selector: Value,
    pub doit: bool,
    /// Set when a branch is too long for a compact jump.
    pub too_large: bool,
    pub vector_slot: HashMap<VarId, u8>,
    pub vector_size: HashMap<ScopeId, usize>,
    pub fun: Fun,
    /// Every block of the method, nested ones included; closures refer to them by index.
    pub blocks: Vec<Rc<CompiledCode>>,
    /// The selectors of the sends compiled without a send of their own so far (see
    /// [`CompiledCode::special_selectors`]).
    pub special: Vec<Value>,
    /// For a doit evaluated in a debugger's frame: the frame's variable names, and the Array
    /// that holds their values while it runs.
    pub frame_vars: Option<(&'a [String], Value)>,
    /// Compiling before the class has its final shape (`compiler::check_method`): names
    /// are not bound, nor entered in Undeclared, nor warned about.
    pub checking: bool,
    /// In a check, each name of a class variable or global, the placeholder binding it got,
    /// and where it first stands.
    pub placeholders: Vec<Placeholder>,
}

/// A name a check left unbound: its Symbol, the placeholder Association standing for its
/// binding among the literals, and where it first stands in the source.
pub(super) type Placeholder = (Value, Value, Span);

/// Generates the code of a parsed method or doit; `ivars`, when given, stand for the class's
/// instance variables and make the compilation a check (see `Gen::checking`), whose names
/// are left unbound: the placeholders come with the code.
#[allow(clippy::too_many_arguments)]
pub(super) fn generate(
    vm: &mut Vm,
    source: &str,
    class: Value,
    node: &MethodNode,
    an: &Analysis,
    doit: bool,
    frame_vars: Option<(&[String], Value)>,
    ivars: Option<Vec<String>>,
) -> CResult<(Rc<CompiledCode>, Vec<Placeholder>)> {
    let checking = ivars.is_some();
    let ivars = ivars.unwrap_or_else(|| all_ivar_names(vm, class));
    let mut vector_slot = HashMap::new();
    let mut vector_size: HashMap<ScopeId, usize> = HashMap::new();
    for (id, var) in an.vars.iter().enumerate() {
        if var.in_vector() {
            let real = an.real_scope(var.scope);
            let n = vector_size.entry(real).or_insert(0);
            if *n >= 255 {
                return Err(error_at(source, 0, "too many captured variables"));
            }
            vector_slot.insert(id, *n as u8);
            *n += 1;
        }
    }
    let selector = vm.intern(&node.selector);
    let whole = Span::new(0, source.len());
    let mut g = Gen {
        vm,
        an,
        source,
        class,
        ivars,
        selector,
        doit,
        too_large: false,
        vector_slot,
        vector_size,
        fun: new_fun(0, whole),
        blocks: Vec::new(),
        special: Vec::new(),
        frame_vars,
        checking,
        placeholders: Vec::new(),
    };
    let mut primitive = 0u16;
    let mut pragma_values = Vec::new();
    for p in &node.pragmas {
        if p.selector.starts_with("primitive:") {
            match p.args.first() {
                Some(Literal::Integer(super::ast::IntLit::Small(n))) if (1..=u16::MAX as i64).contains(n) => {
                    primitive = *n as u16
                }
                // A named primitive (`<primitive: 'name' module: 'plugin'>`): Onyx provides
                // none, so it fails as one the VM lacks does, and the method's code runs.
                Some(Literal::String(_) | Literal::Symbol(_)) => {}
                _ => return Err(g.err(p.span, "primitive number or name expected")),
            }
        }
        let mut items = vec![g.vm.intern(&p.selector)];
        for a in &p.args {
            items.push(literal_value(g.vm, a).map_err(|m| error_at(source, p.span.start as usize, m))?);
        }
        pragma_values.push(g.vm.new_array(items));
    }
    let pragmas = if pragma_values.is_empty() { Value::NIL } else { g.vm.new_array(pragma_values) };
    g.setup_registers(&node.params, &[])?;
    g.body(&node.body, true)?;
    if g.too_large {
        return Err(error_at(source, 0, "method too large (a branch spans more than 32767 instructions)"));
    }
    let fun = std::mem::replace(&mut g.fun, new_fun(0, whole));
    let mut code = g.finish(fun, node.params.len(), primitive, pragmas, false);
    code.blocks = std::mem::take(&mut g.blocks).into();
    let mut special = std::mem::take(&mut g.special);
    for c in std::iter::once(&code).chain(code.blocks.iter().map(|b| &**b)) {
        for selector in c.instrs.iter().filter_map(|i| i.sent_selector()) {
            let selector = g.vm.intern(selector);
            if !special.contains(&selector) {
                special.push(selector);
            }
        }
    }
    code.special_selectors = special.into_boxed_slice();
    crate::verify::verify(&code).map_err(|e| error_at(source, 0, format!("internal compiler error: {e}")))?;
    Ok((Rc::new(code), std::mem::take(&mut g.placeholders)))
}

fn new_fun(scope: ScopeId, span: Span) -> Fun {
    Fun {
        scope,
        cur: scope,
        instrs: Vec::new(),
        literals: Vec::new(),
        steps: Vec::new(),
        caches: 0,
        next: 0,
        max: 0,
        scratch_base: 0,
        regs: HashMap::new(),
        vector: None,
        outer_vectors: HashMap::new(),
        num_args: 0,
        num_copied: 0,
        num_temps: 0,
        var_names: Vec::new(),
        statement_step: false,
        span,
    }
}

/// Every instance variable name of `class`, inherited ones first.
pub(crate) fn all_ivar_names(vm: &Vm, class: Value) -> Vec<String> {
    let mut chain = Vec::new();
    let mut c = class;
    while !c.is_nil() && chain.len() < 10_000 {
        chain.push(c);
        c = vm.superclass_of(c);
    }
    let mut names = Vec::new();
    for c in chain.iter().rev() {
        let arr = vm.heap.slot(*c, class_slots::INST_VARS).unwrap_or(Value::NIL);
        for v in vm.array_items(arr).unwrap_or_default() {
            names.push(vm.string_of(v).unwrap_or_default());
        }
    }
    names
}

/// What a block's closure must carry: a copied variable, or the temp vector of a scope.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Copy {
    Var(VarId),
    Vector(ScopeId),
}

impl Gen<'_> {
    pub fn err(&self, span: Span, message: impl Into<String>) -> CompileError {
        error_at(self.source, span.start as usize, message)
    }

    /// Lays out registers: self, arguments, copied values, own temporaries, the temp vector.
    fn setup_registers(&mut self, params: &[Ident], copies: &[Copy]) -> CResult<()> {
        let scope = self.fun.scope;
        let mut r = 1usize;
        for p in params {
            let Some(v) = self.an.resolve(scope, &p.name) else { continue };
            self.fun.regs.insert(v, r as Reg);
            self.fun.var_names.push((p.name.clone(), VarLoc::Reg(r as Reg)));
            r += 1;
        }
        self.fun.num_args = params.len() as u8;
        // The variables of outer temp vectors this block sees, named after its own.
        let mut outer_names = Vec::new();
        for c in copies {
            match *c {
                Copy::Var(v) => {
                    self.fun.regs.insert(v, r as Reg);
                    let name = self.an.vars.get(v).map(|x| x.name.clone()).unwrap_or_default();
                    self.fun.var_names.push((name, VarLoc::Reg(r as Reg)));
                }
                Copy::Vector(s) => {
                    self.fun.outer_vectors.insert(s, r as Reg);
                    for v in self.an.vars_of_real_scope(s) {
                        if let (Some(var), Some(&index)) = (self.an.vars.get(v), self.vector_slot.get(&v)) {
                            outer_names.push((var.name.clone(), VarLoc::Vector { vec: r as Reg, index }));
                        }
                    }
                }
            }
            r += 1;
        }
        self.fun.num_copied = copies.len() as u8;
        let first_temp = r;
        for v in self.an.vars_of_real_scope(scope) {
            let Some(var) = self.an.vars.get(v) else { continue };
            if self.fun.regs.contains_key(&v) || var.in_vector() {
                continue;
            }
            self.fun.regs.insert(v, r as Reg);
            r += 1;
        }
        if self.vector_size.get(&scope).copied().unwrap_or(0) > 0 {
            self.fun.vector = Some(r as Reg);
            r += 1;
        }
        if r > MAX_REGS {
            return Err(self.err(self.fun.span, "too many temporaries"));
        }
        for v in self.an.vars_of_real_scope(scope) {
            let Some(var) = self.an.vars.get(v) else { continue };
            if var.is_arg && var.scope == scope {
                continue;
            }
            let loc = match (self.fun.regs.get(&v), self.fun.vector, self.vector_slot.get(&v)) {
                (Some(&reg), _, _) => VarLoc::Reg(reg),
                (None, Some(vec), Some(&index)) => VarLoc::Vector { vec, index },
                _ => continue,
            };
            self.fun.var_names.push((var.name.clone(), loc));
        }
        for (name, loc) in outer_names {
            if !self.fun.var_names.iter().any(|(n, _)| *n == name) {
                self.fun.var_names.push((name, loc));
            }
        }
        self.fun.num_temps = (r - first_temp) as u8;
        self.fun.next = r;
        self.fun.max = r;
        self.fun.scratch_base = r;
        if let (Some(vec), Some(&size)) = (self.fun.vector, self.vector_size.get(&scope)) {
            self.emit(Instr::MakeVector { dst: vec, size: size as u8 });
        }
        Ok(())
    }

    fn finish(&mut self, fun: Fun, nargs: usize, primitive: u16, pragmas: Value, is_block: bool) -> CompiledCode {
        let caches = (0..fun.caches).map(|_| std::cell::Cell::new(CacheEntry::default())).collect();
        let special_caches = crate::bytecode::special_caches_for(&fun.instrs);
        CompiledCode {
            instrs: crate::bytecode::Instrs::new(fun.instrs, nargs as u8),
            literals: fun.literals.into_boxed_slice(),
            blocks: NativeVec::new(),
            num_args: nargs as u8,
            num_copied: fun.num_copied,
            num_temps: fun.num_temps,
            // Two spare registers: fallback sends of the last scratch register use them.
            frame_size: (fun.max + 2) as u16,
            primitive,
            selector: self.selector,
            method_class: std::cell::Cell::new(self.class),
            protocol: std::cell::Cell::new(Value::NIL),
            source: Rc::from(self.source),
            step_points: fun.steps.into_boxed_slice(),
            var_names: fun.var_names.into_boxed_slice(),
            pragmas,
            caches,
            special_caches,
            is_block,
            span: fun.span,
            native: Default::default(),
            special_selectors: Box::new([]),
        }
    }

    // ------------------------------------------------------------------ bodies

    /// A method or doit body: statements, then the implicit return.
    fn body(&mut self, body: &[Stmt], method: bool) -> CResult<()> {
        let base = self.fun.next;
        let n = body.len();
        for (i, s) in body.iter().enumerate() {
            let last = i + 1 == n;
            match s {
                Stmt::Return(e, span) => {
                    self.statement_step(*span);
                    let r = self.operand(e, false)?;
                    self.emit(if method { Instr::Return { r } } else { Instr::NonLocalReturn { r } });
                }
                Stmt::Expr(e) if last && self.doit && method => {
                    self.statement_step(e.span());
                    let r = self.operand(e, false)?;
                    self.emit(Instr::Return { r });
                }
                Stmt::Expr(e) => self.effect(e)?,
            }
            self.release_to(base);
        }
        let implicit_value = self.doit && method && n > 0;
        if !matches!(body.last(), Some(Stmt::Return(..))) && !implicit_value {
            if self.doit && method {
                let t = self.alloc(self.fun.span)?;
                self.emit(Instr::LoadNil { dst: t });
                self.emit(Instr::Return { r: t });
            } else {
                self.emit(Instr::Return { r: 0 });
            }
        }
        Ok(())
    }

    /// Statements whose last value goes to `t` (nil when empty), or that run for their
    /// effect only when `t` is `None`, inside the current function.
    pub fn stmts_to(&mut self, body: &[Stmt], t: Option<Reg>) -> CResult<()> {
        let Some(t) = t else {
            for s in body {
                let mark = self.fun.next;
                match s {
                    Stmt::Return(e, span) => self.return_stmt(e, *span)?,
                    Stmt::Expr(e) => self.effect(e)?,
                }
                self.release_to(mark);
            }
            return Ok(());
        };
        if body.is_empty() {
            self.emit(Instr::LoadNil { dst: t });
            return Ok(());
        }
        let n = body.len();
        for (i, s) in body.iter().enumerate() {
            let mark = self.fun.next;
            match s {
                Stmt::Return(e, span) => self.return_stmt(e, *span)?,
                Stmt::Expr(e) if i + 1 == n => {
                    self.statement_step(e.span());
                    self.expr_to(e, t)?;
                }
                Stmt::Expr(e) => self.effect(e)?,
            }
            self.release_to(mark);
        }
        Ok(())
    }

    /// `^ e`: a method return in the method's own code, a non-local return in a block.
    pub(super) fn return_stmt(&mut self, e: &Expr, span: Span) -> CResult<()> {
        self.statement_step(span);
        let r = self.operand(e, false)?;
        let in_method = self.fun.scope == 0;
        self.emit(if in_method { Instr::Return { r } } else { Instr::NonLocalReturn { r } });
        Ok(())
    }

    /// An expression evaluated for its effect only.
    pub fn effect(&mut self, e: &Expr) -> CResult<()> {
        self.statement_step(e.span());
        match e {
            Expr::Assign { target, value, .. } if is_direct_op(value) => {
                // Instructions such as `Bin` can write any register: `k := k + p` is one.
                let place = self.place(target, true)?;
                let mark = self.fun.next;
                match (place, &**value) {
                    (Place::Reg(r), Expr::Send(send)) => self.send_to(&send.receiver, &send.message, r, send.span)?,
                    (place, _) => {
                        let r = self.operand(value, false)?;
                        self.store(&place, r)?;
                    }
                }
                self.release_to(mark);
                Ok(())
            }
            Expr::Assign { target, value, .. } if is_simple(value) => {
                let place = self.place(target, true)?;
                let mark = self.fun.next;
                match place {
                    Place::Reg(r) => self.expr_to(value, r)?,
                    _ => {
                        let r = self.operand(value, false)?;
                        self.store(&place, r)?;
                    }
                }
                self.release_to(mark);
                Ok(())
            }
            Expr::Literal(..) | Expr::Variable(..) => Ok(()),
            Expr::Send(send)
                if super::scope::inlined_blocks(&send.message.selector, &send.receiver, &send.message.args)
                    .is_some() =>
            {
                let mark = self.fun.next;
                inline::inline_send(self, &send.receiver, &send.message, None, send.span)?;
                self.release_to(mark);
                Ok(())
            }
            _ => {
                let mark = self.fun.next;
                let t = self.alloc(e.span())?;
                self.expr_to(e, t)?;
                self.release_to(mark);
                Ok(())
            }
        }
    }

    /// Evaluates `e` into a register: the variable's own register when it is a plain local,
    /// else a fresh scratch register. `unsafe_alias` forbids the former (a later operand may
    /// assign the variable).
    pub fn operand(&mut self, e: &Expr, unsafe_alias: bool) -> CResult<Reg> {
        if let Expr::Variable(id) = e
            && !unsafe_alias
        {
            match self.place(id, false)? {
                Place::SelfRef => return Ok(0),
                Place::Reg(r) => return Ok(r),
                _ => {}
            }
        }
        let t = self.alloc(e.span())?;
        self.expr_to(e, t)?;
        Ok(t)
    }

    // ------------------------------------------------------------------ expressions

    pub fn expr_to(&mut self, e: &Expr, t: Reg) -> CResult<()> {
        match e {
            Expr::Literal(lit, span) => self.literal_to(lit, *span, t),
            Expr::Variable(id) => {
                let place = self.place(id, false)?;
                self.load(&place, t, id.span)
            }
            Expr::Assign { target, value, .. } => {
                let place = self.place(target, true)?;
                self.expr_to(value, t)?;
                self.store(&place, t)?;
                Ok(())
            }
            Expr::Send(send) => {
                if super::scope::inlined_blocks(&send.message.selector, &send.receiver, &send.message.args).is_some() {
                    return inline::inline_send(self, &send.receiver, &send.message, Some(t), send.span);
                }
                self.send_to(&send.receiver, &send.message, t, send.span)
            }
            Expr::Cascade { receiver, messages, span } => self.cascade_to(receiver, messages, t, *span),
            Expr::Block(b) => self.closure_to(b, t),
            Expr::Brace(items, span) => self.brace_to(items, *span, t),
        }
    }

    fn literal_to(&mut self, lit: &Literal, span: Span, t: Reg) -> CResult<()> {
        match lit {
            Literal::Nil => self.emit(Instr::LoadNil { dst: t }),
            Literal::True => self.emit(Instr::LoadTrue { dst: t }),
            Literal::False => self.emit(Instr::LoadFalse { dst: t }),
            Literal::Integer(super::ast::IntLit::Small(n)) if i32::try_from(*n).is_ok() => {
                self.emit(Instr::LoadInt { dst: t, value: *n as i32 })
            }
            _ => {
                let v = literal_value(self.vm, lit).map_err(|m| self.err(span, m))?;
                let i = self.lit(v, span)?;
                self.emit(Instr::LoadLit { dst: t, lit: i })
            }
        };
        Ok(())
    }

    /// A send whose receiver and arguments are evaluated into `t, t+1, ...`.
    pub fn send_to(&mut self, receiver: &Expr, msg: &Message, t: Reg, span: Span) -> CResult<()> {
        let is_super = matches!(receiver, Expr::Variable(id) if id.name == "super");
        if !is_super
            && msg.args.len() == 1
            && let Some(op) = BinOp::for_selector(&msg.selector)
        {
            return self.binop_to(op, receiver, &msg.args[0], t, span);
        }
        if !is_super && msg.args.is_empty() {
            match msg.selector.as_str() {
                "class" | "isNil" | "notNil" => {
                    let mark = self.fun.next;
                    let x = self.operand(receiver, false)?;
                    self.step(span);
                    self.emit(match msg.selector.as_str() {
                        "class" => Instr::Class { dst: t, x },
                        s => Instr::IsNil { dst: t, x, negate: s == "notNil" },
                    });
                    self.release_to(mark);
                    return Ok(());
                }
                _ => {}
            }
        }
        if !is_super && msg.args.len() == 1 && (msg.selector == "==" || msg.selector == "~~") {
            let mark = self.fun.next;
            let x = self.operand(receiver, contains_assign(&msg.args[0]))?;
            let y = self.operand(&msg.args[0], false)?;
            self.emit(if msg.selector == "==" { Instr::IdEq { dst: t, x, y } } else { Instr::IdNe { dst: t, x, y } });
            self.release_to(mark);
            return Ok(());
        }
        let mark = self.fun.next;
        if !is_super && msg.selector == "at:put:" && msg.args.len() == 2 {
            let (index, value) = (&msg.args[0], &msg.args[1]);
            let r = self.operand(receiver, contains_assign(index) || contains_assign(value))?;
            let i = self.operand(index, contains_assign(value))?;
            if let Expr::Literal(lit, lit_span) = value {
                let v = literal_value(self.vm, lit).map_err(|m| self.err(*lit_span, m))?;
                let lit = self.lit(v, *lit_span)?;
                self.step(span);
                self.emit(Instr::AtPutLit { dst: t, r, i, lit });
                self.release_to(mark);
                return Ok(());
            }
            let v = self.operand(value, false)?;
            self.step(span);
            self.emit(Instr::AtPut { dst: t, r, i, v });
            self.release_to(mark);
            return Ok(());
        }
        if is_super {
            self.emit(Instr::Move { dst: t, src: 0 });
        } else {
            self.expr_to(receiver, t)?;
        }
        self.args_after(t, &msg.args)?;
        {
            self.emit_send(t, msg, is_super, span)?;
        }
        self.release_to(mark);
        Ok(())
    }

    fn args_after(&mut self, t: Reg, args: &[Expr]) -> CResult<()> {
        if args.len() > 15 {
            return Err(self.err(args[15].span(), "too many arguments (at most 15)"));
        }
        for arg in args {
            let r = self.alloc(arg.span())?;
            debug_assert!(r as usize > t as usize);
            self.expr_to(arg, r)?;
        }
        Ok(())
    }

    fn emit_send(&mut self, a: Reg, msg: &Message, is_super: bool, span: Span) -> CResult<()> {
        let sel = self.vm.intern(&msg.selector);
        let lit = self.lit(sel, msg.selector_span)?;
        let cache = self.new_cache(span)?;
        let nargs = msg.args.len() as u8;
        self.step(span);
        self.emit(if is_super {
            Instr::SuperSend { a, nargs, lit, cache }
        } else {
            Instr::Send { a, nargs, lit, cache }
        });
        self.reserve_pair(a);
        Ok(())
    }

    fn binop_to(&mut self, op: BinOp, receiver: &Expr, arg: &Expr, t: Reg, span: Span) -> CResult<()> {
        // `x - 3` becomes an addition of -3: it is a send of `-` all the same.
        self.sends_specially(op.selector());
        let mark = self.fun.next;
        if op != BinOp::At
            && let Expr::Literal(Literal::Integer(super::ast::IntLit::Small(n)), _) = arg
            && let Ok(imm) = i16::try_from(if op == BinOp::Sub { -*n } else { *n })
        {
            let op = if op == BinOp::Sub { BinOp::Add } else { op };
            let x = self.receiver_operand(receiver, t, false)?;
            self.step(span);
            self.emit(Instr::BinImm { op, dst: t, x, imm });
            self.release_to(mark);
            return Ok(());
        }
        let x = self.receiver_operand(receiver, t, contains_assign(arg))?;
        let y = self.operand(arg, false)?;
        self.step(span);
        self.emit(Instr::Bin { op, dst: t, x, y });
        self.release_to(mark);
        Ok(())
    }

    /// Notes that the method sends `selector` without a send instruction naming it (see
    /// [`CompiledCode::special_selectors`]).
    pub fn sends_specially(&mut self, selector: &str) {
        let selector = self.vm.intern(selector);
        if !self.special.contains(&selector) {
            self.special.push(selector);
        }
    }

    /// The register holding the receiver of a one-instruction operation targeting `t`. A
    /// nested receiver is computed straight into `t` when `t` is scratch, so that
    /// `((a + b) + c) + d` needs no more registers however deep it nests.
    fn receiver_operand(&mut self, receiver: &Expr, t: Reg, unsafe_alias: bool) -> CResult<Reg> {
        if !matches!(receiver, Expr::Variable(_)) && t as usize >= self.fun.scratch_base {
            self.expr_to(receiver, t)?;
            return Ok(t);
        }
        self.operand(receiver, unsafe_alias)
    }

    fn cascade_to(&mut self, receiver: &Expr, messages: &[Message], t: Reg, span: Span) -> CResult<()> {
        let is_super = matches!(receiver, Expr::Variable(id) if id.name == "super");
        let mark = self.fun.next;
        if is_super {
            self.emit(Instr::Move { dst: t, src: 0 });
        } else {
            self.expr_to(receiver, t)?;
        }
        let a = self.alloc(span)?;
        for m in messages {
            self.emit(Instr::Move { dst: a, src: t });
            self.args_after(a, &m.args)?;
            self.emit_send(a, m, is_super, m.span)?;
            self.release_to(a as usize + 1);
        }
        self.emit(Instr::Move { dst: t, src: a });
        self.release_to(mark);
        Ok(())
    }

    // ------------------------------------------------------------------ blocks

    fn closure_to(&mut self, b: &Block, t: Reg) -> CResult<()> {
        let Some(&scope) = self.an.block_scopes.get(&b.span.start) else {
            return Err(self.err(b.span, "internal error: block scope not analysed"));
        };
        let mut copies: Vec<Copy> = Vec::new();
        for &v in self.an.scopes.get(scope).map(|s| &s.free).into_iter().flatten() {
            let Some(var) = self.an.vars.get(v) else { continue };
            let c = if var.in_vector() { Copy::Vector(self.an.real_scope(var.scope)) } else { Copy::Var(v) };
            if !copies.contains(&c) {
                copies.push(c);
            }
        }
        if copies.len() > 200 {
            return Err(self.err(b.span, "block captures too many variables"));
        }
        // Generate the block's own code.
        let outer = std::mem::replace(&mut self.fun, new_fun(scope, b.span));
        let result = self.block_body(b, &copies);
        let inner = std::mem::replace(&mut self.fun, outer);
        let nargs = b.params.len();
        result?;
        let code = self.finish(inner, nargs, 0, Value::NIL, true);
        crate::verify::verify(&code).map_err(|e| self.err(b.span, format!("internal compiler error: {e}")))?;
        if self.blocks.len() >= u16::MAX as usize {
            return Err(self.err(b.span, "too many blocks"));
        }
        self.blocks.push(Rc::new(code));
        let index = (self.blocks.len() - 1) as u16;
        // Gather the copied values into t, t+1, ...
        let mark = self.fun.next;
        for (i, c) in copies.iter().enumerate() {
            let dst = if i == 0 { t } else { self.alloc(b.span)? };
            let src = match *c {
                Copy::Var(v) => self.fun.regs.get(&v).copied(),
                Copy::Vector(s) if s == self.fun.scope => self.fun.vector,
                Copy::Vector(s) => self.fun.outer_vectors.get(&s).copied(),
            };
            let Some(src) = src else {
                return Err(self.err(b.span, "internal error: captured variable not in scope"));
            };
            self.emit(Instr::Move { dst, src });
        }
        self.emit(Instr::MakeClosure { dst: t, block: index, first: t, count: copies.len() as u8 });
        self.release_to(mark);
        Ok(())
    }

    fn block_body(&mut self, b: &Block, copies: &[Copy]) -> CResult<()> {
        self.setup_registers(&b.params, copies)?;
        let t = self.alloc(b.span)?;
        self.stmts_to(&b.body, Some(t))?;
        if !matches!(b.body.last(), Some(Stmt::Return(..))) {
            self.emit(Instr::BlockReturn { r: t });
        }
        Ok(())
    }

    /// Enters an inlined block's scope: binds nothing, nils its temporaries.
    pub fn enter_inlined(&mut self, b: &Block) -> CResult<ScopeId> {
        let Some(&scope) = self.an.block_scopes.get(&b.span.start) else {
            return Err(self.err(b.span, "internal error: block scope not analysed"));
        };
        let saved = self.fun.cur;
        self.fun.cur = scope;
        for t in &b.temps {
            let place = self.place(t, true)?;
            match place {
                Place::Reg(r) => {
                    self.emit(Instr::LoadNil { dst: r });
                }
                Place::Vector(vec, index) => {
                    let mark = self.fun.next;
                    let r = self.alloc(t.span)?;
                    self.emit(Instr::LoadNil { dst: r });
                    self.emit(Instr::SetVector { vec, index, src: r });
                    self.release_to(mark);
                }
                _ => {}
            }
        }
        Ok(saved)
    }

    pub fn leave_inlined(&mut self, saved: ScopeId) {
        self.fun.cur = saved;
    }
}
