//! A VM as a gem of a real (in-process) stone: the kernel committed as a repository, gems
//! logging in to it, committing, conflicting and aborting.

use std::sync::Arc;

use onyx_store::Stone;
use onyx_vm::{Vm, VmConfig};

use crate::util::{eval_in, vm};

/// A stone over a new repository holding the kernel.
pub(crate) fn repository() -> (tempfile::TempDir, Arc<Stone>) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = Arc::new(crate::util::stone(dir.path()));
    let mut kernel = vm();
    let link = crate::util::session(&stone);
    kernel.create_repository(Box::new(link), &[]).expect("the kernel commits");
    (dir, stone)
}

pub(crate) fn gem(stone: &Arc<Stone>) -> Vm {
    let link = crate::util::session(stone);
    Vm::login(Box::new(link), VmConfig::default()).expect("the gem logs in")
}

fn run(vm: &mut Vm, source: &str) -> String {
    eval_in(vm, source).unwrap_or_else(|e| panic!("{source}\nfailed: {e}"))
}

#[test]
fn a_gem_runs_the_kernel_it_loads_from_the_repository() {
    let (_dir, stone) = repository();
    let mut g = gem(&stone);
    assert_eq!(run(&mut g, "3 + 4"), "7");
    assert_eq!(run(&mut g, "(1 to: 10) inject: 0 into: [:a :b | a + b]"), "55");
    assert_eq!(run(&mut g, "(Smalltalk at: #OrderedCollection) new add: 3; yourself"), "an OrderedCollection(3)");
    assert_eq!(run(&mut g, "1000 factorial printString size"), "2568");
    assert_eq!(run(&mut g, "[1/0] on: ZeroDivide do: [:e | e messageText]"), "'Division by zero'");
}

#[test]
fn what_one_gem_commits_another_sees_after_its_next_abort() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    let mut b = gem(&stone);
    assert!(a.has_repository() && a.session_id() != b.session_id());
    run(&mut a, "Smalltalk at: #Inventory put: (OrderedCollection new add: 'bolts' -> 12; yourself)");
    assert_eq!(run(&mut a, "System commitTransaction"), "true");
    assert_eq!(run(&mut b, "Smalltalk includesKey: #Inventory"), "false", "b's view predates the commit");
    assert_eq!(run(&mut b, "System abortTransaction. (Smalltalk at: #Inventory) first value"), "12");
    let mut c = gem(&stone);
    assert_eq!(run(&mut c, "(Smalltalk at: #Inventory) first key"), "'bolts'");
}

#[test]
fn wide_strings_and_symbols_persist_and_a_string_widened_in_place_commits() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(&mut a, "Smalltalk at: #Prices put: (Dictionary new at: '€uro' put: 1; at: #'Ωhm' put: 2; yourself)");
    run(&mut a, "Smalltalk at: #Plain put: 'plain' copy");
    assert_eq!(run(&mut a, "System commitTransaction"), "true");
    // The committed String becomes a WideString in place, and that commits too.
    run(&mut a, "(Smalltalk at: #Plain) at: 1 put: $€");
    assert_eq!(run(&mut a, "System commitTransaction"), "true");
    let mut b = gem(&stone);
    assert_eq!(run(&mut b, "(Smalltalk at: #Plain) -> (Smalltalk at: #Plain) class"), "'€lain'->WideString");
    assert_eq!(run(&mut b, "(Smalltalk at: #Prices) at: '€uro'"), "1");
    assert_eq!(run(&mut b, "(Smalltalk at: #Prices) at: '€uro' asWideString"), "1");
    assert_eq!(run(&mut b, "(Smalltalk at: #Prices) at: #'Ωhm'"), "2");
    assert_eq!(run(&mut b, "(Smalltalk at: #Prices) keys detect: [:k | k isSymbol]"), "#Ωhm");
    assert_eq!(run(&mut b, "((Smalltalk at: #Prices) keys detect: [:k | k isSymbol]) == 'Ωhm' asSymbol"), "true");
    assert_eq!(run(&mut b, "((Smalltalk at: #Prices) keys detect: [:k | k isSymbol]) class"), "WideSymbol");
}

