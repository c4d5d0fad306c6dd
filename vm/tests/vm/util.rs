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
