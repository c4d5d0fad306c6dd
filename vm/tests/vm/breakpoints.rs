//! Breakpoints in the VM: each kind (always, conditional, hit counts, once, log points,
//! disabled), scoped to one process, in blocks and in natively compiled methods, following
//! their method through a recompile or orphaned by one, conditions that fail, and the
//! processes that meet them kept for a debugger as a halt's would be.

use onyx_vm::{
    BreakpointError, BreakpointEvent, BreakpointSpec, BreakpointView, DebugEvent, EvalError, Hits, JitConfig, Position,
    Reason, StepKind, Value, Vm,
};

use crate::util::{eval_in, vm, vm_with};

const CLASS: &str =
    "Object subclass: #Bp instanceVariableNames: 'log' classVariableNames: '' package: 'Tests-Breakpoints'";

/// `work:`'s line 4 is `b := a * 2.`
const WORK: &str = "work: n\n\t| a b |\n\ta := n + 1.\n\tb := a * 2.\n\t^ b";

const METHODS: &[&str] = &[
    WORK,
    "sum\n\t| s |\n\ts := 0.\n\t#(1 2 3) do: [:x |\n\t\ts := s + x].\n\t^ s",
    "loop: k\n\t| t |\n\tt := 0.\n\t1 to: k do: [:i | t := t + (self work: i)].\n\t^ t",
    "guarded: n\n\t^ [self work: n] on: Error do: [:e | #handled]",
];

fn setup(vm: &mut Vm) {
    eval_in(vm, CLASS).expect("defines Bp");
    for m in METHODS {
        compile(vm, m);
    }
}

fn compile(vm: &mut Vm, source: &str) {
    let doit = format!("Bp compile: '{}'", source.replace('\'', "''"));
    eval_in(vm, &doit).unwrap_or_else(|e| panic!("{source}: {e}"));
}

/// A breakpoint on `Bp>>selector` at `line`, always taken.
fn spec(vm: &mut Vm, id: u64, selector: &str, line: u32) -> BreakpointSpec {
    always(vm, "Bp", id, selector, line)
}

/// A breakpoint on `class>>selector` at `line`, always taken.
pub(crate) fn always(vm: &mut Vm, class: &str, id: u64, selector: &str, line: u32) -> BreakpointSpec {
    let class = vm.global(class).expect("the class");
    BreakpointSpec {
        id,
        class,
        selector: vm.intern(selector),
        at: Position::Line(line),
        condition: None,
        log: None,
        hits: Hits::All,
        once: false,
        enabled: true,
        process: None,
    }
}

fn set(vm: &mut Vm, spec: BreakpointSpec) -> BreakpointView {
    vm.set_breakpoint(spec).expect("the breakpoint is set")
}

/// Runs `source`; answers the serial of the process if it stopped (kept for a debugger),
/// or the printString of its answer.
fn run(vm: &mut Vm, source: &str) -> Result<String, u64> {
    let process = vm.spawn_doit(source, Value::NIL).expect("compiles");
    outcome(vm, process)
}

fn outcome(vm: &mut Vm, process: Value) -> Result<String, u64> {
    match vm.finish(process) {
        Ok(v) => Ok(vm.print_string(v).expect("prints")),
        Err(EvalError::Unhandled(_) | EvalError::Stopped) => {
            vm.keep_suspended(process);
            Err(vm.process_serial(process))
        }
        Err(e) => panic!("{e}"),
    }
}

fn stopped(vm: &mut Vm, source: &str) -> u64 {
    run(vm, source).expect_err("stops")
}

/// Why the process stopped, the top frame's label and the source of its step point.
fn at(vm: &Vm, serial: u64) -> (Reason, String, String) {
    let process = vm.suspended(serial).expect("kept");
    let reason = vm.stop_reason(process).expect("stopped");
    let f = vm.stack_page(process, 0, 1, true).expect("a stack").frames.remove(0);
    let span = f.span.expect("a step point");
    (reason, f.label.clone(), f.source[span.start as usize..span.end as usize].to_string())
}

fn var(vm: &mut Vm, serial: u64, name: &str) -> String {
    let process = vm.suspended(serial).expect("kept");
    let f = vm.stack_page(process, 0, 1, true).expect("a stack").frames.remove(0);
    let v = f.variables.iter().find(|(n, _)| n == name).map(|(_, v)| *v).expect("the variable");
    vm.print_string(v).expect("prints")
}

