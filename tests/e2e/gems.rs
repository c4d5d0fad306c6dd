//! Gems as real processes (`onyx eval --stone`, `onyx gem`) sharing a repository through a
//! real `onyx stone` on 127.0.0.1: what one commits the next sees, write-write conflicts
//! between concurrent gems, counters incremented by many gems with retry, locks between
//! gems, and a gem's clean exit on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::stone::StoneProcess;

fn onyx() -> Command {
    let mut c = Command::new(onyx_tests::onyx());
    c.env_remove("ONYX_KERNEL");
    c
}

/// Starts `onyx eval --stone` on `code`.
fn spawn_eval(stone: &StoneProcess, code: &str) -> Child {
    onyx()
        .args(["eval", "--stone", &stone.addr, code])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onyx eval starts")
}

fn finish(child: Child) -> (bool, String, String) {
    let Output { status, stdout, stderr } = child.wait_with_output().expect("onyx eval ends");
    (
        status.success(),
        String::from_utf8_lossy(&stdout).trim().to_string(),
        String::from_utf8_lossy(&stderr).to_string(),
    )
}

/// Runs `code` in a new session and answers what it printed, failing on an error.
fn eval(stone: &StoneProcess, code: &str) -> String {
    let (ok, out, err) = finish(spawn_eval(stone, code));
    assert!(ok, "{code}\nfailed: {err}");
    out
}

fn repository() -> (tempfile::TempDir, StoneProcess) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    (dir, stone)
}

#[test]
fn each_eval_is_a_session_that_sees_what_earlier_ones_committed() {
    let (_dir, stone) = repository();
    assert_eq!(eval(&stone, "3 + 4"), "7", "the kernel is in the repository");
    assert_eq!(eval(&stone, "UserGlobals at: #Notes put: (OrderedCollection with: 'first'). 1"), "1");
    assert_eq!(eval(&stone, "UserGlobals includesKey: #Notes"), "false", "nothing committed without a commit");
    let commit = "UserGlobals at: #Notes put: (OrderedCollection with: 'first'). System commitTransaction";
    assert_eq!(eval(&stone, commit), "true");
    assert_eq!(eval(&stone, "(UserGlobals at: #Notes) add: 'second'. System commitTransaction"), "true");
    assert_eq!(eval(&stone, "UserGlobals at: #Notes"), "an OrderedCollection('first' 'second')");
    let (ok, _, err) = finish(spawn_eval(&stone, "nil foo"));
    assert!(!ok && err.contains("foo"), "{err}");
}

#[test]
fn of_two_gems_changing_one_object_the_second_to_commit_conflicts_then_retries() {
    let (_dir, stone) = repository();
    eval(&stone, "UserGlobals at: #Shared put: (Array new: 1). System commitTransaction");
    // Both change the object in views that predate either commit; the later commit fails.
    let gem = |me: &str| {
        format!(
            "| shared first conflict second | shared := UserGlobals at: #Shared. shared at: 1 put: #{me}. \
             (Delay forMilliseconds: 1500) wait. \
             first := System commitTransaction. \
             first ifFalse: [conflict := System transactionConflicts includes: shared. \
               System abortTransaction. (UserGlobals at: #Shared) at: 1 put: #{me}. \
               second := System commitTransaction]. \
             {{first. conflict. second}}"
        )
    };
    let a = spawn_eval(&stone, &gem("a"));
    let b = spawn_eval(&stone, &gem("b"));
    let (a, b) = (finish(a), finish(b));
    assert!(a.0 && b.0, "{}\n{}", a.2, b.2);
    let mut outcomes = [a.1, b.1];
    outcomes.sort();
    assert_eq!(outcomes, ["#(false true true)".to_string(), "#(true nil nil)".to_string()]);
}

