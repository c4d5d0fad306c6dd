//! Source code on disk: the package model (`model`), Tonel, FileTree, Monticello and chunk files, the
//! STON that Tonel's metadata is written in, the per-definition diff and three-way merge of two
//! states of a package, the loader that boots a VM from the kernel packages, loading packages
//! into a running image all or nothing (`load`), packages as the image holds them (`image`), and
//! what the image remembers of the versions loaded and saved (`registry`).

pub mod chunk;
pub mod diff;
pub mod filetree;
mod image;
mod load;
mod loader;
pub mod merge;
pub mod model;
pub mod monticello;
mod registry;
pub mod save;
mod ston;
pub mod tonel;

pub use load::{Loaded, Progress};
pub use loader::{KernelSource, LoadReport};
pub use model::{ClassDef, ClassKind, MethodDef, Package, SourceError, Spelling, Version};
pub use registry::{PackageState, Record};

use std::path::Path;

use crate::compiler::lexer::{Lexer, Token, TokenKind};

/// The packages at `path`, in any format Onyx reads: a Tonel package (a folder holding
/// `package.st`), a FileTree package (a folder `Pkg.package`), a Monticello version (`.mcz`),
/// or a folder of Tonel and FileTree packages (in name order).
pub fn read_packages(path: &Path) -> Result<Vec<Package>, SourceError> {
    if path.extension().is_some_and(|e| e == "mcz") && path.is_file() {
        return Ok(vec![monticello::read(path)?.package]);
    }
    if path.join("package.st").is_file() {
        return Ok(vec![tonel::read_package(path)?]);
    }
    if path.extension().is_some_and(|e| e == "package") && path.is_dir() {
        return Ok(vec![filetree::read_package(path)?]);
    }
    let mut packages = tonel::read_packages(path)?;
    packages.extend(filetree::read_packages(path)?);
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(packages)
}

/// The packages at `path` as [`read_packages`] reads them, going on past every problem for
/// `onyx check`: a file or package that cannot be read is added to `problems`, and the rest
/// is read.
pub fn read_packages_reporting(path: &Path, problems: &mut Vec<SourceError>) -> Vec<Package> {
    if path.extension().is_some_and(|e| e == "mcz") && path.is_file() {
        return monticello::read(path).map(|v| v.package).map_err(|e| problems.push(e)).into_iter().collect();
    }
    let dirs = if path.join("package.st").is_file() || (path.extension().is_some_and(|e| e == "package")) {
        vec![path.to_path_buf()]
    } else {
        let mut dirs = Vec::new();
        for found in [tonel::package_dirs(path), filetree::package_dirs(path)] {
            match found {
                Ok(found) => dirs.extend(found),
                Err(e) => {
                    problems.push(e);
                    return Vec::new();
                }
            }
        }
        dirs
    };
    let mut packages = Vec::new();
    for dir in dirs {
        let read = if dir.join("package.st").is_file() {
            tonel::read_package_reporting(&dir, problems)
        } else {
            filetree::read_package_reporting(&dir, problems)
        };
        match read {
            Ok(package) => packages.push(package),
            Err(e) => problems.push(e),
        }
    }
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    packages
}

/// The text of a package's file, which must be UTF-8.
pub(crate) fn read_text(path: &Path) -> Result<String, SourceError> {
    let bytes = std::fs::read(path).map_err(|e| SourceError::whole(path, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.as_bytes().get(..e.utf8_error().valid_up_to()).unwrap_or_default();
        let line = valid.iter().filter(|&&c| c == b'\n').count() + 1;
        SourceError { file: path.to_path_buf(), line, message: "not valid UTF-8".into() }
    })
}

/// Reads the message pattern a method starts with (`at: i put: v`, `+ other`, `size`):
/// answers its selector and the token after it.
pub(crate) fn message_pattern(lexer: &mut Lexer<'_>) -> Option<(String, Token)> {
    let argument = |lexer: &mut Lexer<'_>| matches!(lexer.next_token().kind, TokenKind::Ident(_));
    let mut token = lexer.next_token();
    match token.kind {
        TokenKind::Ident(name) => return Some((name, lexer.next_token())),
        TokenKind::Binary(op) => return argument(lexer).then(|| (op, lexer.next_token())),
        _ => {}
    }
    let mut selector = String::new();
    while let TokenKind::Keyword(keyword) = token.kind {
        selector.push_str(&keyword);
        if !argument(lexer) {
            return None;
        }
        token = lexer.next_token();
    }
    (!selector.is_empty()).then_some((selector, token))
}
