//! Block and perform primitives (80-99): evaluating closures, `perform:` and friends.

use super::{Args, Prim, PrimResult, table};
use crate::heap::Body;
use crate::interpreter::{Flow, closure_slots as cl};
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    match index {
        table::BLOCK_VALUE => activate_closure(vm, a.at, a.nargs, a.ret),
        table::BLOCK_VALUE_WITH_ARGUMENTS => {
            let arg = a.arg(vm, 0);
            if vm.class_of(arg) != vm.known.array {
                return Err(Prim::Fail);
            }
            let items = vm.array_items(arg).ok_or(Prim::Fail)?;
            let code = closure_code(vm, a.recv(vm)).ok_or(Prim::Fail)?;
            if items.len() != usize::from(code.num_args) {
                return Err(Prim::Fail);
            }
            put_args(vm, a.at, &items);
            activate_closure(vm, a.at, items.len(), a.ret)
        }
        table::BLOCK_NUM_ARGS => {
            let code = closure_code(vm, a.recv(vm)).ok_or(Prim::Fail)?;
            Ok(Value::small(i64::from(code.num_args)))
        }
        table::OBJECT_PERFORM => {
            // perform: sel with: ... — shift the arguments over the selector.
            let sel = a.arg(vm, 0);
            let args: Vec<Value> = (1..a.nargs).map(|i| a.arg(vm, i)).collect();
            perform(vm, a, sel, &args)
        }
        table::OBJECT_PERFORM_WITH_ARGUMENTS => {
            let sel = a.arg(vm, 0);
            let args = vm.array_items(a.arg(vm, 1)).ok_or(Prim::Fail)?;
            perform(vm, a, sel, &args)
        }
        table::BLOCK_OUTER_CONTEXT => {
            // outerContext
            let r = a.recv(vm);
            let id = vm.heap.slot(r, cl::OUTER).and_then(Value::as_int).ok_or(Prim::Fail)?;
            let process = vm.scheduler.active;
            Ok(crate::primitives::context::context_for_id(vm, process, id as u64))
        }
        _ => Err(Prim::Fail),
    }
}

fn put_args(vm: &mut Vm, at: usize, args: &[Value]) {
    let stack = &mut vm.scheduler.state.stack;
    if stack.len() < at + 1 + args.len() {
        stack.resize(at + 1 + args.len(), Value::NIL);
    }
    if let Some(dst) = stack.get_mut(at + 1..at + 1 + args.len()) {
        dst.copy_from_slice(args);
    }
}

/// The block code a closure runs.
pub(crate) fn closure_code(vm: &Vm, closure: Value) -> Option<std::rc::Rc<crate::bytecode::CompiledCode>> {
    if vm.class_of(closure) != vm.known.block_closure {
        return None;
    }
    let method = vm.heap.slot(closure, cl::METHOD)?;
    let index = vm.heap.slot(closure, cl::INDEX)?.as_int()?;
    let code = vm.code_of(method)?;
    code.blocks.get(usize::try_from(index).ok()?).cloned()
}

/// Evaluates the closure at stack index `at` with the `nargs` arguments after it: one visit
/// to the closure, its copied values straight onto the stack.
pub(crate) fn activate_closure(vm: &mut Vm, at: usize, nargs: usize, ret: usize) -> PrimResult {
    let closure = vm.scheduler.state.stack.get(at).copied().ok_or(Prim::Fail)?;
    let obj = vm.heap.get(closure).ok_or(Prim::Fail)?;
    if obj.class != vm.known.block_closure {
        return Err(Prim::Fail);
    }
    let slots = obj.slots().ok_or(Prim::Fail)?;
    let slot = |i: usize| slots.get(i).copied().unwrap_or(Value::NIL);
    let (method, receiver) = (slot(cl::METHOD), slot(cl::RECEIVER));
    let index = slot(cl::INDEX).as_int().and_then(|i| usize::try_from(i).ok()).ok_or(Prim::Fail)?;
    let home = slot(cl::HOME).as_int().unwrap_or(0) as u64;
    let copied = slots.get(cl::SIZE..).unwrap_or(&[]);
    let code = match vm.heap.get(method).map(|m| &m.body) {
        Some(Body::Method(m)) => m.blocks.get(index).cloned().ok_or(Prim::Fail)?,
        _ => return Err(Prim::Fail),
    };
    if usize::from(code.num_args) != nargs || copied.len() != usize::from(code.num_copied) {
        return Err(Prim::Fail);
    }
    let first_copied = at + 1 + nargs;
    let top = (at + code.frame_size as usize).max(first_copied + copied.len());
    let stack = &mut vm.scheduler.state.stack;
    if stack.len() < top {
        stack.resize(top, Value::NIL);
    }
    stack[at] = receiver;
    if let Some(dst) = stack.get_mut(first_copied..first_copied + copied.len()) {
        dst.copy_from_slice(copied);
    }
    vm.activate(method, code, at, ret, closure, Some(home));
    Err(Prim::Switched)
}

/// Sends `sel` to the receiver at `at` with `args`.
fn perform(vm: &mut Vm, a: Args, sel: Value, args: &[Value]) -> PrimResult {
    let at = a.at;
    let name = vm.string_of(sel).ok_or(Prim::Fail)?;
    if !vm.is_symbol(sel) || selector_arity(&name) != args.len() {
        return Err(Prim::Fail);
    }
    put_args(vm, at, args);
    let recv = vm.scheduler.state.stack.get(at).copied().unwrap_or(Value::NIL);
    let class = vm.class_of(recv);
    match vm.lookup(class, sel) {
        Some(m) => match vm.invoke(m, at, args.len(), a.ret) {
            Flow::Done => Ok(vm.scheduler.state.stack.get(a.ret).copied().unwrap_or(Value::NIL)),
            Flow::Reload => Err(Prim::Switched),
        },
        None => {
            vm.send_dnu(at, args.len(), sel, a.ret);
            Err(Prim::Switched)
        }
    }
}

/// The number of arguments a selector takes.
pub(crate) fn selector_arity(name: &str) -> usize {
    let first = name.chars().next();
    if first.is_some_and(|c| !c.is_alphabetic() && c != '_') {
        return 1;
    }
    name.chars().filter(|&c| c == ':').count()
}
