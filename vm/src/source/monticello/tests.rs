//! Tests of `.mcz` reading and writing, on a snapshot written by hand in Monticello's layout.

use std::io::Write;
use std::path::Path;

use super::*;
use crate::source::model::ClassKind;

/// A snapshot as Monticello's writer lays it out, with line feeds for carriage returns.
const SOURCE_ST: &str = "SystemOrganization addCategory: #'Shop-Core'!
SystemOrganization addCategory: #'Shop-UI'!

Object subclass: #Shop
\tinstanceVariableNames: 'items total'
\tclassVariableNames: 'Default'
\tpoolDictionaries: ''
\tcategory: 'Shop-Core'!

Shop class
\tinstanceVariableNames: 'count'!

!Shop commentStamp: 'ab 12/4/2026 16:34' prior: 0!
A shop. It's open!! Really.!

Shop variableSubclass: #Stall
\tinstanceVariableNames: ''
\tclassVariableNames: ''
\tpoolDictionaries: ''
\tcategory: 'Shop-UI'!

!Shop methodsFor: 'accessing' stamp: 'ab 12/4/2026 16:34'!
items
\t\"The items, or none\"
\t^ items ifNil: [#()]! !

!Shop methodsFor: 'it''s mine' stamp: ''!
total: aNumber
\ttotal := aNumber! !

!Shop class methodsFor: 'class initialization' stamp: 'cd 1/2/2025 09:00'!
initialize
\tDefault := self new! !

!String methodsFor: '*Shop-Core' stamp: 'ab 12/4/2026 16:34'!
shout
\t^ self , '!!'! !
Shop initialize!
";

fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in members {
        zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

const VERSION: &str = "(name 'Shop-ab.2' message 'Stalls' id '5b6a1d3e-0c4b-4f0e-9a51-3c2a9b7d8e10' date '4 December 2026' time '4:34:36 pm' author 'ab' ancestors ((name 'Shop-ab.1' message 'first' id '0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b' date '3 December 2026' time '9:00:00 am' author 'ab' ancestors () stepChildren ())) stepChildren ())";

fn squeak_mcz(source: &str) -> Vec<u8> {
    let cr = source.replace('\n', "\r");
    zip_of(&[("package", b"(name 'Shop')"), ("version", VERSION.as_bytes()), ("snapshot/source.st", cr.as_bytes())])
}

fn path() -> &'static Path {
    Path::new("Shop-ab.2.mcz")
}

#[test]
fn reads_a_version_as_monticello_writes_it() {
    let mcz = read_bytes(path(), &squeak_mcz(SOURCE_ST)).unwrap();
    assert_eq!(mcz.package.name, "Shop");
    assert_eq!(mcz.info.name, "Shop-ab.2");
    assert_eq!(mcz.info.ancestors[0].name, "Shop-ab.1");
    let [shop, stall] = mcz.package.classes.as_slice() else { panic!("{:?}", mcz.package.classes) };
    assert_eq!(
        (shop.name.as_str(), shop.superclass.as_deref(), shop.kind, shop.category.as_str()),
        ("Shop", Some("Object"), ClassKind::Fixed, "Shop-Core")
    );
    assert_eq!((shop.inst_vars.join(" "), shop.class_vars.join(" ")), ("items total".into(), "Default".into()));
    assert_eq!(shop.class_inst_vars, vec!["count"]);
    assert_eq!(shop.comment, "A shop. It's open! Really.");
    assert_eq!(shop.comment_stamp, "ab 12/4/2026 16:34");
    assert_eq!((shop.file.as_path(), shop.line), (Path::new("Shop-ab.2.mcz/snapshot/source.st"), 4));
    assert_eq!((stall.superclass.as_deref(), stall.kind), (Some("Shop"), ClassKind::Variable));
    let methods: Vec<(&str, bool, &str, &str, &str, usize)> = mcz
        .package
        .methods
        .iter()
        .map(|m| {
            (m.class_name.as_str(), m.class_side, m.selector.as_str(), m.category.as_str(), m.stamp.as_str(), m.line)
        })
        .collect();
    assert_eq!(
        methods,
        vec![
            ("Shop", false, "items", "accessing", "ab 12/4/2026 16:34", 23),
            ("Shop", false, "total:", "it's mine", "", 28),
            ("Shop", true, "initialize", "class initialization", "cd 1/2/2025 09:00", 32),
            ("String", false, "shout", "*Shop-Core", "ab 12/4/2026 16:34", 36),
        ]
    );
    // Sources exactly as written: comments, tabs, the `!` undoubled.
    assert_eq!(mcz.package.methods[0].source, "items\n\t\"The items, or none\"\n\t^ items ifNil: [#()]");
    assert_eq!(mcz.package.methods[3].source, "shout\n\t^ self , '!'");
}

#[test]
fn writes_what_monticello_writes_and_reads_it_back() {
    let mcz = read_bytes(path(), &squeak_mcz(SOURCE_ST)).unwrap();
    let bytes = write(&mcz.package, &mcz.info).unwrap();
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes.as_slice())).unwrap();
    let names: Vec<String> = (0..zip.len()).map(|i| zip.by_index(i).unwrap().name().unwrap().to_string()).collect();
    assert_eq!(names, ["package", "version", "snapshot/source.st"]);
    let mut text = |name: &str| {
        let mut s = String::new();
        zip.by_name(name).unwrap().read_to_string(&mut s).unwrap();
        s
    };
    assert_eq!(text("snapshot/source.st"), SOURCE_ST.replace('\n', "\r"));
    assert_eq!(text("version"), VERSION);
    assert_eq!(text("package"), "(name 'Shop')");
    let again = read_bytes(path(), &bytes).unwrap();
    assert_eq!(again, mcz);
}

