//! The debugger's side of the VM: suspended processes kept, their frames, every step kind
//! (on methods with blocks, non-local returns, `ensure:`, exceptions, recursion, cascades;
//! interpreted and natively compiled), restart, return, proceed, terminate, evaluation in a
//! frame and edit and continue, each checked against what Pharo's debugger does on the same
//! code.

use onyx_vm::{EvalError, FrameView, JitConfig, Reason, StepKind, Value, Vm};

use crate::util::{eval_in, vm, vm_with};

const CLASS: &str =
    "Object subclass: #Dbg instanceVariableNames: 'log' classVariableNames: '' package: 'Tests-Debugger'";

/// Methods of `Dbg` the tests step through.
const METHODS: &[&str] = &[
    "three\n\t| a b |\n\tself halt.\n\ta := 3.\n\tb := a + 4.\n\t^ a * b",
    "callee\n\t| c |\n\tc := 10.\n\t^ c + 1",
    "caller\n\t| r |\n\tself halt.\n\tr := self callee.\n\t^ r + 1",
    "sum\n\t| s |\n\ts := 0.\n\tself halt.\n\t#(1 2 3) do: [:x | s := s + x].\n\t^ s",
    "find\n\tself halt.\n\t#(1 2 3) do: [:x | x = 2 ifTrue: [^ x * 100]].\n\t^ 0",
    "guarded\n\t| r |\n\tr := [self halt. 5] ensure: [log := (log ifNil: [0]) + 1].\n\t^ r",
    "handled\n\t| r |\n\tself halt.\n\tr := [1/0] on: ZeroDivide do: [:e | 42].\n\t^ r",
    "fact: n\n\tn = 0 ifTrue: [self halt. ^ 1].\n\t^ n * (self fact: n - 1)",
    "cascade\n\t| c |\n\tself halt.\n\tc := OrderedCollection new.\n\tc add: 1; add: 2.\n\t^ c size",
    "divide\n\t| d |\n\td := 0.\n\t^ 10 / d",
    "log\n\t^ log",
    "nested\n\t| outer |\n\touter := 7.\n\t^ [:y | | inner | inner := y + outer. self halt. inner] value: 1",
    "deep: n\n\tn = 0 ifTrue: [^ self halt].\n\t^ self deep: n - 1",
];

