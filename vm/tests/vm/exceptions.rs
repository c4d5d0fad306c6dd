//! ANSI exceptions: every handler operation, unwinding, unhandled errors and their reports.

use onyx_vm::EvalError;

use crate::util::{check_all, eval_in, vm};

#[test]
fn signal_and_handle() {
    check_all(&[
        ("[Error signal] on: Error do: [:e | 1]", "1"),
        ("[Error signal: 'boom'] on: Error do: [:e | e messageText]", "'boom'"),
        ("[Error new signal: 'boom'] on: Error do: [:e | e description]", "'boom'"),
        ("[Error signal] on: Error do: [:e | e messageText]", "'Error'"),
        ("[ZeroDivide new signal] on: ArithmeticError do: [:e | e class name]", "#ZeroDivide"),
        ("[1/0] on: ZeroDivide do: [:e | -1]", "-1"),
        ("[1/0] on: ZeroDivide, MessageNotUnderstood do: [:e | 2]", "2"),
        ("[nil foo] on: ZeroDivide, MessageNotUnderstood do: [:e | 3]", "3"),
        ("[Error signal. 5] on: Error do: [:e | ]", "nil"),
        ("[Error signal: 'x'] on: Error do: [:e | e return: 7]", "7"),
        ("[Warning signal: 'w'] on: Warning do: [:e | e resume: 8]", "8"),
        ("[(Warning signal: 'w') + 1] on: Warning do: [:e | e resume: 8]", "9"),
        ("[Notification signal + 1] on: Notification do: [:e | e resume: 1]", "2"),
        ("Notification signal", "nil"),
        ("[#a] on: Error do: [:e | #b]", "#a"),
        ("[[Error signal: 'in'] on: ZeroDivide do: [:e | #wrong]] on: Error do: [:e | e messageText]", "'in'"),
        ("[Error signal: 'sig'] on: Error do: [:e | e signalerContext method selector]", "#DoIt"),
        ("[Error new signal] on: Error do: [:e | e isResumable]", "false"),
        ("[Warning new signal] on: Warning do: [:e | e isResumable]", "true"),
    ]);
}

#[test]
fn message_not_understood() {
    check_all(&[
        ("[nil foo] on: MessageNotUnderstood do: [:e | e message selector]", "#foo"),
        ("[3 zork: 4] on: MessageNotUnderstood do: [:e | e message arguments]", "#(4)"),
        ("[3 zork] on: MessageNotUnderstood do: [:e | e receiver]", "3"),
        ("[3 zork] on: MessageNotUnderstood do: [:e | e return: 5]", "5"),
        ("[3 zork + 1] on: MessageNotUnderstood do: [:e | e resume: 5]", "6"),
        (
            "[3 zork] on: MessageNotUnderstood do: [:e | e messageText]",
            "'Instance of SmallInteger did not understand #zork'",
        ),
    ]);
}

#[test]
fn ensure_and_if_curtailed() {
    check_all(&[
        ("| log | log := OrderedCollection new. [log add: 1] ensure: [log add: 2]. log asArray", "#(1 2)"),
        // As in Pharo, the handler runs first (on top of the signalling stack); returning from it
        // unwinds, running the ensure blocks.
        (
            "| log | log := OrderedCollection new. [[log add: 1. Error signal. log add: 9] ensure: [log add: 2]] on: Error do: [:e | log add: 3]. log asArray",
            "#(1 3 2)",
        ),
        ("[5] ensure: [6]", "5"),
        (
            "| log | log := OrderedCollection new. [[Error signal] ifCurtailed: [log add: #curtailed]] on: Error do: [:e | nil]. log asArray",
            "#(#curtailed)",
        ),
        ("| log | log := OrderedCollection new. [log add: 1] ifCurtailed: [log add: #curtailed]. log asArray", "#(1)"),
        (
            "| log | log := OrderedCollection new. [[[Error signal] ensure: [log add: #inner]] ensure: [log add: #outer]] on: Error do: [:e | log add: #handler]. log asArray",
            "#(#handler #inner #outer)",
        ),
    ]);
}

#[test]
fn ensure_runs_on_non_local_return() {
    let mut vm = vm();
    for src in [
        "Object subclass: #EnsureTest instanceVariableNames: 'log' classVariableNames: '' package: 'Tests-Exceptions'",
        "EnsureTest compile: 'log ^ log ifNil: [log := OrderedCollection new]'",
        "EnsureTest compile: 'leave [^ #left] ensure: [self log add: #ensured]. ^ #notHere'",
        "EnsureTest compile: 'leaveFromHandler [Error signal] on: Error do: [:e | ^ #fromHandler]. ^ #notHere'",
    ] {
        eval_in(&mut vm, src).expect("defines");
    }
    assert_eq!(
        eval_in(&mut vm, "| t | t := EnsureTest new. {t leave. t log asArray}").expect("runs"),
        "#(#left #(#ensured))"
    );
    assert_eq!(eval_in(&mut vm, "EnsureTest new leaveFromHandler").expect("runs"), "#fromHandler");
}