#[test]
fn the_second_gem_to_change_an_object_conflicts_until_it_aborts() {
    let (_dir, stone) = repository();
    let mut setup = gem(&stone);
    run(&mut setup, "Smalltalk at: #Shared put: (Array new: 1). System commitTransaction");
    let mut a = gem(&stone);
    let mut b = gem(&stone);
    run(&mut a, "(Smalltalk at: #Shared) at: 1 put: #a");
    run(&mut b, "(Smalltalk at: #Shared) at: 1 put: #b");
    assert_eq!(run(&mut a, "System commitTransaction"), "true");
    assert_eq!(run(&mut b, "System commitTransaction"), "false");
    assert_eq!(run(&mut b, "System transactionConflicts includes: (Smalltalk at: #Shared)"), "true");
    assert_eq!(run(&mut b, "System abortTransaction. (Smalltalk at: #Shared) at: 1"), "#a");
    run(&mut b, "(Smalltalk at: #Shared) at: 1 put: #b");
    assert_eq!(run(&mut b, "System commitTransaction"), "true");
    assert_eq!(run(&mut a, "System abortTransaction. (Smalltalk at: #Shared) at: 1"), "#b");
}

#[test]
fn classes_and_methods_committed_by_one_gem_run_in_another() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(
        &mut a,
        "Object subclass: #Greeter instanceVariableNames: 'name' classVariableNames: '' package: 'Demo'. \
         Greeter compile: 'name: aString name := aString'. \
         Greeter compile: 'greeting ^ ''Hello, '', name'. \
         System commitTransaction",
    );
    let mut b = gem(&stone);
    assert_eq!(run(&mut b, "(Greeter new name: 'Onyx') greeting"), "'Hello, Onyx'");
    run(&mut a, "Greeter compile: 'greeting ^ ''Hi, '', name'. System commitTransaction");
    assert_eq!(run(&mut b, "(Greeter new name: 'Onyx') greeting"), "'Hello, Onyx'", "b keeps its view");
    assert_eq!(run(&mut b, "System abortTransaction. (Greeter new name: 'Onyx') greeting"), "'Hi, Onyx'");
}

/// Commits `setup` in a fresh gem, then runs `a` and `b` in two gems whose views both
/// predate either commit, commits `a` then `b`, and answers b's commit result and `check`
/// evaluated in a fresh gem.
fn rc_case(stone: &Arc<Stone>, setup: &str, a: &str, b: &str, check: &str) -> (String, String) {
    let mut s = gem(stone);
    run(&mut s, &format!("{setup}. System commitTransaction"));
    let mut ga = gem(stone);
    let mut gb = gem(stone);
    run(&mut ga, a);
    run(&mut gb, b);
    assert_eq!(run(&mut ga, "System commitTransaction"), "true", "{a}");
    let second = run(&mut gb, "System commitTransaction");
    let mut c = gem(stone);
    (second, run(&mut c, check))
}