fn setup(vm: &mut Vm) {
    eval_in(vm, CLASS).expect("defines Dbg");
    for m in METHODS {
        let source = format!("Dbg compile: '{}'", m.replace('\'', "''"));
        eval_in(vm, &source).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

/// Runs `source` until it stops; answers the serial of the kept process.
fn stopped(vm: &mut Vm, source: &str) -> u64 {
    let process = vm.spawn_doit(source, Value::NIL).expect("compiles");
    match vm.finish(process) {
        Err(EvalError::Unhandled(_)) => {}
        other => panic!("{source}: expected a stop, got {other:?}"),
    }
    vm.keep_suspended(process);
    vm.process_serial(process)
}

/// The frame at `index` with its variables.
fn frame(vm: &Vm, serial: u64, index: usize) -> FrameView {
    let process = vm.suspended(serial).expect("suspended");
    vm.stack_page(process, index, 1, true).expect("a stack").frames.remove(0)
}

/// The label of the top frame and the source of its current step point.
fn at(vm: &Vm, serial: u64) -> (String, String) {
    let f = frame(vm, serial, 0);
    let span = f.span.expect("a step point");
    (f.label.clone(), f.source[span.start as usize..span.end as usize].to_string())
}

fn var(vm: &mut Vm, f: &FrameView, name: &str) -> String {
    let v = f.variables.iter().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap_or_else(|| panic!("no {name}"));
    vm.print_string(v).expect("prints")
}

/// Takes a step and runs until it stops; answers the outcome.
fn step(vm: &mut Vm, serial: u64, index: usize, kind: StepKind) -> Result<Value, EvalError> {
    let process = vm.step(serial, index, kind).expect("steps");
    let outcome = vm.finish(process);
    if matches!(outcome, Err(EvalError::Unhandled(_)) | Err(EvalError::Stopped)) {
        vm.keep_suspended(process);
    }
    outcome
}

fn stepped(vm: &mut Vm, serial: u64, index: usize, kind: StepKind) {
    let outcome = step(vm, serial, index, kind);
    assert!(matches!(outcome, Err(EvalError::Stopped)), "{kind:?}: {outcome:?}");
}

/// Runs a process to its end and answers the printString of its value.
fn finished(vm: &mut Vm, process: Value) -> String {
    let v = vm.finish(process).expect("ends");
    vm.print_string(v).expect("prints")
}

fn label_text(l: &str, t: &str) -> (String, String) {
    (l.to_string(), t.to_string())
}

#[test]
fn a_halt_shows_the_method_that_halted_not_the_exception_machinery() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new three");
    let process = vm.suspended(serial).expect("kept");
    assert!(matches!(vm.stop_reason(process), Some(Reason::Halt(_))), "{:?}", vm.stop_reason(process));
    assert_eq!(at(&vm, serial), label_text("Dbg>>three", "self halt"));
    let page = vm.stack_page(process, 0, 10, false).expect("a stack");
    assert_eq!(page.total, 2, "{:?}", page.frames.iter().map(|f| &f.label).collect::<Vec<_>>());
    assert!(page.frames[1].doit);
}

#[test]
fn over_goes_statement_by_statement_and_the_variables_follow() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new three");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial), label_text("Dbg>>three", "a := 3"));
    // A statement's first send is where it stops, as in Pharo.
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "a + 4");
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "a"), "3");
    assert_eq!(var(&mut vm, &f, "b"), "nil");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "a * b");
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "b"), "7");
    // Over the return: back in the doit, at its own return, then to its end.
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert!(frame(&vm, serial, 0).doit);
    let last = step(&mut vm, serial, 0, StepKind::Over).expect("the doit ends");
    assert_eq!(vm.print_string(last).expect("prints"), "21");
    assert!(vm.suspended(serial).is_err(), "the process is gone");
}

#[test]
fn into_enters_the_callee_and_out_comes_back_to_the_sender() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new caller");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "self callee");
    stepped(&mut vm, serial, 0, StepKind::Into);
    assert_eq!(at(&vm, serial), label_text("Dbg>>callee", "c := 10"));
    assert_eq!(frame(&vm, serial, 1).label, "Dbg>>caller");
    stepped(&mut vm, serial, 0, StepKind::Out);
    let (label, text) = at(&vm, serial);
    assert_eq!(label, "Dbg>>caller");
    assert_eq!(text, "r + 1", "out stops at the sender's next step point");
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "r"), "11");
}

#[test]
fn into_a_primitive_send_stays_in_the_frame() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new three");
    stepped(&mut vm, serial, 0, StepKind::Over);
    stepped(&mut vm, serial, 0, StepKind::Into);
    assert_eq!(at(&vm, serial), label_text("Dbg>>three", "a + 4"));
}

#[test]
fn through_stops_in_the_methods_blocks_and_over_does_not() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new sum");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "#(1 2 3) do: [:x | s := s + x]");
    stepped(&mut vm, serial, 0, StepKind::Through);
    let f = frame(&vm, serial, 0);
    assert!(f.label.starts_with("[] in Dbg>>sum"), "{}", f.label);
    assert_eq!(f.block_depth, 1);
    assert_eq!(var(&mut vm, &f, "x"), "1");
    // On through from the block: its next run, not the do: between (its frame is not this
    // method's).
    for x in ["2", "3"] {
        stepped(&mut vm, serial, 0, StepKind::Through);
        let f = frame(&vm, serial, 0);
        assert!(f.label.starts_with("[] in Dbg>>sum"), "{}", f.label);
        assert_eq!(var(&mut vm, &f, "x"), x);
    }
    // Through after the last run: back in the method.
    stepped(&mut vm, serial, 0, StepKind::Through);
    assert_eq!(at(&vm, serial), label_text("Dbg>>sum", "^ s"));

    let serial = stopped(&mut vm, "Dbg new sum");
    stepped(&mut vm, serial, 0, StepKind::Over);
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial), label_text("Dbg>>sum", "^ s"));
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "s"), "6");
}

