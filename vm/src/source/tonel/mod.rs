//! Pharo's Tonel package format, read and written as Pharo's own Tonel writer does, so that a
//! package read and written again is the same bytes.
//!
//! A package directory holds `package.st` (`Package { #name : #'Kernel-Numbers' }`), one
//! `Foo.class.st` per class (an optional class comment, a `Class { ... }` definition, then
//! methods) and `Foo.extension.st` files (`Extension { #name : #Foo }` then methods). Each
//! method is an optional metadata map (`{ #category : #accessing }`), a header `Foo >> at: i
//! put: v [` or `Foo class >> new [`, and a body up to the matching `]`. A method's source is
//! its header's message pattern followed by the body exactly as written (indentation and all);
//! only the line break before the closing `]` belongs to the file. The folder's `.properties`
//! may name the format's version: v1 writes names as symbols (`#Foo`), v2 as strings (`'Foo'`),
//! v3 adds `#package` and `#tag` to class definitions. `read.rs` reads, `write.rs` writes,
//! `ston.rs` holds the metadata's STON. Traits are refused.

mod read;
mod ston;
mod write;

use std::path::{Path, PathBuf};

pub use read::{parse_class_file, parse_package_file, read_properties};
pub use write::{package_files, write_class_file, write_extension_file};

/// A problem in a Tonel file; `line` is 1-based, or 0 when it concerns the whole file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{}: {}", .file.display(), .line, .message)]
pub struct TonelError {
    /// The file (or directory) concerned.
    pub file: PathBuf,
    /// The 1-based line, 0 for the whole file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The version of the Tonel format a package is written in.
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

/// A class definition read from a `.class.st` file.
#[derive(Debug, Clone, PartialEq)]
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
    /// The file it was read from.
    pub file: PathBuf,
    /// The line of `Class {`.
    pub line: usize,
}

/// A method read from a class or extension file.
#[derive(Debug, Clone, PartialEq)]
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

/// A Tonel package: its classes and all its methods (class and extension methods, in
/// file order, files sorted by name).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Package {
    /// The package name from `package.st`.
    pub name: String,
    /// The version its files are written in, as they show it.
    pub version: Version,
    /// The classes defined.
    pub classes: Vec<ClassDef>,
    /// The methods.
    pub methods: Vec<MethodDef>,
}

/// Reads the package in directory `dir`.
pub fn read_package(dir: &Path) -> Result<Package, TonelError> {
    let package_file = dir.join("package.st");
    let text = read_text(&package_file)?;
    let (name, spelling) = parse_package_file(&package_file, &text)?;
    let entries = std::fs::read_dir(dir).map_err(|e| whole_file(dir, format!("cannot list: {e}")))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| whole_file(dir, format!("cannot list: {e}")))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !file_name.ends_with(".st") || file_name == "package.st" || path.is_dir() {
            continue;
        }
        if file_name.ends_with(".trait.st") {
            return Err(whole_file(&path, "traits are not supported"));
        }
        if !file_name.ends_with(".class.st") && !file_name.ends_with(".extension.st") {
            return Err(whole_file(&path, "unexpected file (expected *.class.st or *.extension.st)"));
        }
        files.push((file_name, path));
    }
    files.sort();
    let mut package = Package { name, ..Package::default() };
    for (_, path) in files {
        let text = read_text(&path)?;
        let (class, methods) = parse_class_file(&path, &text)?;
        package.classes.extend(class);
        package.methods.extend(methods);
    }
    package.version = match spelling {
        Spelling::Symbol => Version::V1,
        Spelling::String if package.classes.iter().any(|c| c.package.is_some()) || package.classes.is_empty() => {
            Version::V3
        }
        Spelling::String => Version::V2,
    };
    Ok(package)
}

/// Reads every package under `root`: each subdirectory holding a `package.st`, in name order.
pub fn read_packages(root: &Path) -> Result<Vec<Package>, TonelError> {
    let entries = std::fs::read_dir(root).map_err(|e| whole_file(root, format!("cannot list: {e}")))?;
    let mut dirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| whole_file(root, format!("cannot list: {e}")))?;
        let path = entry.path();
        if path.is_dir() && path.join("package.st").is_file() {
            dirs.push((entry.file_name(), path));
        }
    }
    dirs.sort();
    dirs.iter().map(|(_, dir)| read_package(dir)).collect()
}

fn read_text(path: &Path) -> Result<String, TonelError> {
    let bytes = std::fs::read(path).map_err(|e| whole_file(path, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let line = e
            .as_bytes()
            .get(..e.utf8_error().valid_up_to())
            .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count() + 1);
        TonelError { file: path.to_path_buf(), line, message: "not valid UTF-8".into() }
    })
}

fn whole_file(path: &Path, message: impl Into<String>) -> TonelError {
    TonelError { file: path.to_path_buf(), line: 0, message: message.into() }
}

#[cfg(test)]
mod tests;