fn proceed(vm: &mut Vm, serial: u64) -> Result<String, u64> {
    let p = vm.proceed(serial).expect("proceeds");
    outcome(vm, p)
}

fn is_breakpoint(reason: &Reason) -> bool {
    matches!(reason, Reason::Breakpoint(_))
}

fn patched(vm: &mut Vm, selector: &str) -> bool {
    let m = vm.evaluate(&format!("Bp >> #{selector}")).expect("the method");
    vm.code_of(m).expect("code").instrs.is_patched() || {
        let code = vm.code_of(m).expect("code");
        code.blocks.iter().any(|b| b.instrs.is_patched())
    }
}

#[test]
fn a_breakpoint_stops_before_its_statement_every_time_until_removed() {
    let mut vm = vm();
    setup(&mut vm);
    let view = {
        let s = spec(&mut vm, 1, "work:", 4);
        set(&mut vm, s)
    };
    assert_eq!(view.line, 4);
    assert!(view.placed);
    let serial = stopped(&mut vm, "Bp new work: 4");
    let (reason, label, text) = at(&vm, serial);
    assert!(is_breakpoint(&reason), "{reason:?}");
    assert_eq!(label, "Bp>>work:");
    assert_eq!(text, "a * 2");
    assert_eq!(var(&mut vm, serial, "a"), "5");
    assert_eq!(var(&mut vm, serial, "b"), "nil");
    // Proceeding passes it: the covered instruction runs once.
    assert_eq!(proceed(&mut vm, serial), Ok("10".into()));
    let again = stopped(&mut vm, "Bp new work: 1");
    assert_eq!(proceed(&mut vm, again), Ok("4".into()));
    assert_eq!(vm.breakpoint(1).expect("kept").hit_count, 2);
    assert!(vm.remove_breakpoint(1));
    assert!(!patched(&mut vm, "work:"), "the code is as compiled again");
    assert_eq!(run(&mut vm, "Bp new work: 4"), Ok("10".into()));
}

#[test]
fn stepping_from_a_breakpoint_goes_on_from_it() {
    let mut vm = vm();
    setup(&mut vm);
    {
        let s = spec(&mut vm, 1, "work:", 3);
        set(&mut vm, s)
    };
    let serial = stopped(&mut vm, "Bp new work: 4");
    assert_eq!(at(&vm, serial).2, "n + 1");
    let p = vm.step(serial, 0, StepKind::Over).expect("steps");
    assert!(matches!(vm.finish(p), Err(EvalError::Stopped)));
    vm.keep_suspended(p);
    assert_eq!(at(&vm, serial).2, "a * 2");
    assert_eq!(var(&mut vm, serial, "a"), "5");
    assert_eq!(proceed(&mut vm, serial), Ok("10".into()));
}

#[test]
fn natively_compiled_code_meets_a_breakpoint_and_runs_natively_again_without_it() {
    let mut vm = vm_with(JitConfig::After(0));
    setup(&mut vm);
    assert_eq!(run(&mut vm, "Bp new loop: 100"), Ok("10300".into()));
    {
        let s = spec(&mut vm, 1, "work:", 4);
        set(&mut vm, s)
    };
    let serial = stopped(&mut vm, "Bp new loop: 100");
    assert_eq!(var(&mut vm, serial, "n"), "1");
    vm.remove_breakpoint(1);
    assert_eq!(proceed(&mut vm, serial), Ok("10300".into()));
    assert_eq!(run(&mut vm, "Bp new loop: 100"), Ok("10300".into()));
}

#[test]
fn a_breakpoint_in_a_getter_stops_a_native_caller_that_answers_it_without_a_frame() {
    let mut vm = vm_with(JitConfig::After(0));
    setup(&mut vm);
    compile(&mut vm, "log\n\t^ log");
    compile(&mut vm, "readLog: k\n\t| t |\n\tt := 0.\n\t1 to: k do: [:i | self log ifNil: [t := t + 1]].\n\t^ t");
    assert_eq!(run(&mut vm, "Bp new readLog: 100"), Ok("100".into()));
    {
        let s = spec(&mut vm, 1, "log", 2);
        set(&mut vm, s)
    };
    let serial = stopped(&mut vm, "Bp new readLog: 100");
    vm.remove_breakpoint(1);
    assert_eq!(proceed(&mut vm, serial), Ok("100".into()));
    assert_eq!(run(&mut vm, "Bp new readLog: 100"), Ok("100".into()), "quick again without the breakpoint");
}

