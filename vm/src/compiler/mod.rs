//! The compiler: source text to [`CompiledCode`].
//!
//! `parser` builds the syntax tree (`ast`), `scope` decides where every variable lives and
//! which blocks are inlined, and `codegen` (with `inline` for the inlined control structures and
//! `literals` for constants) emits register code with step points.

pub mod ast;
mod brace;
mod codegen;
mod emit;
mod inline;
pub mod lexer;
pub(crate) mod literals;
pub mod parser;
mod scope;
#[cfg(test)]
mod tests;
mod variables;

use std::rc::Rc;

pub(crate) use codegen::all_ivar_names;

use crate::bytecode::CompiledCode;
use crate::error::CompileError;
use crate::value::Value;
use crate::vm::Vm;

/// What is being compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A method of a class.
    Method,
    /// A doit: statements with optional temporaries, run with `nil` (or an object) as receiver.
    Doit,
}

/// Builds a positioned error from a byte offset.
pub(crate) fn error_at(source: &str, offset: usize, message: impl Into<String>) -> CompileError {
    let (line, column) = parser::line_col(source, offset);
    CompileError { message: message.into(), offset, line, column }
}

/// Compiles `source` for `class` (whose instance variables, class variables and `super` it
/// sees). Undeclared variables are warnings (see [`Vm::take_warnings`]) bound in `Undeclared`.
pub fn compile(vm: &mut Vm, source: &str, class: Value, mode: Mode) -> Result<Rc<CompiledCode>, CompileError> {
    let node = match mode {
        Mode::Method => parser::parse_method(source),
        Mode::Doit => parser::parse_doit(source),
    }
    .map_err(|e| error_at(source, e.offset, e.message))?;
    let analysis = scope::analyse(&node);
    // In a gem, what the compiler reads of the class, and the bindings the code refers to,
    // must be in memory.
    vm.fault_for_compile(class);
    let (code, _) = codegen::generate(vm, source, class, &node, &analysis, mode == Mode::Doit, None, None)?;
    vm.fault_code_literals(&code);
    Ok(code)
}

/// A method compiled by [`check_method`]: its code, with placeholders where class variables
/// and globals will be bound ([`bind_checked`]).
pub struct CheckedMethod {
    code: Rc<CompiledCode>,
    placeholders: Vec<codegen::Placeholder>,
}

/// Compiles `source` as a method of a class whose instance variables are `ivars` (which
/// `class`, the nearest class that exists, may not have yet), to find its errors before
/// anything changes: nothing the VM holds changes (the names it refers to are left unbound,
/// neither declared nor warned about). Once the class is defined with those instance
/// variables, [`bind_checked`] makes the code what [`compile`] would have made.
pub fn check_method(
    vm: &mut Vm,
    source: &str,
    class: Value,
    ivars: Vec<String>,
) -> Result<CheckedMethod, CompileError> {
    let node = parser::parse_method(source).map_err(|e| error_at(source, e.offset, e.message))?;
    let analysis = scope::analyse(&node);
    if !class.is_nil() {
        vm.fault_for_compile(class);
    }
    let (code, placeholders) = codegen::generate(vm, source, class, &node, &analysis, false, None, Some(ivars))?;
    Ok(CheckedMethod { code, placeholders })
}

/// The code of a checked method as a method of `class`, which now has the instance variables
/// the check was given: each name bound as [`compile`] binds it (undeclared ones in
/// `Undeclared`, with a warning). None if the code is shared, which a check's code never is.
pub fn bind_checked(vm: &mut Vm, checked: CheckedMethod, class: Value) -> Option<Rc<CompiledCode>> {
    let CheckedMethod { mut code, placeholders } = checked;
    vm.fault_for_compile(class);
    let mut bindings = Vec::with_capacity(placeholders.len());
    for (sym, placeholder, span) in placeholders {
        let assoc = match variables::bound(vm, class, false, sym) {
            Some(assoc) => assoc,
            None => {
                let name = vm.string_of(sym).unwrap_or_default();
                variables::warn_undeclared(vm, &code.source, span, &name);
                variables::undeclared(vm, sym)
            }
        };
        bindings.push((placeholder, assoc));
    }
    let bind = |literals: &mut [Value]| {
        for lit in literals.iter_mut() {
            if let Some(&(_, assoc)) = bindings.iter().find(|(p, _)| p == lit) {
                *lit = assoc;
            }
        }
    };
    let c = Rc::get_mut(&mut code)?;
    bind(&mut c.literals);
    for block in c.blocks.iter_mut() {
        bind(&mut Rc::get_mut(block)?.literals);
    }
    vm.fault_code_literals(&code);
    Some(code)
}

/// Compiles `source` as a doit for a receiver of `class` that also sees `names`, the
/// variables of a debugger's frame: they are read from and written to the slots of the
/// Array `holder`, in the same order.
pub fn compile_in_frame(
    vm: &mut Vm,
    source: &str,
    class: Value,
    names: &[String],
    holder: Value,
) -> Result<Rc<CompiledCode>, CompileError> {
    let node = parser::parse_doit(source).map_err(|e| error_at(source, e.offset, e.message))?;
    let analysis = scope::analyse(&node);
    vm.fault_for_compile(class);
    let (code, _) = codegen::generate(vm, source, class, &node, &analysis, true, Some((names, holder)), None)?;
    vm.fault_code_literals(&code);
    Ok(code)
}
