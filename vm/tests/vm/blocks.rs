//! Blocks evaluated by native code (`value`, `value:`, ... activated without the VM): every
//! doit answers as expected whichever way it runs, a closure whose slots are not what native
//! code expects is left to the VM and fails cleanly, and the frames native code pushes are
//! whole for the debugger and the collector.

use onyx_vm::JitConfig;

use crate::util::{check_each_way, eval_in, vm_with};

/// Methods that evaluate blocks they are given or make.
const METHODS: &[&str] = &[
    "Object subclass: #BlockProbe instanceVariableNames: 'seen' classVariableNames: '' package: 'Tests-Blocks'",
    "BlockProbe compile: 'apply: aBlock to: x ^ aBlock value: x'",
    "BlockProbe compile: 'firstOver: n in: c c do: [:x | x > n ifTrue: [^ x]]. ^ #none'",
    "BlockProbe compile: 'adder: k ^ [:x | x + k]'",
    "BlockProbe compile: 'counter | n | n := 0. ^ [n := n + 1]'",
    "BlockProbe compile: 'spread: a with: b with: c with: d with: e \
       ^ [:x | {x. a. b. c. d. e. seen}] value: 0'",
    "BlockProbe compile: 'deep: n | b | b := nil. b := [:k | k = 0 ifTrue: [0] ifFalse: [1 + (b value: k - 1)]]. ^ b value: n'",
    "BlockProbe compile: 'nested ^ [:a | [:b | [:c | a + b + c] value: 3] value: 2] value: 1'",
    "BlockProbe compile: 'home ^ [thisContext home method selector] value'",
    "BlockProbe compile: 'garbage: n ^ (1 to: n) inject: 0 into: [:acc :i | acc + (Array new: 50) size]'",
];

/// Each doit with the answer it must give, whichever way it runs.
const CASES: &[(&str, &str)] = &[
    ("[42] value", "42"),
    ("[:a | a * 2] value: 21", "42"),
    ("[:a :b | a - b] value: 50 value: 8", "42"),
    ("[:a :b :c | a + b + c] value: 40 value: 1 value: 1", "42"),
    ("[:a :b :c :d | a + b + c + d] value: 39 value: 1 value: 1 value: 1", "42"),
    ("#(1 2 3 4) inject: 0 into: [:acc :x | acc + x]", "10"),
    ("| k | k := 10. (1 to: 3) collect: [:i | i + k]", "#(11 12 13)"),
    ("(1 to: 3) collect: [:i | | t | t := i * i. t + 1]", "#(2 5 10)"),
    ("BlockProbe new apply: [:x | x , 'b'] to: 'a'", "'ab'"),
    ("BlockProbe new firstOver: 2 in: #(1 2 5 7)", "5"),
    ("BlockProbe new firstOver: 9 in: #(1 2 5 7)", "#none"),
    ("| a | a := BlockProbe new adder: 5. (1 to: 3) collect: [:i | a value: i]", "#(6 7 8)"),
    ("| c | c := BlockProbe new counter. 1000 timesRepeat: [c value]. c value", "1001"),
    ("BlockProbe new spread: 1 with: 2 with: 3 with: 4 with: 5", "#(0 1 2 3 4 5 nil)"),
    ("BlockProbe new deep: 1000", "1000"),
    ("BlockProbe new nested", "6"),
    ("BlockProbe new home", "#home"),
    ("BlockProbe new garbage: 200000", "10000000"),
    ("| r | r := OrderedCollection new. [r add: 1] ensure: [r add: 2]. r asArray", "#(1 2)"),
    ("[:x | x] numArgs", "1"),
    // The wrong number of arguments: the VM's answer, not native code's.
    ("[[:x | x] value] on: Error do: [:e | e class name]", "#Error"),
    ("[[42] value: 1] on: Error do: [:e | e class name]", "#Error"),
    ("[[:a :b | a] value: 1] on: Error do: [:e | e class name]", "#Error"),
    // Recursion through blocks reaches the depth limit, which the VM reports.
    ("[BlockProbe new deep: 1000000] on: Error do: [:e | e class name]", "#StackOverflow"),
    // A closure whose slots were changed is not activated natively, and fails cleanly.
    ("| b | b := [3]. b instVarAt: 3 put: 99. [b value] on: Error do: [:e | #failed]", "#failed"),
    ("| b | b := [3]. b instVarAt: 3 put: 'x'. [b value] on: Error do: [:e | #failed]", "#failed"),
    ("| b | b := [3]. b instVarAt: 2 put: nil. [b value] on: Error do: [:e | #failed]", "#failed"),
    ("| b | b := [3]. b instVarAt: 2 put: Object new. [b value] on: Error do: [:e | #failed]", "#failed"),
    // (A home that is no activation id only matters to a `^` inside the block.)
    ("| b | b := [3]. b instVarAt: 5 put: 'x'. [b value] on: Error do: [:e | #failed]", "3"),
    // A closure outlives its method being compiled again: it runs the code it was made with.
    (
        "| b | BlockProbe compile: 'later ^ [#old]'. b := BlockProbe new later. \
         BlockProbe compile: 'later ^ [#new]'. {b value. BlockProbe new later value}",
        "#(#old #new)",
    ),
];

#[test]
fn blocks_answer_the_same_in_native_code() {
    check_each_way(&[JitConfig::Off, JitConfig::After(0)], METHODS, CASES);
}

#[test]
fn a_block_native_code_activated_shows_in_the_debugger() {
    let mut vm = vm_with(JitConfig::After(0));
    for source in METHODS {
        eval_in(&mut vm, source).expect("defines");
    }
    // The forked process waits inside a block that `apply:to:` evaluated natively (the
    // method was compiled before, by the first call).
    let p = vm
        .evaluate(
            "| s p | s := Semaphore new. BlockProbe new apply: [:x | x] to: 1. \
             p := [BlockProbe new apply: [:x | s wait. x] to: 7] fork. \
             Processor yield. p",
        )
        .expect("runs");
    assert!(vm.native_code_count() > 0);
    let labels: Vec<String> = vm.frames(p).into_iter().map(|f| f.label).collect();
    assert!(labels.first().is_some_and(|l| l.starts_with("[] in ")), "{labels:?}");
    assert_eq!(labels.get(1).map(String::as_str), Some("BlockProbe>>apply:to:"), "{labels:?}");
}