#[test]
fn over_a_non_local_return_lands_in_the_sender() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new find");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).0, "Dbg>>find");
    // The block returns from the method: over leaves it, in the doit.
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert!(frame(&vm, serial, 0).doit, "{:?}", at(&vm, serial));
    let v = step(&mut vm, serial, 0, StepKind::Over).expect("ends");
    assert_eq!(vm.print_string(v).expect("prints"), "200");
}

#[test]
fn stepping_into_a_handler_stops_in_the_handler_block() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new handled");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "[1/0] on: ZeroDivide do: [:e | 42]");
    // Through: the protected block first, then the handler.
    stepped(&mut vm, serial, 0, StepKind::Through);
    assert_eq!(at(&vm, serial), label_text("[] in Dbg>>handled", "1/0"));
    stepped(&mut vm, serial, 0, StepKind::Through);
    let f = frame(&vm, serial, 0);
    assert!(f.label.starts_with("[] in Dbg>>handled"));
    assert!(f.variables.iter().any(|(n, _)| n == "e"), "in the handler: {:?}", f.variables);
    // Out of the handler: through the exception machinery, as in Pharo, back in the method.
    for _ in 0..10 {
        if at(&vm, serial).0 == "Dbg>>handled" {
            break;
        }
        stepped(&mut vm, serial, 0, StepKind::Out);
    }
    assert_eq!(at(&vm, serial), label_text("Dbg>>handled", "^ r"));
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "r"), "42");
}

#[test]
fn recursion_steps_over_in_the_right_activation() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new fact: 3");
    let process = vm.suspended(serial).expect("kept");
    assert_eq!(vm.stack_page(process, 0, 100, false).expect("stack").total, 5);
    // Over the `^ 1` of the innermost: back in the activation for 1, at its pending multiply.
    stepped(&mut vm, serial, 0, StepKind::Over);
    stepped(&mut vm, serial, 0, StepKind::Over);
    let f = frame(&vm, serial, 0);
    assert_eq!(f.label, "Dbg>>fact:");
    assert_eq!(var(&mut vm, &f, "n"), "1");
    assert_eq!(vm.stack_page(process, 0, 100, false).expect("stack").total, 4);
    // Out twice: the activation for 3.
    stepped(&mut vm, serial, 0, StepKind::Out);
    stepped(&mut vm, serial, 0, StepKind::Out);
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "n"), "3");
}

#[test]
fn a_cascade_steps_message_by_message() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new cascade");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "OrderedCollection new");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "add: 1");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "add: 2");
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "c"), "an OrderedCollection(1)");
    stepped(&mut vm, serial, 0, StepKind::Over);
    assert_eq!(at(&vm, serial).1, "c size");
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "c"), "an OrderedCollection(1 2)");
}

#[test]
fn stepping_works_in_natively_compiled_methods() {
    let mut vm = vm_with(JitConfig::After(0));
    setup(&mut vm);
    // Warm everything up natively first.
    eval_in(&mut vm, "[Dbg new sum] on: Halt do: [:e | e resume: nil]").expect("runs");
    let serial = stopped(&mut vm, "Dbg new sum");
    stepped(&mut vm, serial, 0, StepKind::Over);
    stepped(&mut vm, serial, 0, StepKind::Through);
    let f = frame(&vm, serial, 0);
    assert!(f.label.starts_with("[] in Dbg>>sum"), "{}", f.label);
    stepped(&mut vm, serial, 0, StepKind::Out);
    stepped(&mut vm, serial, 0, StepKind::Out);
    assert_eq!(at(&vm, serial), label_text("Dbg>>sum", "^ s"));
    let v = step(&mut vm, serial, 0, StepKind::Out).expect("ends");
    assert_eq!(vm.print_string(v).expect("prints"), "6");
}

#[test]
fn run_to_here_stops_at_the_chosen_step_point() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new three");
    let f = frame(&vm, serial, 0);
    let target = f.step_points.iter().find(|(_, s)| &f.source[s.start as usize..s.end as usize] == "a * b");
    let (pc, _) = *target.expect("a step point for a * b");
    stepped(&mut vm, serial, 0, StepKind::RunTo(pc));
    assert_eq!(at(&vm, serial).1, "a * b");
    assert!(vm.step(serial, 0, StepKind::RunTo(9999)).is_err(), "not a step point");
}

