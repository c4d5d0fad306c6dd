//! Tests of the FileTree reader and writer.

use super::*;
use crate::source::tonel;

/// A package as Iceberg writes FileTree (no method metadata).
const METADATALESS: &[(&str, &str)] = &[
    (".filetree", FILETREE),
    ("properties.json", "{ }"),
    ("monticello.meta/package", "(name 'Shop-Core')"),
    ("ShopItem.class/README.md", "I am an item of the shop; say \"hello\".\n\n\tExample: ShopItem named: 'x'"),
    (
        "ShopItem.class/properties.json",
        "{\n\t\"commentStamp\" : \"\",\n\t\"super\" : \"Object\",\n\t\"category\" : \"Shop-Core-Items\",\n\t\"classinstvars\" : [\n\t\t\"default\"\n\t],\n\t\"pools\" : [ ],\n\t\"classvars\" : [\n\t\t\"Count\"\n\t],\n\t\"instvars\" : [\n\t\t\"name\",\n\t\t\"price\"\n\t],\n\t\"name\" : \"ShopItem\",\n\t\"type\" : \"normal\"\n}",
    ),
    (
        "ShopItem.class/class/named..st",
        "instance creation\nnamed: aString\n\n\t^ self new\n\t\tname: aString;\n\t\tyourself",
    ),
    ("ShopItem.class/instance/name.st", "accessing\nname\n\t^ name"),
    ("ShopItem.class/instance/^less.equals.st", "comparing\n<= other\n\t^ price <= other price\n"),
    ("ShopItem.class/instance/at.put..st", "accessing\nat: i put: v\n\t\"a ] comment\"\n\t^ v"),
    ("ShopCart.class/README.md", ""),
    (
        "ShopCart.class/properties.json",
        "{\n\t\"commentStamp\" : \"ab 1/2/2020 10:00\",\n\t\"super\" : \"OrderedCollection\",\n\t\"category\" : \"Shop-Core\",\n\t\"classinstvars\" : [ ],\n\t\"pools\" : [ ],\n\t\"classvars\" : [ ],\n\t\"instvars\" : [ ],\n\t\"name\" : \"ShopCart\",\n\t\"type\" : \"variable\"\n}",
    ),
    ("Object.extension/properties.json", "{\n\t\"name\" : \"Object\"\n}"),
    ("Object.extension/instance/isShopItem.st", "*Shop-Core\nisShopItem\n\t^ false"),
    ("Object.extension/class/shop.st", "*Shop-Core\nshop\n\t^ #(1 $] #[2])"),
];

fn written_out(files: &[(&str, &str)], folder: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = root.path().join(folder).join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

fn sorted(files: Vec<(PathBuf, String)>) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> =
        files.into_iter().map(|(p, t)| (p.to_string_lossy().into_owned(), t)).collect();
    files.sort();
    files
}

#[test]
fn a_package_without_metadata_is_written_back_byte_for_byte() {
    let root = written_out(METADATALESS, "Shop-Core.package");
    let package = read_package(&root.path().join("Shop-Core.package")).unwrap();
    assert_eq!(package.name, "Shop-Core");
    let mut expected: Vec<(String, String)> =
        METADATALESS.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
    expected.sort();
    assert_eq!(sorted(package_files(&package)), expected);

    let item = package.classes.iter().find(|c| c.name == "ShopItem").unwrap();
    assert_eq!(
        (item.inst_vars.as_slice(), item.class_vars.as_slice()),
        (&["name".to_string(), "price".into()][..], &["Count".to_string()][..])
    );
    assert_eq!(
        (item.class_inst_vars.as_slice(), item.category.as_str()),
        (&["default".to_string()][..], "Shop-Core-Items")
    );
    assert!(item.comment.starts_with("I am an item") && item.comment.ends_with("named: 'x'"));
    let cart = package.classes.iter().find(|c| c.name == "ShopCart").unwrap();
    assert_eq!(
        (cart.kind, cart.comment_stamp.as_str(), cart.comment.as_str()),
        (ClassKind::Variable, "ab 1/2/2020 10:00", "")
    );
    let le = package.methods.iter().find(|m| m.selector == "<=").unwrap();
    assert_eq!(
        (le.category.as_str(), le.source.as_str(), le.line),
        ("comparing", "<= other\n\t^ price <= other price\n", 2)
    );
    let shop = package.methods.iter().find(|m| m.selector == "shop").unwrap();
    assert_eq!((shop.class_name.as_str(), shop.class_side, shop.category.as_str()), ("Object", true, "*Shop-Core"));
    assert_eq!(read_packages(root.path()).unwrap(), vec![package]);
}

