//! Tests of the Tonel reader and writer.

use super::*;
use proptest::prelude::*;

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
    assert_eq!(class.category, "Kernel-Numbers");
    assert_eq!(class.comment, "A class comment; embedded double quotes are doubled \"like this\".");
    assert_eq!(class.line, 4);
    assert_eq!(methods.len(), 4);

    let m = &methods[0];
    assert_eq!((m.class_name.as_str(), m.class_side, m.category.as_str()), ("Foo", false, "accessing"));
    assert!(m.source.starts_with("at: i put: v\n\"body, may contain ]"));
    assert!(m.source.ends_with("\n^ super at: i put: v"));
    assert_eq!((m.line, m.body_first_line), (20, 21));
    assert_eq!(m.file_line(1), 20);
    assert_eq!(m.file_line(6), 25);
    assert_eq!(FOO.lines().nth(24), Some("\t#[1 2] size."));
    assert!(parse_method(&m.source).is_ok());

    let m = &methods[1];
    assert_eq!((m.class_side, m.category.as_str()), (true, "instance creation"));
    assert_eq!(m.source, "new\n^ self basicNew initialize");
    assert_eq!((m.line, m.body_first_line), (30, 30));

    let m = &methods[2];
    assert_eq!((m.source.as_str(), m.category.as_str()), ("+ other\n^ self add: other", "arithmetic"));
    assert_eq!((m.line, m.body_first_line), (33, 35));

    assert_eq!((methods[3].source.as_str(), methods[3].category.as_str()), ("empty", ""));
}

#[test]
fn extension_files() {
    let text = "Extension { #name : #Object }\n\n{ #category : #'*Kernel' }\nObject >> isFoo [\n\t^ false\n]\n\n{ #category : #'*Kernel' }\nObject class >> foo: x bar: y [\n\t^ x\n]\n";
    let (class, methods) = parse(text);
    assert!(class.is_none());
    assert_eq!(methods.len(), 2);
    assert_eq!(methods[0].source, "isFoo\n^ false");
    assert_eq!(methods[1].source, "foo: x bar: y\n^ x");
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
    assert_eq!(class.inst_vars, ["x"]);
    assert_eq!(class.kind, ClassKind::Fixed);
    assert_eq!(methods[0].category, "accessing");
    let text = "Class { #name : #Root, #superclass : #nil, #category : #K, #type : #bytes }";
    let class = parse(text).0.unwrap();
    assert_eq!((class.superclass, class.kind), (None, ClassKind::Bytes));
    let class = parse("Class { #name : #W, #superclass : nil, #type : #words }").0.unwrap();
    assert_eq!((class.superclass, class.kind, class.category), (None, ClassKind::Words, String::new()));
    assert_eq!(parse("Class { #name : #W, #type : #weak }").0.unwrap().kind, ClassKind::Weak);
}

#[test]
fn errors() {
    assert_eq!(parse_err("Trait { #name : #T }"), (1, "traits are not supported".into()));
    assert_eq!(parse_err("\n\nFoo { }"), (3, "expected 'Class {' or 'Extension {'".into()));
    assert_eq!(parse_err("Class { #superclass : #Object }"), (1, "class definition has no #name".into()));
    assert_eq!(
        parse_err("Class { #name : #Foo, #type : #compiledMethod }").1,
        "unsupported class #type #compiledMethod"
    );
    assert_eq!(parse_err("Class { #name : #Foo #x : 1 }"), (1, "expected ',' or '}'".into()));
    assert_eq!(parse_err("Class { name : #Foo }").1, "expected a map key such as #name");
    assert_eq!(parse_err("\"unclosed\nClass {}").1, "unterminated class comment");
    let body_err = parse_err("Class { #name : #Foo }\n\nFoo >> bar [\n\t^ 'oops ]\n");
    assert_eq!(body_err, (3, "method body is not closed by ']' (unterminated string at line 4)".into()));
    assert_eq!(parse_err("Class { #name : #Foo }\nBar >> x [ ]").1, "method of 'Bar' in the file of 'Foo'");
    assert_eq!(parse_err("Class { #name : #Foo }\nFoo x [ ]").1, "expected '>>' in the method header");
    assert_eq!(parse_err("Class { #name : #Foo }\nFoo >> x ^ 1").1, "expected '[' to start the method body");
    assert_eq!(parse_err("Class { #name : #Foo }\nFoo >> at: [ ]").1, "expected a message pattern after '>>'");
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
    assert_eq!(parse_err("Class { #name : #Foo, #n : - 3 }").1, "expected a number after '-'");
    assert_eq!(parse_err("Class { #name : #Foo, #n : ( }").1, "expected a metadata value");
}

fn semantic(methods: &[MethodDef]) -> Vec<(String, bool, String, String)> {
    methods.iter().map(|m| (m.class_name.clone(), m.class_side, m.category.clone(), m.source.clone())).collect()
}

fn same_class(a: &ClassDef, b: &ClassDef) -> bool {
    ClassDef { file: PathBuf::new(), line: 0, ..a.clone() } == ClassDef { file: PathBuf::new(), line: 0, ..b.clone() }
}