#[test]
fn restart_runs_the_unwind_blocks_above_and_starts_the_frame_again() {
    let mut vm = vm();
    setup(&mut vm);
    eval_in(&mut vm, "Smalltalk at: #TheDbg put: Dbg new").expect("makes one");
    let serial = stopped(&mut vm, "TheDbg guarded");
    // Shown: the protected block; restart the method, below it (frame 2: block, ensure:, method).
    let page = vm.stack_page(vm.suspended(serial).expect("kept"), 0, 10, false).expect("stack");
    let method = page.frames.iter().find(|f| f.label == "Dbg>>guarded").expect("the method's frame").index;
    let process = vm.restart(serial, method, None).expect("restarts");
    assert!(matches!(vm.finish(process), Err(EvalError::Stopped)));
    vm.keep_suspended(process);
    assert_eq!(at(&vm, serial), label_text("Dbg>>guarded", "[self halt. 5] ensure: [log := (log ifNil: [0]) + 1]"));
    assert_eq!(eval_in(&mut vm, "TheDbg log").expect("reads"), "1", "the ensure block ran");
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "r"), "nil");
    // It halts again in the block; proceeding finishes with the ensure block's second run.
    let outcome = step(&mut vm, serial, 0, StepKind::Over);
    assert!(matches!(outcome, Err(EvalError::Unhandled(_))), "{outcome:?}");
    let process = vm.proceed(serial).expect("proceeds");
    assert_eq!(finished(&mut vm, process), "5");
    assert_eq!(eval_in(&mut vm, "TheDbg log").expect("reads"), "2");
}

#[test]
fn return_hands_a_value_to_the_sender() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new caller");
    stepped(&mut vm, serial, 0, StepKind::Over);
    stepped(&mut vm, serial, 0, StepKind::Into);
    assert_eq!(at(&vm, serial).0, "Dbg>>callee");
    let process = vm.return_from(serial, 0, Value::small(99)).expect("returns");
    assert!(matches!(vm.finish(process), Err(EvalError::Stopped)));
    vm.keep_suspended(process);
    assert_eq!(at(&vm, serial), label_text("Dbg>>caller", "r + 1"));
    let f = frame(&vm, serial, 0);
    assert_eq!(var(&mut vm, &f, "r"), "99");
    let v = vm.proceed(serial).expect("proceeds");
    assert_eq!(finished(&mut vm, v), "100");
}

#[test]
fn proceed_resumes_a_halt_and_an_error_answers_nil_from_its_signal() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new three");
    let p = vm.proceed(serial).expect("proceeds");
    assert_eq!(finished(&mut vm, p), "21");

    let serial = stopped(&mut vm, "(Dbg new divide) printString");
    let process = vm.suspended(serial).expect("kept");
    assert!(
        matches!(vm.stop_reason(process), Some(Reason::Error { ref class_name, .. }) if class_name == "ZeroDivide")
    );
    assert!(at(&vm, serial).0.ends_with(">>/"), "the frame that signalled: {:?}", at(&vm, serial));
    let p = vm.proceed(serial).expect("proceeds");
    assert_eq!(finished(&mut vm, p), "'nil'");
}

#[test]
fn terminate_runs_the_unwind_blocks() {
    let mut vm = vm();
    setup(&mut vm);
    eval_in(&mut vm, "Smalltalk at: #TheDbg put: Dbg new").expect("makes one");
    let serial = stopped(&mut vm, "TheDbg guarded");
    let process = vm.terminate(serial).expect("terminates");
    assert!(vm.finish(process).is_ok());
    assert_eq!(eval_in(&mut vm, "TheDbg log").expect("reads"), "1");
    assert!(vm.suspended(serial).is_err());
    assert!(matches!(vm.terminate(serial), Err(onyx_vm::DebugError::NoProcess(_))));
}

