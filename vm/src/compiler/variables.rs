//! Name resolution for code generation: arguments, temporaries (in registers or temp
//! vectors), instance variables, class variables and globals (bindings), with Undeclared
//! bindings and warnings for unknown names; loads and stores of each kind.

use super::ast::{Ident, Span};
use super::codegen::{CResult, Gen, Place};
use crate::bytecode::{Instr, Reg};
use crate::error::CompileError;
use crate::value::Value;
use crate::vm::{Vm, class_slots};

impl Gen<'_> {
    /// Resolves a name. `for_store` reports assignments to read-only names as errors.
    pub fn place(&mut self, id: &Ident, for_store: bool) -> CResult<Place> {
        let name = id.name.as_str();
        let reserved = match name {
            "self" => Some(Place::SelfRef),
            "super" => Some(Place::Super),
            "thisContext" => Some(Place::Context),
            _ => None,
        };
        if let Some(p) = reserved {
            if for_store {
                return Err(self.err(id.span, format!("cannot store into {name}")));
            }
            if matches!(p, Place::Super) {
                return Err(self.err(id.span, "super must be the receiver of a message"));
            }
            return Ok(p);
        }
        if let Some(v) = self.an.resolve(self.fun.cur, name) {
            let Some(var) = self.an.vars.get(v) else {
                return Err(self.err(id.span, "internal error: unknown variable"));
            };
            if for_store && var.is_arg {
                return Err(self.err(id.span, format!("cannot store into argument {name}")));
            }
            if var.in_vector() {
                let home = self.an.real_scope(var.scope);
                let vec =
                    if home == self.fun.scope { self.fun.vector } else { self.fun.outer_vectors.get(&home).copied() };
                let (Some(vec), Some(&index)) = (vec, self.vector_slot.get(&v)) else {
                    return Err(self.err(id.span, "internal error: temp vector missing"));
                };
                return Ok(Place::Vector(vec, index));
            }
            return match self.fun.regs.get(&v) {
                Some(&r) => Ok(Place::Reg(r)),
                None => Err(self.err(id.span, "internal error: variable has no register")),
            };
        }
        if let Some(i) = self.frame_vars.and_then(|(names, _)| names.iter().position(|n| n == name)) {
            return u8::try_from(i).map(Place::Frame).map_err(|_| self.err(id.span, "too many variables in the frame"));
        }
        if let Some(i) = self.ivars.iter().rposition(|n| n == name) {
            return Ok(Place::Ivar(i as u16));
        }
        let binding = self.binding(name, id.span)?;
        Ok(Place::Binding(binding))
    }

    /// The Association for a class variable or global (see [`bound`]), or a new Undeclared
    /// one, with a warning. A check binds nothing: each name gets a placeholder of its own,
    /// which [`super::bind_checked`] replaces once the method's class is what the check
    /// assumed.
    fn binding(&mut self, name: &str, span: Span) -> CResult<Value> {
        let sym = self.vm.intern(name);
        if self.checking {
            if let Some(&(_, placeholder, _)) = self.placeholders.iter().find(|(s, _, _)| *s == sym) {
                return Ok(placeholder);
            }
            let placeholder = self.vm.new_association(sym, Value::NIL);
            self.placeholders.push((sym, placeholder, span));
            return Ok(placeholder);
        }
        if let Some(assoc) = bound(self.vm, self.class, self.doit, sym) {
            return Ok(assoc);
        }
        let assoc = undeclared(self.vm, sym);
        self.warn(span, name);
        Ok(assoc)
    }

    fn warn(&mut self, span: Span, name: &str) {
        warn_undeclared(self.vm, self.source, span, name);
    }

    pub fn load(&mut self, place: &Place, t: Reg, span: Span) -> CResult<()> {
        match *place {
            Place::SelfRef => {
                self.emit(Instr::Move { dst: t, src: 0 });
            }
            Place::Super => return Err(self.err(span, "super must be the receiver of a message")),
            Place::Context => {
                self.emit(Instr::LoadContext { dst: t });
            }
            Place::Reg(r) => {
                if r != t {
                    self.emit(Instr::Move { dst: t, src: r });
                }
            }
            Place::Vector(vec, index) => {
                self.emit(Instr::GetVector { dst: t, vec, index });
            }
            Place::Ivar(index) => {
                self.emit(Instr::GetIvar { dst: t, index });
            }
            Place::Binding(assoc) => {
                let lit = self.lit(assoc, span)?;
                self.emit(Instr::GetGlobal { dst: t, lit });
            }
            Place::Frame(index) => {
                let lit = self.frame_holder(span)?;
                self.emit(Instr::LoadLit { dst: t, lit });
                self.emit(Instr::GetVector { dst: t, vec: t, index });
            }
        }
        Ok(())
    }

    /// The literal index of the Array holding a debugger's frame's variables.
    fn frame_holder(&mut self, span: Span) -> CResult<u16> {
        let holder = self.frame_vars.map_or(Value::NIL, |(_, h)| h);
        self.lit(holder, span)
    }

    pub fn store(&mut self, place: &Place, src: Reg) -> CResult<()> {
        match *place {
            Place::Reg(r) => {
                if r != src {
                    self.emit(Instr::Move { dst: r, src });
                }
            }
            Place::Vector(vec, index) => {
                self.emit(Instr::SetVector { vec, index, src });
            }
            Place::Ivar(index) => {
                self.emit(Instr::SetIvar { index, src });
            }
            Place::Binding(assoc) => {
                if let Ok(lit) = self.lit(assoc, Span::default()) {
                    self.emit(Instr::SetGlobal { lit, src });
                }
            }
            Place::Frame(index) => {
                let mark = self.fun.next;
                let vec = self.alloc(Span::default())?;
                let lit = self.frame_holder(Span::default())?;
                self.emit(Instr::LoadLit { dst: vec, lit });
                self.emit(Instr::SetVector { vec, index, src });
                self.release_to(mark);
            }
            Place::SelfRef | Place::Super | Place::Context => {}
        }
        Ok(())
    }
}

