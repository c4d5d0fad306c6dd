//! The FileTree package format (Cypress properties files), read in both of its metadata
//! flavours and written without method metadata, as Iceberg writes it.
//!
//! A package is a folder `Pkg.package/` holding `.filetree`, `properties.json`,
//! `monticello.meta/package` (`(name 'Pkg')`), a folder `Foo.class/` per class
//! (`properties.json` with its definition, `README.md` with its comment) and `Foo.extension/`
//! per extended class (`properties.json` naming it); each of those keeps its methods in
//! `instance/` and `class/`, a file per method whose first line is its category and the rest
//! its source. FileTree's older flavour adds `methodProperties.json` (timestamps) and
//! `monticello.meta/version`; they are read past. Traits are refused (a reader that reports
//! goes on past them, for `onyx check`).

use std::path::{Path, PathBuf};

use super::model::{ClassDef, ClassKind, MethodDef, Package, SourceError};
use super::ston::{self, Ston, json_string, lookup};
use super::{message_pattern, read_text};
use crate::compiler::lexer::Lexer;

/// The `.filetree` of a package, as Iceberg writes it.
const FILETREE: &str = "{\n\t\"separateMethodMetaAndSource\" : false,\n\t\"noMethodMetaData\" : true,\n\t\"useCypressPropertiesFile\" : true\n}";

/// Reads the package in the folder `dir` (`Pkg.package`): an error at its first problem.
pub fn read_package(dir: &Path) -> Result<Package, SourceError> {
    let mut problems = Vec::new();
    let package = read_package_reporting(dir, &mut problems)?;
    problems.into_iter().next().map_or(Ok(package), Err)
}

/// Reads the package in the folder `dir`, going on past a class, extension or method that
/// cannot be read (a trait, bad properties): each problem is added to `problems`, and the
/// package holds the rest. An error when the package itself cannot be read.
pub fn read_package_reporting(dir: &Path, problems: &mut Vec<SourceError>) -> Result<Package, SourceError> {
    let meta = dir.join("monticello.meta").join("package");
    let name = if meta.is_file() {
        let text = read_text(&meta)?;
        let quoted = text.trim().strip_prefix("(name ").and_then(|t| t.strip_suffix(')'));
        let name = quoted.and_then(|q| q.strip_prefix('\'')?.strip_suffix('\'')).map(|n| n.replace("''", "'"));
        name.ok_or_else(|| SourceError::whole(&meta, "expected (name 'Package')"))?
    } else {
        let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let name = folder.strip_suffix(".package").filter(|n| !n.is_empty());
        name.ok_or_else(|| SourceError::whole(dir, "not a FileTree package (a folder named Pkg.package)"))?.to_string()
    };
    let mut package = Package { name, ..Package::default() };
    for (file_name, path) in listed(dir)? {
        if !path.is_dir() {
            continue;
        }
        if file_name.ends_with(".trait") {
            problems.push(SourceError::whole(&path, "traits are not supported"));
            continue;
        }
        if let Err(e) = read_class_folder(&path, &file_name, &mut package, problems) {
            problems.push(e);
        }
    }
    Ok(package)
}

/// Reads a `Foo.class` or `Foo.extension` folder into `package` (anything else is passed
/// by); a method that cannot be read is added to `problems`.
fn read_class_folder(
    path: &Path,
    file_name: &str,
    package: &mut Package,
    problems: &mut Vec<SourceError>,
) -> Result<(), SourceError> {
    let class_name = if let Some(folder) = file_name.strip_suffix(".class") {
        let class = class_def(path, &package.name)?;
        let name = class.name.clone();
        if name != folder {
            let message = format!("the class {name} in the folder of {folder}");
            return Err(SourceError::whole(&path.join("properties.json"), message));
        }
        package.classes.push(class);
        name
    } else if let Some(class) = file_name.strip_suffix(".extension") {
        let properties = properties(&path.join("properties.json"))?;
        match lookup(&properties, "name").and_then(Ston::name) {
            Some(name) => name.to_string(),
            None => class.to_string(),
        }
    } else {
        return Ok(());
    };
    for (side, class_side) in [("class", true), ("instance", false)] {
        let folder = path.join(side);
        if folder.is_dir() {
            for (_, file) in listed(&folder)? {
                match method(&file, &class_name, class_side) {
                    Ok(m) => package.methods.push(m),
                    Err(e) => problems.push(e),
                }
            }
        }
    }
    Ok(())
}

