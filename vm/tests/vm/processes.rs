//! Green-thread processes: fork, priorities, semaphores, delays, queues, termination, and the
//! host regaining control of a runaway evaluation.

use std::time::{Duration, Instant};

use onyx_vm::{EvalError, Poll};

use crate::util::{check_all, eval_in, vm};

#[test]
fn fork_yield_and_priorities() {
    check_all(&[
        (
            "| log | log := OrderedCollection new. [log add: 2] fork. log add: 1. Processor yield. log add: 3. log asArray",
            "#(1 2 3)",
        ),
        (
            "| log | log := OrderedCollection new. [log add: #high] forkAt: Processor userInterruptPriority. log add: #low. log asArray",
            "#(#high #low)",
        ),
        (
            "| log p | log := OrderedCollection new. p := [log add: #low] forkAt: Processor userBackgroundPriority. log add: #main. log asArray",
            "#(#main)",
        ),
        ("Processor activeProcess priority", "40"),
        ("| p | p := [3] newProcess. p isSuspended", "true"),
        ("| p | p := [3] fork. Processor yield. p isTerminated", "true"),
        ("| s r | s := Semaphore new. [r := 42. s signal] fork. s wait. r", "42"),
        ("| s | s := Semaphore new. s signal; signal. s wait. s excessSignals", "1"),
        // A waiting process whose priority is raised above the signaller's runs at once when
        // signalled (and one lowered below it waits for the signaller to yield the processor).
        (
            "| log s p | log := OrderedCollection new. s := Semaphore new. \
             p := [Processor activeProcess priority: 30. s wait. log add: #waiter] forkAt: 50. p priority: 50. \
             s signal. log add: #signaller. log asArray",
            "#(#waiter #signaller)",
        ),
        (
            "| log s p | log := OrderedCollection new. s := Semaphore new. \
             p := [s wait. log add: #waiter] forkAt: 50. p priority: 30. \
             s signal. log add: #signaller. log asArray",
            "#(#signaller)",
        ),
    ]);
}

#[test]
fn semaphore_ping_pong_keeps_order() {
    // The same check as the peer's benchmark script: every round trip alternates.
    let r = crate::util::eval(
        "| n i j bad s1 s2 done | n := 100000. i := 0. j := 0. bad := 0. \
         s1 := Semaphore new. s2 := Semaphore new. done := Semaphore new. \
         [1 to: n do: [:ii | s1 wait. i = ii ifFalse: [bad := bad + 1]. j := j + 1. s2 signal]] fork. \
         [1 to: n do: [:jj | i := jj. s1 signal. s2 wait. j = jj ifFalse: [bad := bad + 1]]. done signal] fork. \
         done wait. {bad. j}",
    );
    assert_eq!(r, "#(0 100000)");
}

#[test]
fn delays_shared_queues_and_mutexes() {
    let start = Instant::now();
    check_all(&[
        (
            "| t | t := Time millisecondClockValue. (Delay forMilliseconds: 60) wait. Time millisecondClockValue - t >= 60",
            "true",
        ),
        (
            "| q r | q := SharedQueue new. [1 to: 5 do: [:i | q nextPut: i]] fork. r := OrderedCollection new. 5 timesRepeat: [r add: q next]. r asArray",
            "#(1 2 3 4 5)",
        ),
        ("| q | q := SharedQueue new. [(Delay forMilliseconds: 20) wait. q nextPut: #late] fork. q next", "#late"),
        ("| m n | m := Mutex new. n := 0. m critical: [m critical: [n := n + 1]]. n", "1"),
        (
            "| m log | m := Mutex new. log := OrderedCollection new. [m critical: [log add: 1. Processor yield. log add: 2]] fork. [m critical: [log add: 3]] fork. (Delay forMilliseconds: 20) wait. log asArray",
            "#(1 2 3)",
        ),
    ]);
    assert!(start.elapsed() >= Duration::from_millis(80));
}

#[test]
fn suspend_resume_terminate() {
    check_all(&[
        (
            "| p log | log := OrderedCollection new. p := [log add: 1. Processor activeProcess suspend. log add: 2] fork. Processor yield. log add: #main. p resume. Processor yield. log asArray",
            "#(1 #main 2)",
        ),
        (
            "| p log s | log := OrderedCollection new. s := Semaphore new. p := [[s wait] ensure: [log add: #unwound]] fork. Processor yield. p terminate. {p isTerminated. log asArray}",
            "#(true #(#unwound))",
        ),
        ("| p | p := [[true] whileTrue: [Processor yield]] fork. Processor yield. p terminate. p isTerminated", "true"),
        ("| p | p := [Processor activeProcess terminate. #notReached] fork. Processor yield. p isTerminated", "true"),
    ]);
}

