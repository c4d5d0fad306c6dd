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
//! `../ston.rs` holds the metadata's STON. Traits are refused (a reader that reports goes on
//! past them, for `onyx check`).

mod read;
mod write;

use std::path::Path;

use super::model::{Package, SourceError, Spelling, Version};
use super::read_text;

pub use read::{parse_class_file, parse_package_file, read_properties};
pub use write::{package_files, write_class_file, write_extension_file};

/// Reads the package in directory `dir`: an error at its first problem.
pub fn read_package(dir: &Path) -> Result<Package, SourceError> {
    let mut problems = Vec::new();
    let package = read_package_reporting(dir, &mut problems)?;
    problems.into_iter().next().map_or(Ok(package), Err)
}

/// Reads the package in directory `dir`, going on past a file that cannot be read (a trait,
/// a syntax error): each such file's problem is added to `problems`, and the package holds
/// the rest. An error when the package itself cannot be read.
pub fn read_package_reporting(dir: &Path, problems: &mut Vec<SourceError>) -> Result<Package, SourceError> {
    let package_file = dir.join("package.st");
    let text = read_text(&package_file)?;
    let (name, spelling) = parse_package_file(&package_file, &text)?;
    let entries = std::fs::read_dir(dir).map_err(|e| SourceError::whole(dir, format!("cannot list: {e}")))?;
    let mut listed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SourceError::whole(dir, format!("cannot list: {e}")))?;
        listed.push((entry.file_name().to_string_lossy().into_owned(), entry.path()));
    }
    listed.sort();
    let mut package = Package { name, ..Package::default() };
    for (file_name, path) in listed {
        if !file_name.ends_with(".st") || file_name == "package.st" || path.is_dir() {
            continue;
        }
        let read = if file_name.ends_with(".trait.st") {
            Err(SourceError::whole(&path, "traits are not supported"))
        } else if !file_name.ends_with(".class.st") && !file_name.ends_with(".extension.st") {
            Err(SourceError::whole(&path, "unexpected file (expected *.class.st or *.extension.st)"))
        } else {
            read_text(&path).and_then(|text| parse_class_file(&path, &text))
        };
        match read {
            Ok((class, methods)) => {
                package.classes.extend(class);
                package.methods.extend(methods);
            }
            Err(e) => problems.push(e),
        }
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

/// The package folders under `root`: each subdirectory holding a `package.st`, in name order.
pub fn package_dirs(root: &Path) -> Result<Vec<std::path::PathBuf>, SourceError> {
    let entries = std::fs::read_dir(root).map_err(|e| SourceError::whole(root, format!("cannot list: {e}")))?;
    let mut dirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SourceError::whole(root, format!("cannot list: {e}")))?;
        let path = entry.path();
        if path.is_dir() && path.join("package.st").is_file() {
            dirs.push((entry.file_name(), path));
        }
    }
    dirs.sort();
    Ok(dirs.into_iter().map(|(_, dir)| dir).collect())
}

/// Reads every package under `root`: each subdirectory holding a `package.st`, in name order.
pub fn read_packages(root: &Path) -> Result<Vec<Package>, SourceError> {
    package_dirs(root)?.iter().map(|dir| read_package(dir)).collect()
}

#[cfg(test)]
mod tests;
