//! Process switches in native code (`signal` and `wait` answered, and the switch made, without
//! the VM): every program answers as in the interpreter alone, and a process native code
//! switched away from is whole for the collector and the tools.

use onyx_vm::JitConfig;

use crate::util::{check_each_way, eval_in, vm_with};

/// Methods that wait and signal a few sends down, so that switches leave deep stacks.
const DEEP: &[&str] = &[
    "Object subclass: #Deep instanceVariableNames: 'count' classVariableNames: '' package: 'Tests-Switches'",
    "Deep compile: 'outer: s1 with: s2 ^ self middle: s1 with: s2'",
    "Deep compile: 'middle: s1 with: s2 ^ (self inner: s1 with: s2) + 0'",
    "Deep compile: 'inner: s1 with: s2 count := 0. [true] whileTrue: [s1 wait. count := count + 1. s2 signal]'",
    "Deep compile: 'count ^ count'",
];

/// Each doit with the answer it must give, whichever way it runs.
const CASES: &[(&str, &str)] = &[
    // The peer's ping-pong check: every round trip alternates.
    (
        "| n i j bad s1 s2 done | n := 20000. i := 0. j := 0. bad := 0. \
         s1 := Semaphore new. s2 := Semaphore new. done := Semaphore new. \
         [1 to: n do: [:ii | s1 wait. i = ii ifFalse: [bad := bad + 1]. j := j + 1. s2 signal]] fork. \
         [1 to: n do: [:jj | i := jj. s1 signal. s2 wait. j = jj ifFalse: [bad := bad + 1]]. done signal] fork. \
         done wait. {bad. j}",
        "#(0 20000)",
    ),
    // Excess signals are counted and taken without a switch.
    ("| s | s := Semaphore new. 5 timesRepeat: [s signal]. 3 timesRepeat: [s wait]. s excessSignals", "2"),
    // Waiters are woken first come, first served, each at its own priority's queue.
    (
        "| s log done | s := Semaphore new. done := Semaphore new. log := OrderedCollection new. \
         1 to: 4 do: [:k | [s wait. log add: k. done signal] fork]. Processor yield. \
         4 timesRepeat: [s signal]. 4 timesRepeat: [done wait]. log asArray",
        "#(1 2 3 4)",
    ),
    // A waiter raised above the signaller runs at once; one below waits for a yield.
    (
        "| s log p q | s := Semaphore new. log := OrderedCollection new. \
         p := [s wait. log add: #high] fork. q := [s wait. log add: #low] fork. Processor yield. \
         p priority: 50. q priority: 30. s signal. log add: #after1. s signal. log add: #after2. \
         Processor yield. log asArray",
        "#(#high #after1 #after2)",
    ),
    // A terminated waiter leaves its semaphore: the signal meant for it is an excess one.
    (
        "| s p | s := Semaphore new. p := [s wait] fork. Processor yield. p terminate. s signal. \
         {p isTerminated. s excessSignals}",
        "#(true 1)",
    ),
    // A wait with nothing else ready goes to the VM, which waits for the timer.
    ("| s | s := Semaphore new. [(Delay forMilliseconds: 2) wait. s signal] fork. s wait. #woken", "#woken"),
    // Objects only the frames of switched-out processes hold survive collections.
    (
        "| n s1 s2 done bad | n := 3000. bad := 0. s1 := Semaphore new. s2 := Semaphore new. done := Semaphore new. \
         [1 to: n do: [:i | | a | a := Array new: 3 withAll: i. s1 wait. \
            (a allSatisfy: [:x | x = i]) ifFalse: [bad := bad + 1]. s2 signal]] fork. \
         [1 to: n do: [:i | | b | b := i printString. s1 signal. \
            i \\\\ 500 = 0 ifTrue: [Smalltalk garbageCollect]. s2 wait. \
            b = i printString ifFalse: [bad := bad + 1]]. done signal] fork. \
         done wait. bad",
        "0",
    ),
    // Switches between processes several sends deep.
    (
        "| s1 s2 d | s1 := Semaphore new. s2 := Semaphore new. d := Deep new. \
         [d outer: s1 with: s2] fork. 1 to: 1000 do: [:i | s1 signal. s2 wait]. d count",
        "1000",
    ),
];

#[test]
fn native_switches_answer_as_the_interpreter_does() {
    check_each_way(&[JitConfig::Off, JitConfig::After(0)], DEEP, CASES);
}

#[test]
fn a_process_switched_away_from_in_native_code_shows_all_its_frames() {
    let mut vm = vm_with(JitConfig::After(0));
    for src in DEEP {
        eval_in(&mut vm, src).expect("defines");
    }
    // The forked process last waits in Deep>>inner:, switched away from by native code (the
    // main process is ready then, at a native entry, having been signalled natively).
    let p = vm
        .evaluate(
            "| s1 s2 p | s1 := Semaphore new. s2 := Semaphore new. \
             p := [Deep new outer: s1 with: s2] fork. 1 to: 200 do: [:i | s1 signal. s2 wait]. p",
        )
        .expect("runs");
    assert!(vm.native_code_count() > 0);
    let labels: Vec<String> = vm.frames(p).into_iter().map(|f| f.label).collect();
    assert_eq!(
        labels.get(..3),
        Some(&["Deep>>inner:with:", "Deep>>middle:with:", "Deep>>outer:with:"].map(String::from)[..])
    );
    assert!(labels.get(3).is_some_and(|l| l.starts_with("[] in ")), "{labels:?}");
}