#[test]
fn a_condition_is_evaluated_in_the_frame_and_only_a_true_one_stops() {
    let mut vm = vm();
    setup(&mut vm);
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.condition = Some("a > 10 and: [n even]".into());
    set(&mut vm, s);
    assert_eq!(run(&mut vm, "Bp new loop: 9"), Ok("108".into()));
    let serial = stopped(&mut vm, "Bp new loop: 20");
    assert_eq!(var(&mut vm, serial, "n"), "10");
    assert_eq!(proceed(&mut vm, serial).map_err(|s| var(&mut vm, s, "n")), Err("12".into()));
    assert_eq!(vm.breakpoint(1).expect("kept").hit_count, 2, "only the hits whose condition held count");
}

#[test]
fn a_condition_that_fails_stops_with_its_error_even_under_the_programs_handler() {
    let mut vm = vm();
    setup(&mut vm);
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.condition = Some("a / 0 > 1".into());
    set(&mut vm, s);
    let serial = stopped(&mut vm, "Bp new guarded: 4");
    let (reason, label, text) = at(&vm, serial);
    match reason {
        Reason::Error { class_name, description } => {
            assert_eq!(class_name, "ZeroDivide");
            assert!(description.contains("condition of breakpoint 1"), "{description}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((label.as_str(), text.as_str()), ("Bp>>work:", "a * 2"));
    // Proceeding goes past it, and the program's handler saw nothing.
    assert_eq!(proceed(&mut vm, serial), Ok("10".into()));
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.condition = Some("a".into());
    set(&mut vm, s);
    let serial = stopped(&mut vm, "Bp new work: 4");
    match at(&vm, serial).0 {
        Reason::Error { description, .. } => assert!(description.contains("not a Boolean"), "{description}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn hit_counts_take_the_nth_every_nth_or_from_the_nth() {
    let mut vm = vm();
    setup(&mut vm);
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.hits = Hits::Nth(3);
    set(&mut vm, s);
    let serial = stopped(&mut vm, "Bp new loop: 6");
    assert_eq!(var(&mut vm, serial, "n"), "3");
    assert_eq!(proceed(&mut vm, serial), Ok("54".into()));
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.hits = Hits::Every(2);
    set(&mut vm, s);
    let mut stops = Vec::new();
    let mut next = run(&mut vm, "Bp new loop: 6");
    while let Err(serial) = next {
        stops.push(var(&mut vm, serial, "n"));
        next = proceed(&mut vm, serial);
    }
    assert_eq!(stops, ["2", "4", "6"]);
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.hits = Hits::From(5);
    set(&mut vm, s);
    let serial = stopped(&mut vm, "Bp new loop: 6");
    assert_eq!(var(&mut vm, serial, "n"), "5");
}

#[test]
fn a_once_breakpoint_is_removed_when_it_stops() {
    let mut vm = vm();
    setup(&mut vm);
    let mut s = spec(&mut vm, 7, "work:", 4);
    s.once = true;
    set(&mut vm, s);
    vm.take_breakpoint_events();
    let serial = stopped(&mut vm, "Bp new loop: 3");
    assert!(vm.breakpoints().is_empty());
    assert_eq!(vm.take_breakpoint_events(), vec![BreakpointEvent::Removed(7)]);
    assert!(!patched(&mut vm, "work:"));
    assert_eq!(proceed(&mut vm, serial), Ok("18".into()));
}

#[test]
fn a_log_point_writes_to_the_transcript_and_does_not_stop() {
    let mut vm = vm();
    setup(&mut vm);
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.log = Some("'a is ', a printString".into());
    s.hits = Hits::Every(2);
    set(&mut vm, s);
    vm.take_transcript();
    assert_eq!(run(&mut vm, "Bp new loop: 4"), Ok("28".into()));
    assert_eq!(vm.take_transcript(), "a is 3\na is 5\n");
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.log = Some("a".into());
    set(&mut vm, s);
    assert_eq!(run(&mut vm, "Bp new work: 1"), Ok("4".into()));
    assert_eq!(vm.take_transcript(), "2\n", "what is not a String shows as its displayString");
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.log = Some("a zork".into());
    set(&mut vm, s);
    let serial = stopped(&mut vm, "Bp new work: 1");
    assert!(matches!(at(&vm, serial).0, Reason::Error { class_name, .. } if class_name == "MessageNotUnderstood"));
}

#[test]
fn a_disabled_breakpoint_costs_nothing_and_stops_once_enabled() {
    let mut vm = vm();
    setup(&mut vm);
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.enabled = false;
    assert!(!set(&mut vm, s).placed);
    assert!(!patched(&mut vm, "work:"));
    assert_eq!(run(&mut vm, "Bp new work: 4"), Ok("10".into()));
    assert!(vm.enable_breakpoint(1, true));
    assert!(vm.breakpoint(1).expect("kept").placed);
    let serial = stopped(&mut vm, "Bp new work: 4");
    assert!(is_breakpoint(&at(&vm, serial).0));
}

#[test]
fn a_breakpoint_scoped_to_a_process_stops_only_that_process() {
    let mut vm = vm();
    setup(&mut vm);
    let first = vm.spawn_doit("Bp new work: 1", Value::NIL).expect("compiles");
    let second = vm.spawn_doit("Bp new work: 2", Value::NIL).expect("compiles");
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.process = Some(vm.process_serial(second));
    set(&mut vm, s);
    assert_eq!(outcome(&mut vm, first), Ok("4".into()));
    let serial = outcome(&mut vm, second).expect_err("the scoped process stops");
    assert_eq!(var(&mut vm, serial, "n"), "2");
}

#[test]
fn a_breakpoint_in_a_block_stops_in_the_blocks_frame() {
    let mut vm = vm();
    setup(&mut vm);
    let mut s = spec(&mut vm, 1, "sum", 5);
    s.condition = Some("x = 2".into());
    set(&mut vm, s);
    let serial = stopped(&mut vm, "Bp new sum");
    let (_, label, text) = at(&vm, serial);
    assert!(label.starts_with("[] in "), "{label}");
    assert_eq!(text, "s + x");
    assert_eq!((var(&mut vm, serial, "x"), var(&mut vm, serial, "s")), ("2".into(), "1".into()));
    assert_eq!(proceed(&mut vm, serial), Ok("6".into()));
}

#[test]
fn a_breakpoint_follows_its_method_through_a_recompile_or_is_orphaned() {
    let mut vm = vm();
    setup(&mut vm);
    {
        let s = spec(&mut vm, 1, "work:", 4);
        set(&mut vm, s)
    };
    vm.take_breakpoint_events();
    compile(&mut vm, "work: n\n\t\"Doubles one more than n.\"\n\t| a b |\n\ta := n + 1.\n\tb := a * 2.\n\t^ b");
    assert_eq!(vm.take_breakpoint_events(), vec![BreakpointEvent::Moved(1, 5)]);
    let view = vm.breakpoint(1).expect("kept");
    assert_eq!((view.line, view.placed), (5, true));
    let serial = stopped(&mut vm, "Bp new work: 4");
    assert_eq!(at(&vm, serial).2, "a * 2");
    assert_eq!(proceed(&mut vm, serial), Ok("10".into()));
    compile(&mut vm, "work: n\n\t^ n + 1 * 2");
    assert_eq!(vm.take_breakpoint_events(), vec![BreakpointEvent::Orphaned(1)]);
    let view = vm.breakpoint(1).expect("kept, not dropped");
    assert!(view.orphaned && !view.spec.enabled && !view.placed);
    assert!(!vm.enable_breakpoint(1, true) || !vm.breakpoint(1).expect("kept").spec.enabled);
    assert_eq!(run(&mut vm, "Bp new work: 4"), Ok("10".into()));
}

#[test]
fn breakpoints_do_not_fire_inside_a_condition() {
    let mut vm = vm();
    setup(&mut vm);
    {
        let s = spec(&mut vm, 1, "work:", 4);
        set(&mut vm, s)
    };
    let mut s = spec(&mut vm, 2, "loop:", 4);
    s.condition = Some("(self work: 1) = 4".into());
    set(&mut vm, s);
    let serial = stopped(&mut vm, "Bp new loop: 1");
    let (reason, label, _) = at(&vm, serial);
    assert_eq!(reason, Reason::Breakpoint("breakpoint 2 at line 4".into()));
    assert_eq!(label, "Bp>>loop:");
    // Going on, the loop calls work: and its breakpoint stops it there.
    let serial = proceed(&mut vm, serial).expect_err("stops in work:");
    assert_eq!(at(&vm, serial).1, "Bp>>work:");
}

#[test]
fn a_forked_process_that_meets_a_breakpoint_is_kept_while_others_go_on() {
    let mut vm = vm();
    setup(&mut vm);
    {
        let s = spec(&mut vm, 1, "work:", 4);
        set(&mut vm, s)
    };
    vm.take_debug_events();
    let answer = eval_in(&mut vm, "[Bp new work: 1] fork. (Delay forMilliseconds: 20) wait. 42").expect("runs");
    assert_eq!(answer, "42");
    let kept = vm.kept_processes();
    assert_eq!(kept.len(), 1);
    let serial = vm.process_serial(kept[0]);
    assert_eq!(vm.take_debug_events(), vec![DebugEvent::Failed(serial)]);
    assert!(is_breakpoint(&at(&vm, serial).0));
}

#[test]
fn a_breakpoint_that_cannot_be_set_says_why() {
    let mut vm = vm();
    setup(&mut vm);
    let s = spec(&mut vm, 1, "nothing", 1);
    assert!(matches!(vm.set_breakpoint(s), Err(BreakpointError::NoMethod(..))));
    let s = spec(&mut vm, 1, "work:", 40);
    assert!(matches!(vm.set_breakpoint(s), Err(BreakpointError::NoStepPoint(..))));
    let mut s = spec(&mut vm, 1, "work:", 4);
    s.condition = Some("a >".into());
    assert!(matches!(vm.set_breakpoint(s), Err(BreakpointError::Compile(_))));
    assert!(vm.breakpoints().is_empty());
    assert!(!patched(&mut vm, "work:"));
}

#[test]
fn the_statement_at_a_cursor_is_the_innermost_step_point_around_it() {
    let mut vm = vm();
    setup(&mut vm);
    let offset = WORK.find("* 2").expect("in the source") as u32;
    let mut s = spec(&mut vm, 1, "work:", 1);
    s.at = Position::Offset(offset);
    let view = set(&mut vm, s);
    assert_eq!(view.line, 4);
    // A line without a statement lands on the next line that has one.
    let view = {
        let s = spec(&mut vm, 2, "work:", 2);
        set(&mut vm, s)
    };
    assert_eq!(view.line, 3);
}

#[test]
fn a_condition_or_log_expression_commits_aborts_and_locks_nothing() {
    let (_dir, stone) = crate::persistence::repository();
    let mut vm = crate::persistence::gem(&stone);
    setup(&mut vm);
    eval_in(&mut vm, "System commitTransaction").expect("the class commits");
    eval_in(&mut vm, "UserGlobals at: #Work put: 'half done'").expect("work under way");
    let attempts = [
        (true, "System commitTransaction"),
        (true, "System abortTransaction. true"),
        (true, "System writeLock: UserGlobals. true"),
        (false, "System commitTransaction printString"),
    ];
    for (condition, expression) in attempts {
        let mut s = spec(&mut vm, 1, "work:", 4);
        if condition {
            s.condition = Some(expression.into());
        } else {
            s.log = Some(expression.into());
        }
        set(&mut vm, s);
        let serial = stopped(&mut vm, "Bp new work: 4");
        match at(&vm, serial).0 {
            Reason::Error { class_name, description } => {
                assert_eq!(class_name, "SecurityError", "{expression}: {description}");
                assert!(description.contains("commits, aborts and locks nothing"), "{description}");
            }
            other => panic!("{expression}: {other:?}"),
        }
    }
    // The process's transaction is as it was: its work still uncommitted, nothing locked.
    assert_eq!(eval_in(&mut vm, "UserGlobals at: #Work").expect("evaluates"), "'half done'");
    let mut other = crate::persistence::gem(&stone);
    assert_eq!(eval_in(&mut other, "UserGlobals at: #Work ifAbsent: [#none]").expect("evaluates"), "#none");
    assert_eq!(eval_in(&mut other, "System writeLock: UserGlobals. #locked").expect("locks"), "#locked");
}
