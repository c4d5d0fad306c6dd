//! Files, the environment and encodings seen from Smalltalk: only a user who may change code
//! reaches the files and the environment, and every bad argument (a closed handle, a range
//! past a buffer, invalid UTF-8 or Base64) is a Smalltalk error, never a panic.

use crate::util::{error_of, eval_in, vm};

#[test]
fn files_and_the_environment_need_a_user_who_may_change_code() {
    let mut vm = vm();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("secret.txt");
    std::fs::write(&path, "kept").expect("a file");
    let file = format!("'{}' asFileReference", path.display());
    assert_eq!(eval_in(&mut vm, &format!("{file} contents")).expect("read"), "'kept'");

    vm.set_may_change_code(false);
    for source in [
        format!("{file} contents"),
        format!("{file} exists"),
        format!("{file} binaryWriteStream"),
        "OSEnvironment current at: 'PATH'".to_string(),
        "FileSystem workingDirectory".to_string(),
        "File primOpen: '/etc/hostname' mode: 0".to_string(),
    ] {
        let e = error_of(&mut vm, &source);
        assert!(e.contains("may change code"), "{source}: {e}");
    }
    // GemStone's GsFile answers nil and says why.
    let opened = format!("(GsFile openReadOnServer: '{}') isNil", path.display());
    assert_eq!(eval_in(&mut vm, &opened).expect("GsFile"), "true");
    assert!(eval_in(&mut vm, "GsFile lastErrorString").expect("why").contains("may change code"));
    // What is not a file is still there: the platform, encodings.
    assert_eq!(eval_in(&mut vm, "OSPlatform current lineEnding = String lf").expect("platform"), "true");
    assert_eq!(eval_in(&mut vm, "'€' utf8Encoded").expect("utf8"), "#[226 130 172]");
    assert_eq!(std::fs::read_to_string(&path).expect("still there"), "kept");
}

#[test]
fn bad_arguments_are_errors() {
    let mut vm = vm();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("f.bin");
    let open = format!("File primOpen: '{}' mode: 1", path.display());
    let handle = eval_in(&mut vm, &open).expect("open");
    for source in [
        format!("File primWrite: {handle} from: #[1 2 3] startingAt: 2 count: 3"),
        format!("File primWrite: {handle} from: #[1 2 3] startingAt: 0 count: 1"),
        format!("File primWrite: {handle} from: 'abc' startingAt: 1 count: -1"),
        format!("File primRead: {handle} into: #(1 2) startingAt: 1 count: 1"),
        format!("File primSetPosition: {handle} to: -1"),
        "File primRead: 123456 into: (ByteArray new: 4) startingAt: 1 count: 4".to_string(),
        "File primOpen: 42 mode: 0".to_string(),
        format!("File primOpen: '{}' mode: 9", path.display()),
        format!("File primOpen: '{}' mode: 0", dir.path().display()),
        format!("File primChildren: '{}'", path.display()),
        "'/no/such/file' asFileReference contents".to_string(),
        "#[255 0] utf8Decoded".to_string(),
        "'not base64!' base64Decoded".to_string(),
        "'€€' base64Decoded".to_string(),
        "SHA256 hashMessage: 3".to_string(),
        "(UUID basicNew: 3) primFillRandom".to_string(),
        "UUID fromString: 'xyz'".to_string(),
    ] {
        error_of(&mut vm, &source);
    }
    let close = format!("File primClose: {handle}");
    eval_in(&mut vm, &close).expect("close");
    error_of(&mut vm, &close);
    let write = format!("File primWrite: {handle} from: #[1] startingAt: 1 count: 1");
    assert!(error_of(&mut vm, &write).contains("closed"));
}

#[test]
fn a_byte_search_takes_only_a_start_within_bounds() {
    let mut vm = vm();
    for (source, answer) in [
        ("#[1 2 3 2] indexOf: 2 startingAt: 3", "4"),
        ("#[1 2 3] indexOf: 2 startingAt: 4", "0"),
        ("#[1 2 3] indexOf: 2 startingAt: 400", "0"),
        ("#[1 2 3] indexOf: 300 startingAt: 1", "0"),
        ("#[1 2 3] indexOf: -1 startingAt: 1", "0"),
        ("#[1 2 3] indexOf: $a startingAt: 1", "0"),
        ("#[1 2 3] indexOf: nil startingAt: 1", "0"),
        ("'abc' indexOf: $c startingAt: 2", "3"),
    ] {
        assert_eq!(eval_in(&mut vm, source).expect(source), answer, "{source}");
    }
    for source in
        ["#[1 2 3] indexOf: 2 startingAt: 0", "#[1 2 3] indexOf: 2 startingAt: -1", "'abc' indexOf: $a startingAt: 0"]
    {
        error_of(&mut vm, source);
    }
}
