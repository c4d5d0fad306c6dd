//! Memory: the collector keeps allocation loops in bounded memory and frees garbage;
//! large arrays are compact.

use crate::util::{eval_in, vm};

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