#[test]
fn reduced_conflict_classes_commit_concurrent_consistent_changes() {
    let (_dir, stone) = repository();
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        (
            "UserGlobals at: #C put: RcCounter new",
            "(UserGlobals at: #C) increment",
            "(UserGlobals at: #C) incrementBy: 10",
            "(UserGlobals at: #C) value",
            "11",
        ),
        (
            "UserGlobals at: #Q put: RcQueue new",
            "(UserGlobals at: #Q) add: 1",
            "(UserGlobals at: #Q) add: 2",
            "(UserGlobals at: #Q) asArray",
            "#(1 2)",
        ),
        (
            "UserGlobals at: #Q put: (RcQueue new add: 1; yourself)",
            "(UserGlobals at: #Q) remove",
            "(UserGlobals at: #Q) add: 2",
            "(UserGlobals at: #Q) asArray",
            "#(2)",
        ),
        (
            "UserGlobals at: #B put: RcIdentityBag new",
            "(UserGlobals at: #B) add: #x",
            "(UserGlobals at: #B) add: #y",
            "(UserGlobals at: #B) size",
            "2",
        ),
        (
            "UserGlobals at: #B put: (RcIdentityBag new add: #x; add: #x; yourself)",
            "(UserGlobals at: #B) remove: #x",
            "(UserGlobals at: #B) remove: #x",
            "(UserGlobals at: #B) size",
            "0",
        ),
        (
            "UserGlobals at: #B put: (RcIdentityBag new add: #x; yourself)",
            "(UserGlobals at: #B) remove: #x",
            "(UserGlobals at: #B) add: #y",
            "(UserGlobals at: #B) size",
            "1",
        ),
        (
            "UserGlobals at: #D put: RcKeyValueDictionary new",
            "(UserGlobals at: #D) at: #a put: 1",
            "(UserGlobals at: #D) at: #b put: 2",
            "(UserGlobals at: #D) keys asSortedCollection asArray",
            "#(#a #b)",
        ),
        (
            "UserGlobals at: #D put: (RcKeyValueDictionary new at: #a put: 1; at: #b put: 2; yourself)",
            "(UserGlobals at: #D) removeKey: #a",
            "(UserGlobals at: #D) removeKey: #b",
            "(UserGlobals at: #D) size",
            "0",
        ),
        (
            "UserGlobals at: #D put: (RcKeyValueDictionary new at: #a put: 1; at: #b put: 2; yourself)",
            "(UserGlobals at: #D) at: #a put: 5",
            "(UserGlobals at: #D) at: #c put: 3; removeKey: #b",
            "(UserGlobals at: #D) keys asSortedCollection asArray , {(UserGlobals at: #D) at: #a}",
            "#(#a #c 5)",
        ),
    ];
    for (setup, a, b, check, expected) in cases {
        let (second, value) = rc_case(&stone, setup, a, b, check);
        assert_eq!((second.as_str(), value.as_str()), ("true", *expected), "{a} / {b}");
    }
}

#[test]
fn reduced_conflict_classes_refuse_logically_inconsistent_concurrent_changes() {
    let (_dir, stone) = repository();
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        (
            "UserGlobals at: #Q put: (RcQueue new add: 1; add: 2; yourself)",
            "(UserGlobals at: #Q) remove",
            "(UserGlobals at: #Q) remove",
            "(UserGlobals at: #Q) asArray",
            "#(2)",
        ),
        (
            "UserGlobals at: #B put: (RcIdentityBag new add: #x; yourself)",
            "(UserGlobals at: #B) remove: #x",
            "(UserGlobals at: #B) remove: #x",
            "(UserGlobals at: #B) size",
            "0",
        ),
        (
            "UserGlobals at: #D put: RcKeyValueDictionary new",
            "(UserGlobals at: #D) at: #k put: 1",
            "(UserGlobals at: #D) at: #k put: 2",
            "(UserGlobals at: #D) at: #k",
            "1",
        ),
        (
            "UserGlobals at: #D put: (RcKeyValueDictionary new at: #k put: 1; yourself)",
            "(UserGlobals at: #D) removeKey: #k",
            "(UserGlobals at: #D) removeKey: #k",
            "(UserGlobals at: #D) size",
            "0",
        ),
    ];
    for (setup, a, b, check, expected) in cases {
        let (second, value) = rc_case(&stone, setup, a, b, check);
        assert_eq!((second.as_str(), value.as_str()), ("false", *expected), "{a} / {b}");
    }
    // A conflict on an ordinary object is not resolved by replaying reduced-conflict changes.
    let (second, _) = rc_case(
        &stone,
        "UserGlobals at: #C put: RcCounter new; at: #Plain put: (Array new: 1)",
        "(UserGlobals at: #C) increment. (UserGlobals at: #Plain) at: 1 put: 1",
        "(UserGlobals at: #C) increment. (UserGlobals at: #Plain) at: 1 put: 2",
        "nil",
    );
    assert_eq!(second, "false");
}

#[test]
fn in_manual_begin_mode_only_a_begun_transaction_commits() {
    let (_dir, stone) = repository();
    let mut g = gem(&stone);
    assert_eq!(run(&mut g, "System transactionMode"), "#autoBegin");
    run(&mut g, "System transactionMode: #manualBegin");
    assert_eq!(run(&mut g, "System inTransaction"), "false");
    let refused = eval_in(&mut g, "UserGlobals at: #M put: 1. System commitTransaction");
    assert!(refused.is_err_and(|e| e.to_string().contains("not in a transaction")));
    assert_eq!(run(&mut g, "System beginTransaction. UserGlobals at: #M put: 2. System commitTransaction"), "true");
    assert_eq!(run(&mut g, "System inTransaction"), "false", "a commit ends a manual transaction");
    let mut other = gem(&stone);
    assert_eq!(run(&mut other, "UserGlobals at: #M"), "2");
    assert_eq!(run(&mut other, "System transactionMode"), "#autoBegin", "the mode is the session's");
}