/// Polls `process` for three 5 ms slices, each given back within `within`, then interrupts
/// it and checks the report.
fn regain_and_interrupt(vm: &mut onyx_vm::Vm, process: onyx_vm::Value, within: Duration) {
    for _ in 0..3 {
        let t = Instant::now();
        assert!(matches!(vm.poll(process, Duration::from_millis(5)), Poll::Running));
        assert!(t.elapsed() < within, "the host waited {:?}", t.elapsed());
    }
    let report = vm.interrupt_process(process);
    assert_eq!(report.class_name, "Interrupt");
    assert!(report.stack.iter().any(|f| f.label.contains("DoIt")), "{report:?}");
}

#[test]
fn host_regains_control_of_an_endless_loop_and_interrupts_it() {
    let mut vm = vm();
    let process = vm.spawn_doit("[true] whileTrue: [3 + 4]", onyx_vm::Value::NIL).expect("compiles");
    regain_and_interrupt(&mut vm, process, Duration::from_millis(50));
    assert_eq!(eval_in(&mut vm, "3 + 4").expect("the VM goes on"), "7");
}

#[test]
fn interrupt_flag_from_another_thread_stops_an_evaluation() {
    let mut vm = vm();
    let flag = vm.interrupt.clone();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let t = Instant::now();
    let r = vm.evaluate("| n | n := 0. [true] whileTrue: [n := n + 1]");
    assert!(matches!(r, Err(EvalError::Interrupted(_))), "{r:?}");
    assert!(t.elapsed() < Duration::from_secs(2));
    setter.join().expect("thread");
    assert_eq!(eval_in(&mut vm, "1 + 1").expect("the VM goes on"), "2");
}

#[test]
fn waiting_forever_is_reported_not_hung() {
    let mut vm = vm();
    let r = vm.evaluate("Semaphore new wait");
    assert!(matches!(r, Err(EvalError::Deadlock(_))), "{r:?}");
}

#[test]
fn frames_of_a_stopped_process_are_readable_from_the_host() {
    let mut vm = vm();
    for src in [
        "Object subclass: #Spinner instanceVariableNames: 'state' classVariableNames: '' package: 'Tests-Processes'",
        "Spinner compile: 'spin: n\n\t| local |\n\tlocal := n * 2.\n\tstate := #spinning.\n\t[true] whileTrue: [local := local + 0]'",
    ] {
        eval_in(&mut vm, src).expect("defines");
    }
    let process = vm.spawn_doit("Spinner new spin: 21", onyx_vm::Value::NIL).expect("compiles");
    assert!(matches!(vm.poll(process, Duration::from_millis(10)), Poll::Running));
    let frames = vm.frames(process);
    let top = frames.first().expect("a frame");
    assert_eq!(top.label, "Spinner>>spin:");
    let var = |name: &str| top.variables.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    assert_eq!(var("n"), Some(onyx_vm::Value::small(21)));
    assert_eq!(var("local"), Some(onyx_vm::Value::small(42)));
    assert_eq!(vm.print_string(top.receiver).expect("prints"), "a Spinner");
    assert_eq!(top.line, 5, "the step point is in the loop: {top:?}");
    assert_eq!(frames.get(1).map(|f| f.label.as_str()), Some("UndefinedObject>>DoIt"));
    vm.interrupt_process(process);
}

#[test]
fn an_interrupted_process_resumes_where_it_stood() {
    let mut vm = vm();
    eval_in(&mut vm, "Smalltalk at: #Ticks put: 0").expect("defines");
    let process = vm.spawn_doit("[true] whileTrue: [Ticks := Ticks + 1]", onyx_vm::Value::NIL).expect("compiles");
    assert!(matches!(vm.poll(process, Duration::from_millis(5)), Poll::Running));
    vm.interrupt_process(process);
    let ticks = |vm: &mut onyx_vm::Vm| eval_in(vm, "Ticks").expect("reads").parse::<u64>().expect("a number");
    let stopped = ticks(&mut vm);
    assert!(stopped > 0);
    // Suspended: other evaluations run, the counter stays.
    assert_eq!(ticks(&mut vm), stopped);
    assert!(vm.resume_process(process));
    assert!(!vm.resume_process(process), "already resumed");
    assert!(matches!(vm.poll(process, Duration::from_millis(5)), Poll::Running));
    assert!(ticks(&mut vm) > stopped, "it went on counting");
    vm.interrupt_process(process);
}