#[test]
fn gems_incrementing_one_counter_with_retry_lose_no_increment() {
    let (_dir, stone) = repository();
    eval(&stone, "UserGlobals at: #Counter put: (Array with: 0). System commitTransaction");
    let (gems, increments) = (4, 20);
    let code = format!(
        "| conflicts | conflicts := 0. 1 to: {increments} do: [:i | \
           [System abortTransaction. (UserGlobals at: #Counter) at: 1 put: ((UserGlobals at: #Counter) at: 1) + 1. \
            System commitTransaction] whileFalse: [conflicts := conflicts + 1]]. conflicts"
    );
    let children: Vec<Child> = (0..gems).map(|_| spawn_eval(&stone, &code)).collect();
    for child in children {
        let (ok, _, err) = finish(child);
        assert!(ok, "{err}");
    }
    assert_eq!(eval(&stone, "(UserGlobals at: #Counter) at: 1"), (gems * increments).to_string());
}

#[test]
fn a_write_lock_held_by_one_gem_is_denied_to_another_until_it_aborts() {
    let (_dir, stone) = repository();
    eval(&stone, "UserGlobals at: #Account put: (Array with: 100). System commitTransaction");
    let holder = spawn_eval(
        &stone,
        "System writeLock: (UserGlobals at: #Account). (Delay forMilliseconds: 1500) wait. \
         System abortTransaction. #released",
    );
    std::thread::sleep(Duration::from_millis(700));
    let denied =
        eval(&stone, "[System writeLock: (UserGlobals at: #Account). #granted] on: Error do: [:e | e messageText]");
    assert!(denied.contains("denied"), "{denied}");
    assert_eq!(finish(holder).1, "#released");
    assert_eq!(eval(&stone, "System writeLock: (UserGlobals at: #Account). #granted"), "#granted");
}

