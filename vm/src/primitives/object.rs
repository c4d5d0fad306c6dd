//! Object primitives (60-79): indexed access, instantiation, instance variables, identity,
//! copying, bulk replacement, instance enumeration.

use super::{Args, Prim, PrimResult, index_arg, size_arg, table};
use crate::heap::{Body, Kind, ProcessBody, SemaphoreBody};
use crate::memory::LARGE_ALLOCATION;
use crate::value::Value;
use crate::vm::Vm;

/// The largest indexed size `basicNew:` accepts (keeps a typo from exhausting memory).
const MAX_NEW: usize = 1 << 31;

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    match index {
        table::OBJECT_BASIC_AT => at(vm, r, a.arg(vm, 0), false),
        table::OBJECT_BASIC_AT_PUT => at_put(vm, r, a.arg(vm, 0), a.arg(vm, 1), false),
        table::OBJECT_BASIC_SIZE => {
            let obj = vm.heap.get(r).ok_or(Prim::Fail)?;
            Ok(Value::small(obj.indexed_len() as i64))
        }
        table::STRING_AT => at(vm, r, a.arg(vm, 0), true),
        table::STRING_AT_PUT => at_put(vm, r, a.arg(vm, 0), a.arg(vm, 1), true),
        table::OBJECT_INST_VAR_AT => {
            // instVarAt: counts named then indexed pointer slots
            let obj = vm.heap.get(r).ok_or(Prim::Fail)?;
            if let Body::Chunked(c) = &obj.body {
                let i = index_arg(a.arg(vm, 0), c.len)?;
                return vm.chunked_slot(r, i).ok_or(Prim::Fail);
            }
            let i = index_arg(a.arg(vm, 0), obj.slots().map_or(0, <[Value]>::len))?;
            vm.heap.slot(r, i).ok_or(Prim::Fail)
        }
        table::OBJECT_INST_VAR_AT_PUT => {
            let obj = vm.heap.get(r).ok_or(Prim::Fail)?;
            let v = a.arg(vm, 1);
            if let Body::Chunked(c) = &obj.body {
                let i = index_arg(a.arg(vm, 0), c.len)?;
                return if vm.set_chunked_slot(r, i, v) { Ok(v) } else { Err(Prim::Fail) };
            }
            let i = index_arg(a.arg(vm, 0), obj.slots().map_or(0, <[Value]>::len))?;
            if vm.heap.set_slot(r, i, v) { Ok(v) } else { Err(Prim::Fail) }
        }
        table::BEHAVIOR_INST_SIZE => {
            // instSize of a class
            if !vm.is_behavior(r) {
                return Err(Prim::Fail);
            }
            vm.format_of(r).map(|(_, n)| Value::small(n as i64)).ok_or(Prim::Fail)
        }
        table::ARRAYED_COLLECTION_REPLACE => replace(vm, r, a),
        table::BEHAVIOR_BASIC_NEW => instantiate(vm, r, 0),
        table::BEHAVIOR_BASIC_NEW_SIZE => instantiate(vm, r, size_arg(a.arg(vm, 0))?),
        table::OBJECT_IDENTICAL => Ok(Value::boolean(r == a.arg(vm, 0))),
        table::OBJECT_CLASS => Ok(vm.class_of(r)),
        table::OBJECT_IDENTITY_HASH => Ok(Value::small(identity_hash(vm, r))),
        table::OBJECT_SHALLOW_COPY => shallow_copy(vm, r),
        table::BEHAVIOR_ALL_INSTANCES => {
            // allInstances of a class
            let instances: Vec<Value> = vm.heap.all_objects().filter(|(_, o)| o.class == r).map(|(v, _)| v).collect();
            Ok(vm.new_array(instances))
        }
        table::OBJECT_NAMED_SIZE => {
            // basicSize: named + indexed? No: the number of named slots of the object.
            let obj = vm.heap.get(r).ok_or(Prim::Fail)?;
            Ok(Value::small(i64::from(obj.named)))
        }
        table::OBJECT_CHANGE_CLASS_TO => {
            // changeClassTo: (same shape only)
            let new_class = a.arg(vm, 0);
            if !vm.is_behavior(new_class) {
                return Err(Prim::Fail);
            }
            let (kind_new, named_new) = vm.format_of(new_class).ok_or(Prim::Fail)?;
            let obj = vm.heap.get(r).ok_or(Prim::Fail)?;
            let (kind_old, named_old) = vm.format_of(obj.class).ok_or(Prim::Fail)?;
            if kind_new != kind_old || named_new != named_old {
                return Err(Prim::Fail);
            }
            if let Some(o) = vm.heap.get_mut(r) {
                o.class = new_class;
            }
            vm.heap.note_store(r);
            Ok(r)
        }
        _ => Err(Prim::Fail),
    }
}

