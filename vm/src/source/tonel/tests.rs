//! Tests of the Tonel reader and writer.

use super::*;
use crate::compiler::parser::parse_method;
use crate::source::model::{ClassDef, ClassKind, MethodDef, Spelling};
use crate::source::ston;
use proptest::prelude::*;
use std::path::PathBuf;

const FOO: &str = r#""
A class comment; embedded double quotes are doubled ""like this"".
"
Class {
	#name : #Foo,
	#superclass : #Object,
	#instVars : [
		'a',
		'b'
	],
	#classVars : [ 'X' ],
	#classInstVars : [ 'count' ],
	#pools : [ 'P' ],
	#type : #variable,
	#category : #'Kernel-Numbers',
	#package : #'Kernel-Numbers'
}

{ #category : #accessing }
Foo >> at: i put: v [
	"body, may contain ] inside strings, comments, character literals $] and nested blocks"
	| s |
	s := 'a ] string'.
	#(1 $] ']') do: [:e | [ e ] value ].
	#[1 2] size.
	^ super at: i put: v
]

{ #category : #'instance creation' }
Foo class >> new [ ^ self basicNew initialize ]

{ #category : #arithmetic, #foo : 3 }
Foo >> + other [

	^ self add: other

]

Foo >> empty [
]
"#;

fn path() -> PathBuf {
    PathBuf::from("Kernel-Numbers/Foo.class.st")
}

fn parse(text: &str) -> (Option<ClassDef>, Vec<MethodDef>) {
    parse_class_file(&path(), text).unwrap()
}

fn parse_err(text: &str) -> (usize, String) {
    let e = parse_class_file(&path(), text).unwrap_err();
    (e.line, e.message)
}

#[test]
fn realistic_class_file() {
    let (class, methods) = parse(FOO);
    let class = class.unwrap();
    assert_eq!(class.name, "Foo");
    assert_eq!(class.superclass.as_deref(), Some("Object"));
    assert_eq!(class.kind, ClassKind::Variable);
    assert_eq!(class.inst_vars, ["a", "b"]);
    assert_eq!(class.class_vars, ["X"]);
    assert_eq!(class.class_inst_vars, ["count"]);
    assert_eq!(class.pools, ["P"]);
    assert_eq!((class.category.as_str(), class.category_spelling), ("Kernel-Numbers", Spelling::Symbol));
    assert_eq!(class.comment, "A class comment; embedded double quotes are doubled \"like this\".");
    assert_eq!(class.line, 4);
    assert_eq!(methods.len(), 4);

    // A method's source is its pattern and its body as written: nothing de-indented.
    let m = &methods[0];
    assert_eq!((m.class_name.as_str(), m.class_side, m.category.as_str()), ("Foo", false, "accessing"));
    assert_eq!(m.selector, "at:put:");
    assert!(m.source.starts_with("at: i put: v\n\t\"body, may contain ]"), "{}", m.source);
    assert!(m.source.ends_with("\n\t^ super at: i put: v"));
    assert_eq!(m.line, 20);
    assert_eq!(m.file_line(1), 20);
    assert_eq!(m.file_line(6), 25);
    assert_eq!(FOO.lines().nth(24), Some("\t#[1 2] size."));
    assert_eq!(m.source.lines().nth(5), Some("\t#[1 2] size."));
    assert!(parse_method(&m.source).is_ok());

    let m = &methods[1];
    assert_eq!((m.class_side, m.category.as_str(), m.selector.as_str()), (true, "instance creation", "new"));
    assert_eq!(m.source, "new ^ self basicNew initialize");
    assert_eq!(m.line, 30);

    let m = &methods[2];
    assert_eq!((m.source.as_str(), m.category.as_str()), ("+ other\n\n\t^ self add: other\n", "arithmetic"));
    assert_eq!((m.line, m.selector.as_str()), (33, "+"));

    assert_eq!((methods[3].source.as_str(), methods[3].category.as_str()), ("empty", ""));
}

#[test]
fn extension_files() {
    let text = "Extension { #name : #Object }\n\n{ #category : #'*Kernel' }\nObject >> isFoo [\n\t^ false\n]\n\n{ #category : #'*Kernel' }\nObject class >> foo: x bar: y [\n\t^ x\n]\n";
    let (class, methods) = parse(text);
    assert!(class.is_none());
    assert_eq!(methods.len(), 2);
    assert_eq!(methods[0].source, "isFoo\n\t^ false");
    assert_eq!((methods[1].source.as_str(), methods[1].selector.as_str()), ("foo: x bar: y\n\t^ x", "foo:bar:"));
    assert!(methods[1].class_side);
    assert_eq!(methods[1].category, "*Kernel");
}

#[test]
fn newer_tonel_spellings() {
    let text = "Class {\n\t#name : 'Bar',\n\t#superclass : 'Foo',\n\t#package : 'Kernel',\n\t#tag : 'Base',\n\t#slots : [ '#x' ]\n}\n\n{ #category : 'accessing' }\nBar >> x [ ^ x ]\n";
    let (class, methods) = parse(text);
    let class = class.unwrap();
    assert_eq!((class.name.as_str(), class.superclass.as_deref()), ("Bar", Some("Foo")));
    assert_eq!(class.category, "Kernel-Base");
    assert_eq!((class.package.as_deref(), class.tag.as_deref()), (Some("Kernel"), Some("Base")));
    assert_eq!(class.inst_vars, ["x"]);
    assert_eq!(class.kind, ClassKind::Fixed);
    assert_eq!(methods[0].category, "accessing");
    let text = "Class { #name : #Root, #superclass : #nil, #category : #K, #type : #bytes }";
    let class = parse(text).0.unwrap();
    assert_eq!((class.superclass, class.kind), (None, ClassKind::Bytes));
    let class = parse("Class { #name : #W, #superclass : nil, #type : #words }").0.unwrap();
    assert_eq!((class.superclass, class.kind, class.category), (None, ClassKind::Words, String::new()));
    assert_eq!(parse("Class { #name : #W, #type : #weak }").0.unwrap().kind, ClassKind::Weak);
    // STON's escapes, in strings and quoted symbols.
    let class = parse("Class { #name : 'A', #category : #'don\\'t\\\\tab\\t\\u00E9' }").0.unwrap();
    assert_eq!(class.category, "don't\\tab\té");
}

#[test]
fn errors() {
    assert_eq!(parse_err("Trait { #name : #T }"), (1, "traits are not supported".into()));
    assert_eq!(parse_err("Class { #name : #A, #traits : 'T' }").1, "traits are not supported (#traits)");
    assert_eq!(parse_err("\n\nFoo { }"), (3, "expected 'Class {' or 'Extension {'".into()));
    assert_eq!(parse_err("Class { #superclass : #Object }"), (1, "class definition has no #name".into()));
    assert_eq!(
        parse_err("Class { #name : #Foo, #type : #compiledMethod }").1,
        "unsupported class #type #compiledMethod"
    );
    assert_eq!(parse_err("Class { #name : #Foo #x : 1 }"), (1, "expected ',' or '}'".into()));
    assert_eq!(parse_err("Class { name : #Foo }").1, "expected a metadata value");
    assert_eq!(parse_err("Class { 3 : #Foo }").1, "expected a map key such as #name");
    assert_eq!(parse_err("Class { #name : 'Foo }").1, "string not closed by '");
    assert_eq!(parse_err("Class {\n #name : 'a\\qb' }"), (2, "unknown escape \\q".into()));
    assert_eq!(parse_err("\"unclosed\nClass {}").1, "unterminated class comment");
    let body_err = parse_err("Class { #name : #Foo }\n\nFoo >> bar [\n\t^ 'oops ]\n");
    assert_eq!(body_err, (3, "method body is not closed by ']' (unterminated string at line 4)".into()));
    assert_eq!(parse_err("Class { #name : #Foo }\nBar >> x [ ]").1, "method of 'Bar' in the file of 'Foo'");
    assert_eq!(parse_err("Class { #name : #Foo }\nFoo x [ ]").1, "expected '>>' in the method header");
    let no_pattern = "expected a message pattern after '>>' and '['";
    assert_eq!(parse_err("Class { #name : #Foo }\nFoo >> x ^ 1").1, no_pattern);
    assert_eq!(parse_err("Class { #name : #Foo }\nFoo >> at: [ ]").1, no_pattern);
    assert_eq!(parse_err("Class { #name : #Foo }\nFoo >> at: a b [ ]").1, no_pattern);
    assert_eq!(
        parse_err("Class { #name : #Foo }\n{ #category : #x }\n").1,
        "expected a method definition 'Class >> selector ['"
    );
    assert_eq!(parse_err("Class { #name : #Foo, #instVars : 'a' }").1, "#instVars must be a list");
    assert_eq!(
        parse_err("Class { #name : #Foo, #slots : [ '#a => WeakSlot' ] }").1,
        "unsupported slot definition 'a => WeakSlot'"
    );
    let deep = format!("Class {{ #name : #Foo, #x : {}1{} }}", "[".repeat(100), "]".repeat(100));
    assert_eq!(parse_err(&deep).1, "metadata nested too deeply");
    let e = parse_class_file(&path(), "Trait {}").unwrap_err();
    assert_eq!(e.to_string(), "Kernel-Numbers/Foo.class.st:1: traits are not supported");
}

#[test]
fn metadata_values() {
    let text =
        "Class { #name : #Foo, #n : -3, #f : 1.5, #b : true, #m : { #k : [ 'x', #y, nil ] }, #e : [ ], #o : { } }";
    assert_eq!(parse(text).0.unwrap().name, "Foo");
    assert_eq!(parse_err("Class { #name : #Foo, #n : ( }").1, "expected a metadata value");
}

fn semantic(methods: &[MethodDef]) -> Vec<(String, bool, String, String)> {
    methods.iter().map(|m| (m.class_name.clone(), m.class_side, m.category.clone(), m.source.clone())).collect()
}

/// Reads the package whose files are `files` and writes it again in `version`.
fn rewritten(files: &[(&str, &str)], version: Version) -> (Package, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let package = read_package(dir.path()).unwrap();
    let written = package_files(&package, version);
    (package, written)
}

fn assert_same_files(files: &[(&str, &str)], written: &[(String, String)]) {
    let mut expected: Vec<(String, String)> = files.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
    expected.sort();
    let mut written = written.to_vec();
    written.sort();
    for (e, w) in expected.iter().zip(&written) {
        assert_eq!(e.0, w.0);
        assert_eq!(e.1, w.1, "{} differs", e.0);
    }
    assert_eq!(expected.len(), written.len());
}

/// A package as Pharo's Tonel writer writes it in v1 (`{ #format : #tonel }`): symbols for
/// names, a category written as a string by an older Pharo beside one written as a symbol,
/// class-side methods first, each side sorted, a pattern over two lines, a body on the
/// header's line.
const V1: &[(&str, &str)] = &[
    ("package.st", "Package { #name : #'Shop-Core' }\n"),
    (
        "ShopItem.class.st",
        "\"\nI am an item of the shop; say \"\"hello\"\".\n\n\tExample: ShopItem named: 'x'\n\"\nClass {\n\t#name : #ShopItem,\n\t#superclass : #Object,\n\t#instVars : [\n\t\t'name',\n\t\t'price'\n\t],\n\t#classVars : [\n\t\t'Count'\n\t],\n\t#classInstVars : [\n\t\t'default'\n\t],\n\t#category : #'Shop-Core'\n}\n\n{ #category : #'instance creation' }\nShopItem class >> named: aString [\n\n\t^ self new\n\t\tname: aString;\n\t\tyourself\n]\n\n{ #category : #accessing }\nShopItem >> name [\n\t^ name\n]\n\n{ #category : #accessing }\nShopItem >> name: aString [ name := aString\n]\n\n{ #category : #printing }\nShopItem >> printOn: aStream\n\twith: extra [\n\t\"A comment with ] and [\"\n\taStream nextPutAll: name; nextPutAll: ' ]'.\n\t^ $]\n]\n",
    ),
    (
        "ShopCart.class.st",
        "Class {\n\t#name : #ShopCart,\n\t#superclass : #OrderedCollection,\n\t#type : #variable,\n\t#category : 'Shop-Core'\n}\n",
    ),
    (
        "Object.extension.st",
        "Extension { #name : #Object }\n\n{ #category : #'*Shop-Core' }\nObject >> isShopItem [\n\t^ false\n]\n\n{ #category : #'*Shop-Core' }\nObject class >> shop [\n\t^ #(1 $] #[2])\n]\n",
    ),
];

/// The same package in v3, as Pharo 12 writes it: strings for names, `#package` and `#tag`.
const V3: &[(&str, &str)] = &[
    ("package.st", "Package { #name : 'Shop-Core' }\n"),
    (
        "ShopItem.class.st",
        "Class {\n\t#name : 'ShopItem',\n\t#superclass : 'Object',\n\t#instVars : [\n\t\t'name'\n\t],\n\t#category : 'Shop-Core-Items',\n\t#package : 'Shop-Core',\n\t#tag : 'Items'\n}\n\n{ #category : 'accessing' }\nShopItem >> name [\n\t^ name\n]\n\n{ #category : 'don\\'t' }\nShopItem >> odd [\n\t^ 'it''s'\n]\n",
    ),
    (
        "Root.class.st",
        "Class {\n\t#name : 'Root',\n\t#superclass : 'nil',\n\t#category : 'Shop-Core',\n\t#package : 'Shop-Core'\n}\n",
    ),
    (
        "Object.extension.st",
        "Extension { #name : 'Object' }\n\n{ #category : '*Shop-Core' }\nObject >> isShopItem [\n\t^ false\n]\n",
    ),
];

#[test]
fn packages_written_by_pharo_are_written_back_byte_for_byte() {
    let (package, written) = rewritten(V1, Version::V1);
    assert_eq!(package.version, Version::V1);
    assert_same_files(V1, &written);
    let item = &package.classes.iter().find(|c| c.name == "ShopItem").unwrap();
    assert_eq!(item.comment, "I am an item of the shop; say \"hello\".\n\n\tExample: ShopItem named: 'x'");
    let printing = package.methods.iter().find(|m| m.selector == "printOn:with:").unwrap();
    assert!(printing.source.starts_with("printOn: aStream\n\twith: extra\n\t\"A comment"), "{}", printing.source);
    let cart = package.classes.iter().find(|c| c.name == "ShopCart").unwrap();
    assert_eq!(cart.category_spelling, Spelling::String);

    let (package, written) = rewritten(V3, Version::V3);
    assert_eq!(package.version, Version::V3);
    assert_same_files(V3, &written);

    // v2: V3's text without #package and #tag.
    let v2: Vec<(&str, String)> = V3
        .iter()
        .map(|(n, t)| {
            let t = t
                .replace(",\n\t#package : 'Shop-Core',\n\t#tag : 'Items'", "")
                .replace(",\n\t#package : 'Shop-Core'", "");
            (*n, t)
        })
        .collect();
    let v2: Vec<(&str, &str)> = v2.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let (package, written) = rewritten(&v2, Version::V2);
    assert_eq!(package.version, Version::V2);
    assert_same_files(&v2, &written);
}

#[test]
fn a_package_is_written_in_another_version() {
    let (package, _) = rewritten(V1, Version::V1);
    let v3 = package_files(&package, Version::V3);
    let item = &v3.iter().find(|(n, _)| n == "ShopItem.class.st").unwrap().1;
    assert!(item.contains("\t#name : 'ShopItem',\n"), "{item}");
    assert!(item.contains("\t#category : 'Shop-Core',\n\t#package : 'Shop-Core'\n}"), "{item}");
    assert!(item.contains("{ #category : 'instance creation' }\nShopItem class >> named: aString [\n\n\t^ self new"));
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in &v3 {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let again = read_package(dir.path()).unwrap();
    assert_eq!(again.methods.len(), package.methods.len());
    for m in &package.methods {
        assert!(again.methods.iter().any(|a| a.source == m.source && a.class_side == m.class_side), "{}", m.source);
    }
    // A tag follows from a category below the package's name.
    let (v3_package, _) = rewritten(V3, Version::V3);
    let mut item = v3_package.classes.iter().find(|c| c.name == "ShopItem").unwrap().clone();
    (item.package, item.tag) = (None, None);
    let text = write_class_file(&item, &[], Version::V3, "Shop-Core");
    assert!(
        text.ends_with("\t#category : 'Shop-Core-Items',\n\t#package : 'Shop-Core',\n\t#tag : 'Items'\n}\n"),
        "{text}"
    );
}

#[test]
fn methods_are_written_in_pharos_order() {
    let text = "Class { #name : #Foo }\nFoo >> b [ ]\nFoo class >> z [ ]\nFoo >> a [ ]\nFoo class >> c [ ]\n";
    let (class, methods) = parse(text);
    let methods: Vec<&MethodDef> = methods.iter().collect();
    let written = write_class_file(&class.unwrap(), &methods, Version::V1, "K");
    let order: Vec<MethodDef> = parse(&written).1;
    let order: Vec<(bool, &str)> = order.iter().map(|m| (m.class_side, m.selector.as_str())).collect();
    assert_eq!(order, [(true, "c"), (true, "z"), (false, "a"), (false, "b")]);
    assert!(written.contains("{ #category : #'as yet unclassified' }\nFoo >> a [\n]\n"), "{written}");
}

#[test]
fn an_extension_keeps_the_order_of_a_selector_on_both_sides() {
    for text in [
        "Extension { #name : #Foo }\n\n{ #category : #'*K' }\nFoo >> a [\n]\n\n{ #category : #'*K' }\nFoo class >> a [\n]\n\n{ #category : #'*K' }\nFoo >> b [\n]\n",
        "Extension { #name : #Foo }\n\n{ #category : #'*K' }\nFoo class >> a [\n]\n\n{ #category : #'*K' }\nFoo >> a [\n]\n\n{ #category : #'*K' }\nFoo >> b [\n]\n",
    ] {
        let methods = parse(text).1;
        let mut refs: Vec<&MethodDef> = methods.iter().collect();
        refs.swap(1, 2);
        refs.swap(0, 1);
        assert_eq!(write_extension_file("Foo", &refs, Version::V1), text);
    }
}

#[test]
fn properties_name_the_version() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(read_properties(dir.path()), Ok(None));
    for (text, version) in [
        ("{\n\t#format : #tonel\n}", None),
        ("{\n\t#format : #tonel,\n\t#version : '1.0'\n}\n", Some(Version::V1)),
        ("{ #format : #tonel, #version : #'2.0' }", Some(Version::V2)),
        ("{ 'format' : #tonel, 'version' : '3.0' }", Some(Version::V3)),
    ] {
        std::fs::write(dir.path().join(".properties"), text).unwrap();
        assert_eq!(read_properties(dir.path()), Ok(version), "{text}");
    }
    std::fs::write(dir.path().join(".properties"), "{ #format : #filetree }").unwrap();
    assert_eq!(read_properties(dir.path()).unwrap_err().message, "the format is filetree, not tonel");
    std::fs::write(dir.path().join(".properties"), "{ #format : ").unwrap();
    assert!(read_properties(dir.path()).is_err());
}

#[test]
fn symbols_are_quoted_as_pharo_quotes_them() {
    assert_eq!(ston::symbol("foo"), "#foo");
    assert_eq!(ston::symbol("Foo2"), "#Foo2");
    assert_eq!(ston::symbol("at:put:"), "#'at:put:'");
    assert_eq!(ston::symbol("Kernel-Numbers"), "#'Kernel-Numbers'");
    assert_eq!(ston::symbol("Foo_Bar"), "#'Foo_Bar'");
    assert_eq!(ston::symbol("it's"), "#'it\\'s'");
    assert_eq!(ston::symbol(""), "#''");
    assert_eq!(ston::string("a\\b\tc\nd\u{1}\u{85}é"), "'a\\\\b\\tc\\nd\\u0001\\u0085é'");
}

#[test]
fn reading_directories() {
    let root = tempfile::tempdir().unwrap();
    let kernel = root.path().join("Kernel");
    let extra = root.path().join("Extra");
    std::fs::create_dir_all(&kernel).unwrap();
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::create_dir_all(root.path().join("NotAPackage")).unwrap();
    std::fs::write(kernel.join("package.st"), "Package { #name : #'Kernel-Numbers' }\n").unwrap();
    std::fs::write(kernel.join("Foo.class.st"), FOO).unwrap();
    std::fs::write(kernel.join("Bar.class.st"), "Class { #name : #Bar, #superclass : #Foo }\nBar >> x [ ^ 1 ]")
        .unwrap();
    std::fs::write(kernel.join("Object.extension.st"), "Extension { #name : #Object }\nObject >> y [ ^ 2 ]").unwrap();
    std::fs::write(kernel.join("README.md"), "ignored").unwrap();
    std::fs::write(extra.join("package.st"), "Package { #name : 'Extra' }").unwrap();

    let package = read_package(&kernel).unwrap();
    assert_eq!(package.name, "Kernel-Numbers");
    let names: Vec<&str> = package.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Bar", "Foo"]);
    let classes: Vec<&str> = package.methods.iter().map(|m| m.class_name.as_str()).collect();
    assert_eq!(classes, ["Bar", "Foo", "Foo", "Foo", "Foo", "Object"]);
    assert_eq!(package.methods[0].file, kernel.join("Bar.class.st"));

    let packages = read_packages(root.path()).unwrap();
    let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Extra", "Kernel-Numbers"]);

    std::fs::write(kernel.join("T.trait.st"), "Trait { #name : #T }").unwrap();
    let e = read_package(&kernel).unwrap_err();
    assert_eq!((e.file, e.line, e.message), (kernel.join("T.trait.st"), 0, "traits are not supported".to_string()));
    // Reporting, the reader goes on past the trait and a file it cannot parse.
    std::fs::write(kernel.join("Broken.class.st"), "Class { #name : #Broken, #traits : 'T' }").unwrap();
    let mut problems = Vec::new();
    let package = super::read_package_reporting(&kernel, &mut problems).unwrap();
    let names: Vec<&str> = package.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Bar", "Foo"]);
    let files: Vec<_> = problems.iter().map(|p| p.file.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(files, ["Broken.class.st", "T.trait.st"]);
    assert_eq!(problems[0].message, "traits are not supported (#traits)");
    let mut problems = Vec::new();
    let packages = crate::source::read_packages_reporting(root.path(), &mut problems);
    assert_eq!(packages.len(), 2);
    assert_eq!(problems.len(), 2);
    std::fs::remove_file(kernel.join("Broken.class.st")).unwrap();
    std::fs::remove_file(kernel.join("T.trait.st")).unwrap();
    std::fs::write(kernel.join("Odd.st"), "").unwrap();
    assert!(read_package(&kernel).unwrap_err().message.starts_with("unexpected file"));
    assert_eq!(read_package(&root.path().join("NotAPackage")).unwrap_err().line, 0);
    std::fs::write(extra.join("package.st"), "Package { #nom : 'Extra' }").unwrap();
    assert_eq!(read_package(&extra).unwrap_err().message, "package definition has no #name");
}

const BODY_LINES: &[&str] = &[
    "^ 1",
    "x := 'a ] string'.",
    "\"a ] comment\"",
    "$] == $[",
    "[:e | e] value: 3.",
    "#[1 2 3] size.",
    "",
    "\t^ self",
    "  indented",
    "trailing  ",
    "'it''s' size",
];

proptest! {
    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = parse_class_file(&path(), &text);
        let _ = parse_package_file(&path(), &text);
    }

    #[test]
    fn mutated_files_never_panic(
        edits in proptest::collection::vec((0usize..1000, 0u8..3, proptest::sample::select("[]{}()#$'\":,>| \nFoo".chars().collect::<Vec<_>>())), 1..8),
    ) {
        let mut chars: Vec<char> = FOO.chars().collect();
        for (pos, op, c) in edits {
            let at = pos % (chars.len() + 1);
            match op {
                0 => chars.insert(at, c),
                1 if at < chars.len() => { chars.remove(at); }
                _ if at < chars.len() => chars[at] = c,
                _ => {}
            }
        }
        let text: String = chars.into_iter().collect();
        let _ = parse_class_file(&path(), &text);
    }

    #[test]
    fn generated_methods_round_trip(
        bodies in proptest::collection::vec(proptest::collection::vec(0..BODY_LINES.len(), 0..6), 1..5),
        comment in "[a-zA-Z \"'\n]{0,30}",
        version in proptest::sample::select(vec![Version::V1, Version::V2, Version::V3]),
    ) {
        let methods: Vec<MethodDef> = bodies.iter().enumerate().map(|(i, lines)| {
            let body: Vec<String> = lines.iter().map(|&l| format!("\n\t{}", BODY_LINES[l])).collect();
            MethodDef {
                class_name: "Foo".into(),
                class_side: i % 2 == 1,
                selector: format!("m{i}:"),
                category: format!("cat {i}"),
                source: format!("m{i}: x{}", body.concat()),
                stamp: String::new(),
                file: PathBuf::new(),
                line: 0,
            }
        }).collect();
        let class = ClassDef {
            name: "Foo".into(), superclass: Some("Object".into()), kind: ClassKind::Weak,
            inst_vars: vec!["a".into()], class_vars: vec![], class_inst_vars: vec!["c".into()],
            pools: vec![], category: "Cat-Egory".into(), category_spelling: Spelling::Symbol,
            package: None, tag: None, comment, comment_stamp: String::new(), file: PathBuf::new(), line: 0,
        };
        let refs: Vec<&MethodDef> = methods.iter().collect();
        let written = write_class_file(&class, &refs, version, "Cat");
        let (read_class, read_methods) = parse_class_file(&path(), &written).unwrap();
        let read_class = read_class.unwrap();
        prop_assert_eq!(&read_class.comment, &class.comment);
        prop_assert_eq!(&read_class.inst_vars, &class.inst_vars);
        let mut expected = semantic(&methods);
        expected.sort_by(|a, b| (!a.1, &a.3).cmp(&(!b.1, &b.3)));
        prop_assert_eq!(expected, semantic(&read_methods));
        let refs: Vec<&MethodDef> = read_methods.iter().collect();
        prop_assert_eq!(write_class_file(&read_class, &refs, version, "Cat"), written);
    }
}