#[test]
fn a_gem_process_holds_a_session_and_exits_cleanly_on_sigterm() {
    let (_dir, stone) = repository();
    let mut gem = onyx()
        .args(["gem", "--stone", &stone.addr])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("onyx gem starts");
    let mut line = String::new();
    BufReader::new(gem.stdout.take().expect("piped")).read_line(&mut line).expect("the gem reports its session");
    assert!(line.starts_with("gem session "), "{line:?}");
    let _ = Command::new("kill").args(["-TERM", &gem.id().to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(Some(status)) = gem.try_wait() {
            assert!(status.success());
            break;
        }
        assert!(Instant::now() < deadline, "the gem did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn gems_updating_reduced_conflict_objects_at_once_never_fail_a_commit() {
    let (_dir, stone) = repository();
    eval(
        &stone,
        "UserGlobals at: #Hits put: RcCounter new; at: #Seen put: RcKeyValueDictionary new. System commitTransaction",
    );
    let (gems, increments) = (4, 20);
    let children: Vec<Child> = (0..gems)
        .map(|g| {
            let code = format!(
                "| failures | failures := 0. 1 to: {increments} do: [:i | \
                   (UserGlobals at: #Hits) increment. (UserGlobals at: #Seen) at: {g} * 1000 + i put: i. \
                   System commitTransaction ifFalse: [failures := failures + 1. System abortTransaction]]. failures"
            );
            spawn_eval(&stone, &code)
        })
        .collect();
    for child in children {
        let (ok, out, err) = finish(child);
        assert!(ok, "{err}");
        assert_eq!(out, "0", "a commit failed");
    }
    let total = (gems * increments).to_string();
    assert_eq!(eval(&stone, "(UserGlobals at: #Hits) value"), total);
    assert_eq!(eval(&stone, "(UserGlobals at: #Seen) size"), total);
}

#[test]
fn objects_no_longer_reachable_are_collected_from_the_repository() {
    let (_dir, stone) = repository();
    eval(&stone, "UserGlobals at: #Scratch put: ((1 to: 500) collect: [:i | Array new: 10]). System commitTransaction");
    eval(&stone, "UserGlobals removeKey: #Scratch. System commitTransaction");
    let reclaimed: u64 = eval(&stone, "System collectGarbage").parse().expect("a count");
    assert!(reclaimed >= 501, "{reclaimed}");
    assert_eq!(eval(&stone, "UserGlobals includesKey: #Scratch"), "false");
    assert_eq!(eval(&stone, "3 + 4"), "7", "the kernel survives a collection");
}

/// Runs `a` and `b` in two gem processes whose transactions overlap (each changes, waits,
/// then commits); answers each one's commit result, in the order (a, b).
fn overlapping(stone: &StoneProcess, a: &str, b: &str) -> (String, String) {
    let wrap =
        |code: &str, wait: u32| format!("{code}. (Delay forMilliseconds: {wait}) wait. System commitTransaction");
    let first = spawn_eval(stone, &wrap(a, 800));
    let second = spawn_eval(stone, &wrap(b, 1400));
    let (first, second) = (finish(first), finish(second));
    assert!(first.0 && second.0, "{}\n{}", first.2, second.2);
    (first.1, second.1)
}

#[test]
fn reduced_conflict_collections_keep_the_seeds_promises_across_gem_processes() {
    let (_dir, stone) = repository();
    eval(
        &stone,
        "UserGlobals at: #Q put: (RcQueue new add: 1; add: 2; yourself); \
         at: #B put: (RcIdentityBag new add: #x; yourself). System commitTransaction",
    );
    // One gem removes from the queue while another adds: both commit.
    let both = overlapping(&stone, "(UserGlobals at: #Q) remove", "(UserGlobals at: #Q) add: 3");
    assert_eq!(both, ("true".into(), "true".into()));
    assert_eq!(eval(&stone, "(UserGlobals at: #Q) asArray"), "#(2 3)");
    // Two gems remove at once: the second commit fails.
    let removers = overlapping(&stone, "(UserGlobals at: #Q) remove", "(UserGlobals at: #Q) remove");
    assert_eq!(removers, ("true".into(), "false".into()));
    assert_eq!(eval(&stone, "(UserGlobals at: #Q) asArray"), "#(3)");
    // Two gems remove the last occurrence of one object from a bag: the second fails.
    let last = overlapping(&stone, "(UserGlobals at: #B) remove: #x", "(UserGlobals at: #B) remove: #x");
    assert_eq!(last, ("true".into(), "false".into()));
    // Adds to the bag from two gems at once both commit.
    let adds = overlapping(&stone, "(UserGlobals at: #B) add: #y", "(UserGlobals at: #B) add: #z");
    assert_eq!(adds, ("true".into(), "true".into()));
    assert_eq!(eval(&stone, "(UserGlobals at: #B) size"), "2");
}

#[test]
fn a_large_array_comes_in_chunk_by_chunk_across_gem_processes() {
    let (_dir, stone) = repository();
    eval(
        &stone,
        "| big | big := Array new: 300000 withAll: 7. UserGlobals at: #Big put: big. System commitTransaction",
    );
    assert_eq!(eval(&stone, "(UserGlobals at: #Big) at: 123456 put: 8. System commitTransaction"), "true");
    assert_eq!(
        eval(
            &stone,
            "{(UserGlobals at: #Big) at: 123456. (UserGlobals at: #Big) at: 299999. (UserGlobals at: #Big) size}"
        ),
        "#(8 7 300000)"
    );
}

#[test]
fn a_gem_whose_stone_dies_reports_a_clear_error() {
    let (_dir, mut stone) = repository();
    let gem =
        spawn_eval(&stone, "(Delay forMilliseconds: 1000) wait. UserGlobals at: #X put: 1. System commitTransaction");
    std::thread::sleep(Duration::from_millis(400));
    stone.kill();
    let (ok, _, err) = finish(gem);
    assert!(!ok, "the commit cannot succeed without a stone");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("could not be faulted in") || err.contains("transport") || err.contains("stone"), "{err}");
}

#[test]
fn gem_commands_pointed_at_no_stone_fail_clearly() {
    for args in [
        vec!["eval", "--stone", "127.0.0.1:1", "3"],
        vec!["gem", "--stone", "127.0.0.1:1"],
        vec!["eval", "--stone", "not an address", "3"],
        vec!["bench", "commits", "--stone", "127.0.0.1:1", "--seconds", "0.1"],
    ] {
        let out = onyx().args(&args).output().expect("onyx runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains("stone") && !err.contains("panicked"), "{args:?}: {err}");
    }
}