#[test]
fn evaluate_in_a_block_frame_sees_and_assigns_its_variables() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new nested");
    let f = frame(&vm, serial, 0);
    assert!(f.label.starts_with("[] in Dbg>>nested"), "{}", f.label);
    let (p, binding) = vm.spawn_in_frame(serial, 0, "inner + outer + y").expect("compiles");
    let v = vm.finish(p).expect("evaluates");
    vm.write_back(binding);
    assert_eq!(vm.print_string(v).expect("prints"), "16");
    let (p, binding) = vm.spawn_in_frame(serial, 0, "inner := 100. self class name").expect("compiles");
    let v = vm.finish(p).expect("evaluates");
    vm.write_back(binding);
    assert_eq!(vm.print_string(v).expect("prints"), "#Dbg");
    let done = vm.proceed(serial).expect("proceeds");
    assert_eq!(finished(&mut vm, done), "100", "the frame saw the assignment");
    let serial = stopped(&mut vm, "Dbg new nested");
    assert!(matches!(vm.spawn_in_frame(serial, 0, "inner +"), Err(onyx_vm::DebugError::Compile(_))));
    assert!(matches!(vm.spawn_in_frame(serial, 40, "1"), Err(onyx_vm::DebugError::NoFrame(40))));
}

#[test]
fn edit_and_continue_restarts_the_frame_in_the_new_method() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new three");
    stepped(&mut vm, serial, 0, StepKind::Over);
    eval_in(&mut vm, "Dbg compile: 'three\n\t| a b |\n\ta := 30.\n\tb := a + 4.\n\t^ a * b'").expect("compiles");
    let method = vm.evaluate("Dbg >> #three").expect("the new method");
    let p = vm.restart(serial, 0, Some(method)).expect("restarts");
    assert!(matches!(vm.finish(p), Err(EvalError::Stopped)));
    vm.keep_suspended(p);
    assert_eq!(at(&vm, serial), label_text("Dbg>>three", "a := 30"));
    let p = vm.proceed(serial).expect("proceeds");
    assert_eq!(finished(&mut vm, p), "1020");
}

#[test]
fn a_forked_process_that_fails_is_kept_and_told_of() {
    let mut vm = vm();
    setup(&mut vm);
    vm.take_debug_events();
    eval_in(&mut vm, "[Dbg new divide] fork. (Delay forMilliseconds: 20) wait").expect("runs");
    let kept = vm.kept_processes();
    assert_eq!(kept.len(), 1);
    let serial = vm.process_serial(kept[0]);
    assert_eq!(vm.take_debug_events(), vec![onyx_vm::DebugEvent::Failed(serial)]);
    assert!(vm.processes().iter().any(|p| p.serial == serial && p.kept));
    let p = vm.terminate(serial).expect("terminates");
    vm.finish(p).expect("ends");
    assert_eq!(vm.take_debug_events(), vec![onyx_vm::DebugEvent::Terminated(serial)]);
}

#[test]
fn past_the_limit_the_oldest_is_terminated_and_its_report_kept() {
    let mut vm = vm();
    setup(&mut vm);
    vm.set_kept_limit(2);
    let first = stopped(&mut vm, "Dbg new divide");
    let second = stopped(&mut vm, "Dbg new three");
    let third = stopped(&mut vm, "Dbg new caller");
    assert!(vm.suspended(first).is_err());
    assert!(vm.suspended(second).is_ok() && vm.suspended(third).is_ok());
    let forgotten = vm.forgotten_reports();
    assert_eq!(forgotten.len(), 1);
    assert_eq!(forgotten[0].0, first);
    assert_eq!(forgotten[0].1.class_name, "ZeroDivide");
}

#[test]
fn the_first_page_of_a_deep_stack_is_a_page() {
    let mut vm = vm();
    setup(&mut vm);
    let serial = stopped(&mut vm, "Dbg new deep: 10000");
    let process = vm.suspended(serial).expect("kept");
    let page = vm.stack_page(process, 0, 20, true).expect("stack");
    assert_eq!(page.total, 10_002);
    assert_eq!(page.frames.len(), 20);
    assert!(page.frames.iter().skip(1).all(|f| f.label == "Dbg>>deep:"));
    let last = vm.stack_page(process, 10_000, 20, false).expect("stack");
    assert_eq!(last.frames.len(), 2);
    assert!(last.frames[1].doit);
}