/// The identity hash of any value.
pub(crate) fn identity_hash(vm: &Vm, v: Value) -> i64 {
    match vm.heap.get(v) {
        Some(o) => i64::from(o.hash),
        None => (v.bits() >> 3) as i64 & Value::MAX_INT,
    }
}

fn at(vm: &mut Vm, r: Value, index: Value, chars: bool) -> PrimResult {
    let obj = vm.heap.get(r).ok_or(Prim::Fail)?;
    if let Body::Chunked(c) = &obj.body {
        let named = obj.named as usize;
        let i = index_arg(index, c.len.saturating_sub(named))?;
        return vm.chunked_slot(r, named + i).ok_or(Prim::Fail);
    }
    match &obj.body {
        Body::Slots(s) => {
            let named = obj.named as usize;
            let i = index_arg(index, s.len().saturating_sub(named))?;
            s.get(named + i).copied().ok_or(Prim::Fail)
        }
        Body::Bytes(b) => {
            let i = index_arg(index, b.len())?;
            let byte = *b.get(i).ok_or(Prim::Fail)?;
            Ok(if chars { Value::char(u32::from(byte)) } else { Value::small(i64::from(byte)) })
        }
        Body::Words(w) => {
            let i = index_arg(index, w.len())?;
            let word = *w.get(i).ok_or(Prim::Fail)?;
            if chars {
                // A word that is no code point is no Character.
                return (word <= 0x10FFFF).then(|| Value::char(word)).ok_or(Prim::Fail);
            }
            Ok(Value::small(i64::from(word)))
        }
        _ => Err(Prim::Fail),
    }
}

fn at_put(vm: &mut Vm, r: Value, index: Value, value: Value, chars: bool) -> PrimResult {
    if vm.is_symbol(r) {
        return Err(Prim::Fail);
    }
    if chars && value.as_char().is_some_and(|c| c > 0xFF) {
        // Widened only for a store that will happen.
        index_arg(index, vm.heap.get(r).map_or(0, |o| o.indexed_len()))?;
        widen(vm, r);
    }
    let obj = vm.heap.get_mut(r).ok_or(Prim::Fail)?;
    let named = obj.named as usize;
    if let Body::Chunked(c) = &obj.body {
        let i = index_arg(index, c.len.saturating_sub(named))?;
        if !vm.set_chunked_slot(r, named + i, value) {
            return Err(Prim::Fail);
        }
        return Ok(value);
    }
    let Some(obj) = vm.heap.get_mut(r) else { return Err(Prim::Fail) };
    match &mut obj.body {
        Body::Slots(s) => {
            let i = index_arg(index, s.len().saturating_sub(named))?;
            let slot = s.get_mut(named + i).ok_or(Prim::Fail)?;
            *slot = value;
        }
        Body::Bytes(b) => {
            let i = index_arg(index, b.len())?;
            let byte = if chars {
                value.as_char().and_then(|c| u8::try_from(c).ok()).ok_or(Prim::Fail)?
            } else {
                value.as_int().and_then(|n| u8::try_from(n).ok()).ok_or(Prim::Fail)?
            };
            let slot = b.get_mut(i).ok_or(Prim::Fail)?;
            *slot = byte;
        }
        Body::Words(w) => {
            let i = index_arg(index, w.len())?;
            let word = if chars {
                value.as_char().ok_or(Prim::Fail)?
            } else {
                value.as_int().and_then(|n| u32::try_from(n).ok()).ok_or(Prim::Fail)?
            };
            let slot = w.get_mut(i).ok_or(Prim::Fail)?;
            *slot = word;
        }
        _ => return Err(Prim::Fail),
    }
    vm.heap.note_store(r);
    Ok(value)
}