#[test]
fn the_older_flavour_with_method_metadata_is_read() {
    let files: &[(&str, &str)] = &[
        (
            ".filetree",
            "{\n\t\"noMethodMetaData\" : true,\n\t\"separateMethodMetaAndSource\" : false,\n\t\"useCypressPropertiesFile\" : true }\n",
        ),
        ("properties.json", "{\n\t }\n"),
        ("monticello.meta/package", "(name 'Shop-Core')"),
        ("monticello.meta/categories.st", "SystemOrganization addCategory: #'Shop-Core'!\n"),
        ("monticello.meta/initializers.st", ""),
        (
            "monticello.meta/version",
            "(name 'Shop-Core-ab.3' message 'it''s done' id 'x' date '1 January 2020' time '1:00:00 pm' author 'ab' ancestors () stepChildren ())",
        ),
        ("Shop.class/README.md", "A shop."),
        (
            "Shop.class/properties.json",
            "{\n\t\"category\" : \"Shop-Core\",\n\t\"classinstvars\" : [\n\t\t ],\n\t\"classvars\" : [\n\t\t ],\n\t\"commentStamp\" : \"ab 1/1/2020 13:00\",\n\t\"instvars\" : [\n\t\t\"it\\'s\" ],\n\t\"name\" : \"Shop\",\n\t\"pools\" : [\n\t\t ],\n\t\"super\" : \"Object\",\n\t\"type\" : \"normal\" }\n",
        ),
        (
            "Shop.class/methodProperties.json",
            "{\n\t\"class\" : {\n\t\t },\n\t\"instance\" : {\n\t\t\"open\" : \"ab 1/1/2020 13:00\" } }\n",
        ),
        ("Shop.class/instance/open.st", "actions\r\nopen\r\n\t^ true"),
    ];
    let root = written_out(files, "Shop-Core.package");
    let package = read_package(&root.path().join("Shop-Core.package")).unwrap();
    let shop = &package.classes[0];
    assert_eq!(
        (shop.name.as_str(), shop.inst_vars.as_slice(), shop.comment.as_str()),
        ("Shop", &["it's".to_string()][..], "A shop.")
    );
    assert_eq!(package.methods[0].category, "actions");
    assert_eq!(
        (package.methods[0].selector.as_str(), package.methods[0].source.as_str()),
        ("open", "open\r\n\t^ true")
    );
    // Written again, without the metadata.
    let written = sorted(package_files(&package));
    assert!(written.iter().all(|(n, _)| !n.contains("methodProperties") && !n.ends_with("version")));
    assert!(written.contains(&("Shop.class/instance/open.st".into(), "actions\nopen\r\n\t^ true".into())));
}

#[test]
fn a_tonel_package_written_as_filetree_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let tonel_files = [
        ("package.st", "Package { #name : #Shop }\n"),
        (
            "Shop.class.st",
            "\"\nA shop.\n\"\nClass {\n\t#name : #Shop,\n\t#superclass : #Object,\n\t#instVars : [\n\t\t'items'\n\t],\n\t#category : #Shop\n}\n\n{ #category : #accessing }\nShop class >> new [\n\t^ super new init\n]\n\n{ #category : #accessing }\nShop >> + other [\n\n\t^ items , other items\n]\n\n{ #category : #accessing }\nShop >> at: i put: v [\n\t^ items at: i put: v\n]\n",
        ),
        (
            "String.extension.st",
            "Extension { #name : #String }\n\n{ #category : #'*Shop' }\nString >> asShop [\n\t^ Shop new\n]\n",
        ),
    ];
    for (name, text) in tonel_files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let from_tonel = tonel::read_package(dir.path()).unwrap();
    let files = package_files(&from_tonel);
    let root = tempfile::tempdir().unwrap();
    for (name, text) in &files {
        let path = root.path().join("Shop.package").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let names: Vec<String> = sorted(files).into_iter().map(|(n, _)| n).collect();
    assert!(names.contains(&"Shop.class/instance/^plus.st".to_string()), "{names:?}");
    assert!(names.contains(&"Shop.class/instance/at.put..st".to_string()));
    assert!(names.contains(&"String.extension/instance/asShop.st".to_string()));
    let from_filetree = read_package(&root.path().join("Shop.package")).unwrap();
    let definitions = |p: &Package| {
        let mut methods: Vec<(String, bool, String, String)> = p
            .methods
            .iter()
            .map(|m| (m.class_name.clone(), m.class_side, m.category.clone(), m.source.clone()))
            .collect();
        methods.sort();
        let classes: Vec<String> = p
            .classes
            .iter()
            .map(|c| format!("{} {:?} {:?} {} {}", c.name, c.superclass, c.inst_vars, c.category, c.comment))
            .collect();
        (p.name.clone(), classes, methods)
    };
    assert_eq!(definitions(&from_filetree), definitions(&from_tonel));
}

#[test]
fn method_file_names_are_filetrees() {
    let names: Vec<String> = [
        "name", "at:put:", "+", "<=", "->", ",", "~=", "==>", "\\\\", "@", "?", "%", "&", "|", "*", "/", "-", ">", "=",
    ]
    .iter()
    .map(|s| method_file_name(s))
    .collect();
    assert_eq!(
        names,
        [
            "name.st",
            "at.put..st",
            "^plus.st",
            "^less.equals.st",
            "^minus.more.st",
            "^comma.st",
            "^tilde.equals.st",
            "^equals.equals.more.st",
            "^backslash.backslash.st",
            "^at.st",
            "^wat.st",
            "^percent.st",
            "^and.st",
            "^pipe.st",
            "^star.st",
            "^slash.st",
            "^minus.st",
            "^more.st",
            "^equals.st"
        ]
    );
}

