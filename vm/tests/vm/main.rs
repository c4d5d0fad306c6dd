//! The VM's integration tests: one binary, one module per area. Each test boots a VM on the
//! embedded kernel (`util::vm`) and checks what Smalltalk code answers.
//!
//! - `syntax`: every syntax form, compiled and run.
//! - `blocks`, `switches`, `quick`, `native`, `floats`, `float_runs`, `ivars`: native code
//!   answers as the interpreter does.
//! - `debugger`, `breakpoints`, `pause`: suspended processes, stepping, breakpoints of every
//!   kind, pausing a running process.
//! - `exceptions`: every ANSI exception operation.
//! - `processes`: scheduling, semaphores, delays, interrupts.
//! - `memory`: the collector under allocation pressure, deep recursion.
//! - `robustness`: random and malformed source never panics.
//! - `damage`: records a gem cannot use, already in a repository, harm nothing else.
//! - `kernel`: the kernel's own SUnit suite.
//! - `os`: files, the environment and encodings: the privilege they need, bad arguments.
//! - `sockets`: TCP with peers outside Onyx, the privilege sockets need, bad arguments.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

mod blocks;
mod breakpoints;
mod damage;
mod debugger;
mod exceptions;
mod float_runs;
mod floats;
mod ivars;
mod kernel;
mod memory;
mod native;
mod os;
mod pause;
mod persistence;
mod processes;
mod quick;
mod robustness;
mod sockets;
mod switches;
mod syntax;
mod util;
