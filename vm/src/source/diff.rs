//! Comparing two states of a package definition by definition: a class's definition, its
//! comment and each method (by class, side and selector) are added, removed or changed, with
//! the differences of their texts. The three-way merge (`merge.rs`) works on the same
//! definitions.

use std::collections::BTreeMap;

use similar::{ChangeTag, TextDiff};

use super::model::{ClassDef, MethodDef, Package};

/// What a definition is, whatever its content.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// A class's definition: superclass, layout, variables, category.
    Class(String),
    /// A class's comment.
    Comment(String),
    /// A method.
    Method {
        /// The class it belongs to (without ` class`).
        class: String,
        /// Whether it is on the class side.
        class_side: bool,
        /// Its selector.
        selector: String,
    },
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Class(name) => write!(f, "{name} (definition)"),
            Key::Comment(name) => write!(f, "{name} (comment)"),
            Key::Method { class, class_side: true, selector } => write!(f, "{class} class>>{selector}"),
            Key::Method { class, selector, .. } => write!(f, "{class}>>{selector}"),
        }
    }
}

/// A definition's content.
#[derive(Clone, Debug, PartialEq)]
pub enum Definition {
    /// A class definition (its comment apart).
    Class(ClassDef),
    /// A class comment.
    Comment(String),
    /// A method.
    Method(MethodDef),
}

impl Definition {
    /// The text a diff compares and a person reads: a class's definition as a message, a
    /// comment, a method's category and source.
    pub fn text(&self) -> String {
        match self {
            Definition::Class(c) => {
                let list = |names: &[String]| names.join(" ");
                format!(
                    "{} subclass: #{}\n\tlayout: {}\n\tinstanceVariableNames: '{}'\n\tclassVariableNames: '{}'\n\tpoolDictionaries: '{}'\n\tclassInstanceVariableNames: '{}'\n\tcategory: '{}'",
                    c.superclass.as_deref().unwrap_or("nil"),
                    c.name,
                    c.kind.name(),
                    list(&c.inst_vars),
                    list(&c.class_vars),
                    list(&c.pools),
                    list(&c.class_inst_vars),
                    c.category
                )
            }
            Definition::Comment(text) => text.clone(),
            Definition::Method(m) => format!("\"{}\"\n{}", m.category, m.source),
        }
    }

    /// Whether two contents are the same definition, wherever they were read from.
    pub fn same(&self, other: &Definition) -> bool {
        match (self, other) {
            (Definition::Method(a), Definition::Method(b)) => a.category == b.category && a.source == b.source,
            _ => self.text() == other.text(),
        }
    }
}

/// Every definition of `package`, by key.
pub fn definitions(package: &Package) -> BTreeMap<Key, Definition> {
    let mut out = BTreeMap::new();
    for class in &package.classes {
        out.insert(
            Key::Class(class.name.clone()),
            Definition::Class(ClassDef { comment: String::new(), ..class.clone() }),
        );
        if !class.comment.is_empty() {
            out.insert(Key::Comment(class.name.clone()), Definition::Comment(class.comment.clone()));
        }
    }
    for method in &package.methods {
        let key = Key::Method {
            class: method.class_name.clone(),
            class_side: method.class_side,
            selector: method.selector.clone(),
        };
        out.insert(key, Definition::Method(method.clone()));
    }
    out
}

/// The package holding `definitions` (comments joined to their classes), named `name`.
pub fn package_of(name: &str, definitions: &BTreeMap<Key, Definition>) -> Package {
    let mut package = Package { name: name.to_string(), ..Package::default() };
    for definition in definitions.values() {
        match definition {
            Definition::Class(class) => package.classes.push(class.clone()),
            Definition::Method(method) => package.methods.push(method.clone()),
            Definition::Comment(_) => {}
        }
    }
    for class in &mut package.classes {
        if let Some(Definition::Comment(text)) = definitions.get(&Key::Comment(class.name.clone())) {
            class.comment = text.clone();
        }
    }
    package
}

/// How a definition differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Only in the later state.
    Added,
    /// Only in the earlier state.
    Removed,
    /// In both, different.
    Changed,
}

/// One definition that differs between two states.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Which definition.
    pub key: Key,
    /// How it differs.
    pub kind: ChangeKind,
    /// Its text before (none when added).
    pub before: Option<String>,
    /// Its text after (none when removed).
    pub after: Option<String>,
}

impl Change {
    /// The differences of its texts, line by line: `-` removed, `+` added, ` ` kept.
    pub fn lines(&self) -> Vec<(char, String)> {
        let before = self.before.as_deref().unwrap_or_default();
        let after = self.after.as_deref().unwrap_or_default();
        TextDiff::from_lines(before, after)
            .iter_all_changes()
            .map(|c| {
                let sign = match c.tag() {
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                    ChangeTag::Equal => ' ',
                };
                (sign, c.value().trim_end_matches(['\r', '\n']).to_string())
            })
            .collect()
    }
}

/// The definitions that differ from `before` to `after`, in key order.
pub fn diff(before: &Package, after: &Package) -> Vec<Change> {
    let (old, new) = (definitions(before), definitions(after));
    let mut keys: Vec<&Key> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|key| {
            let (kind, before, after) = match (old.get(key), new.get(key)) {
                (Some(a), Some(b)) if a.same(b) => return None,
                (Some(a), Some(b)) => (ChangeKind::Changed, Some(a.text()), Some(b.text())),
                (Some(a), None) => (ChangeKind::Removed, Some(a.text()), None),
                (None, Some(b)) => (ChangeKind::Added, None, Some(b.text())),
                (None, None) => return None,
            };
            Some(Change { key: key.clone(), kind, before, after })
        })
        .collect()
}