/// The gcd of two integers of a million bits (see [`long_operands`]): it takes seconds.
const LONG_GCD: &str = "(Smalltalk at: #X) gcd: (Smalltalk at: #Y)";

fn long_operands(vm: &mut onyx_vm::Vm) {
    let source = "Smalltalk at: #X put: (3 raisedTo: 660000) + 1; at: #Y put: (7 raisedTo: 370000) + 3. nil";
    eval_in(vm, source).expect("the operands are made");
}

#[test]
fn long_integer_arithmetic_lets_the_host_in_and_can_be_interrupted() {
    let mut vm = vm();
    long_operands(&mut vm);
    let process = vm.spawn_doit(LONG_GCD, onyx_vm::Value::NIL).expect("compiles");
    regain_and_interrupt(&mut vm, process, Duration::from_millis(200));
    // Meanwhile other processes run, and other long work answers right.
    assert_eq!(eval_in(&mut vm, "3 + 4").expect("the VM goes on"), "7");
    let exact = "| x y | x := (7 raisedTo: 40000) + 1. y := (3 raisedTo: 50000) - 1.
        {(x * y) // y = x. (x * y) \\\\ y. ((x * y) gcd: x) = x. ((x * y) / x) = y. (x * x) sqrtFloor = x.
         x printString size. (x printString: 16) size}";
    assert_eq!(eval_in(&mut vm, exact).expect("answers"), "#(true 0 true true true 33804 28074)");
}

#[test]
fn other_processes_run_while_one_waits_for_long_arithmetic() {
    let mut vm = vm();
    long_operands(&mut vm);
    let source = format!(
        "| done ticks | done := false. ticks := 0.
         [{LONG_GCD}. done := true] forkAt: Processor activePriority.
         [done or: [ticks >= 1000]] whileFalse: [ticks := ticks + 1. (Delay forMilliseconds: 1) wait].
         ticks"
    );
    let ticks: u64 = eval_in(&mut vm, &source).expect("runs").parse().expect("a count");
    assert!(ticks >= 100, "the other process ran {ticks} times while the gcd was computed");
}

/// Polls `process` in slices of `slice` until it is done (ten seconds at most).
fn poll_to_end(vm: &mut onyx_vm::Vm, process: onyx_vm::Value, slice: Duration) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Poll::Done(result) = vm.poll(process, slice) {
            return vm.print_string(result.expect("finishes")).expect("prints");
        }
        assert!(Instant::now() < deadline, "still running");
    }
}

#[test]
fn a_process_that_yielded_stays_behind_across_the_hosts_time_slices() {
    let mut vm = vm();
    // The forked process runs for many of the host's slices; the doit, polled again after
    // each, runs on only once it is done.
    let source = "| log start | log := OrderedCollection new.
        [start := Time millisecondClockValue.
         [Time millisecondClockValue - start < 30] whileTrue.
         log add: #forked] fork.
        Processor yield.
        log add: #main.
        log asArray";
    let process = vm.spawn_doit(source, onyx_vm::Value::NIL).expect("compiles");
    assert_eq!(poll_to_end(&mut vm, process, Duration::from_millis(2)), "#(#forked #main)");
}

#[test]
fn the_host_turns_to_each_of_its_processes_in_turn() {
    let mut vm = vm();
    // A process of the user's priority that never waits, left behind by an earlier doit.
    let spinner = vm.spawn_doit("[[true] whileTrue] fork. nil", onyx_vm::Value::NIL).expect("compiles");
    assert_eq!(poll_to_end(&mut vm, spinner, Duration::from_millis(2)), "nil");
    // A new doit runs all the same, and so does each of two polled in turns.
    let c = vm.spawn_doit("3 + 4", onyx_vm::Value::NIL).expect("compiles");
    assert_eq!(poll_to_end(&mut vm, c, Duration::from_millis(2)), "7");
    let slow =
        "| start | start := Time millisecondClockValue. [Time millisecondClockValue - start < 20] whileTrue. #slow";
    let a = vm.spawn_doit(slow, onyx_vm::Value::NIL).expect("compiles");
    let b = vm.spawn_doit("#quick", onyx_vm::Value::NIL).expect("compiles");
    assert!(matches!(vm.poll(a, Duration::from_millis(2)), Poll::Running));
    assert_eq!(poll_to_end(&mut vm, b, Duration::from_millis(2)), "#quick");
    assert_eq!(poll_to_end(&mut vm, a, Duration::from_millis(2)), "#slow");
}
