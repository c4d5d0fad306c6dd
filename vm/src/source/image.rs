//! Packages as the image holds them: which classes and methods belong to a package, and a
//! package's definitions taken from the image (what a save writes, what a load compares
//! against to know what to remove).
//!
//! A class belongs to the package its category names (`Pkg` or `Pkg-Tag`); a method to its
//! class's package, unless its protocol names another (`*Other` or `*other-tag`, any case):
//! Pharo's and Monticello's rule. Where several package names fit, the longest one wins, so
//! `Neo-JSON-Core` is not part of `Neo-JSON`; the kernel's packages (named in the global
//! `KernelPackages` when the VM boots) always count, so `Kernel` holds none of their classes.

use std::path::PathBuf;

use super::model::{ClassDef, ClassKind, MethodDef, Package};
use crate::heap::Kind;
use crate::value::Value;
use crate::vm::{Vm, class_slots as cs};

/// Whether `category` (a class's) is package `name`'s: `name` itself or `name-Tag`.
fn in_package(category: &str, name: &str) -> bool {
    category.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
}

/// The package that owns `category` among `names`: the longest that fits.
pub(crate) fn owner<'n>(category: &str, names: &'n [String]) -> Option<&'n str> {
    names.iter().filter(|n| in_package(category, n)).max_by_key(|n| n.len()).map(String::as_str)
}

/// The package an extension protocol (`*Pkg`, `*pkg-tag`) names among `lower` (package
/// names in lower case), in any case.
pub(crate) fn extension_owner<'n>(protocol: &str, lower: &'n [String]) -> Option<&'n str> {
    owner(&protocol.strip_prefix('*')?.to_lowercase(), lower)
}

/// The global that names the kernel's packages (an Array of Strings), set when the VM boots.
const KERNEL_PACKAGES: &str = "KernelPackages";

impl Vm {
    /// The packages of the kernel the image was booted from: theirs are the kernel's classes.
    pub fn kernel_packages(&mut self) -> Vec<String> {
        let Some(array) = self.global(KERNEL_PACKAGES) else { return Vec::new() };
        self.bring_in(&[array]);
        let items = self.array_items(array).unwrap_or_default();
        self.bring_in(&items);
        items.into_iter().filter_map(|n| self.string_of(n)).collect()
    }

    /// Remembers `names` as the kernel's packages.
    pub(crate) fn remember_kernel_packages(&mut self, names: &[String]) {
        let names = names.iter().map(|n| self.new_string(n)).collect();
        let array = self.new_array(names);
        self.set_global(KERNEL_PACKAGES, array);
    }

    /// Every class of the image (not metaclasses), in `Smalltalk`'s order, each brought in
    /// with its metaclass.
    pub fn image_classes(&mut self) -> Vec<Value> {
        let smalltalk = self.known.smalltalk;
        self.bring_in(&[smalltalk]);
        let bindings: Vec<Value> =
            self.dict(smalltalk).map(|d| d.entries().iter().map(|e| e.1).collect()).unwrap_or_default();
        self.bring_in(&bindings);
        let values: Vec<Value> = bindings.iter().filter_map(|&b| self.heap.slot(b, 1)).collect();
        self.bring_in(&values);
        let metas: Vec<Value> = values.iter().filter(|v| v.is_object()).map(|&v| self.class_of(v)).collect();
        self.bring_in(&metas);
        let classes: Vec<Value> =
            values.into_iter().filter(|&c| self.is_behavior(c) && !self.is_metaclass(c) && self.global_is(c)).collect();
        let metas: Vec<Value> = classes.iter().map(|&c| self.class_of(c)).collect();
        self.bring_in(&metas);
        for &c in classes.iter().chain(&metas) {
            let slots = self.heap.get(c).and_then(|o| o.slots()).map(<[Value]>::to_vec).unwrap_or_default();
            self.bring_in(&slots);
        }
        classes
    }

    /// The class `Smalltalk` holds under `name` (brought in), if it holds one.
    pub(crate) fn class_named(&mut self, name: &str) -> Option<Value> {
        let smalltalk = self.known.smalltalk;
        self.bring_in(&[smalltalk]);
        let symbol = self.existing_symbol(name)?;
        let binding = self.dict(smalltalk)?.get(symbol)?;
        self.bring_in(&[binding]);
        let value = self.heap.slot(binding, 1)?;
        self.bring_in(&[value]);
        if !value.is_object() {
            return None;
        }
        let meta = self.class_of(value);
        self.bring_in(&[meta]);
        (self.is_behavior(value) && !self.is_metaclass(value)).then_some(value)
    }

    /// Whether `class` is the global its name names (not a class held under another name).
    fn global_is(&self, class: Value) -> bool {
        self.global(&self.class_name(class)) == Some(class)
    }

    /// A class's category.
    pub(crate) fn category_of(&self, class: Value) -> String {
        self.heap.slot(class, cs::CATEGORY).and_then(|c| self.string_of(c)).unwrap_or_default()
    }

