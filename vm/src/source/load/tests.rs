//! Tests of loading packages into a booted image: everything or nothing, and updates.

use std::path::Path;

use super::*;
use crate::source::diff::{ChangeKind, diff};
use crate::source::loader::KernelSource;
use crate::source::model::ClassKind;
use crate::source::tonel::parse_class_file;

fn vm() -> Vm {
    Vm::boot(&KernelSource::embedded().without_tests()).unwrap()
}

/// A package `Shop` of Tonel class files (file name, text).
fn package(files: &[(&str, &str)]) -> Package {
    let mut package = Package { name: "Shop".into(), ..Package::default() };
    for (name, text) in files {
        let (class, methods) = parse_class_file(Path::new(name), text).unwrap();
        package.classes.extend(class);
        package.methods.extend(methods);
    }
    package
}

const SHOP: &str = r#""
A shop.
"
Class {
	#name : 'Shop',
	#superclass : 'Object',
	#instVars : [
		'items'
	],
	#classVars : [
		'Opened'
	],
	#category : 'Shop'
}

{ #category : 'initialization' }
Shop class >> initialize [
	Opened := 0
]

{ #category : 'accessing' }
Shop >> items [
	^ items ifNil: [ items := OrderedCollection new ]
]

{ #category : 'accessing' }
Shop >> size [
	^ self items size
]
"#;

const STALL: &str = "Class {
	#name : 'Stall',
	#superclass : 'Shop',
	#category : 'Shop-Stalls'
}

{ #category : 'printing' }
Stall >> kind [
	^ #stall
]
";

const EXTENSION: &str = "Extension { #name : 'Integer' }

{ #category : '*Shop' }
Integer >> shops [
	^ self * 2
]
";

fn eval(vm: &mut Vm, source: &str) -> String {
    let v = vm.evaluate(source).unwrap();
    vm.print_string(v).unwrap()
}

fn shop() -> Package {
    package(&[("Shop.class.st", SHOP), ("Stall.class.st", STALL), ("Integer.extension.st", EXTENSION)])
}

#[test]
fn a_package_loads_and_the_image_holds_it_as_written() {
    let mut vm = vm();
    let mut told = Vec::new();
    let loaded = vm.load(&[shop()], &mut |p| told.push((p.step, p.done, p.total))).unwrap();
    assert_eq!((loaded.classes_defined, loaded.methods_compiled, loaded.unchanged), (2, 5, 0));
    // Each method checked, then each installed, was told as it went.
    let checked: Vec<_> = (0..5).map(|done| (CHECKING, done, 5)).collect();
    let installed: Vec<_> = (0..5).map(|done| (INSTALLING, done, 5)).collect();
    assert_eq!(told, [checked, installed].concat());
    assert_eq!(loaded.to_initialize, vec![vm.global("Shop").unwrap()]);
    vm.initialize_classes(&loaded.to_initialize).unwrap();
    assert_eq!(eval(&mut vm, "Stall new items add: 3; yourself. Stall new size + 21 shops"), "42");
    // Each new class is among its superclass's subclasses, once.
    assert_eq!(eval(&mut vm, "Shop subclasses = {Stall}"), "true");
    assert_eq!(eval(&mut vm, "(Object subclasses select: [:c | c == Shop]) size"), "1");
    // The image holds what was loaded, definition for definition.
    let held = vm.package_snapshot("Shop");
    assert_eq!(diff(&shop(), &held), vec![]);
    // Loading the same again changes nothing.
    let again = vm.load(&[shop()], &mut |_| {}).unwrap();
    assert_eq!((again.classes_defined, again.methods_compiled, again.unchanged), (0, 0, 7));
    assert!(again.to_initialize.is_empty());
}

#[test]
fn a_loaded_method_means_each_name_as_a_method_compiled_in_its_class() {
    let mut vm = vm();
    // A global of the name of Shop's class variable, which the class variable hides; and a
    // doit's warning, which is not the load's.
    eval(&mut vm, "Smalltalk at: #Opened put: 99. Elsewhere");
    let names = "Extension { #name : 'Shop' }

{ #category : '*Shop' }
Shop >> opened [
\t^ Opened
]

{ #category : '*Shop' }
Shop >> stallKind [
\t^ Stall new kind
]

{ #category : '*Shop' }
Shop >> nowhere [
\t^ Nowhere
]
";
    let stall = "Extension { #name : 'Stall' }

{ #category : '*Shop' }
Stall >> size [
\t^ [ :n | super size + n ] value: 100
]
";
    let mut loading = shop();
    loading.methods.extend(package(&[("Shop.extension.st", names), ("Stall.extension.st", stall)]).methods);
    let loaded = vm.load(&[loading], &mut |_| {}).unwrap();
    vm.initialize_classes(&loaded.to_initialize).unwrap();
    assert_eq!(eval(&mut vm, "Shop new opened"), "0");
    assert_eq!(eval(&mut vm, "Smalltalk at: #Opened"), "99");
    assert_eq!(eval(&mut vm, "Shop new stallKind"), "#stall");
    assert_eq!(loaded.warnings, vec!["Shop.extension.st:15: undeclared variable Nowhere"]);
    assert_eq!(eval(&mut vm, "Shop new nowhere"), "nil");
    // A super send in a block of a new class's method starts above that class, as the
    // method's own do (the check compiled it before the class existed).
    assert_eq!(eval(&mut vm, "Stall new size"), "100");
    // A class of the image, outside the package, whose superclass the load changes: its
    // method in the package is compiled against the instance variables it will have.
    eval(&mut vm, "Shop subclass: #Booth instanceVariableNames: '' classVariableNames: '' category: 'Booths'");
    let shop2 = SHOP.replace("\t\t'items'\n", "\t\t'owner',\n\t\t'items'\n");
    let booth = "Extension { #name : 'Booth' }\n\n{ #category : '*Shop' }\nBooth >> held [\n\t^ items\n]\n";
    vm.load(&[package(&[("Shop.class.st", &shop2), ("Booth.extension.st", booth)])], &mut |_| {}).unwrap();
    assert_eq!(eval(&mut vm, "(Booth new instVarNamed: 'items' put: 5; yourself) held"), "5");
}

#[test]
fn any_problem_loads_nothing_and_every_problem_is_reported() {
    let mut vm = vm();
    let broken = STALL.replace("^ #stall", "^ 3 +");
    let orphan = "Class {\n\t#name : 'Kiosk',\n\t#superclass : 'Booth',\n\t#category : 'Shop'\n}\n";
    let argument = "Extension { #name : 'Integer' }\n\n{ #category : '*Shop' }\nInteger >> set: x [\n\tx := 3\n]\n";
    let errors = vm
        .load(
            &[package(&[
                ("Shop.class.st", SHOP),
                ("Stall.class.st", &broken),
                ("Kiosk.class.st", orphan),
                ("Integer.extension.st", argument),
            ])],
            &mut |_| {},
        )
        .unwrap_err();
    let found: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found[0].starts_with("Kiosk.class.st:1: superclass Booth of Kiosk is not defined"), "{found:#?}");
    assert!(found.iter().any(|e| e.starts_with("Stall.class.st:9: ")), "{found:#?}");
    assert!(found.iter().any(|e| e.starts_with("Integer.extension.st:5: cannot store into argument x")), "{found:#?}");
    for name in ["Shop", "Stall", "Kiosk"] {
        assert!(vm.global(name).is_none(), "{name} was defined");
    }
    assert_eq!(eval(&mut vm, "3 respondsTo: #shops"), "false");
    assert_eq!(vm.check_load(&[shop()]), vec![]);
    assert!(vm.global("Shop").is_none());
}

#[test]
fn an_update_changes_what_changed_and_removes_what_went() {
    let mut vm = vm();
    vm.load(&[shop()], &mut |_| {}).unwrap();
    eval(&mut vm, "Smalltalk at: #Kept put: Shop new. Kept items add: 7. Kept");
    // Shop gains an instance variable, `size` changes, `items` stays, Stall and the extension go.
    let shop2 = SHOP
        .replace("\t\t'items'\n", "\t\t'owner',\n\t\t'items'\n")
        .replace("^ self items size", "^ self items size + 100");
    let update = package(&[("Shop.class.st", &shop2)]);
    let loaded = vm.load(std::slice::from_ref(&update), &mut |_| {}).unwrap();
    assert_eq!(
        (loaded.classes_defined, loaded.methods_compiled, loaded.classes_removed, loaded.methods_removed),
        (1, 1, 1, 1)
    );
    assert!(loaded.to_initialize.is_empty());
    assert_eq!(eval(&mut vm, "Kept size"), "101");
    assert_eq!(eval(&mut vm, "Kept instVarNamed: 'owner'"), "nil");
    assert!(vm.global("Stall").is_none());
    assert_eq!(eval(&mut vm, "3 respondsTo: #shops"), "false");
    assert_eq!(diff(&update, &vm.package_snapshot("Shop")), vec![]);
}

#[test]
fn a_failed_update_leaves_the_package_as_it_was() {
    let mut vm = vm();
    vm.load(&[shop()], &mut |_| {}).unwrap();
    eval(&mut vm, "Smalltalk at: #Kept put: Shop new. Kept items add: 7. Kept");
    let shop2 = SHOP.replace("\t\t'items'\n", "\t\t'owner'\n").replace("^ self items size", "^ self items size +");
    let errors = vm.load(&[package(&[("Shop.class.st", &shop2)])], &mut |_| {}).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].line, 28);
    assert_eq!(diff(&shop(), &vm.package_snapshot("Shop")), vec![]);
    assert_eq!(eval(&mut vm, "Kept size"), "1");
}

#[test]
fn definitions_that_cannot_be() {
    let mut vm = vm();
    let class = |name: &str, sup: &str, extra: &str| {
        format!("Class {{\n\t#name : '{name}',\n\t#superclass : '{sup}',{extra}\n\t#category : 'Shop'\n}}\n")
    };
    let (a, b) = (class("A", "B", ""), class("B", "A", ""));
    let twice = class("C", "Object", "\n\t#instVars : [ 'x', 'x' ],");
    let object = class("SmallInteger", "Object", "");
    let errors = vm
        .load(&[package(&[("A.st", &a), ("B.st", &b), ("C.st", &twice), ("O.st", &object)])], &mut |_| {})
        .unwrap_err();
    let found: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert!(found.iter().any(|e| e.contains("would inherit from itself")), "{found:#?}");
    assert!(found.iter().any(|e| e.starts_with("C.st:1: instance variable x is defined twice in C")), "{found:#?}");
    assert!(found.iter().any(|e| e.starts_with("O.st:1: SmallInteger is a VM class")), "{found:#?}");
    let mut lying = shop();
    lying.methods[1].selector = "total".into();
    let said = vm.load(&[lying], &mut |_| {}).unwrap_err();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].message.starts_with("the source defines items, not total"), "{said:?}");
    let dup = vm.load(&[package(&[("S1.st", SHOP)]), package(&[("S2.st", SHOP)])], &mut |_| {}).unwrap_err();
    assert!(
        dup.iter().any(|e| e.to_string().starts_with("S2.st:4: Shop is defined twice (also at S1.st:4)")),
        "{dup:?}"
    );
    assert!(vm.global("A").is_none() && vm.global("C").is_none());
}

#[test]
fn a_package_with_any_character_loads_as_written() {
    let mut vm = vm();
    let wide = "\"\nPrices in €, ¥ and Ω.\n\"\nClass {\n\t#name : 'W',\n\t#superclass : 'Object',\n\t#category : 'Shop'\n}\n\n{ #category : 'prix €' }\nW >> euro [\n\t\"Ω\"\n\t^ '€' , #'→' \n]\n";
    let package = package(&[("W.st", wide)]);
    vm.load(std::slice::from_ref(&package), &mut |_| {}).unwrap();
    assert_eq!(eval(&mut vm, "W new euro"), "'€→'");
    assert_eq!(eval(&mut vm, "W comment"), "'Prices in €, ¥ and Ω.'");
    assert_eq!(diff(&package, &vm.package_snapshot("Shop")), vec![]);
}

#[test]
fn the_image_remembers_the_version_and_what_changed_since() {
    let mut vm = vm();
    vm.load(&[shop()], &mut |_| {}).unwrap();
    assert!(vm.package_states(&[]).is_empty());
    vm.record_package("Shop", "Shop-ab.1", "Shop-ab.1.mcz", &[]);
    let state = &vm.package_states(&[])[0];
    assert_eq!(
        (state.name.as_str(), state.version.as_str(), state.from.as_str()),
        ("Shop", "Shop-ab.1", "Shop-ab.1.mcz")
    );
    assert!(!state.dirty());
    // A method changed, one added, one removed, a comment changed.
    eval(&mut vm, "Shop compile: 'size ^ 0' classified: 'accessing'");
    eval(&mut vm, "Stall compile: 'open ^ true' classified: 'accessing'");
    eval(&mut vm, "Integer removeSelector: #shops");
    eval(&mut vm, "Shop comment: 'A big shop.'");
    let changes = vm.package_states(&["Shop".to_string()]).remove(0).changes;
    assert_eq!(
        changes,
        vec![
            ("Integer>>shops".to_string(), ChangeKind::Removed),
            ("Shop (comment)".to_string(), ChangeKind::Changed),
            ("Shop>>size".to_string(), ChangeKind::Changed),
            ("Stall>>open".to_string(), ChangeKind::Added),
        ]
    );
    assert_eq!(vm.package_states(&[])[0].ancestors, vec!["Shop-ab.1"]);
    // Saved (or loaded) again: clean. A merge names both versions it joined.
    vm.record_package("Shop", "Shop-ab.2", "Shop-ab.2.mcz", &[]);
    assert!(!vm.package_states(&[]).remove(0).dirty());
    let both = vec!["Shop-ab.2".to_string(), "Shop-cd.2".to_string()];
    vm.record_package("Shop", "", "merged", &both);
    assert_eq!(vm.package_states(&[])[0].ancestors, both);
    assert_eq!(vm.recorded_packages(), vec!["Shop"]);
}

#[test]
fn a_weak_class_loads_weak_and_is_written_back_weak() {
    let mut vm = vm();
    let text = "Class {\n\t#name : 'Cache',\n\t#superclass : 'Array',\n\t#type : 'weak',\n\t#category : 'Shop'\n}\n";
    let package = package(&[("Cache.class.st", text)]);
    vm.load(std::slice::from_ref(&package), &mut |_| {}).unwrap();
    assert_eq!(eval(&mut vm, "Cache isWeak & Cache isVariable"), "true");
    assert_eq!(diff(&package, &vm.package_snapshot("Shop")), vec![]);
    assert_eq!(vm.package_snapshot("Shop").classes[0].kind, ClassKind::Weak);
}

#[test]
fn the_kernels_packages_and_classes_stay_the_kernels() {
    let mut vm = vm();
    let class = |name: &str, superclass: &str, category: &str| {
        format!("Class {{\n\t#name : '{name}',\n\t#superclass : '{superclass}',\n\t#category : '{category}'\n}}\n")
    };
    let named = |name: &str, package: Package| Package { name: name.into(), ..package };
    let refused = |vm: &mut Vm, load: Package, says: &str| {
        let errors = vm.load(std::slice::from_ref(&load), &mut |_| {}).expect_err("refused");
        assert!(errors.iter().any(|e| e.message.contains(says)), "{errors:?}");
    };
    // A package of the kernel's name, that would remove Object and the rest of it.
    let foo = class("Foo", "Object", "Kernel-Objects");
    refused(&mut vm, named("Kernel-Objects", package(&[("Foo.class.st", &foo)])), "is the kernel's (Kernel-Objects)");
    // A package of one's own that defines a kernel class, and would take it out of the kernel.
    let object = "Class {\n\t#name : 'Object',\n\t#superclass : nil,\n\t#category : 'Shop'\n}\n";
    refused(&mut vm, package(&[("Object.class.st", object)]), "Object is the kernel's (package Kernel-Objects)");
    // A new class put in a kernel package.
    refused(&mut vm, package(&[("Foo.class.st", &foo)]), "would join the kernel's package Kernel-Objects");
    assert_eq!(eval(&mut vm, "Object category"), "'Kernel-Objects'", "nothing changed");
    assert_eq!(eval(&mut vm, "Smalltalk includesKey: #Foo"), "false");
    // A package whose name the kernel's packages start with holds none of their classes.
    let kernel = named("Kernel", package(&[("Foo.class.st", &class("Foo", "Object", "Kernel"))]));
    let loaded = vm.load(std::slice::from_ref(&kernel), &mut |_| {}).expect("loads");
    assert_eq!(loaded.classes_removed, 0);
    let emptied = vm.load(&[named("Kernel", Package::default())], &mut |_| {}).expect("loads");
    assert_eq!(emptied.classes_removed, 1, "Foo alone");
    assert_eq!(eval(&mut vm, "Smalltalk includesKey: #Boolean"), "true");
    // Extending a kernel class from a package of one's own is a load like any.
    let mut shop = shop();
    let extension = "Extension { #name : 'Object' }\n\n{ #category : '*Shop' }\nObject >> isShop [\n\t^ false\n]\n";
    let (_, methods) = parse_class_file(Path::new("Object.extension.st"), extension).unwrap();
    shop.methods.extend(methods);
    vm.load(&[shop], &mut |_| {}).expect("loads");
    assert_eq!(eval(&mut vm, "3 isShop"), "false");
}

#[test]
fn the_kernels_own_packages_may_be_checked_not_loaded() {
    let mut vm = vm();
    let kernel = KernelSource::embedded().without_tests().packages().unwrap();
    assert_eq!(vm.check_load(&kernel), vec![], "the kernel's sources check against the kernel");
    let object = "Class {\n\t#name : 'Object',\n\t#superclass : nil,\n\t#category : 'Shop'\n}\n";
    assert!(!vm.check_load(&[package(&[("Object.class.st", object)])]).is_empty(), "as a load would refuse");
    assert!(vm.load(&kernel[..1], &mut |_| {}).is_err());
}