#[test]
fn round_trip() {
    let (class, methods) = parse(FOO);
    let class = class.unwrap();
    let written = write_class_file(&class, &methods);
    let (class2, methods2) = parse(&written);
    let class2 = class2.unwrap();
    assert!(same_class(&class, &class2), "{written}");
    assert_eq!(semantic(&methods), semantic(&methods2));
    assert_eq!(write_class_file(&class2, &methods2), written);
    // Line mapping still holds in the written file.
    let lines: Vec<&str> = written.lines().collect();
    for m in &methods2 {
        assert!(lines[m.line - 1].contains(">>"));
        for (k, text) in m.source.lines().enumerate().skip(1) {
            assert_eq!(lines[m.file_line(k + 1) - 1].trim(), text.trim());
        }
    }

    let ext = parse("Extension { #name : #Object }\nObject >> foo [ ^ 1 ]");
    let written = write_extension_file("Object", &ext.1);
    assert_eq!(semantic(&parse(&written).1), semantic(&ext.1));
}

#[test]
fn writer_splits_unnormalized_sources() {
    let class = ClassDef {
        name: "Foo".into(),
        superclass: None,
        kind: ClassKind::Fixed,
        inst_vars: vec![],
        class_vars: vec![],
        class_inst_vars: vec![],
        pools: vec![],
        category: "K".into(),
        comment: String::new(),
        file: PathBuf::new(),
        line: 0,
    };
    let method = |source: &str| MethodDef {
        class_name: "Foo".into(),
        class_side: false,
        category: "x y".into(),
        source: source.into(),
        file: PathBuf::new(),
        line: 0,
        body_first_line: 0,
    };
    let written = write_class_file(&class, &[method("foo ^ 1"), method("at:  i\n   put: v\n\t^ i")]);
    let (_, methods) = parse(&written);
    assert_eq!(methods[0].source, "foo\n^ 1");
    assert_eq!(methods[1].source, "at: i put: v\n\t^ i");
    assert_eq!(methods[1].category, "x y");
}

#[test]
fn symbols_are_quoted_when_needed() {
    assert_eq!(symbol("foo"), "#foo");
    assert_eq!(symbol("at:put:"), "#at:put:");
    assert_eq!(symbol("Kernel-Numbers"), "#'Kernel-Numbers'");
    assert_eq!(symbol("it's"), "#'it''s'");
    assert_eq!(symbol(""), "#''");
    assert_eq!(symbol("a:b"), "#'a:b'");
    assert_eq!(symbol("1a"), "#'1a'");
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("onyx-tonel-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn reading_directories() {
    let root = TempDir::new("read");
    let kernel = root.0.join("Kernel");
    let extra = root.0.join("Extra");
    std::fs::create_dir_all(&kernel).unwrap();
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::create_dir_all(root.0.join("NotAPackage")).unwrap();
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

    let packages = read_packages(&root.0).unwrap();
    let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Extra", "Kernel-Numbers"]);

    std::fs::write(kernel.join("T.trait.st"), "Trait { #name : #T }").unwrap();
    let e = read_package(&kernel).unwrap_err();
    assert_eq!((e.file, e.line, e.message), (kernel.join("T.trait.st"), 0, "traits are not supported".to_string()));
    std::fs::remove_file(kernel.join("T.trait.st")).unwrap();
    std::fs::write(kernel.join("Odd.st"), "").unwrap();
    assert!(read_package(&kernel).unwrap_err().message.starts_with("unexpected file"));
    assert_eq!(read_package(&root.0.join("NotAPackage")).unwrap_err().line, 0);
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
    ) {
        let methods: Vec<MethodDef> = bodies.iter().enumerate().map(|(i, lines)| {
            let body: Vec<&str> = lines.iter().map(|&l| BODY_LINES[l]).collect();
            let normalized = normalize_body(&body.join("\n")).0;
            let pattern = format!("m{i}: x");
            MethodDef {
                class_name: "Foo".into(),
                class_side: i % 2 == 1,
                category: if i % 3 == 0 { String::new() } else { format!("cat {i}") },
                source: if normalized.is_empty() { pattern } else { format!("{pattern}\n{normalized}") },
                file: PathBuf::new(),
                line: 0,
                body_first_line: 0,
            }
        }).collect();
        let class = ClassDef {
            name: "Foo".into(), superclass: Some("Object".into()), kind: ClassKind::Weak,
            inst_vars: vec!["a".into()], class_vars: vec![], class_inst_vars: vec!["c".into()],
            pools: vec![], category: "Cat-Egory".into(), comment: comment.trim().to_string(),
            file: PathBuf::new(), line: 0,
        };
        let written = write_class_file(&class, &methods);
        let (read_class, read_methods) = parse_class_file(&path(), &written).unwrap();
        prop_assert!(same_class(&class, &read_class.unwrap()));
        prop_assert_eq!(semantic(&methods), semantic(&read_methods));
    }
}
