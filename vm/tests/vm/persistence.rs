//! A VM as a gem of a real (in-process) stone: the kernel committed as a repository, gems
//! logging in to it, committing, conflicting and aborting.

use std::sync::Arc;

use onyx_store::Stone;
use onyx_vm::persist::LocalLink;
use onyx_vm::{Vm, VmConfig};

use crate::util::{eval_in, vm};

/// A stone over a new repository holding the kernel.
fn repository() -> (tempfile::TempDir, Arc<Stone>) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = Arc::new(Stone::create(dir.path()).expect("a repository"));
    let mut kernel = vm();
    let link = LocalLink::login(Arc::clone(&stone)).expect("a session");
    kernel.create_repository(Box::new(link)).expect("the kernel commits");
    (dir, stone)
}

fn gem(stone: &Arc<Stone>) -> Vm {
    let link = LocalLink::login(Arc::clone(stone)).expect("a session");
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
