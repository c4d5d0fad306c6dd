//! Writing Tonel files as Pharo's Tonel writer does, byte for byte: a definition's keys in its
//! order, names as symbols (v1) or strings (v2, v3), class-side methods first and each side
//! sorted by selector, a blank line before each method, and a method's source split after
//! its message pattern (`Foo >> at: i put: v [` then the body as the source holds it).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::compiler::parser::parse_method;
use crate::source::model::{ClassDef, ClassKind, MethodDef, Package, Spelling, Version};
use crate::source::ston::{string, symbol};

/// The files of `package` written in `version`: `package.st`, then a class file per class and
/// an extension file per other class its methods extend, each as (file name, text).
pub fn package_files(package: &Package, version: Version) -> Vec<(String, String)> {
    let mut files =
        vec![("package.st".to_string(), format!("Package {{ #name : {} }}\n", name(version, &package.name)))];
    let mut extended: BTreeMap<&str, Vec<&MethodDef>> = BTreeMap::new();
    for method in &package.methods {
        if !package.classes.iter().any(|c| c.name == method.class_name) {
            extended.entry(&method.class_name).or_default().push(method);
        }
    }
    for class in &package.classes {
        let methods: Vec<&MethodDef> = package.methods.iter().filter(|m| m.class_name == class.name).collect();
        files.push((format!("{}.class.st", class.name), write_class_file(class, &methods, version, &package.name)));
    }
    for (class_name, methods) in extended {
        files.push((format!("{class_name}.extension.st"), write_extension_file(class_name, &methods, version)));
    }
    files
}

/// A name as `version` writes it.
fn name(version: Version, text: &str) -> String {
    if version == Version::V1 { symbol(text) } else { string(text) }
}

/// Writes a STON map of already written values: `{ k : v }` for one entry, else an entry a
/// line.
fn map(entries: &[(&str, String)]) -> String {
    let entries: Vec<String> = entries.iter().map(|(key, value)| format!("#{key} : {value}")).collect();
    if let [only] = entries.as_slice() {
        format!("{{ {only} }}")
    } else {
        format!("{{\n\t{}\n}}", entries.join(",\n\t"))
    }
}

/// Writes a class file in `version`: comment, definition, then `methods` (of `package`).
pub fn write_class_file(class: &ClassDef, methods: &[&MethodDef], version: Version, package: &str) -> String {
    let mut out = String::new();
    if !class.comment.is_empty() {
        let _ = write!(out, "\"\n{}\n\"\n", class.comment.replace('"', "\"\""));
    }
    let mut entries = vec![("name", name(version, &class.name))];
    entries.push(("superclass", name(version, class.superclass.as_deref().unwrap_or("nil"))));
    if class.kind != ClassKind::Fixed {
        entries.push(("type", name(version, class.kind.name())));
    }
    for (key, names) in [
        ("instVars", &class.inst_vars),
        ("classVars", &class.class_vars),
        ("pools", &class.pools),
        ("classInstVars", &class.class_inst_vars),
    ] {
        if !names.is_empty() {
            let items: Vec<String> = names.iter().map(|n| format!("\t\t{}", string(n))).collect();
            entries.push((key, format!("[\n{}\n\t]", items.join(",\n"))));
        }
    }
    let category = match (version, class.category_spelling) {
        (Version::V1, Spelling::Symbol) => symbol(&class.category),
        _ => string(&class.category),
    };
    entries.push(("category", category));
    if version == Version::V3 {
        let (package, tag) = match &class.package {
            Some(package) => (package.as_str(), class.tag.clone()),
            None => {
                let tag = class.category.strip_prefix(package).and_then(|t| t.strip_prefix('-'));
                (package, tag.filter(|t| !t.is_empty()).map(str::to_string))
            }
        };
        entries.push(("package", string(package)));
        if let Some(tag) = tag {
            entries.push(("tag", string(&tag)));
        }
    }
    let _ = writeln!(out, "Class {}", map(&entries));
    let mut methods = methods.to_vec();
    methods.sort_by(|a, b| (!a.class_side, &a.selector).cmp(&(!b.class_side, &b.selector)));
    write_methods(&mut out, &methods, version);
    out
}

/// Writes an extension file of `class_name` holding `methods`, in `version`.
pub fn write_extension_file(class_name: &str, methods: &[&MethodDef], version: Version) -> String {
    let mut out = format!("Extension {}\n", map(&[("name", name(version, class_name))]));
    let mut methods = methods.to_vec();
    // Pharo sorts by selector only, and a selector on both sides comes in either order: a
    // stable sort keeps the order the methods come in (a file's, when read from one).
    methods.sort_by(|a, b| a.selector.cmp(&b.selector));
    write_methods(&mut out, &methods, version);
    out
}

fn write_methods(out: &mut String, methods: &[&MethodDef], version: Version) {
    for method in methods {
        let category = if method.category.is_empty() { "as yet unclassified" } else { &method.category };
        let _ = writeln!(out, "\n{}", map(&[("category", name(version, category))]));
        let side = if method.class_side { " class" } else { "" };
        let (declaration, body) = split_source(&method.source);
        let _ = write!(out, "{}{side} >> {declaration} [{body}\n]\n", method.class_name);
    }
}

/// Splits a method's source after its message pattern: the pattern (without the space
/// before it) and the rest, as written.
fn split_source(source: &str) -> (&str, &str) {
    let end = match parse_method(source) {
        Ok(method) => method.pattern_span.end as usize,
        Err(_) => source.find(['\r', '\n']).unwrap_or(source.len()),
    };
    let (declaration, body) = source.split_at_checked(end).unwrap_or((source, ""));
    (declaration.trim_start(), body)
}