#[test]
fn a_gem_that_faults_in_everything_lazily_passes_the_kernel_suite() {
    // The kernel with its tests, committed; a gem that logs in with nothing but the root and
    // the classes the VM knows, and faults everything else in a few objects at a time.
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = Arc::new(crate::util::stone(dir.path()));
    let kernel = onyx_vm::KernelSource::embedded();
    let mut full = Vm::boot_with(&kernel, VmConfig::default()).expect("the kernel and its tests load");
    full.create_repository(Box::new(crate::util::session(&stone)), &[]).expect("commits");
    let config = VmConfig { login_budget: 0, fault_budget: 2048, ..VmConfig::default() };
    let link = crate::util::session(&stone);
    let mut g = Vm::login(Box::new(link), config).expect("the gem logs in");
    let loaded_at_login = g.heap.live_count();
    let list = kernel.test_package_names().iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(" ");
    let report = run(&mut g, &format!("TestRunner reportForPackages: #({list})"));
    assert!(report.trim_end_matches(['\'', '\n']).ends_with(" 0 failed"), "{report}");
    assert!(g.heap.live_count() > 2 * loaded_at_login, "objects came in as they were touched");
}

#[test]
fn walking_a_persistent_structure_faults_it_in_many_objects_per_round_trip() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(
        &mut a,
        "| list | list := nil. 1 to: 20000 do: [:i | list := Array with: i with: list]. UserGlobals at: #List put: list. System commitTransaction",
    );
    let config = VmConfig { login_budget: 64 << 10, ..VmConfig::default() };
    let mut b = Vm::login(Box::new(crate::util::session(&stone)), config).expect("login");
    let before = b.heap.live_count();
    let trips_before = b.store_stats().expect("a gem").fetches;
    assert_eq!(
        run(
            &mut b,
            "| n node | n := 0. node := UserGlobals at: #List. [node notNil] whileTrue: [n := n + (node at: 1). node := node at: 2]. n"
        ),
        "200010000"
    );
    assert!(b.heap.live_count() >= before + 19_000, "the list came in as it was walked");
    let trips = b.store_stats().expect("a gem").fetches - trips_before;
    assert!(trips <= 20, "{trips} round trips for 20,000 objects");
}

#[test]
fn a_gem_over_its_memory_budget_drops_clean_objects_and_faults_them_back() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(
        &mut a,
        "| list | list := nil. 1 to: 100000 do: [:i | list := Array with: i with: list]. UserGlobals at: #Big put: list. System commitTransaction",
    );
    let config = VmConfig { login_budget: 64 << 10, memory_budget: Some(4 << 20), ..VmConfig::default() };
    let mut b = Vm::login(Box::new(crate::util::session(&stone)), config).expect("login");
    let walk = "| n node | n := 0. node := UserGlobals at: #Big. \
                [node notNil] whileTrue: [n := n + (node at: 1). node := node at: 2. \
                 (n \\\\ 1000) = 0 ifTrue: [Smalltalk garbageCollect]]. n";
    assert_eq!(run(&mut b, walk), "5000050000");
    run(&mut b, "Smalltalk garbageCollect");
    // The same walk in a gem without a budget keeps every node.
    let unbounded = VmConfig { login_budget: 64 << 10, ..VmConfig::default() };
    let mut c = Vm::login(Box::new(crate::util::session(&stone)), unbounded).expect("login");
    assert_eq!(run(&mut c, walk), "5000050000");
    run(&mut c, "Smalltalk garbageCollect");
    let (kept, all) = (b.heap.footprint(), c.heap.footprint());
    assert!(kept + (1 << 20) < all, "the budgeted gem kept {kept} bytes, the other {all}");
    let trips = b.store_stats().expect("a gem").fetches;
    assert_eq!(run(&mut b, walk), "5000050000", "evicted objects fault back in");
    assert!(b.store_stats().expect("a gem").fetches > trips, "the second walk faulted again");
}

