//! Pausing a process a debugger did not stop: a busy loop in natively compiled code, a
//! process waiting on a delay, one whose pause point holds a breakpoint; and what cannot be
//! paused.

use std::time::{Duration, Instant};

use onyx_vm::{DebugError, DebugEvent, JitConfig, Reason, Value, Vm};

use crate::util::{eval_in, vm_with};

const CLASS: &str = "Object subclass: #Pz instanceVariableNames: '' classVariableNames: 'Count' package: 'Tests-Pause'";

const METHODS: &[&str] = &[
    "count\n\t^ Count ifNil: [0]",
    "tick\n\t| n |\n\tn := self count + 1.\n\tCount := n.\n\t^ n",
    "spin\n\t[true] whileTrue: [self tick]",
    "napThenTick\n\t(Delay forMilliseconds: 40) wait.\n\t^ self tick",
];

fn setup(jit: JitConfig) -> Vm {
    let mut vm = vm_with(jit);
    eval_in(&mut vm, CLASS).expect("defines Pz");
    for m in METHODS {
        let doit = format!("Pz compile: '{}'", m.replace('\'', "''"));
        eval_in(&mut vm, &doit).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    vm
}

/// Forks `source` (a block's body) and answers the process, held for the test.
fn fork(vm: &mut Vm, body: &str) -> Value {
    let p = vm.evaluate(&format!("[{body}] fork")).expect("forks");
    vm.retain(p);
    p
}

/// Runs the VM's own processes until `done` holds, for at most two seconds.
fn run_until(vm: &mut Vm, mut done: impl FnMut(&mut Vm) -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if done(vm) {
            return true;
        }
        if let Some(at) = vm.run_background(Duration::from_millis(5)) {
            std::thread::sleep(at.saturating_duration_since(Instant::now()).min(Duration::from_millis(5)));
        }
    }
    done(vm)
}

fn count(vm: &mut Vm) -> i64 {
    eval_in(vm, "Pz new count").expect("counts").parse().expect("a number")
}

/// The paused process's reason and the source of the step point it stands at.
fn paused_at(vm: &Vm, serial: u64) -> (Reason, String) {
    let process = vm.suspended(serial).expect("kept");
    let f = vm.stack_page(process, 0, 1, false).expect("a stack").frames.remove(0);
    let span = f.span.expect("a step point");
    (vm.stop_reason(process).expect("stopped"), f.source[span.start as usize..span.end as usize].to_string())
}

#[test]
fn a_busy_loop_in_native_code_stops_at_its_next_step_point_and_goes_on_when_proceeded() {
    let mut vm = setup(JitConfig::After(0));
    let p = fork(&mut vm, "Pz new spin");
    let serial = vm.process_serial(p);
    assert!(run_until(&mut vm, |vm| count(vm) > 1000), "the loop runs");
    vm.take_debug_events();

    vm.pause(serial).expect("pauses");
    assert!(run_until(&mut vm, |vm| vm.suspended(serial).is_ok()), "the loop stops");
    assert!(!vm.is_pausing(p));
    let (reason, statement) = paused_at(&vm, serial);
    assert_eq!(reason, Reason::Pause);
    assert!(!statement.is_empty());
    assert_eq!(vm.take_debug_events(), vec![DebugEvent::Failed(serial)]);
    let stopped_at = count(&mut vm);
    let quiet = Instant::now() + Duration::from_millis(100);
    run_until(&mut vm, |_| Instant::now() > quiet);
    assert_eq!(count(&mut vm), stopped_at, "a paused process does not run");

    vm.proceed(serial).expect("proceeds");
    assert!(run_until(&mut vm, |vm| count(vm) > stopped_at + 1000), "it goes on with its work");
    vm.pause(serial).expect("pauses again");
    assert!(run_until(&mut vm, |vm| vm.suspended(serial).is_ok()), "and stops again");
    vm.terminate(serial).expect("terminates");
}

#[test]
fn a_waiting_process_stops_when_it_wakes() {
    let mut vm = setup(JitConfig::Off);
    let p = fork(&mut vm, "Pz new napThenTick");
    let serial = vm.process_serial(p);
    run_until(&mut vm, |vm| {
        vm.processes().iter().any(|v| v.serial == serial && v.status == onyx_vm::process::Status::Waiting)
    });

    vm.pause(serial).expect("pauses");
    assert!(vm.is_pausing(p));
    assert!(run_until(&mut vm, |vm| vm.suspended(serial).is_ok()), "it stops once the delay is over");
    let (reason, statement) = paused_at(&vm, serial);
    assert_eq!(reason, Reason::Pause);
    assert_eq!(statement, "self tick", "before the send after the wait");
    assert_eq!(count(&mut vm), 0);
}

#[test]
fn a_process_paused_at_a_breakpoint_passes_it_when_proceeded() {
    let mut vm = setup(JitConfig::Off);
    let p = fork(&mut vm, "(Delay forMilliseconds: 30) wait. Pz new tick. Pz new tick");
    let serial = vm.process_serial(p);
    let spec = crate::breakpoints::always(&mut vm, "Pz", 1, "tick", 3);
    vm.set_breakpoint(spec).expect("set");
    vm.pause(serial).expect("pauses");
    assert!(run_until(&mut vm, |vm| vm.suspended(serial).is_ok()));
    assert_eq!(paused_at(&vm, serial).0, Reason::Pause, "the pause comes first, before the doit's statement");
    vm.proceed(serial).expect("proceeds");
    assert!(run_until(&mut vm, |vm| vm.suspended(serial).is_ok()));
    assert!(matches!(paused_at(&vm, serial).0, Reason::Breakpoint(_)), "then the breakpoint in tick");
    vm.pause(serial).expect_err("a suspended process is paused already");
}

#[test]
fn what_cannot_be_paused_says_why() {
    let mut vm = setup(JitConfig::Off);
    assert_eq!(vm.pause(999_999), Err(DebugError::NoProcess(999_999)));
    let p = fork(&mut vm, "Pz new tick. Pz new tick");
    let serial = vm.process_serial(p);
    assert!(run_until(&mut vm, |vm| count(vm) == 2), "the process ends");
    assert_eq!(vm.pause(serial), Err(DebugError::NoProcess(serial)));
}