/// Makes the byte String `r` a WideString in place, the same object with the same
/// characters, so that it can hold any character (as Pharo's `becomeForward:` to a
/// WideString, without the search for references). Only a String proper is widened.
fn widen(vm: &mut Vm, r: Value) {
    let (string, wide) = (vm.known.string, vm.known.wide_string);
    let Some(obj) = vm.heap.get_mut(r) else { return };
    if obj.class != string {
        return;
    }
    if let Body::Bytes(b) = &obj.body {
        obj.body = Body::Words(b.iter().map(|&c| u32::from(c)).collect());
        obj.class = wide;
        vm.heap.note_store(r);
    }
}

/// A new instance of `class` with `size` indexed elements.
pub(crate) fn instantiate(vm: &mut Vm, class: Value, size: usize) -> PrimResult {
    if !vm.is_behavior(class) || size > MAX_NEW {
        return Err(Prim::Fail);
    }
    let (kind, named) = vm.format_of(class).ok_or(Prim::Fail)?;
    if size > 0 && !kind.is_indexable() {
        return Err(Prim::Fail);
    }
    let bytes = match kind {
        Kind::Fixed | Kind::Variable | Kind::Weak => (named + size) * 8,
        Kind::Bytes => size,
        Kind::Words => size * 4,
        _ => 0,
    };
    if bytes >= LARGE_ALLOCATION {
        vm.reserve(bytes)?;
    }
    let body = match kind {
        Kind::Fixed | Kind::Variable | Kind::Weak => Body::Slots(vec![Value::NIL; named + size].into()),
        Kind::Bytes => Body::Bytes(vec![0; size].into()),
        Kind::Words => Body::Words(vec![0; size]),
        Kind::Float => Body::Float(0.0),
        Kind::Semaphore => Body::Semaphore(Box::default()),
        Kind::Dict => Body::Dict(Box::default()),
        Kind::Process => {
            let mut slots = vec![Value::NIL; named];
            let priority = crate::scheduler::USER_PRIORITY;
            if let Some(slot) = slots.get_mut(crate::scheduler::process_slots::PRIORITY) {
                *slot = Value::small(priority);
            }
            Body::Process(Box::new(ProcessBody::new(slots, Some(Box::default()), priority as usize)))
        }
        Kind::Large | Kind::Method | Kind::Immediate => return Err(Prim::Fail),
    };
    let v = vm.heap.alloc(class, named, body);
    Ok(v)
}

fn shallow_copy(vm: &mut Vm, r: Value) -> PrimResult {
    if vm.is_chunked(r) {
        // A copy of a large persistent object is an ordinary (transient) one.
        let slots = vm.chunked_values(r).ok_or(Prim::Fail)?;
        let Some(obj) = vm.heap.get(r) else { return Err(Prim::Fail) };
        let (class, named) = (obj.class, obj.named as usize);
        return Ok(vm.heap.alloc(class, named, Body::Slots(slots.into())));
    }
    let Some(obj) = vm.heap.get(r) else { return Ok(r) };
    let body = match &obj.body {
        Body::Slots(s) => Body::Slots(s.clone()),
        Body::Bytes(b) => Body::Bytes(b.clone()),
        Body::Words(w) => Body::Words(w.clone()),
        Body::Float(f) => Body::Float(*f),
        Body::Large(n) => Body::Large(n.clone()),
        Body::Dict(d) => Body::Dict(d.clone()),
        Body::Semaphore(_) => Body::Semaphore(Box::<SemaphoreBody>::default()),
        Body::Method(_) | Body::Process(_) | Body::Free | Body::NotLoaded | Body::Chunked(_) => return Err(Prim::Fail),
    };
    let (class, named) = (obj.class, obj.named as usize);
    if vm.is_symbol(r) {
        return Ok(r);
    }
    Ok(vm.heap.alloc(class, named, body))
}

