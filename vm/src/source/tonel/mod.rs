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
//! `../ston.rs` holds the metadata's STON. Traits are refused.

mod read;
mod write;

use std::path::Path;

use super::model::{Package, SourceError, Spelling, Version};
use super::read_text;

pub use read::{parse_class_file, parse_package_file, read_properties};
pub use write::{package_files, write_class_file, write_extension_file};

/// Reads the package in directory `dir`.
pub fn read_package(dir: &Path) -> Result<Package, SourceError> {
    let package_file = dir.join("package.st");
    let text = read_text(&package_file)?;
    let (name, spelling) = parse_package_file(&package_file, &text)?;
    let entries = std::fs::read_dir(dir).map_err(|e| SourceError::whole(dir, format!("cannot list: {e}")))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SourceError::whole(dir, format!("cannot list: {e}")))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !file_name.ends_with(".st") || file_name == "package.st" || path.is_dir() {
            continue;
        }
        if file_name.ends_with(".trait.st") {
            return Err(SourceError::whole(&path, "traits are not supported"));
        }
        if !file_name.ends_with(".class.st") && !file_name.ends_with(".extension.st") {
            return Err(SourceError::whole(&path, "unexpected file (expected *.class.st or *.extension.st)"));
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
pub fn read_packages(root: &Path) -> Result<Vec<Package>, SourceError> {
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
    dirs.iter().map(|(_, dir)| read_package(dir)).collect()
}

#[cfg(test)]
mod tests;
