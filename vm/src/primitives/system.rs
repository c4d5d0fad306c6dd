//! System primitives (160-197): native dictionaries (method dictionaries, `Smalltalk`,
//! class pools), the Transcript, evaluation of source, garbage collection, entropy.

use super::{Args, Prim, PrimResult, boolean, table};
use crate::compiler::{self, Mode};
use crate::interpreter::Flow;
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    let x = a.arg(vm, 0);
    match index {
        table::TRANSCRIPT_SHOW => {
            let s = vm.string_of(x).ok_or(Prim::Fail)?;
            vm.transcript.push_str(&s);
            Ok(r)
        }
        table::NATIVE_DICT_AT => vm.dict(r).ok_or(Prim::Fail)?.get(x).ok_or(Prim::Fail),
        table::NATIVE_DICT_AT_PUT => {
            let v = a.arg(vm, 1);
            guard_code(vm, r)?;
            if vm.dict_mut(r).ok_or(Prim::Fail)?.insert(x, v).is_none() {
                // A new entry: the dictionary grew (see `Object::footprint`).
                vm.heap.note_allocation(48);
            }
            dict_changed(vm, r);
            Ok(v)
        }
        table::NATIVE_DICT_REMOVE_KEY => {
            guard_code(vm, r)?;
            let v = vm.dict_mut(r).ok_or(Prim::Fail)?.remove(x).ok_or(Prim::Fail)?;
            dict_changed(vm, r);
            Ok(v)
        }
        table::NATIVE_DICT_KEYS | table::NATIVE_DICT_VALUES => {
            let d = vm.dict(r).ok_or(Prim::Fail)?;
            let items =
                d.entries().iter().map(|&(k, v)| if index == table::NATIVE_DICT_KEYS { k } else { v }).collect();
            Ok(vm.new_array(items))
        }
        table::NATIVE_DICT_SIZE => Ok(Value::small(vm.dict(r).ok_or(Prim::Fail)?.len() as i64)),
        table::NATIVE_DICT_INCLUDES_KEY => boolean(vm.dict(r).ok_or(Prim::Fail)?.get(x).is_some()),
        table::SMALLTALK_GARBAGE_COLLECT => {
            // The collection runs before the next instruction, where the interpreter has
            // saved every frame (never inside a primitive).
            vm.heap.request_gc();
            if let Some(slot) = vm.scheduler.state.stack.get_mut(a.ret) {
                *slot = r;
            }
            Err(Prim::Switched)
        }
        table::COMPILER_EVALUATE => evaluate(vm, a, x, Value::NIL),
        table::COMPILER_LAST_ERROR_MESSAGE => {
            let text = vm.last_compile_error.as_ref().map(ToString::to_string).unwrap_or_default();
            Ok(vm.new_string(&text))
        }
        table::COMPILER_EVALUATE_FOR => evaluate(vm, a, x, a.arg(vm, 1)),
        table::SMALLTALK_VM_STATISTICS => {
            let s = vm.heap.stats();
            let text = format!(
                "objects: {} collections: {} freed: {} gc time: {} ms",
                vm.heap.live_count(),
                s.collections,
                s.freed,
                s.total_time.as_millis()
            );
            Ok(vm.new_string(&text))
        }
        table::SMALLTALK_VERSION => Ok(vm.new_string(concat!("Onyx ", env!("CARGO_PKG_VERSION")))),
        table::RANDOM_ENTROPY_SEED => {
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
            let mixed = (nanos as u64) ^ ((vm.started.elapsed().as_nanos() as u64) << 17) ^ (r.bits() << 7);
            Ok(Value::small((mixed >> 4) as i64 & 0x3FFF_FFFF_FFFF))
        }
        _ => Err(Prim::Fail),
    }
}

/// After a change to a native dictionary: method dictionaries invalidate lookups.
/// A method dictionary or the system dictionary (which holds the classes) is code: only a
/// process that may change code changes it.
fn guard_code(vm: &Vm, dict: Value) -> Result<(), Prim> {
    let class = vm.class_of(dict);
    let code = class == vm.known.method_dictionary || dict == vm.known.smalltalk;
    if code && !vm.may_change_code { Err(Prim::Fail) } else { Ok(()) }
}

fn dict_changed(vm: &mut Vm, dict: Value) {
    vm.heap.note_store(dict);
    if vm.class_of(dict) == vm.known.method_dictionary {
        vm.flush_caches();
        vm.code_changed();
    } else if dict == vm.known.smalltalk {
        vm.code_changed();
    }
}

/// `Compiler evaluate: source` (171) and `evaluate: source for: receiver` (173): compiles a
/// doit and runs it as a new activation in the running process.
fn evaluate(vm: &mut Vm, a: Args, source: Value, receiver: Value) -> PrimResult {
    let text = vm.string_of(source).ok_or(Prim::Fail)?;
    let class = vm.class_of(receiver);
    let code = match compiler::compile(vm, &text, class, Mode::Doit) {
        Ok(code) => code,
        Err(e) => {
            vm.last_compile_error = Some(e);
            return Err(Prim::Fail);
        }
    };
    let method = vm.new_method(code);
    let at = vm.frame_top();
    let stack = &mut vm.scheduler.state.stack;
    if stack.len() <= at {
        stack.resize(at + 1, Value::NIL);
    }
    stack[at] = receiver;
    match vm.invoke(method, at, 0, a.ret) {
        Flow::Done => Ok(vm.scheduler.state.stack.get(a.ret).copied().unwrap_or(Value::NIL)),
        Flow::Reload => Err(Prim::Switched),
    }
}
