//! Code generation tests: the instruction sequences snippets compile to.

use super::{Mode, compile};
use crate::bytecode::{BinOp, Instr};
use crate::vm::Vm;

fn code_of(src: &str) -> Vec<Instr> {
    let mut vm = Vm::with_core_classes();
    let class = vm.known.undefined_object;
    match compile(&mut vm, src, class, Mode::Doit) {
        Ok(code) => code.instrs.to_vec(),
        Err(e) => panic!("{src}: {e}"),
    }
}

fn sends(instrs: &[Instr]) -> usize {
    instrs.iter().filter(|i| matches!(i, Instr::Send { .. } | Instr::SuperSend { .. })).count()
}

#[test]
fn arithmetic_on_locals_is_one_instruction() {
    let code = code_of("| k p | k := k + p. k");
    assert!(code.iter().any(|i| matches!(i, Instr::Bin { op: BinOp::Add, dst: 1, x: 1, y: 2 })), "{code:?}");
    assert_eq!(sends(&code), 0);
    let code = code_of("| k | k := k + 1. k");
    assert!(code.contains(&Instr::BinImm { op: BinOp::Add, dst: 1, x: 1, imm: 1 }), "{code:?}");
}

#[test]
fn control_structures_are_inlined() {
    for src in [
        "3 > 2 ifTrue: [1] ifFalse: [2]",
        "| i | i := 0. [i < 10] whileTrue: [i := i + 1]",
        "| s | s := 0. 1 to: 10 do: [:i | s := s + i]",
        "| s | s := 0. 10 to: 1 by: -1 do: [:i | s := s + i]",
        "nil ifNil: [1] ifNotNil: [:x | x]",
        "true and: [false]",
        "false or: [true]",
        "| n | n := 0. 3 timesRepeat: [n := n + 1]",
        "[:x | x] == nil",
    ] {
        let code = code_of(src);
        assert_eq!(sends(&code), 0, "{src}: {code:?}");
        assert!(
            !code.iter().any(|i| matches!(i, Instr::MakeClosure { .. })) || src.starts_with("[:x"),
            "{src}: {code:?}"
        );
    }
}

#[test]
fn non_literal_blocks_are_real_sends() {
    let code = code_of("| b | b := [1]. true ifTrue: b");
    assert_eq!(sends(&code), 1, "{code:?}");
}

#[test]
fn captured_and_assigned_variables_live_in_a_temp_vector() {
    let code = code_of("| n b | n := 0. b := [n := n + 1]. b value. n");
    assert!(code.iter().any(|i| matches!(i, Instr::MakeVector { size: 1, .. })), "{code:?}");
    let code = code_of("| n b | n := 5. b := [n + 1]");
    assert!(
        code.iter().any(|i| matches!(i, Instr::MakeVector { .. })),
        "assigned before capture still goes to a vector: {code:?}"
    );
    let code = code_of("[:a | [a]]");
    assert!(!code.iter().any(|i| matches!(i, Instr::MakeVector { .. })), "arguments are copied: {code:?}");
}

#[test]
fn every_send_has_a_step_point() {
    let mut vm = Vm::with_core_classes();
    let class = vm.known.undefined_object;
    let code = compile(&mut vm, "3 foo.\n4 bar: 5", class, Mode::Doit).expect("compiles");
    for (pc, i) in code.instrs.iter().enumerate() {
        if matches!(i, Instr::Send { .. }) {
            let sp = code.step_point_at(pc).expect("a step point");
            assert_eq!(sp.pc as usize, pc, "{:?}", code.step_points);
        }
    }
    let second = code.step_points.iter().find(|s| s.span.start == 7).expect("second statement");
    assert_eq!(&code.source[second.span.start as usize..second.span.end as usize], "4 bar: 5");
}

#[test]
fn fast_paths_answer_without_a_kernel() {
    let mut vm = Vm::with_core_classes();
    let eval = |vm: &mut Vm, src: &str| vm.evaluate(src).expect("evaluates");
    assert_eq!(eval(&mut vm, "3 + 4"), crate::Value::small(7));
    assert_eq!(eval(&mut vm, "| s | s := 0. 1 to: 100 do: [:i | s := s + i]. s"), crate::Value::small(5050));
    assert_eq!(eval(&mut vm, "7 // -2"), crate::Value::small(-4));
    assert_eq!(eval(&mut vm, "7 \\\\ -2"), crate::Value::small(-1));
}

#[test]
fn counting_loops_test_at_the_bottom() {
    for src in [
        "| s | s := 0. 1 to: 10 do: [:i | s := s + i]. s",
        "| i | i := 0. [i < 10] whileTrue: [i := i + 1]. i",
        "| n | n := 0. 5 timesRepeat: [n := n + 1]. n",
    ] {
        let code = code_of(src);
        assert!(
            code.iter().any(|i| matches!(i, Instr::CmpJump { sense: true, offset, .. } | Instr::CmpImmJump { sense: true, offset, .. } if *offset < 0)),
            "{src}: {code:?}"
        );
        assert!(!code.iter().any(|i| matches!(i, Instr::Jump { offset } if *offset < 0)), "{src}: {code:?}");
    }
    let mut vm = Vm::with_core_classes();
    assert_eq!(vm.evaluate("| s | s := 0. 1 to: 10 do: [:i | s := s + i]. s").expect("runs"), crate::Value::small(55));
    assert_eq!(vm.evaluate("| s | s := 0. 1 to: 0 do: [:i | s := s + i]. s").expect("runs"), crate::Value::small(0));
    assert_eq!(
        vm.evaluate("| i | i := 0. [i < 10] whileTrue: [i := i + 1]. i").expect("runs"),
        crate::Value::small(10)
    );
    assert_eq!(
        vm.evaluate("| i | i := 20. [i < 10] whileFalse: [i := i - 3]. i").expect("runs"),
        crate::Value::small(8)
    );
}

#[test]
fn at_put_takes_its_operands_where_they_are() {
    let code = code_of("| a k | a := Array new: 3. k := 2. a at: k put: false. a at: k put: k. a");
    assert!(code.iter().any(|i| matches!(i, Instr::AtPutLit { r: 1, i: 2, .. })), "{code:?}");
    assert!(code.iter().any(|i| matches!(i, Instr::AtPut { r: 1, i: 2, v: 2, .. })), "{code:?}");
}

#[test]
fn the_compiler_lists_what_a_method_sends_without_naming_it() {
    let mut vm = Vm::with_core_classes();
    let class = vm.known.undefined_object;
    let src = "| a b | a - 3. a * b. a at: 1 put: b. a isNil. a == b. a < b ifTrue: [[:x | x class]]. 1 to: 3 do: [:i | b := i]";
    let code = match compile(&mut vm, src, class, Mode::Doit) {
        Ok(code) => code,
        Err(e) => panic!("{src}: {e}"),
    };
    let listed: Vec<String> = code.special_selectors.iter().filter_map(|&s| vm.string_of(s)).collect();
    // The block's `class` counts for the method too, and `a - 3` (an addition of -3) is a send
    // of `-`.
    for selector in ["-", "*", "at:put:", "isNil", "==", "<", "ifTrue:", "class", "to:do:", "<="] {
        assert!(listed.iter().any(|s| s == selector), "{selector} in {listed:?}");
    }
    for named in ["at:", "x"] {
        assert!(!listed.iter().any(|s| s == named), "{named} in {listed:?}");
    }
}