#[test]
fn a_replay_leaves_reduced_conflict_objects_made_in_the_transaction_alone() {
    let (_dir, stone) = repository();
    let mut setup = gem(&stone);
    run(&mut setup, "UserGlobals at: #Hits put: (RcKeyValueDictionary new). System commitTransaction");
    let mut a = gem(&stone);
    let mut b = gem(&stone);
    // Both write the same key's bucket (so a's commit conflicts and replays); a also makes a
    // new counter in the same transaction.
    run(
        &mut a,
        "(UserGlobals at: #Hits) at: #k1 put: 1. UserGlobals at: #Fresh put: (RcCounter new increment; yourself)",
    );
    run(&mut b, "(UserGlobals at: #Hits) at: #k1 put: 2");
    assert_eq!(run(&mut b, "System commitTransaction"), "true");
    assert_eq!(run(&mut a, "System commitTransaction"), "false", "adding a key another gem added fails");
    run(&mut a, "System abortTransaction");
    // Keys 1 and 33 share a bucket: a's commit conflicts on it and replays its add.
    run(
        &mut a,
        "(UserGlobals at: #Hits) at: 1 put: 1. UserGlobals at: #Fresh put: (RcCounter new increment; yourself)",
    );
    run(&mut b, "(UserGlobals at: #Hits) at: 33 put: 2");
    assert_eq!(run(&mut b, "System commitTransaction"), "true");
    assert_eq!(run(&mut a, "System commitTransaction"), "true");
    let mut c = gem(&stone);
    assert_eq!(run(&mut c, "(UserGlobals at: #Fresh) value"), "1", "the new counter's increment was not replayed");
    assert_eq!(run(&mut c, "(UserGlobals at: #Hits) size"), "3");
}

#[test]
fn touching_one_element_of_a_large_array_brings_in_only_its_chunk() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(
        &mut a,
        "| big | big := Array new: 1000000. 1 to: 1000000 do: [:i | big at: i put: i * 2]. UserGlobals at: #Big put: big. System commitTransaction",
    );
    let config = VmConfig { login_budget: 64 << 10, ..VmConfig::default() };
    let mut b = Vm::login(Box::new(crate::util::session(&stone)), config).expect("login");
    let before = b.heap.footprint();
    assert_eq!(run(&mut b, "(UserGlobals at: #Big) at: 500000"), "1000000");
    assert_eq!(run(&mut b, "(UserGlobals at: #Big) size"), "1000000");
    assert!(b.heap.footprint() < before + (1 << 20), "one chunk came in, not the whole array");
    // A change to one element commits, and another gem sees it.
    assert_eq!(run(&mut b, "(UserGlobals at: #Big) at: 999999 put: #changed. System commitTransaction"), "true");
    let mut c = gem(&stone);
    assert_eq!(run(&mut c, "(UserGlobals at: #Big) at: 999999"), "#changed");
    assert_eq!(run(&mut c, "(UserGlobals at: #Big) at: 1"), "2");
    assert_eq!(
        run(
            &mut c,
            "((UserGlobals at: #Big) inject: 0 into: [:sum :each | each isInteger ifTrue: [sum + each] ifFalse: [sum]])"
        ),
        "999999000002"
    );
}

#[test]
fn walking_a_large_collection_faults_its_elements_many_per_round_trip() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(
        &mut a,
        "| boxes | boxes := Array new: 30000. 1 to: 30000 do: [:i | boxes at: i put: (Array with: i with: 'box')]. UserGlobals at: #Boxes put: boxes. System commitTransaction",
    );
    let config = VmConfig { login_budget: 64 << 10, ..VmConfig::default() };
    let mut b = Vm::login(Box::new(crate::util::session(&stone)), config).expect("login");
    let trips_before = b.store_stats().expect("a gem").fetches;
    assert_eq!(
        run(&mut b, "(UserGlobals at: #Boxes) inject: 0 into: [:sum :each | sum + (each at: 1) + (each at: 2) size]"),
        "450105000"
    );
    let trips = b.store_stats().expect("a gem").fetches - trips_before;
    assert!(trips <= 100, "{trips} round trips for 30,000 elements");
}

