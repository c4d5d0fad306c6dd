//! What a package holds, whatever format it was read from or is written to: class
//! definitions and methods, each with the file and line it came from; a few fields record how
//! a Tonel file wrote a name, so that it is written back the same.

use std::path::PathBuf;

/// A problem in a package's file; `line` is 1-based, or 0 when it concerns the whole file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{}: {}", .file.display(), .line, .message)]
pub struct SourceError {
    /// The file (or directory) concerned.
    pub file: PathBuf,
    /// The 1-based line, 0 for the whole file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl SourceError {
    /// A problem with the whole of `path`.
    pub(crate) fn whole(path: &std::path::Path, message: impl Into<String>) -> SourceError {
        SourceError { file: path.to_path_buf(), line: 0, message: message.into() }
    }
}

/// The version of the Tonel format a package is written in (see `tonel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Version {
    /// Names as symbols: `#name : #Foo`.
    V1,
    /// Names as strings: `#name : 'Foo'`.
    V2,
    /// As v2, with `#package` and `#tag` in class definitions (Pharo 12's default).
    #[default]
    V3,
}

/// How a name was written in the file: `#Foo` or `'Foo'` (v1 files written by older Pharos
/// hold some categories as strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Spelling {
    /// `#Foo`.
    #[default]
    Symbol,
    /// `'Foo'`.
    String,
}

/// The memory layout of a class's instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClassKind {
    /// Named instance variables only (no `#type`).
    #[default]
    Fixed,
    /// Indexable pointer slots (`#variable`).
    Variable,
    /// Indexable bytes (`#bytes`).
    Bytes,
    /// Indexable 32-bit words (`#words`).
    Words,
    /// Indexable weak pointer slots (`#weak`).
    Weak,
}

impl ClassKind {
    /// The name Pharo gives the layout (Tonel's `#type`, FileTree's `"type"`).
    pub fn name(self) -> &'static str {
        match self {
            ClassKind::Fixed => "normal",
            ClassKind::Variable => "variable",
            ClassKind::Bytes => "bytes",
            ClassKind::Words => "words",
            ClassKind::Weak => "weak",
        }
    }

    /// The layout Pharo names `name`, if Onyx has it.
    pub fn named(name: &str) -> Option<ClassKind> {
        [ClassKind::Fixed, ClassKind::Variable, ClassKind::Bytes, ClassKind::Words, ClassKind::Weak]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// A class definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassDef {
    /// The class name.
    pub name: String,
    /// The superclass name; `None` for `#superclass : #nil`.
    pub superclass: Option<String>,
    /// The instance layout.
    pub kind: ClassKind,
    /// Instance variable names.
    pub inst_vars: Vec<String>,
    /// Class variable names.
    pub class_vars: Vec<String>,
    /// Class-side instance variable names.
    pub class_inst_vars: Vec<String>,
    /// Shared pool names.
    pub pools: Vec<String>,
    /// The category (`#category`, else `#package` and `#tag` joined by `-`).
    pub category: String,
    /// How `#category` was written (v1).
    pub category_spelling: Spelling,
    /// `#package` as a v3 file gives it (`None` without one).
    pub package: Option<String>,
    /// `#tag` as a v3 file gives it (`None` without one).
    pub tag: Option<String>,
    /// The class comment, exactly ("" when absent).
    pub comment: String,
    /// Who last changed the comment and when, as Monticello and FileTree keep it ("" when
    /// not known; Tonel keeps none).
    pub comment_stamp: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// The line of `Class {`.
    pub line: usize,
}

/// A method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDef {
    /// The class it belongs to (without ` class`).
    pub class_name: String,
    /// Whether it is defined on the metaclass (`Foo class >> ...`).
    pub class_side: bool,
    /// Its selector.
    pub selector: String,
    /// The method category ("" when the metadata has none).
    pub category: String,
    /// The source: the message pattern as the header writes it, then the body as written.
    pub source: String,
    /// Who last changed the method and when, as Monticello keeps it (`ab 12/4/2026 16:34`;
    /// "" when not known: Tonel and FileTree without metadata keep none).
    pub stamp: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// The 1-based file line of the message pattern (source line 1).
    pub line: usize,
}

impl MethodDef {
    /// The file line of 1-based line `source_line` of [`MethodDef::source`].
    pub fn file_line(&self, source_line: usize) -> usize {
        self.line.saturating_add(source_line.max(1) - 1)
    }
}

/// A package: its classes and all its methods (class and extension methods, in file order,
/// files sorted by name).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Package {
    /// The package name from `package.st`.
    pub name: String,
    /// The Tonel version its files are written in, as they show it.
    pub version: Version,
    /// The classes defined.
    pub classes: Vec<ClassDef>,
    /// The methods.
    pub methods: Vec<MethodDef>,
}