/// The Association `sym` names in code of `class` (a doit's when `doit`): a class variable
/// up the (instance side) superclass chain, else a global. A doit sees the globals through the
/// session's symbol list; a method sees `Smalltalk` first, so that code in classes means the
/// same in every session (whoever compiled or loaded it), then the symbol list.
pub(super) fn bound(vm: &mut Vm, class: Value, doit: bool, sym: Value) -> Option<Value> {
    let mut c = class;
    if vm.is_metaclass(c) {
        c = vm.heap.slot(c, class_slots::THIS_CLASS).unwrap_or(Value::NIL);
    }
    let mut guard = 0;
    while !c.is_nil() && guard < 10_000 {
        let pool = vm.heap.slot(c, class_slots::CLASS_POOL).unwrap_or(Value::NIL);
        if let Some(assoc) = vm.dict(pool).and_then(|d| d.get(sym)) {
            return Some(assoc);
        }
        c = vm.superclass_of(c);
        guard += 1;
    }
    let mut dicts = vm.symbol_list();
    if !doit {
        let smalltalk = vm.known.smalltalk;
        dicts.retain(|&d| d != smalltalk);
        dicts.insert(0, smalltalk);
    }
    dicts.into_iter().find_map(|dict| vm.dict(dict).and_then(|d| d.get(sym)))
}

/// The Undeclared binding of `sym`, made if there is none.
pub(super) fn undeclared(vm: &mut Vm, sym: Value) -> Value {
    let undeclared = vm.known.undeclared;
    if let Some(assoc) = vm.dict(undeclared).and_then(|d| d.get(sym)) {
        return assoc;
    }
    let assoc = vm.new_association(sym, Value::NIL);
    if let Some(d) = vm.dict_mut(undeclared) {
        d.insert(sym, assoc);
    }
    assoc
}

/// Warns that `name`, at `span` of `source`, is undeclared.
pub(super) fn warn_undeclared(vm: &mut Vm, source: &str, span: Span, name: &str) {
    let (line, column) = super::parser::line_col(source, span.start as usize);
    let warning =
        CompileError { message: format!("undeclared variable {name}"), offset: span.start as usize, line, column };
    // A variable may be resolved more than once where it stands: one warning for the place.
    if !vm.warnings.contains(&warning) {
        vm.warnings.push(warning);
    }
}
