//! Onyx's Smalltalk: object memory, compiler, interpreter, processes and exceptions.
//!
//! # Overview
//! - [`Value`] is a tagged word: SmallInteger (61 bits), Character, nil/true/false, or a
//!   reference through the local object table of the [`heap::Heap`].
//! - [`compiler`] parses Pharo/GemStone syntax and emits register code ([`bytecode`]) with a
//!   step-point map for the debugger.
//! - The interpreter runs green-thread processes with explicit frame stacks, so any process
//!   can be stopped between two instructions; the host regains control at least every few
//!   milliseconds ([`Vm::poll`]).
//! - [`source`] reads Tonel packages and chunk files; [`Vm::boot`] loads the kernel.
//!
//! ```
//! use onyx_vm::{KernelSource, Vm};
//! let mut vm = Vm::boot(&KernelSource::embedded()).expect("kernel loads");
//! let v = vm.evaluate("3 + 4").expect("evaluates");
//! assert_eq!(vm.print_string(v).expect("prints"), "7");
//! ```
//!
//! **Architecture invariant:** this crate knows nothing about RPC or UI; a repository attaches
//! through `onyx_record::StoneLink` (see [`persist`]: stubs, faulting, commit and abort), and
//! knows no database: the store is another crate, behind that trait.

#![deny(missing_docs)]

mod bootstrap;
pub mod bytecode;
pub mod compiler;
pub mod debug;
pub mod error;
pub mod heap;
mod host;
mod interpreter;
pub mod jit;
mod memory;
pub mod native_vec;
pub mod persist;
mod primitives;
pub mod process;
mod profile;
mod scheduler;
pub mod source;
pub mod value;
mod verify;
mod vm;

pub use debug::breakpoints::{BreakpointError, BreakpointEvent, BreakpointSpec, BreakpointView, Hits, Position};
pub use debug::frames::{FrameView, StackPage};
pub use debug::shared::{SharedBreakpoint, SharedBreakpointError};
pub use debug::step::DebugError;
pub use debug::{DebugEvent, FrameBinding, ProcessView, Reason, StepKind};
pub use error::{BootError, CompileError, ErrorReport, EvalError, FrameInfo};
pub use host::Poll;
pub use interpreter::Stop;
pub use jit::JitConfig;
pub use memory::keep_freed_pages;
pub use primitives::table::{Primitive, TABLE as PRIMITIVES};
pub use source::{KernelSource, LoadReport};
pub use value::Value;
pub use vm::{DEFAULT_MEMORY_LIMIT, Known, Vm, VmConfig, class_slots};
