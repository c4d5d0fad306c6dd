//! Memory: the collector keeps allocation loops in bounded memory and frees garbage;
//! large arrays are compact; the memory limit refuses what would pass it with an
//! `OutOfMemory` error and the VM goes on.

use onyx_vm::{EvalError, KernelSource, Vm, VmConfig};

use crate::util::{eval_in, vm};

/// A VM whose objects may take at most `mb` megabytes.
fn limited(mb: usize) -> Vm {
    let config = VmConfig { memory_limit: Some(mb << 20), ..VmConfig::default() };
    Vm::boot_with(&KernelSource::embedded().without_tests(), config).expect("the kernel boots")
}

#[test]
fn allocation_loop_runs_in_bounded_memory() {
    let mut vm = vm();
    eval_in(&mut vm, "1 to: 2000000 do: [:i | Array new: 10]. nil").expect("runs");
    let live_after = vm.heap.live_count();
    assert!(vm.heap.stats().collections > 0, "the collector ran");
    eval_in(&mut vm, "1 to: 2000000 do: [:i | Array new: 10]. nil").expect("runs");
    vm.collect_now();
    // The second loop leaves no more behind than the first.
    assert!(vm.heap.live_count() <= live_after + 1000, "{} vs {live_after}", vm.heap.live_count());
}

#[test]
fn garbage_is_freed_and_live_data_kept() {
    let mut vm = vm();
    eval_in(&mut vm, "Smalltalk at: #Kept put: (1 to: 1000) asOrderedCollection").expect("runs");
    eval_in(&mut vm, "1 to: 100000 do: [:i | OrderedCollection new add: i; yourself]").expect("runs");
    let before = vm.heap.live_count();
    let freed = vm.collect_now();
    assert!(freed > 0 || vm.heap.live_count() < before + 10);
    assert_eq!(eval_in(&mut vm, "(Smalltalk at: #Kept) size").expect("kept"), "1000");
    assert_eq!(eval_in(&mut vm, "(Smalltalk at: #Kept) last").expect("kept"), "1000");
}

#[test]
fn a_million_element_array_is_compact() {
    let mut vm = vm();
    let v = vm.evaluate("Array new: 1000000").expect("allocates");
    let obj = vm.heap.get(v).expect("an object");
    assert_eq!(obj.indexed_len(), 1_000_000);
    let bytes = obj.footprint();
    assert!(bytes <= 8_500_000, "{bytes} bytes");
}

#[test]
fn an_allocation_past_the_memory_limit_is_an_out_of_memory_error_that_can_be_handled() {
    let mut vm = limited(256);
    let caught = eval_in(&mut vm, "[Array new: 1000000000] on: OutOfMemory do: [:e | e messageText]").expect("handled");
    assert!(caught.contains("memory limit"), "{caught}");
    // Unhandled, it stops the doit with a report naming it, quickly and without the memory.
    let started = std::time::Instant::now();
    match eval_in(&mut vm, "String new: 300000000") {
        Err(EvalError::Unhandled(report)) => assert_eq!(report.class_name, "OutOfMemory", "{report:?}"),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(vm.heap.in_use() < 256 << 20, "nothing was allocated: {} bytes", vm.heap.in_use());
    assert_eq!(eval_in(&mut vm, "(Array new: 1000000) size").expect("the VM goes on"), "1000000");
}

#[test]
fn garbage_never_counts_against_the_memory_limit() {
    // 100 arrays of 8 MB, one at a time: 800 MB allocated in all, under a 64 MB limit.
    let mut vm = limited(64);
    let source = "| n | n := 0. 1 to: 100 do: [:i | n := n + (Array new: 1000000) size]. n";
    assert_eq!(eval_in(&mut vm, source).expect("garbage is collected"), "100000000");
}

#[test]
fn objects_that_grow_past_the_limit_little_by_little_get_out_of_memory_and_are_freed() {
    let mut vm = limited(96);
    let grow = "| all | all := OrderedCollection new. [all add: (Array new: 100)] repeat";
    match eval_in(&mut vm, grow) {
        Err(EvalError::Unhandled(report)) => assert_eq!(report.class_name, "OutOfMemory", "{report:?}"),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    let handled = "| all | all := OrderedCollection new.
        [[all add: (Array new: 100)] repeat] on: OutOfMemory do: [:e | all := nil. e return: e class name]";
    assert_eq!(eval_in(&mut vm, handled).expect("handled"), "#OutOfMemory");
    vm.collect_now();
    assert!(vm.heap.live_bytes() < 64 << 20, "the objects are gone: {} bytes live", vm.heap.live_bytes());
    assert_eq!(eval_in(&mut vm, "(Array new: 2000000) size").expect("the VM goes on"), "2000000");
}