#[test]
fn bad_packages_are_refused_with_the_file_and_line() {
    /// The package's files, and the file, line and message of the error reading them.
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, usize, &'a str);
    let cases: &[Case] = &[
        (
            &[("Foo.class/properties.json", "{\n\t\"name\" : \"Foo\",\n\t\"super\" \"Object\"\n}")],
            "Foo.class/properties.json",
            3,
            "expected ':' after a map key",
        ),
        (
            &[("Foo.class/properties.json", "{ \"super\" : \"Object\" }")],
            "Foo.class/properties.json",
            0,
            "the class definition has no \"name\"",
        ),
        (
            &[("Foo.class/properties.json", "{ \"name\" : \"Bar\" }")],
            "Foo.class/properties.json",
            0,
            "the class Bar in the folder of Foo",
        ),
        (
            &[("Foo.class/properties.json", "{ \"name\" : \"Foo\", \"type\" : \"immediate\" }")],
            "Foo.class/properties.json",
            0,
            "unsupported class type \"immediate\"",
        ),
        (
            &[("Foo.class/properties.json", "{ \"name\" : \"Foo\", \"instvars\" : \"a\" }")],
            "Foo.class/properties.json",
            0,
            "\"instvars\" must be a list",
        ),
        (
            &[("Foo.class/properties.json", "{ \"name\" : \"Foo\", \"traitcomposition\" : \"TFoo\" }")],
            "Foo.class/properties.json",
            0,
            "traits are not supported (\"traitcomposition\")",
        ),
        (&[("T.trait/properties.json", "{ \"name\" : \"T\" }")], "T.trait", 0, "traits are not supported"),
        (
            &[("Foo.class/properties.json", "{ \"name\" : \"Foo\" }"), ("Foo.class/instance/x.st", "x ^ 1")],
            "Foo.class/instance/x.st",
            0,
            "expected the method's category on the first line, then its source",
        ),
        (
            &[("Foo.class/properties.json", "{ \"name\" : \"Foo\" }"), ("Foo.class/instance/x.st", "cat\n^ 1")],
            "Foo.class/instance/x.st",
            2,
            "expected a message pattern",
        ),
        (
            &[
                ("Foo.class/properties.json", "{ \"name\" : \"Foo\" }"),
                ("Foo.class/instance/x.st", "cat\nx\n\t^ '\u{e9}"),
            ],
            "",
            0,
            "",
        ),
        (&[("monticello.meta/package", "name 'P'")], "monticello.meta/package", 0, "expected (name 'Package')"),
    ];
    for (files, file, line, message) in cases {
        let root = written_out(files, "P.package");
        let dir = root.path().join("P.package");
        match read_package(&dir) {
            Ok(_) if message.is_empty() => {}
            Ok(p) => panic!("{files:?} read as {p:?}"),
            Err(e) => assert_eq!((e.file, e.line, e.message.as_str()), (dir.join(file), *line, *message), "{files:?}"),
        }
    }
    let root = written_out(&[("Foo.class/properties.json", "{ \"name\" : \"Foo\" }")], "P.package");
    let file = root.path().join("P.package/Foo.class/instance/x.st");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, b"cat\nx\n\t^ '\xff'").unwrap();
    let e = read_package(&root.path().join("P.package")).unwrap_err();
    assert_eq!((e.file, e.line, e.message.as_str()), (file, 3, "not valid UTF-8"));
    let plain = tempfile::tempdir().unwrap();
    assert_eq!(read_package(plain.path()).unwrap_err().message, "not a FileTree package (a folder named Pkg.package)");
}

proptest::proptest! {
    #[test]
    fn any_properties_or_method_file_is_read_or_refused(properties in "\\PC{0,80}", method in "\\PC{0,80}") {
        let root = written_out(&[("Foo.class/properties.json", &properties), ("Foo.class/class/m.st", &method)], "P.package");
        let _ = read_package(&root.path().join("P.package"));
    }
}

#[test]
fn a_reporting_read_goes_on_past_traits_and_unreadable_methods() {
    let dir = written_out(
        &[
            ("T.trait/properties.json", "{ \"name\" : \"T\" }"),
            ("Foo.class/properties.json", "{ \"name\" : \"Foo\", \"super\" : \"Object\" }"),
            ("Foo.class/instance/bad.st", "no category line"),
            ("Foo.class/instance/good.st", "accessing\ngood\n\t^ 1"),
            ("Bar.class/properties.json", "{ \"name\" : \"Bar\", \"traitcomposition\" : \"T\" }"),
        ],
        "P.package",
    );
    let path = dir.path().join("P.package");
    assert!(read_package(&path).is_err());
    let mut problems = Vec::new();
    let package = read_package_reporting(&path, &mut problems).unwrap();
    assert_eq!(package.classes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Foo"]);
    assert_eq!(package.methods.iter().map(|m| m.selector.as_str()).collect::<Vec<_>>(), ["good"]);
    assert_eq!(problems.len(), 3, "{problems:?}");
}
