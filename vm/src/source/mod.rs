//! Source code on disk: the Tonel and chunk-file readers, and the loader that installs
//! packages (class definitions, then methods, then class-side `initialize`) into a VM.

pub mod chunk;
mod loader;
pub mod tonel;

pub use loader::{KernelSource, LoadReport};
