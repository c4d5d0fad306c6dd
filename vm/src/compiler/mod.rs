//! The compiler: source text to [`CompiledCode`].
//!
//! `parser` builds the syntax tree (`ast`), `scope` decides where every variable lives and
//! which blocks are inlined, and `codegen` (with `inline` for the inlined control structures and
//! `literals` for constants) emits register code with step points.

pub mod ast;
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
    let code = codegen::generate(vm, source, class, &node, &analysis, mode == Mode::Doit, None, None)?;
    vm.fault_code_literals(&code);
    Ok(code)
}

/// Compiles `source` as a method of a class whose instance variables are `ivars` (which
/// `class`, the nearest class that exists, may not have yet), only to find its errors: nothing
/// the VM holds changes (a name nothing declares is neither declared nor warned about).
pub fn check_method(vm: &mut Vm, source: &str, class: Value, ivars: Vec<String>) -> Result<(), CompileError> {
    let node = parser::parse_method(source).map_err(|e| error_at(source, e.offset, e.message))?;
    let analysis = scope::analyse(&node);
    if !class.is_nil() {
        vm.fault_for_compile(class);
    }
    codegen::generate(vm, source, class, &node, &analysis, false, None, Some(ivars)).map(|_| ())
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
    let code = codegen::generate(vm, source, class, &node, &analysis, true, Some((names, holder)), None)?;
    vm.fault_code_literals(&code);
    Ok(code)
}
