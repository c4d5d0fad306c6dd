//! What the image remembers of each package loaded or saved: the version (and where it came
//! from) and a fingerprint of each of its definitions as they were then, so that what changed
//! since, definition by definition, is known (a package is dirty when anything did).
//!
//! The record lives in the image, so it is committed with the code: the global
//! `LoadedPackages`, a SymbolDictionary from package name to an Array of the version's name,
//! where it came from, the definitions' fingerprints (one String, a line per definition: its
//! name, `Foo>>bar`, `Foo class>>new`, `Foo (definition)` or `Foo (comment)`, a tab, and the
//! fingerprint in hexadecimal; one object however large the package), and the versions
//! the code was made from (the version itself, or the two versions a merge joined): the
//! ancestors of the next version saved.

use std::collections::BTreeMap;

use super::diff::{ChangeKind, definitions};
use crate::value::Value;
use crate::vm::Vm;

/// The global that holds the record.
const GLOBAL: &str = "LoadedPackages";

/// What to remember of a package loaded or saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The package's name.
    pub name: String,
    /// The version's name ("" when the files had none).
    pub version: String,
    /// Where it came from or was saved to.
    pub from: String,
    /// The versions it was made from (none: the version itself).
    pub ancestors: Vec<String>,
}

/// A package as the image remembers it, and what changed since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageState {
    /// The package's name.
    pub name: String,
    /// The version it was loaded from or saved as ("" when the files had none).
    pub version: String,
    /// Where that version came from (a folder, a file).
    pub from: String,
    /// The versions the code was made from: the ancestors of the next version saved.
    pub ancestors: Vec<String>,
    /// The definitions changed, added or removed in the image since, by name.
    pub changes: Vec<(String, ChangeKind)>,
}

impl PackageState {
    /// Whether anything changed since the version.
    pub fn dirty(&self) -> bool {
        !self.changes.is_empty()
    }
}

/// A fingerprint of a definition's text (FNV-1a, 60 bits).
fn fingerprint(text: &str) -> i64 {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    (hash >> 4) as i64
}

impl Vm {
    /// The names of the packages the image remembers, sorted.
    pub fn recorded_packages(&mut self) -> Vec<String> {
        let Some(record) = self.record() else { return Vec::new() };
        let keys: Vec<Value> = self.dict(record).map(|d| d.entries().iter().map(|e| e.0).collect()).unwrap_or_default();
        let mut names: Vec<String> = keys.into_iter().filter_map(|k| self.string_of(k)).collect();
        names.sort();
        names
    }

    /// Remembers package `name` as the image now holds it, as version `version` from `from`,
    /// made from the versions `ancestors` (the version itself when none are given).
    pub fn record_package(&mut self, name: &str, version: &str, from: &str, ancestors: &[String]) {
        let record =
            Record { name: name.into(), version: version.into(), from: from.into(), ancestors: ancestors.into() };
        self.record_packages(&[record]);
    }

    /// Remembers each package as the image now holds it (one pass over the image for all).
    pub fn record_packages(&mut self, records: &[Record]) {
        let names: Vec<String> = records.iter().map(|r| r.name.clone()).collect();
        for (r, held) in records.iter().zip(self.package_snapshots(&names)) {
            self.record_held(&held, &r.version, &r.from, &r.ancestors);
        }
    }

    fn record_held(&mut self, held: &super::model::Package, version: &str, from: &str, ancestors: &[String]) {
        let name = held.name.as_str();
        let mut prints = String::new();
        for (key, definition) in definitions(held) {
            prints.push_str(&format!("{key}\t{:x}\n", fingerprint(&definition.text())));
        }
        let ancestors: Vec<String> = match ancestors {
            [] if !version.is_empty() => vec![version.to_string()],
            given => given.to_vec(),
        };
        let ancestors = ancestors.iter().map(|a| self.new_string(a)).collect();
        let entry =
            vec![self.new_string(version), self.new_string(from), self.new_string(&prints), self.new_array(ancestors)];
        let entry = self.new_array(entry);
        let record = match self.record() {
            Some(record) => record,
            None => {
                let record = self.new_dict(self.known.symbol_dictionary);
                self.set_global(GLOBAL, record);
                record
            }
        };
        let key = self.intern(name);
        if let Some(d) = self.dict_mut(record) {
            d.insert(key, entry);
        }
        self.heap.note_store(record);
    }

    /// The packages named (every one remembered when none is) as the image remembers them,
    /// with what changed since; a package never loaded or saved is not among them.
    pub fn package_states(&mut self, names: &[String]) -> Vec<PackageState> {
        let names = if names.is_empty() { self.recorded_packages() } else { names.to_vec() };
        let Some(record) = self.record() else { return Vec::new() };
        let mut states = Vec::new();
        let snapshots = self.package_snapshots(&names);
        for (name, held) in names.into_iter().zip(snapshots) {
            let Some(entry) = self.existing_symbol(&name).and_then(|k| self.dict(record)?.get(k)) else { continue };
            self.bring_in(&[entry]);
            let items = self.array_items(entry).unwrap_or_default();
            let item = |i: usize| items.get(i).copied().unwrap_or(Value::NIL);
            self.bring_in(&[item(2), item(3)]);
            let text = |vm: &Vm, v: Value| vm.string_of(v).unwrap_or_default();
            let then: BTreeMap<String, i64> = text(self, item(2))
                .lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(k, p)| (k.to_string(), i64::from_str_radix(p, 16).unwrap_or(-1)))
                .collect();
            let now: BTreeMap<String, i64> =
                definitions(&held).iter().map(|(k, d)| (k.to_string(), fingerprint(&d.text()))).collect();
            let mut changes = Vec::new();
            for (key, print) in &now {
                match then.get(key) {
                    None => changes.push((key.clone(), ChangeKind::Added)),
                    Some(was) if was != print => changes.push((key.clone(), ChangeKind::Changed)),
                    Some(_) => {}
                }
            }
            changes.extend(then.keys().filter(|k| !now.contains_key(*k)).map(|k| (k.clone(), ChangeKind::Removed)));
            changes.sort_by(|a, b| a.0.cmp(&b.0));
            let ancestors = self.array_items(item(3)).unwrap_or_default();
            self.bring_in(&ancestors);
            let ancestors = ancestors.into_iter().map(|a| text(self, a)).collect();
            states.push(PackageState {
                version: text(self, item(0)),
                from: text(self, item(1)),
                ancestors,
                name,
                changes,
            });
        }
        states
    }

    /// The record, if the image has one.
    fn record(&mut self) -> Option<Value> {
        let smalltalk = self.known.smalltalk;
        self.bring_in(&[smalltalk]);
        let binding = self.existing_symbol(GLOBAL).and_then(|k| self.dict(smalltalk)?.get(k))?;
        self.bring_in(&[binding]);
        let record = self.heap.slot(binding, 1)?;
        self.bring_in(&[record]);
        self.dict(record).is_some().then_some(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_small_integers_that_tell_texts_apart() {
        let (a, b) = (fingerprint("\"accessing\"\nfoo\n\t^ 1"), fingerprint("\"accessing\"\nfoo\n\t^ 2"));
        assert_ne!(a, b);
        assert!(Value::int(a).is_some() && Value::int(b).is_some() && a >= 0);
    }
}
