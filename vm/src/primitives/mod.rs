//! Primitives: operations the VM performs natively when a method declares
//! `<primitive: N>`. A primitive either answers a value, fails (the method's Smalltalk code
//! then runs, usually signalling a proper error), or changes which frame or process runs.
//!
//! Numbering (Squeak's numbers where Squeak has one):
//!
//! | range   | area                                             | module      |
//! |---------|--------------------------------------------------|-------------|
//! | 1-29    | Integer arithmetic, comparison, bits, printing   | `integer`   |
//! | 30-59   | Float                                            | `float`     |
//! | 60-79   | object access, instantiation, identity, copying  | `object`    |
//! | 80-99   | blocks and perform                               | `block`     |
//! | 100-129 | processes, semaphores, timers, clocks            | `process`   |
//! | 130-159 | String, Symbol, Character                        | `string`    |
//! | 160-197 | native dictionaries, Transcript, system services | `system`    |
//! | 198     | unwind marker (`ensure:`, `ifCurtailed:`); always fails |      |
//! | 199     | handler marker (`on:do:`); always fails          |             |
//! | 200-229 | contexts and exceptions                          | `context`   |
//! | 250-279 | classes, compiling, CompiledMethod               | `class`     |
//! | 280-299 | transactions and locks (`System`)                | `transaction` |
//! | 300-309 | the session's user, object security policies     | `security`  |
//! | 310-319 | UTF-8, Base64, digests, UUIDs                    | `bytes`     |
//! | 320-339 | files and the operating system                   | `files`     |
//! | 340-349 | TCP sockets                                      | `sockets`   |
//!
//! Every primitive's name and description is in [`table`]: the modules dispatch on its
//! constants (`table::INTEGER_ADD`), and a test there checks that the kernel declares no
//! primitive without a name.

mod block;
mod bytes;
pub(crate) mod class;
pub(crate) mod context;
pub(crate) mod files;
mod float;
mod integer;
mod object;
pub(crate) mod offload;
mod process;
mod security;
pub(crate) mod sockets;
mod string;
mod system;
pub mod table;
mod transaction;

pub(crate) use class::{define_class, layout, remove_class, remove_method};

use crate::value::Value;
use crate::vm::Vm;

/// Why a primitive did not answer a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    /// The primitive does not apply; run the method's code.
    Fail,
    /// The primitive changed the running frame or process; the interpreter reloads.
    Switched,
}

/// What a primitive returns.
pub type PrimResult = Result<Value, Prim>;

// The interpreter tests for these primitives by number (`primitives::UNWIND_MARKER`).
pub(crate) use float::{binary as float_binary, elementary as float_elementary};
pub(crate) use integer::small as integer_small;
pub(crate) use object::instantiate;
pub(crate) use string::narrow_equal;
pub use table::{
    BEHAVIOR_BASIC_NEW, BEHAVIOR_BASIC_NEW_SIZE, BLOCK_VALUE, FLOAT_SQRT, OBJECT_BASIC_SIZE, SEMAPHORE_SIGNAL,
    SEMAPHORE_WAIT, STRING_EQUAL, UNWIND_MARKER,
};

/// Whether `index` is an Integer primitive (see [`call`]).
pub(crate) fn is_integer(index: u16) -> bool {
    matches!(index, 1..=29)
}

/// Whether `index` is a Float primitive (see [`call`]).
pub(crate) fn is_float(index: u16) -> bool {
    matches!(index, 30..=59)
}

/// Runs primitive `index` for the receiver at stack index `at` and `nargs` arguments.
pub(crate) fn call(vm: &mut Vm, index: u16, at: usize, nargs: usize, ret: usize) -> PrimResult {
    let a = Args { at, nargs, ret };
    // Primitives read their receiver and arguments: stubs among them are brought in first.
    if let Some(operands) = vm.scheduler.state.stack.get(at..=at + nargs)
        && operands.iter().any(|&v| vm.heap.is_stub(v))
    {
        let operands = operands.to_vec();
        vm.fault_in_all(&operands);
    }
    match index {
        1..=29 => integer::call(vm, index, a),
        30..=59 => float::call(vm, index, a),
        60..=79 => object::call(vm, index, a),
        80..=99 => block::call(vm, index, a),
        100..=129 => process::call(vm, index, a),
        130..=159 => string::call(vm, index, a),
        160..=197 => system::call(vm, index, a),
        // Markers only: the method's code runs.
        table::UNWIND_MARKER | table::HANDLER_MARKER => Err(Prim::Fail),
        200..=229 => context::call(vm, index, a),
        250..=279 => class::call(vm, index, a),
        280..=299 => transaction::call(vm, index, a),
        300..=309 => security::call(vm, index, a),
        310..=319 => bytes::call(vm, index, a),
        320..=339 => files::call(vm, index, a),
        340..=349 => sockets::call(vm, index, a),
        _ => Err(Prim::Fail),
    }
}

/// Where a primitive's receiver and arguments are on the stack.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Args {
    /// Stack index of the receiver.
    pub at: usize,
    /// Number of arguments.
    pub nargs: usize,
    /// Stack index where the answer goes (a primitive that switches processes stores it
    /// there itself).
    pub ret: usize,
}

impl Args {
    /// The receiver.
    pub fn recv(self, vm: &Vm) -> Value {
        vm.scheduler.state.stack.get(self.at).copied().unwrap_or(Value::NIL)
    }

    /// Argument `i` (0-based); nil if absent.
    pub fn arg(self, vm: &Vm, i: usize) -> Value {
        if i >= self.nargs {
            return Value::NIL;
        }
        vm.scheduler.state.stack.get(self.at + 1 + i).copied().unwrap_or(Value::NIL)
    }
}

/// A SmallInteger argument converted to a 1-based index in `1..=len`, as a 0-based index.
pub(crate) fn index_arg(v: Value, len: usize) -> Result<usize, Prim> {
    let i = v.as_int().ok_or(Prim::Fail)?;
    if i >= 1 && (i as u64) <= len as u64 { Ok(i as usize - 1) } else { Err(Prim::Fail) }
}

/// A non-negative SmallInteger argument as a `usize`.
pub(crate) fn size_arg(v: Value) -> Result<usize, Prim> {
    v.as_int().and_then(|n| usize::try_from(n).ok()).ok_or(Prim::Fail)
}

/// Answers `true`/`false`.
pub(crate) fn boolean(b: bool) -> PrimResult {
    Ok(Value::boolean(b))
}