#[test]
fn retry_pass_outer_resignal() {
    check_all(&[
        ("| n | n := 0. [n := n + 1. n < 3 ifTrue: [Error signal]. n] on: Error do: [:e | e retry]", "3"),
        ("[[Error signal: 'p'] on: Error do: [:e | e pass]] on: Error do: [:e | e messageText, '!']", "'p!'"),
        ("[[Warning signal: 'o'. 1] on: Warning do: [:e | (e outer) + 10]] on: Warning do: [:e | e resume: 5]", "15"),
        ("[[Warning signal: 'q'] on: Warning do: [:e | e pass]] on: Warning do: [:e | e resume: 4]", "4"),
        (
            "[[1/0] on: ZeroDivide do: [:e | e resignalAs: (Warning new messageText: 'z')]] on: Warning do: [:e | e messageText]",
            "'z'",
        ),
        (
            "[[1/0] on: ZeroDivide do: [:e | e resignalAs: (Warning new messageText: 'w')]] on: Warning do: [:e | e resume: 5]",
            "5",
        ),
        ("[[1/0] on: ZeroDivide do: [:e | e signal]] on: ZeroDivide do: [:e | #outerHandler]", "#outerHandler"),
        ("[Error signal] on: Error do: [:e | [e signal] on: Error do: [:e2 | #nested]]", "#nested"),
        ("| r | r := [Warning signal: 'a'] on: Warning do: [:e | e resume]. r", "nil"),
        ("[[Error signal] on: Error do: [:e | e resume: 3]] on: IllegalResumeAttempt do: [:e | #illegal]", "#illegal"),
    ]);
}

#[test]
fn unhandled_error_suspends_the_process_and_reports_its_stack() {
    let mut vm = vm();
    eval_in(
        &mut vm,
        "Object subclass: #Failing instanceVariableNames: '' classVariableNames: '' package: 'Tests-Exceptions'",
    )
    .expect("defines");
    eval_in(&mut vm, "Failing compile: 'outer\n\t^ self inner'").expect("compiles");
    eval_in(&mut vm, "Failing compile: 'inner\n\t^ 1 / 0'").expect("compiles");
    match vm.evaluate("Failing new outer") {
        Err(EvalError::Unhandled(report)) => {
            assert_eq!(report.class_name, "ZeroDivide");
            let labels: Vec<&str> = report.stack.iter().map(|f| f.label.as_str()).collect();
            let inner = labels.iter().position(|l| *l == "Failing>>inner").expect("inner frame");
            let outer = labels.iter().position(|l| *l == "Failing>>outer").expect("outer frame");
            assert!(inner < outer, "{labels:?}");
            assert_eq!(report.stack[inner].line, 2);
            assert!(labels.last().is_some_and(|l| l.contains("DoIt")), "{labels:?}");
        }
        other => panic!("expected an unhandled error, got {other:?}"),
    }
    // The VM goes on.
    assert_eq!(eval_in(&mut vm, "3 + 4").expect("runs"), "7");
    match vm.evaluate("nil foo") {
        Err(EvalError::Unhandled(report)) => {
            assert_eq!(report.class_name, "MessageNotUnderstood");
            assert!(report.description.contains("#foo"), "{}", report.description);
        }
        other => panic!("expected an unhandled error, got {other:?}"),
    }
    match vm.evaluate("self error: 'custom'") {
        Err(EvalError::Unhandled(report)) => assert_eq!(report.description, "Error: custom"),
        other => panic!("expected an unhandled error, got {other:?}"),
    }
}

#[test]
fn infinite_recursion_is_an_error_not_a_crash() {
    let mut vm = vm();
    vm.config.max_depth = 10_000;
    eval_in(
        &mut vm,
        "Object subclass: #Deep instanceVariableNames: '' classVariableNames: '' package: 'Tests-Exceptions'",
    )
    .expect("defines");
    eval_in(&mut vm, "Deep compile: 'down: n ^ (self down: n + 1) + 1'").expect("compiles");
    assert_eq!(eval_in(&mut vm, "[Deep new down: 0] on: StackOverflow do: [:e | #tooDeep]").expect("runs"), "#tooDeep");
    match vm.evaluate("Deep new down: 0") {
        Err(EvalError::Unhandled(report)) => assert_eq!(report.class_name, "StackOverflow"),
        other => panic!("expected a recursion error, got {other:?}"),
    }
    // Recursion below the limit works, and the VM goes on after the error.
    eval_in(&mut vm, "Deep compile: 'sum: n ^ n = 0 ifTrue: [0] ifFalse: [n + (self sum: n - 1)]'").expect("compiles");
    assert_eq!(eval_in(&mut vm, "Deep new sum: 5000").expect("runs"), "12502500");
}

#[test]
fn handler_returns_into_a_frame_larger_than_the_frames_above_it() {
    // The handler's `on:do:` is sent from a low register of a frame with many registers, so
    // the frames of the signal sit inside that frame's register window.
    let early = "[1 // 0] on: ZeroDivide do: [:ex | #zd]";
    let filler = (1..=20).map(|i| i.to_string()).collect::<Vec<_>>().join(". ");
    check_all(&[
        (&format!("{{{early}. {filler}. {early}}} first"), "#zd"),
        (&format!("{{{early}. {filler}. {early}}} last"), "#zd"),
        (&format!("({{{early}. {filler}}} copyFrom: 1 to: 3) printString"), "'#(#zd 1 2)'"),
    ]);
}