/// `replaceFrom: start to: stop with: replacement startingAt: repStart`
fn replace(vm: &mut Vm, r: Value, a: Args) -> PrimResult {
    let start = size_arg(a.arg(vm, 0))?;
    let stop = a.arg(vm, 1).as_int().ok_or(Prim::Fail)?;
    let src = a.arg(vm, 2);
    let rep_start = size_arg(a.arg(vm, 3))?;
    if start < 1 || rep_start < 1 {
        return Err(Prim::Fail);
    }
    let count = usize::try_from(stop - start as i64 + 1).map_err(|_| Prim::Fail)?;
    if count == 0 {
        return Ok(r);
    }
    if vm.is_symbol(r) {
        return Err(Prim::Fail);
    }
    // Copy the source range out first (source and destination may be the same object).
    enum Chunk {
        Values(Vec<Value>),
        Bytes(Vec<u8>),
        Words(Vec<u32>),
    }
    let chunk = {
        let s = vm.heap.get(src).ok_or(Prim::Fail)?;
        let named = s.named as usize;
        match &s.body {
            Body::Slots(v) => {
                Chunk::Values(v.get(named + rep_start - 1..named + rep_start - 1 + count).ok_or(Prim::Fail)?.to_vec())
            }
            Body::Bytes(b) => Chunk::Bytes(b.get(rep_start - 1..rep_start - 1 + count).ok_or(Prim::Fail)?.to_vec()),
            Body::Words(w) => Chunk::Words(w.get(rep_start - 1..rep_start - 1 + count).ok_or(Prim::Fail)?.to_vec()),
            _ => return Err(Prim::Fail),
        }
    };
    // Characters between a String and a WideString: a String that receives a character
    // beyond Latin-1 is widened first (once the range is known to fit).
    let strings = vm.is_string(r) && vm.is_string(src);
    let chunk = match chunk {
        Chunk::Words(c) if strings && c.iter().all(|&w| w <= 0xFF) && vm.heap.bytes(r).is_some() => {
            Chunk::Bytes(c.into_iter().map(|w| w as u8).collect())
        }
        Chunk::Words(c) if strings && vm.heap.bytes(r).is_some() => {
            index_arg(Value::small((start + count - 1) as i64), vm.heap.get(r).map_or(0, |o| o.indexed_len()))?;
            widen(vm, r);
            Chunk::Words(c)
        }
        Chunk::Bytes(c) if strings && vm.heap.bytes(r).is_none() => {
            Chunk::Words(c.into_iter().map(u32::from).collect())
        }
        other => other,
    };
    let d = vm.heap.get_mut(r).ok_or(Prim::Fail)?;
    let named = d.named as usize;
    match (&mut d.body, chunk) {
        (Body::Slots(v), Chunk::Values(c)) => {
            v.get_mut(named + start - 1..named + start - 1 + count).ok_or(Prim::Fail)?.copy_from_slice(&c);
        }
        (Body::Bytes(b), Chunk::Bytes(c)) => {
            b.get_mut(start - 1..start - 1 + count).ok_or(Prim::Fail)?.copy_from_slice(&c);
        }
        (Body::Words(w), Chunk::Words(c)) => {
            w.get_mut(start - 1..start - 1 + count).ok_or(Prim::Fail)?.copy_from_slice(&c);
        }
        _ => return Err(Prim::Fail),
    }
    vm.heap.note_store(r);
    Ok(r)
}