    /// The methods of one side of a class: (selector, method), in the dictionary's order,
    /// each brought in.
    pub(crate) fn methods_of(&mut self, behavior: Value) -> Vec<(String, Value)> {
        let dict = self.heap.slot(behavior, cs::METHOD_DICT).unwrap_or(Value::NIL);
        self.bring_in(&[dict]);
        let entries: Vec<(Value, Value)> = self.dict(dict).map(|d| d.entries().to_vec()).unwrap_or_default();
        let methods: Vec<Value> = entries.iter().map(|e| e.1).collect();
        self.bring_in(&methods);
        entries.into_iter().filter_map(|(s, m)| Some((self.string_of(s)?, m))).collect()
    }

    /// The protocol (category) of a method.
    pub(crate) fn protocol_of(&self, method: Value) -> String {
        self.code_of(method).and_then(|c| self.string_of(c.protocol.get())).unwrap_or_default()
    }

    /// The packages `wanted` as the image holds them, in that order, from one pass over the
    /// image. They and the packages the image remembers (see `registry`) compete for each
    /// class and method: the longest name that fits owns it.
    pub fn package_snapshots(&mut self, wanted: &[String]) -> Vec<Package> {
        let mut names: Vec<String> = wanted.to_vec();
        names.extend(self.recorded_packages());
        names.extend(self.kernel_packages());
        names.sort();
        names.dedup();
        let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        let mut packages: Vec<Package> =
            wanted.iter().map(|name| Package { name: name.clone(), ..Package::default() }).collect();
        let index = |owner: &str| wanted.iter().position(|w| w.eq_ignore_ascii_case(owner));
        let mut classes = self.image_classes();
        classes.sort_by_cached_key(|&c| self.class_name(c));
        for class in classes {
            let category = self.category_of(class);
            let home = owner(&category, &names).and_then(|o| wanted.iter().position(|w| w == o));
            if let Some(i) = home {
                let def = self.class_def(class, category);
                packages.get_mut(i).into_iter().for_each(|p| p.classes.push(def.clone()));
            }
            for class_side in [false, true] {
                let behavior = if class_side { self.class_of(class) } else { class };
                for (selector, method) in self.methods_of(behavior) {
                    let protocol = self.protocol_of(method);
                    let belongs = match extension_owner(&protocol, &lower) {
                        Some(owner) => index(owner),
                        None => home,
                    };
                    let Some(package) = belongs.and_then(|i| packages.get_mut(i)) else { continue };
                    package.methods.push(MethodDef {
                        class_name: self.class_name(class),
                        class_side,
                        selector,
                        category: protocol,
                        source: self.code_of(method).map(|c| c.source.to_string()).unwrap_or_default(),
                        stamp: String::new(),
                        file: PathBuf::new(),
                        line: 1,
                    });
                }
            }
        }
        packages
    }

    /// Package `name` as the image holds it (see [`Vm::package_snapshots`]).
    pub fn package_snapshot(&mut self, name: &str) -> Package {
        self.package_snapshots(&[name.to_string()]).pop().unwrap_or_default()
    }

    /// A class's definition as the image holds it.
    pub(crate) fn class_def(&mut self, class: Value, category: String) -> ClassDef {
        let superclass = self.superclass_of(class);
        let names = |vm: &Vm, v: Value| -> Vec<String> {
            let array = vm.heap.slot(v, cs::INST_VARS).unwrap_or(Value::NIL);
            vm.array_items(array).unwrap_or_default().iter().filter_map(|&s| vm.string_of(s)).collect()
        };
        let pool = self.heap.slot(class, cs::CLASS_POOL).unwrap_or(Value::NIL);
        let class_vars: Vec<String> = self
            .dict(pool)
            .map(|d| d.entries().iter().filter_map(|e| self.string_of(e.0)).collect())
            .unwrap_or_default();
        let kind = match self.format_of(class).map(|f| f.0) {
            Some(Kind::Variable) => ClassKind::Variable,
            Some(Kind::Bytes) => ClassKind::Bytes,
            Some(Kind::Words) => ClassKind::Words,
            Some(Kind::Weak) => ClassKind::Weak,
            _ => ClassKind::Fixed,
        };
        let meta = self.class_of(class);
        ClassDef {
            name: self.class_name(class),
            superclass: (!superclass.is_nil()).then(|| self.class_name(superclass)),
            kind,
            inst_vars: names(self, class),
            class_vars,
            class_inst_vars: names(self, meta),
            pools: Vec::new(),
            category,
            category_spelling: Default::default(),
            package: None,
            tag: None,
            comment: self.heap.slot(class, cs::COMMENT).and_then(|c| self.string_of(c)).unwrap_or_default(),
            comment_stamp: String::new(),
            file: PathBuf::new(),
            line: 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_package_name_owns_a_category() {
        let names = vec!["Neo-JSON".to_string(), "Neo-JSON-Core".to_string(), "Shop".to_string()];
        assert_eq!(owner("Neo-JSON-Core", &names), Some("Neo-JSON-Core"));
        assert_eq!(owner("Neo-JSON-Core-Tests", &names), Some("Neo-JSON-Core"));
        assert_eq!(owner("Neo-JSON-Extras", &names), Some("Neo-JSON"));
        assert_eq!(owner("Shopping", &names), None);
        assert_eq!(owner("Shop", &names), Some("Shop"));
        let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        assert_eq!(extension_owner("*neo-json-core", &lower), Some("neo-json-core"));
        assert_eq!(extension_owner("*Shop-Printing", &lower), Some("shop"));
        assert_eq!(extension_owner("accessing", &lower), None);
    }
}
