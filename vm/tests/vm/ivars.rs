//! Instance variable instructions in a row share one look-up of the receiver in native code:
//! each hands the receiver's slots to the next. The answers stay the interpreter's, and a
//! store after a load still leaves a persistent receiver's change to the interpreter (and so
//! to the commit).

use std::sync::Arc;

use onyx_vm::{JitConfig, Vm, VmConfig};

use crate::util::{check_each_way, eval_in, vm};

/// A class whose methods read and write several instance variables in a row.
const PROBE: &[&str] = &[
    "Object subclass: #IvarProbe instanceVariableNames: 'x y z' classVariableNames: '' package: 'Tests-Ivars'",
    "IvarProbe compile: 'x: ax y: ay z: az x := ax. y := ay. z := az'",
    "IvarProbe compile: 'xyz ^ {x. y. z}'",
    "IvarProbe compile: 'copyAcross x := y'",
    "IvarProbe compile: 'rotate | t | t := x. x := y. y := z. z := t'",
    "IvarProbe compile: 'sum ^ x + y + z'",
    "IvarProbe compile: 'loop: n | s | s := 0. 1 to: n do: [:i | x := x + y. s := s + z]. ^ {x. s}'",
];

const CASES: &[(&str, &str)] = &[
    ("(IvarProbe new x: 1 y: 2 z: 3) xyz", "#(1 2 3)"),
    ("(IvarProbe new x: 1 y: 2 z: 3) copyAcross xyz", "#(2 2 3)"),
    ("(IvarProbe new x: 1 y: 2 z: 3) rotate xyz", "#(2 3 1)"),
    ("(IvarProbe new x: 1 y: 2 z: 3) rotate; rotate; rotate; xyz", "#(1 2 3)"),
    ("(IvarProbe new x: 1 y: 2 z: 3) sum", "6"),
    ("(IvarProbe new x: 0 y: 2 z: 5) loop: 100", "#(200 500)"),
];

#[test]
fn instance_variables_in_a_row_answer_as_the_interpreter_does() {
    let twice: Vec<(&str, &str)> = CASES.iter().chain(CASES).copied().collect();
    check_each_way(&[JitConfig::Off, JitConfig::After(0), JitConfig::After(1)], PROBE, &twice);
}

#[test]
fn a_store_after_a_load_into_a_persistent_receiver_is_committed() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = Arc::new(crate::util::stone(dir.path()));
    vm().create_repository(Box::new(crate::util::session(&stone)), &[]).expect("the kernel commits");
    let config = VmConfig { jit: JitConfig::After(0), ..VmConfig::default() };
    let gem = || Vm::login(Box::new(crate::util::session(&stone)), config).expect("logs in");
    let mut a = gem();
    let run = |vm: &mut Vm, source: &str| eval_in(vm, source).unwrap_or_else(|e| panic!("{source}: {e}"));
    for source in PROBE {
        run(&mut a, source);
    }
    run(&mut a, "Smalltalk at: #Probe put: (IvarProbe new x: 1 y: 2 z: 3). System commitTransaction");
    assert_eq!(run(&mut a, "(Smalltalk at: #Probe) copyAcross; rotate; xyz"), "#(2 3 2)");
    assert_eq!(run(&mut a, "System commitTransaction"), "true");
    let mut b = gem();
    assert_eq!(run(&mut b, "(Smalltalk at: #Probe) xyz"), "#(2 3 2)");
}