#[test]
fn a_string_larger_than_a_chunk_comes_in_whole() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(&mut a, "UserGlobals at: #Text put: (String new: 200000 withAll: $x). System commitTransaction");
    let mut b = gem(&stone);
    assert_eq!(
        run(&mut b, "| t | t := UserGlobals at: #Text. {t size. t last. (t occurrencesOf: $x)}"),
        "#(200000 $x 200000)"
    );
}

#[test]
fn large_objects_with_named_slots_copy_and_reflect_like_small_ones() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(
        &mut a,
        "Array variableSubclass: #Tagged instanceVariableNames: 'tag' classVariableNames: '' package: 'Demo'. \
         Tagged compile: 'tag ^ tag'. Tagged compile: 'tag: x tag := x'. \
         UserGlobals at: #T put: ((Tagged new: 20000) tag: #label; at: 20000 put: 5; yourself). System commitTransaction",
    );
    let config = VmConfig { login_budget: 64 << 10, ..VmConfig::default() };
    let mut b = Vm::login(Box::new(crate::util::session(&stone)), config).expect("login");
    assert_eq!(
        run(&mut b, "| t | t := UserGlobals at: #T. {t tag. t at: 20000. t size. t instVarAt: 1}"),
        "#(#label 5 20000 #label)"
    );
    assert_eq!(
        run(&mut b, "| t c | t := UserGlobals at: #T. c := t copy. c at: 1 put: 9. {t at: 1. c at: 1. c size}"),
        "#(nil 9 20000)"
    );
    assert_eq!(run(&mut b, "System commitTransaction"), "true");
    let mut c = gem(&stone);
    assert_eq!(run(&mut c, "(UserGlobals at: #T) at: 1"), "nil", "the copy did not change the original");
}

#[test]
fn the_lock_messages_of_system_work_and_refuse_what_cannot_be_locked() {
    let (_dir, stone) = repository();
    let mut setup = gem(&stone);
    run(&mut setup, "UserGlobals at: #Acct put: (Array with: 1). System commitTransaction");
    let mut a = gem(&stone);
    let mut b = gem(&stone);
    assert_ne!(run(&mut a, "System session"), run(&mut b, "System session"));
    run(&mut a, "System readLock: (UserGlobals at: #Acct)");
    assert_eq!(run(&mut b, "System readLock: (UserGlobals at: #Acct). #shared"), "#shared", "read locks are shared");
    let denied =
        run(&mut b, "[System writeLock: (UserGlobals at: #Acct). #granted] on: Error do: [:e | e messageText]");
    assert!(denied.contains("denied"), "{denied}");
    run(&mut a, "System removeLock: (UserGlobals at: #Acct)");
    run(&mut b, "System removeLocksForSession");
    assert_eq!(run(&mut b, "System writeLock: (UserGlobals at: #Acct). #granted"), "#granted");
    // Only committed objects can be locked; a bad argument is an error, not a crash.
    for bad in ["System writeLock: Object new", "System readLock: 3", "System continueTransactionRefreshing: 3"] {
        let e = eval_in(&mut a, bad).expect_err(bad).to_string();
        assert!(!e.is_empty(), "{bad}");
    }
    // Without a repository the transaction messages are clear errors.
    let mut plain = vm();
    let e = eval_in(&mut plain, "System commitTransaction").expect_err("no repository").to_string();
    assert!(e.contains("no repository"), "{e}");
    assert_eq!(run(&mut plain, "System session"), "nil");
}

#[test]
fn code_another_gem_commits_moves_the_code_epoch_at_the_next_abort() {
    let (_dir, stone) = repository();
    let (mut a, mut b) = (gem(&stone), gem(&stone));
    run(&mut b, "Object methods size");
    let before = b.code_epoch();
    run(&mut a, "Object compile: 'probeEpoch ^ 1'. System commitTransaction");
    assert_eq!(b.code_epoch(), before, "nothing changes before the abort");
    run(&mut b, "System abortTransaction");
    assert_ne!(b.code_epoch(), before, "the reloaded method dictionary is a change to code");
    assert_eq!(run(&mut b, "nil probeEpoch"), "1");
}

