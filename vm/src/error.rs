//! Errors the VM reports to its host: compile errors, unhandled Smalltalk errors with their
//! stacks, and boot failures.

use std::fmt;

/// One frame of a Smalltalk stack, as reported to the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    /// `ReceiverClass(MethodClass)>>selector`, with `[] in ` before it for a block.
    pub label: String,
    /// 1-based line of the current step point in the method's source.
    pub line: usize,
    /// 1-based column of the current step point.
    pub column: usize,
}

/// An error no handler took: the process is suspended, not the VM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorReport {
    /// The exception's class name (e.g. `ZeroDivide`).
    pub class_name: String,
    /// Its description (e.g. `ZeroDivide: division by zero`).
    pub description: String,
    /// The process's stack, top frame first.
    pub stack: Vec<FrameInfo>,
}

impl fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.description)?;
        for frame in &self.stack {
            writeln!(f, "  {} (line {}:{})", frame.label, frame.line, frame.column)?;
        }
        Ok(())
    }
}

/// A compile error or warning, positioned in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// What is wrong.
    pub message: String,
    /// Byte offset in the source.
    pub offset: usize,
    /// 1-based line (0: a warning about other code than the source compiled).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return f.write_str(&self.message);
        }
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for CompileError {}

/// Why an evaluation did not answer a value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// The source did not compile.
    #[error("{0}")]
    Compile(CompileError),
    /// An unhandled error suspended the evaluating process.
    #[error("{0}")]
    Unhandled(ErrorReport),
    /// The host interrupted the evaluation.
    #[error("interrupted\n{0}")]
    Interrupted(ErrorReport),
    /// The evaluating process waits and nothing can wake it.
    #[error("deadlock: the process waits on a semaphore that nothing can signal\n{0}")]
    Deadlock(ErrorReport),
    /// A debugger's step stopped the process where it was to stop.
    #[error("the process stopped where the step was to stop")]
    Stopped,
}

/// Why the kernel could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BootError {
    /// A package could not be read.
    #[error("{0}")]
    Source(String),
    /// A class definition is inconsistent (with the VM's expectations or with itself).
    #[error("{file}:{line}: {message}")]
    Definition {
        /// The file of the definition.
        file: String,
        /// Its line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Methods failed to compile.
    #[error("{} methods failed to compile, first: {}", .0.len(), .0.first().map(String::as_str).unwrap_or(""))]
    Compile(Vec<String>),
    /// The kernel's start-up code failed.
    #[error("kernel start-up failed: {0}")]
    Startup(String),
}
