//! The `onyx` command-line contract: output, exit codes and errors of eval, run, check, test
//! and bench, run as a real process.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn onyx(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onyx")).args(args).env_remove("ONYX_KERNEL").output().expect("onyx runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

#[test]
fn eval_prints_the_value() {
    let o = onyx(&["eval", "3 + 4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "7\n");
    let o = onyx(&["eval", "| a | a := OrderedCollection new. a add: 1; add: 2. a"]);
    assert_eq!(stdout(&o), "an OrderedCollection(1 2)\n");
    let o = onyx(&["eval", "#(1 $a 'b' #c) printString"]);
    assert_eq!(stdout(&o), "'#(1 $a ''b'' #c)'\n");
    let o = onyx(&[
        "eval",
        "(3@4) printString = '(3@4)' & ((1/3) printString = '(1/3)') & (0.1 + 0.2) printString = '0.30000000000000004'",
    ]);
    assert_eq!(stdout(&o), "true\n");
}

#[test]
fn no_jit_runs_the_same_code_in_the_interpreter() {
    for args in [&["eval", "25 benchFib"][..], &["--no-jit", "eval", "25 benchFib"][..]] {
        let o = onyx(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "242785\n", "{args:?}");
    }
}

#[test]
fn eval_error_prints_the_stack_and_exits_1() {
    let o = onyx(&["eval", "#(1 2) collect: [:x | x / 0]"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("ZeroDivide"), "{err}");
    assert!(err.contains("DoIt (line 1:"), "{err}");
    assert!(stdout(&o).is_empty());
    let o = onyx(&["eval", "3 +"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("1:4"), "{}", stderr(&o));
}

#[test]
fn eval_is_fast() {
    // Warm the file cache, then time a few runs.
    onyx(&["eval", "3 + 4"]);
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let o = onyx(&["eval", "3 + 4"]);
        best = best.min(t.elapsed());
        assert!(o.status.success());
    }
    assert!(best < Duration::from_millis(300), "onyx eval '3 + 4' took {best:?}");
}

#[test]
fn run_files_in_a_chunk_file() {
    let o = onyx(&["run", data("counter.st").to_str().expect("utf-8 path")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "counter at 3\nit's done!\n");
    let o = onyx(&["run", data("failing.st").to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("failing.st:3:"), "{}", stderr(&o));
}

#[test]
fn run_stops_with_an_error_when_its_reader_goes_away() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_onyx"))
        .args(["run", data("chatty.st").to_str().expect("utf-8 path")])
        .env_remove("ONYX_KERNEL")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("onyx runs");
    // The reader reads nothing and goes away, as `| head -0` would.
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("onyx ends");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write the Transcript to standard output"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

#[test]
fn check_reports_methods_and_errors() {
    let o = onyx(&["check", data("Good-Package").to_str().expect("utf-8 path")]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o).lines().last(), Some("2 methods, 0 errors"));
    let o = onyx(&[
        "check",
        data("Bad-Package").to_str().expect("utf-8 path"),
        data("counter.st").to_str().expect("utf-8 path"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("Broken.class.st:14:"), "{out}");
    assert_eq!(out.lines().last(), Some("4 methods, 1 errors"), "{out}");
    let o = onyx(&["check", "/no/such/path"]);
    assert_ne!(o.status.code(), Some(0));
    // A FileTree package: its methods' errors at the line of their file.
    let o = onyx(&["check", data("Shop.package").to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("Shop.class/instance/broken.st:3:"), "{out}");
    assert_eq!(out.lines().last(), Some("2 methods, 1 errors"), "{out}");
}

#[test]
fn diff_compares_packages_definition_by_definition() {
    let good = data("Good-Package");
    let o = onyx(&["diff", good.to_str().expect("utf-8 path"), good.to_str().expect("utf-8 path")]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), "0 changed, 0 added, 0 removed\n");

    let edited = std::env::temp_dir().join(format!("onyx-diff-{}", std::process::id()));
    std::fs::create_dir_all(&edited).unwrap();
    std::fs::copy(good.join("package.st"), edited.join("package.st")).unwrap();
    let text = std::fs::read_to_string(good.join("Greeter.class.st")).unwrap();
    let text = text.replace("^ 'Hello, ', name", "^ 'Hi, ', name").replace(
        "{ #category : #accessing }\nGreeter >> name: aString [\n\tname := aString\n]\n",
        "{ #category : #accessing }\nGreeter >> name [\n\t^ name\n]\n",
    );
    std::fs::write(edited.join("Greeter.class.st"), text).unwrap();
    let o = onyx(&["diff", good.to_str().expect("utf-8 path"), edited.to_str().expect("utf-8 path")]);
    let _ = std::fs::remove_dir_all(&edited);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("--- Good-Package: Greeter>>greeting (changed)\n \"greeting\"\n greeting\n-\t^ 'Hello, ', name\n+\t^ 'Hi, ', name\n"), "{out}");
    assert!(out.contains("--- Good-Package: Greeter>>name (added)\n+\"accessing\"\n+name\n+\t^ name\n"), "{out}");
    assert!(out.contains("--- Good-Package: Greeter>>name: (removed)\n"), "{out}");
    assert!(out.ends_with("1 changed, 1 added, 1 removed\n"), "{out}");
    // Trouble is told apart from a difference, as diff(1) does.
    let o = onyx(&["diff", good.to_str().expect("utf-8 path"), "/no/such/path"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/no/such/path"), "{}", stderr(&o));
}

#[test]
fn check_accepts_the_kernel() {
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/kernel");
    let o = onyx(&["check", kernel.to_str().expect("utf-8 path")]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).ends_with(", 0 errors\n"));
}

#[test]
fn test_runs_sunit_and_reports_counts() {
    let o = onyx(&["test", "Kernel-Tests-Text"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let last = stdout(&o).lines().last().unwrap_or_default().to_string();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
}

#[test]
fn bench_prints_one_line_per_figure() {
    let o = onyx(&["bench"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("bytecodes/sec;") && out.contains("sends/sec"), "{out}");
    assert!(out.contains("30 benchFib: 2692537 calls"), "{out}");
    assert!(out.contains("1000 factorial printString: 2568 digits"), "{out}");
    assert!(out.contains("switches/sec"), "{out}");
    assert_eq!(out.lines().count(), 4, "{out}");
}

#[test]
fn bad_arguments_are_clear_errors() {
    let o = onyx(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    let o = onyx(&["run", "/no/such/file.st"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}