#[test]
fn a_gem_logs_in_to_a_repository_whose_globals_fill_a_large_dictionary() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(
        &mut a,
        "1 to: 4000 do: [:i | Smalltalk at: ('Global', i printString) asSymbol put: i]. System commitTransaction",
    );
    let config = VmConfig { login_budget: 64 << 10, ..VmConfig::default() };
    let mut b = Vm::login(Box::new(crate::util::session(&stone)), config).expect("login");
    assert_eq!(run(&mut b, "(Smalltalk includesKey: #Global3999) & ((Smalltalk at: #Global17) = 17)"), "true");
    assert_eq!(run(&mut b, "3 + 4"), "7");
}

#[test]
fn needs_commit_says_whether_the_transaction_changed_a_persistent_object() {
    let (_dir, stone) = repository();
    let mut g = gem(&stone);
    assert_eq!(run(&mut g, "System needsCommit"), "false", "a fresh view has nothing to commit");
    let only_new = "(OrderedCollection new add: 3; yourself) asSortedCollection. #(2 1) asSortedCollection: nil. \
                    Set new add: nil. System needsCommit";
    assert_eq!(run(&mut g, only_new), "false", "only new objects, and no cache of a kernel class");
    run(&mut g, "Smalltalk at: #Counter put: 0");
    assert_eq!(run(&mut g, "System needsCommit"), "true");
    assert_eq!(run(&mut g, "System commitTransaction. System needsCommit"), "false");
    run(&mut g, "Smalltalk at: #Counter put: 1");
    assert_eq!(run(&mut g, "System abortTransaction. System needsCommit"), "false");
    assert_eq!(run(&mut g, "Smalltalk at: #Counter"), "0");
    assert_eq!(
        eval_in(&mut vm(), "System needsCommit").ok().as_deref(),
        Some("false"),
        "no repository, nothing to commit"
    );
}

#[test]
fn a_weak_array_keeps_what_the_repository_holds_and_drops_what_only_it_holds() {
    let (_dir, stone) = repository();
    let mut a = gem(&stone);
    run(&mut a, "Smalltalk at: #Registry put: (WeakArray with: 'first' copy with: 'second' copy with: nil)");
    assert_eq!(run(&mut a, "System commitTransaction"), "true");
    let mut b = gem(&stone);
    // Only the WeakArray refers to its committed elements: they are the repository's, so a
    // collection in b keeps them (they are not garbage, just not in memory yet).
    run(&mut b, "Smalltalk garbageCollect");
    assert_eq!(run(&mut b, "(Smalltalk at: #Registry) asArray"), "#('first' 'second' nil)");
    run(&mut b, "Smalltalk garbageCollect");
    assert_eq!(run(&mut b, "(Smalltalk at: #Registry) first"), "'first'");
    // A new object only the WeakArray refers to goes at the next collection, and nil commits.
    run(&mut b, "(Smalltalk at: #Registry) at: 3 put: Object new. nil");
    run(&mut b, "Smalltalk garbageCollect");
    assert_eq!(run(&mut b, "(Smalltalk at: #Registry) at: 3"), "nil");
    assert_eq!(run(&mut b, "(Smalltalk at: #Registry) class isWeak"), "true");
    assert_eq!(run(&mut b, "System commitTransaction"), "true");
    let mut c = gem(&stone);
    assert_eq!(run(&mut c, "(Smalltalk at: #Registry) asArray"), "#('first' 'second' nil)");
}

#[test]
fn the_root_names_the_classes_of_code_where_the_stone_reads_them() {
    use onyx_record::kernel::{ROOT_COMPILED_METHOD, ROOT_METACLASS, ROOT_METHOD_DICTIONARY};
    let kernel = vm();
    let root = kernel.known.objects();
    assert_eq!(root[ROOT_METACLASS], kernel.known.metaclass);
    assert_eq!(root[ROOT_COMPILED_METHOD], kernel.known.compiled_method);
    assert_eq!(root[ROOT_METHOD_DICTIONARY], kernel.known.method_dictionary);
}