/// The package folders under `root`: each folder named `*.package`, in name order.
pub fn package_dirs(root: &Path) -> Result<Vec<PathBuf>, SourceError> {
    let listed = listed(root)?.into_iter();
    Ok(listed.filter(|(name, path)| name.ends_with(".package") && path.is_dir()).map(|(_, path)| path).collect())
}

/// Reads every package under `root`: each folder named `*.package`, in name order.
pub fn read_packages(root: &Path) -> Result<Vec<Package>, SourceError> {
    package_dirs(root)?.iter().map(|dir| read_package(dir)).collect()
}

/// The entries of a folder, sorted by name.
fn listed(dir: &Path) -> Result<Vec<(String, PathBuf)>, SourceError> {
    let entries = std::fs::read_dir(dir).map_err(|e| SourceError::whole(dir, format!("cannot list: {e}")))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SourceError::whole(dir, format!("cannot list: {e}")))?;
        out.push((entry.file_name().to_string_lossy().into_owned(), entry.path()));
    }
    out.sort();
    Ok(out)
}

/// The map a `properties.json` holds.
fn properties(path: &Path) -> Result<Vec<(String, Ston)>, SourceError> {
    let text = read_text(path)?;
    let line = |at: usize| text.get(..at).map_or(0, |t| t.matches('\n').count() + 1);
    match ston::read(&text, 0) {
        Ok((Ston::Map(map), _)) => Ok(map),
        Ok(_) => Err(SourceError { file: path.to_path_buf(), line: 1, message: "expected a JSON object".into() }),
        Err((at, message)) => Err(SourceError { file: path.to_path_buf(), line: line(at), message }),
    }
}

fn class_def(dir: &Path, package: &str) -> Result<ClassDef, SourceError> {
    let file = dir.join("properties.json");
    let map = properties(&file)?;
    let err = |message: String| SourceError { file: file.clone(), line: 0, message };
    let text = |key: &str| lookup(&map, key).and_then(Ston::name).map(str::to_string);
    let names = |key: &str| ston::names(&map, key).map_err(|why| err(format!("\"{key}\" {why}")));
    for key in ["traitcomposition", "classtraitcomposition"] {
        if text(key).is_some_and(|t| t != "{}") {
            return Err(err(format!("traits are not supported (\"{key}\")")));
        }
    }
    let name = text("name").ok_or_else(|| err("the class definition has no \"name\"".into()))?;
    let kind = match text("type") {
        None => ClassKind::Fixed,
        Some(name) => ClassKind::named(&name).ok_or_else(|| err(format!("unsupported class type \"{name}\"")))?,
    };
    let readme = dir.join("README.md");
    let comment = if readme.is_file() { read_text(&readme)? } else { String::new() };
    Ok(ClassDef {
        name,
        superclass: text("super").filter(|s| s != "nil"),
        kind,
        inst_vars: names("instvars")?,
        class_vars: names("classvars")?,
        class_inst_vars: names("classinstvars")?,
        pools: names("pools")?,
        category: text("category").unwrap_or_else(|| package.to_string()),
        category_spelling: Default::default(),
        package: None,
        tag: None,
        comment,
        comment_stamp: text("commentStamp").unwrap_or_default(),
        file: file.clone(),
        line: 1,
    })
}

/// A method file: its category on the first line, its source after.
fn method(file: &Path, class_name: &str, class_side: bool) -> Result<MethodDef, SourceError> {
    let text = read_text(file)?;
    let Some((category, source)) = text.split_once('\n') else {
        return Err(SourceError::whole(file, "expected the method's category on the first line, then its source"));
    };
    let selector = message_pattern(&mut Lexer::new(source)).map(|(selector, _)| selector).ok_or_else(|| {
        SourceError { file: file.to_path_buf(), line: 2, message: "expected a message pattern".into() }
    })?;
    Ok(MethodDef {
        class_name: class_name.to_string(),
        class_side,
        selector,
        category: category.strip_suffix('\r').unwrap_or(category).to_string(),
        source: source.to_string(),
        stamp: String::new(),
        file: file.to_path_buf(),
        line: 2,
    })
}

