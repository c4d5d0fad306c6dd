//! The three-way merge of two states of a package from their common ancestor, definition by
//! definition (see `diff.rs`). What changed on one side only is taken, removals included: a
//! definition removed on one side and untouched on the other is removed, never added back. A
//! method's category and source merge apart, so a method moved to another category on one
//! side and edited on the other keeps both changes. Every other difference is a conflict,
//! listed with the three versions; nothing is applied until each is resolved, by taking one
//! side or by text edited by hand.

use std::collections::BTreeMap;

use super::diff::{Definition, Key, definitions, package_of};
use super::model::{MethodDef, Package};
use crate::compiler::parser::parse_method;

/// A definition both sides changed, differently.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// Which definition.
    pub key: Key,
    /// It in the common ancestor (none when both sides added it).
    pub base: Option<Definition>,
    /// It on our side (none when we removed it).
    pub ours: Option<Definition>,
    /// It on their side (none when they removed it).
    pub theirs: Option<Definition>,
}

impl Conflict {
    /// Whether text edited by hand can settle it: a method or a comment a side holds.
    pub fn editable(&self) -> bool {
        matches!(self.ours.as_ref().or(self.theirs.as_ref()), Some(Definition::Method(_) | Definition::Comment(_)))
    }
}

/// How a conflict is settled.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolution {
    /// Our side's definition (or its absence).
    Ours,
    /// Their side's definition (or its absence).
    Theirs,
    /// Text edited by hand: a method's source (in the category of the side that has it, ours
    /// first) or a comment.
    Edited(String),
}

/// Why a merge could not be applied.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// Conflicts without a resolution.
    #[error("{} conflicts are not resolved: {}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    Unresolved(Vec<Key>),
    /// A resolution that does not fit its definition.
    #[error("{0}: {1}")]
    Invalid(Key, String),
}

/// A merge under way: what is taken, and the conflicts left to resolve.
#[derive(Clone, Debug, PartialEq)]
pub struct Merge {
    name: String,
    /// The definitions taken without a conflict.
    pub taken: BTreeMap<Key, Definition>,
    /// The conflicts, in key order.
    pub conflicts: Vec<Conflict>,
}

/// Merges `ours` and `theirs` from their common ancestor `base`.
pub fn merge(base: &Package, ours: &Package, theirs: &Package) -> Merge {
    let (b, o, t) = (definitions(base), definitions(ours), definitions(theirs));
    let mut keys: Vec<&Key> = b.keys().chain(o.keys()).chain(t.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut merge = Merge { name: ours.name.clone(), taken: BTreeMap::new(), conflicts: Vec::new() };
    for key in keys {
        let (base, ours, theirs) = (b.get(key), o.get(key), t.get(key));
        match merged(base, ours, theirs) {
            Some(Some(definition)) => {
                merge.taken.insert(key.clone(), definition);
            }
            Some(None) => {}
            None => merge.conflicts.push(Conflict {
                key: key.clone(),
                base: base.cloned(),
                ours: ours.cloned(),
                theirs: theirs.cloned(),
            }),
        }
    }
    merge
}

/// Whether two states of a definition are the same (both absent included).
fn same(a: Option<&Definition>, b: Option<&Definition>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.same(b),
        (None, None) => true,
        _ => false,
    }
}

/// One of three values: the one both sides agree on or the side that changed it; `None` when
/// both changed it differently.
fn pick<'a, T: PartialEq + ?Sized>(base: &'a T, ours: &'a T, theirs: &'a T) -> Option<&'a T> {
    if ours == theirs || theirs == base {
        Some(ours)
    } else if ours == base {
        Some(theirs)
    } else {
        None
    }
}

/// The merged state of one definition (`Some(None)`: absent), or `None` for a conflict.
fn merged(
    base: Option<&Definition>,
    ours: Option<&Definition>,
    theirs: Option<&Definition>,
) -> Option<Option<Definition>> {
    if same(ours, theirs) || same(theirs, base) {
        return Some(ours.cloned());
    }
    if same(ours, base) {
        return Some(theirs.cloned());
    }
    let (Some(Definition::Method(b)), Some(Definition::Method(o)), Some(Definition::Method(t))) = (base, ours, theirs)
    else {
        return None;
    };
    let category = pick(b.category.as_str(), &o.category, &t.category)?;
    let source = pick(b.source.as_str(), &o.source, &t.source)?;
    let from = if source == o.source { o } else { t };
    Some(Some(Definition::Method(MethodDef { category: category.to_string(), ..from.clone() })))
}

impl Merge {
    /// The merged package, each conflict settled by `resolutions`; nothing when one is left
    /// unresolved or cannot be applied.
    pub fn resolve(&self, resolutions: &BTreeMap<Key, Resolution>) -> Result<Package, MergeError> {
        let unresolved: Vec<Key> =
            self.conflicts.iter().filter(|c| !resolutions.contains_key(&c.key)).map(|c| c.key.clone()).collect();
        if !unresolved.is_empty() {
            return Err(MergeError::Unresolved(unresolved));
        }
        let mut all = self.taken.clone();
        for conflict in &self.conflicts {
            let key = &conflict.key;
            let chosen = match resolutions.get(key) {
                Some(Resolution::Ours) => conflict.ours.clone(),
                Some(Resolution::Theirs) => conflict.theirs.clone(),
                Some(Resolution::Edited(text)) => Some(edited(conflict, text)?),
                None => return Err(MergeError::Unresolved(vec![key.clone()])),
            };
            if let Some(definition) = chosen {
                all.insert(key.clone(), definition);
            }
        }
        Ok(package_of(&self.name, &all))
    }
}

/// A conflict's definition with the text edited by hand.
fn edited(conflict: &Conflict, text: &str) -> Result<Definition, MergeError> {
    let side = conflict.ours.as_ref().or(conflict.theirs.as_ref());
    match side {
        Some(Definition::Method(m)) => match parse_method(text) {
            Ok(node) if node.selector == m.selector => {
                Ok(Definition::Method(MethodDef { source: text.to_string(), ..m.clone() }))
            }
            Ok(node) => Err(MergeError::Invalid(
                conflict.key.clone(),
                format!("the edited method is {}, not {}", node.selector, m.selector),
            )),
            Err(e) => Err(MergeError::Invalid(
                conflict.key.clone(),
                format!("the edited method does not parse: {}", e.message),
            )),
        },
        Some(Definition::Comment(_)) => Ok(Definition::Comment(text.to_string())),
        Some(Definition::Class(_)) => {
            Err(MergeError::Invalid(conflict.key.clone(), "a class definition is resolved by taking a side".into()))
        }
        None => Err(MergeError::Invalid(conflict.key.clone(), "neither side has it to edit".into())),
    }
}

#[cfg(test)]
mod tests;
