//! Helpers shared by the integration tests.

use onyx_vm::{EvalError, JitConfig, KernelSource, Vm, VmConfig};

/// A VM on the embedded kernel (without its test packages).
pub fn vm() -> Vm {
    Vm::boot(&KernelSource::embedded().without_tests()).expect("the kernel boots")
}

/// A VM on the embedded kernel that compiles to native code as `jit` says.
pub fn vm_with(jit: JitConfig) -> Vm {
    let config = VmConfig { jit, ..VmConfig::default() };
    Vm::boot_with(&KernelSource::embedded().without_tests(), config).expect("the kernel boots")
}

/// Evaluates `source` in `vm` and answers the printString of the result.
pub fn eval_in(vm: &mut Vm, source: &str) -> Result<String, EvalError> {
    let v = vm.evaluate(source)?;
    vm.print_string(v)
}

/// The error text `source` stops with in `vm`, panicking if it answers instead.
pub fn error_of(vm: &mut Vm, source: &str) -> String {
    match eval_in(vm, source) {
        Ok(v) => panic!("{source} answered {v} instead of failing"),
        Err(e) => e.to_string(),
    }
}

/// Evaluates `source` in a fresh VM and answers the printString of the result, panicking with
/// the error report if it fails.
pub fn eval(source: &str) -> String {
    let mut vm = vm();
    match eval_in(&mut vm, source) {
        Ok(s) => s,
        Err(e) => panic!("{source}\nfailed: {e}"),
    }
}

/// Asserts that each `(source, printString)` pair evaluates as expected, in one VM.
pub fn check_all(cases: &[(&str, &str)]) {
    let mut vm = vm();
    let mut failures = Vec::new();
    for (source, expected) in cases {
        match eval_in(&mut vm, source) {
            Ok(actual) if actual == *expected => {}
            Ok(actual) => failures.push(format!("{source}\n  expected {expected}\n  got      {actual}")),
            Err(e) => failures.push(format!("{source}\n  expected {expected}\n  failed   {e}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Asserts, for each of `jits`, that in a new VM compiling to native code as it says, once
/// `setup` has run, each `(source, printString)` pair of `cases` evaluates as expected.
pub fn check_each_way(jits: &[JitConfig], setup: &[&str], cases: &[(&str, &str)]) {
    for &jit in jits {
        let mut vm = vm_with(jit);
        for source in setup {
            eval_in(&mut vm, source).unwrap_or_else(|e| panic!("{source}: {e}"));
        }
        let mut wrong = Vec::new();
        for (source, expected) in cases {
            let actual = eval_in(&mut vm, source).unwrap_or_else(|e| format!("error: {e}"));
            if actual != *expected {
                wrong.push(format!("{source}\n  expected {expected}\n  got      {actual}"));
            }
        }
        assert!(wrong.is_empty(), "{jit:?}: {} of {} wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
    }
}

/// The user the persistence tests log in as: the kernel's owner, who may change code.
const USER: (&str, &str) = ("SystemUser", "swordfish");

/// A stone over a new repository in `dir`, with its [`USER`].
pub fn stone(dir: &std::path::Path) -> onyx_store::Stone {
    let stone = onyx_store::Stone::create(dir).expect("a repository");
    stone.add_user(None, USER.0, USER.1, true, Some(onyx_record::SYSTEM_POLICY)).expect("the user is added");
    stone
}

/// A session of `stone` as its [`USER`].
pub fn session(stone: &std::sync::Arc<onyx_store::Stone>) -> onyx_store::LocalLink {
    onyx_store::LocalLink::login(std::sync::Arc::clone(stone), USER.0, USER.1).expect("a session")
}