/// The file name FileTree gives a method: `at:put:` is `at.put..st`, `+` is `^plus.st`.
pub fn method_file_name(selector: &str) -> String {
    const NAMES: &[(char, &str)] = &[
        ('+', "plus"),
        ('-', "minus"),
        ('=', "equals"),
        ('<', "less"),
        ('>', "more"),
        ('%', "percent"),
        ('&', "and"),
        ('|', "pipe"),
        ('*', "star"),
        ('/', "slash"),
        ('\\', "backslash"),
        ('~', "tilde"),
        ('?', "wat"),
        (',', "comma"),
        ('@', "at"),
    ];
    let special = selector.starts_with(|c| NAMES.iter().any(|(s, _)| *s == c));
    if !special {
        return format!("{}.st", selector.replace(':', "."));
    }
    let parts: Vec<String> = selector
        .chars()
        .map(|c| NAMES.iter().find(|(s, _)| *s == c).map_or_else(|| c.to_string(), |(_, n)| n.to_string()))
        .collect();
    format!("^{}.st", parts.join("."))
}

/// A JSON object as Pharo's STON writer pretty-prints it: an entry a line, `{ }` when empty.
fn json_object(entries: &[(&str, String)]) -> String {
    if entries.is_empty() {
        return "{ }".into();
    }
    let lines: Vec<String> = entries.iter().map(|(k, v)| format!("\t{} : {v}", json_string(k))).collect();
    format!("{{\n{}\n}}", lines.join(",\n"))
}

fn json_list(names: &[String]) -> String {
    if names.is_empty() {
        return "[ ]".into();
    }
    let lines: Vec<String> = names.iter().map(|n| format!("\t\t{}", json_string(n))).collect();
    format!("[\n{}\n\t]", lines.join(",\n"))
}

/// The files of `package` as FileTree without method metadata: (path inside the package's
/// folder `Pkg.package`, text).
pub fn package_files(package: &Package) -> Vec<(PathBuf, String)> {
    let mut files = vec![
        (PathBuf::from(".filetree"), FILETREE.to_string()),
        (PathBuf::from("properties.json"), "{ }".to_string()),
        (PathBuf::from("monticello.meta/package"), format!("(name '{}')", package.name.replace('\'', "''"))),
    ];
    let mut extended: Vec<&str> = Vec::new();
    for method in &package.methods {
        let defined = package.classes.iter().any(|c| c.name == method.class_name);
        if !defined && !extended.contains(&method.class_name.as_str()) {
            extended.push(&method.class_name);
        }
    }
    for class in &package.classes {
        let dir = PathBuf::from(format!("{}.class", class.name));
        let properties = json_object(&[
            ("commentStamp", json_string(&class.comment_stamp)),
            ("super", json_string(class.superclass.as_deref().unwrap_or("nil"))),
            ("category", json_string(&class.category)),
            ("classinstvars", json_list(&class.class_inst_vars)),
            ("pools", json_list(&class.pools)),
            ("classvars", json_list(&class.class_vars)),
            ("instvars", json_list(&class.inst_vars)),
            ("name", json_string(&class.name)),
            ("type", json_string(class.kind.name())),
        ]);
        files.push((dir.join("README.md"), class.comment.clone()));
        files.push((dir.join("properties.json"), properties));
        methods(&mut files, &dir, package, &class.name);
    }
    for class_name in extended {
        let dir = PathBuf::from(format!("{class_name}.extension"));
        files.push((dir.join("properties.json"), json_object(&[("name", json_string(class_name))])));
        methods(&mut files, &dir, package, class_name);
    }
    files
}

fn methods(files: &mut Vec<(PathBuf, String)>, dir: &Path, package: &Package, class_name: &str) {
    for m in package.methods.iter().filter(|m| m.class_name == class_name) {
        let side = if m.class_side { "class" } else { "instance" };
        files.push((dir.join(side).join(method_file_name(&m.selector)), format!("{}\n{}", m.category, m.source)));
    }
}

#[cfg(test)]
mod tests;