#[test]
fn latin1_and_line_feeds_and_a_byte_order_mark() {
    let mut source = b"\xEF\xBB\xBF!Shop methodsFor: 'x' stamp: ''!\r\ncaf\xE9\r\n\t^ 1! !\r\n".to_vec();
    let zip =
        zip_of(&[("package", b"(name 'Shop')"), ("version", VERSION.as_bytes()), ("snapshot/source.st", &source)]);
    // Not UTF-8 (a lone é): read as Latin-1, byte order mark and all.
    let mcz = read_bytes(path(), &zip).unwrap();
    assert_eq!(mcz.package.methods[0].source, "caf\u{e9}\n\t^ 1");
    source.drain(..3);
    let source = String::from_utf8_lossy(&source).replace('\u{fffd}', "\u{e9}");
    let mut with_bom = "\u{feff}".to_string();
    with_bom.push_str(&source);
    let zip = zip_of(&[
        ("package", b"(name 'Shop')"),
        ("version", VERSION.as_bytes()),
        ("snapshot/source.st", with_bom.as_bytes()),
    ]);
    let mcz = read_bytes(path(), &zip).unwrap();
    assert_eq!(mcz.package.methods[0].source, "caf\u{e9}\n\t^ 1");
}

fn error_of(members: &[(&str, &[u8])]) -> SourceError {
    read_bytes(path(), &zip_of(members)).unwrap_err()
}

fn source_error(source: &str) -> SourceError {
    read_bytes(path(), &squeak_mcz(source)).unwrap_err()
}

#[test]
fn bad_versions_are_refused_with_the_member_and_line() {
    let whole = squeak_mcz(SOURCE_ST);
    for cut in [0, 10, whole.len() / 2, whole.len() - 1] {
        let e = read_bytes(path(), &whole[..cut]).unwrap_err();
        assert!(e.message.contains("not a Monticello version"), "{e}");
    }
    let e = error_of(&[("package", b"(name 'Shop')"), ("version", VERSION.as_bytes())]);
    assert_eq!(e.file, Path::new("Shop-ab.2.mcz/snapshot/source.st"));
    let e = error_of(&[("version", VERSION.as_bytes())]);
    assert_eq!(e.file, Path::new("Shop-ab.2.mcz/package"));
    let e = error_of(&[("package", b"(name Shop)"), ("version", VERSION.as_bytes()), ("snapshot/source.st", b"")]);
    assert_eq!(
        (e.file.as_path(), e.message.as_str()),
        (Path::new("Shop-ab.2.mcz/package"), "expected (name 'Package')")
    );
    let e = error_of(&[("package", b"(name 'Shop')"), ("version", b"(name 'x"), ("snapshot/source.st", b"")]);
    assert_eq!(e.file, Path::new("Shop-ab.2.mcz/version"));

    let line = |source: &str| {
        let e = source_error(source);
        assert_eq!(e.file, Path::new("Shop-ab.2.mcz/snapshot/source.st"));
        (e.line, e.message)
    };
    assert_eq!(line("Object subclass: #A\n\tcategory: 'A'!\n\n3 + 4").0, 4);
    assert_eq!(line("\n!A methodsFor: 'x' stamp: ''!\n:= 3! !").0, 3);
    assert_eq!(line("Trait named: #T\n\tuses: {}\n\tcategory: 'A'!"), (1, "traits are not supported".to_string()));
    assert_eq!(line("Object subclass: #A category: 'A'!\nA class uses: T instanceVariableNames: ''!").0, 2);
    assert_eq!(
        line("Object immediateSubclass: #A category: 'A'!"),
        (1, "'immediateSubclass:' defines a kind of class Onyx does not have".to_string())
    );
    assert_eq!(
        line("Object subclass: #A slots: {} category: 'A'!").1,
        "a chunk Monticello does not write: Object subclass: #A slots: {} category: 'A'"
    );
    assert_eq!(line("!B commentStamp: '' prior: 0!\nhi!").1, "a comment of B, which is not defined before it");
    assert_eq!(line("Object subclass: #A category: 'A'!\n\n!A commentStamp: '' prior: 0!").0, 3);
    assert_eq!(line("(PackageInfo named: 'Shop') postscript: 'Shop reset'!").0, 1);
}

#[test]
fn a_class_and_its_superclass_in_any_order_are_written_superclass_first() {
    let mcz = read_bytes(path(), &squeak_mcz(SOURCE_ST)).unwrap();
    let mut package = mcz.package.clone();
    package.classes.reverse();
    package.methods.reverse();
    let bytes = write(&package, &mcz.info).unwrap();
    let again = read_bytes(path(), &bytes).unwrap();
    assert_eq!(again.package.classes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Shop", "Stall"]);
    assert_eq!(again.package.methods, mcz.package.methods);
}

#[test]
fn a_member_that_unpacks_past_the_limit_is_refused_unread() {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in [("package", &b"(name 'Shop')"[..]), ("version", VERSION.as_bytes())] {
        zip.start_file(name, deflated).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.start_file("snapshot/source.st", deflated).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..=(MAX_MEMBER >> 20) {
        zip.write_all(&zeros).unwrap();
    }
    let bomb = zip.finish().unwrap().into_inner();
    assert!(bomb.len() < 1 << 20, "a small file: {} bytes", bomb.len());
    let e = read_bytes(path(), &bomb).unwrap_err();
    assert!(e.to_string().contains("unpacks to more than 64 MiB"), "{e}");
    assert!(e.to_string().contains("snapshot/source.st"), "{e}");
}
