//! Runs the kernel's own SUnit suite (the `*-Tests-*` packages) and requires every test to
//! pass and at least 1,500 assertions to run: once in the interpreter alone, once with every
//! method compiled to native code at its first activation.

use onyx_vm::{JitConfig, KernelSource, Vm, VmConfig};

#[test]
fn kernel_sunit_suite_passes_in_the_interpreter() {
    run_suite(JitConfig::Off);
}

#[test]
fn kernel_sunit_suite_passes_in_native_code() {
    run_suite(JitConfig::After(0));
}

fn run_suite(jit: JitConfig) {
    let kernel = KernelSource::embedded();
    let config = VmConfig { jit, ..VmConfig::default() };
    let mut vm = Vm::boot_with(&kernel, config).expect("the kernel and its tests load");
    let names = kernel.test_package_names();
    assert!(!names.is_empty(), "no test packages");
    let list = names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(" ");
    let v = vm.evaluate(&format!("TestRunner reportForPackages: #({list})")).expect("the runner runs");
    let report = vm.string_of(v).expect("a report");
    let lines: Vec<&str> = report.lines().collect();
    let last = lines.last().copied().unwrap_or_default();
    assert!(last.ends_with(" 0 failed"), "{report}");
    let assertions: u64 = lines
        .iter()
        .find_map(|l| l.split(", ").nth(1).and_then(|p| p.strip_suffix(" assertions")).and_then(|n| n.parse().ok()))
        .unwrap_or(0);
    assert!(assertions >= 1500, "only {assertions} assertions ran\n{report}");
}
