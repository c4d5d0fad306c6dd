//! Process primitives (100-129): semaphores, process creation and control, the scheduler,
//! timers for Delay, and clocks.

use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::block::closure_code;
use super::{Args, Prim, PrimResult, table};
use crate::heap::Body;
use crate::interpreter::closure_slots as cl;
use crate::process::{ProcessState, Status};
use crate::scheduler::MAX_PRIORITY;
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    match index {
        table::SEMAPHORE_SIGNAL => match vm.signal_semaphore(r) {
            None => Err(Prim::Fail),
            Some(true) => preempt_with(vm, a, r),
            Some(false) => Ok(r),
        },
        table::SEMAPHORE_WAIT => {
            // The answer is stored before waiting, so the process resumes with it.
            set_result(vm, a, r);
            match vm.wait_semaphore(r) {
                None => Err(Prim::Fail),
                Some(true) => Err(Prim::Switched),
                Some(false) => Ok(r),
            }
        }
        table::SEMAPHORE_EXCESS_SIGNALS => match vm.heap.get(r).map(|o| &o.body) {
            Some(Body::Semaphore(s)) => Ok(Value::small(s.excess_signals)),
            _ => Err(Prim::Fail),
        },
        table::SEMAPHORE_INIT_SIGNALS => {
            // Semaphore: forget excess signals (initSignals)
            match vm.heap.get_mut(r).map(|o| &mut o.body) {
                Some(Body::Semaphore(s)) => {
                    s.excess_signals = 0;
                    Ok(r)
                }
                _ => Err(Prim::Fail),
            }
        }
        table::BLOCK_NEW_PROCESS => {
            // BlockClosure newProcess
            let priority = vm.priority_of(vm.scheduler.active) as i64;
            spawn_closure(vm, r, priority).ok_or(Prim::Fail)
        }
        table::PROCESS_RESUME => {
            let status = vm.status_of(r).ok_or(Prim::Fail)?;
            if status != Status::Suspended {
                return Ok(r);
            }
            if vm.make_ready(r) {
                return preempt_with(vm, a, r);
            }
            Ok(r)
        }
        table::PROCESS_SUSPEND => {
            // suspend
            if r == vm.scheduler.active {
                set_result(vm, a, r);
                vm.scheduler.state.status = Status::Suspended;
                vm.switch_to_next();
                return Err(Prim::Switched);
            }
            let status = vm.status_of(r).ok_or(Prim::Fail)?;
            if status == Status::Terminated {
                return Ok(r);
            }
            vm.unlink(r);
            vm.set_status(r, Status::Suspended);
            Ok(r)
        }
        table::PROCESS_TERMINATE => {
            // terminate, after unwinding has been done in Smalltalk
            if r == vm.scheduler.active {
                vm.finish_active(Value::NIL);
                return Err(Prim::Switched);
            }
            vm.status_of(r).ok_or(Prim::Fail)?;
            vm.unlink(r);
            if let Some(Body::Process(p)) = vm.heap.get_mut(r).map(|o| &mut o.body)
                && let Some(s) = &mut p.state
            {
                s.status = Status::Terminated;
                s.frames.clear();
            }
            Ok(r)
        }
        table::PROCESSOR_YIELD => {
            set_result(vm, a, r);
            let before = vm.scheduler.active;
            vm.yield_active();
            if vm.scheduler.active == before { Ok(r) } else { Err(Prim::Switched) }
        }
        table::PROCESSOR_ACTIVE_PROCESS => Ok(vm.scheduler.active),
        table::PROCESS_SET_PRIORITY => {
            let p = a.arg(vm, 0).as_int().ok_or(Prim::Fail)?;
            if !(1..=MAX_PRIORITY as i64).contains(&p) {
                return Err(Prim::Fail);
            }
            vm.status_of(r).ok_or(Prim::Fail)?;
            let was_ready = vm.status_of(r) == Some(Status::Ready);
            if was_ready {
                vm.unlink(r);
            }
            vm.set_priority(r, p as usize);
            if (was_ready && vm.make_ready(r)) || r == vm.scheduler.active {
                return preempt_with(vm, a, r);
            }
            Ok(r)
        }
        table::PROCESS_STATUS => {
            let status = vm.status_of(r).ok_or(Prim::Fail)?;
            let name = match status {
                Status::Running => "running",
                Status::Ready => "ready",
                Status::Waiting => "waiting",
                Status::Suspended => "suspended",
                Status::Terminated => "terminated",
            };
            Ok(vm.intern(name))
        }
        table::PROCESSOR_SIGNAL_AFTER_MILLISECONDS => {
            // Processor signal: aSemaphore afterMilliseconds: ms
            let sem = a.arg(vm, 0);
            is_semaphore(vm, sem)?;
            let ms = a.arg(vm, 1).as_int().ok_or(Prim::Fail)?.max(0) as u64;
            vm.add_timer(Instant::now() + Duration::from_millis(ms), sem);
            Ok(r)
        }
        table::PROCESSOR_CANCEL_TIMERS => {
            let sem = a.arg(vm, 0);
            vm.cancel_timers(sem);
            Ok(r)
        }
        table::TIME_MILLISECOND_CLOCK => Ok(Value::small(vm.started.elapsed().as_millis() as i64)),
        table::TIME_MICROSECOND_CLOCK => Ok(Value::small(vm.started.elapsed().as_micros() as i64)),
        table::TIME_WALL_CLOCK => {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
            let items = vec![Value::small(now.as_secs() as i64), Value::small(i64::from(now.subsec_nanos()))];
            Ok(vm.new_array(items))
        }
        table::PROCESS_SUSPENDED_CONTEXT => {
            // Process suspendedContext: the top frame's context of a process not running
            if r == vm.scheduler.active {
                return Err(Prim::Fail);
            }
            let id = match vm.heap.get(r).map(|o| &o.body) {
                Some(Body::Process(p)) => p.state.as_ref().and_then(|s| s.frames.last()).map(|f| f.id),
                _ => return Err(Prim::Fail),
            };
            match id {
                Some(id) => Ok(super::context::context_for_id(vm, r, id)),
                None => Ok(Value::NIL),
            }
        }
        table::PROCESS_INJECT => {
            // Process primInject: aSelector — make a suspended process send aSelector to itself
            // (with its top context as argument) when it next runs, e.g. to unwind and terminate.
            let sel = a.arg(vm, 0);
            inject_send(vm, r, sel)?;
            Ok(r)
        }
        table::PROCESSOR_READY_PROCESS_COUNT => Ok(Value::small(vm.scheduler.ready.len() as i64)),
        _ => Err(Prim::Fail),
    }
}

fn is_semaphore(vm: &Vm, v: Value) -> Result<(), Prim> {
    match vm.heap.get(v).map(|o| &o.body) {
        Some(Body::Semaphore(_)) => Ok(()),
        _ => Err(Prim::Fail),
    }
}

/// Stores the primitive's answer in the caller's register before a process switch.
fn set_result(vm: &mut Vm, a: Args, v: Value) {
    if let Some(slot) = vm.scheduler.state.stack.get_mut(a.ret) {
        *slot = v;
    }
}

/// Answers `v`, letting a higher-priority ready process take over first.
fn preempt_with(vm: &mut Vm, a: Args, v: Value) -> PrimResult {
    set_result(vm, a, v);
    let before = vm.scheduler.active;
    vm.preempt();
    if vm.scheduler.active == before { Ok(v) } else { Err(Prim::Switched) }
}

/// A new suspended process that evaluates `closure` (which takes no arguments).
pub(crate) fn spawn_closure(vm: &mut Vm, closure: Value, priority: i64) -> Option<Value> {
    let code = closure_code(vm, closure)?;
    if code.num_args != 0 {
        return None;
    }
    let slots = vm.heap.get(closure)?.slots()?.to_vec();
    let receiver = slots.get(cl::RECEIVER).copied().unwrap_or(Value::NIL);
    let home = slots.get(cl::HOME).and_then(|v| v.as_int()).unwrap_or(0) as u64;
    let method = slots.get(cl::METHOD).copied().unwrap_or(Value::NIL);
    let copied = slots.get(cl::SIZE..).unwrap_or(&[]);
    let mut state = Box::new(ProcessState::new());
    state.stack.resize(code.frame_size as usize, Value::NIL);
    state.stack[0] = receiver;
    for (i, &c) in copied.iter().enumerate() {
        if let Some(s) = state.stack.get_mut(1 + i) {
            *s = c;
        }
    }
    let id = vm.new_frame_id();
    crate::process::push_frame(&mut state.frames, Rc::as_ptr(&code), method, closure, 0, 0, id, home);
    Some(vm.new_process_object(state, priority))
}

/// Pushes onto a suspended process a send of `selector` to the process itself with its top
/// context as the argument; the send runs when the process resumes.
fn inject_send(vm: &mut Vm, process: Value, selector: Value) -> Result<(), Prim> {
    if process == vm.scheduler.active {
        return Err(Prim::Fail);
    }
    let top_id = match vm.heap.get(process).map(|o| &o.body) {
        Some(Body::Process(p)) => p.state.as_ref().and_then(|s| s.frames.last()).map(|f| f.id),
        _ => return Err(Prim::Fail),
    };
    let ctx = match top_id {
        Some(id) => super::context::context_for_id(vm, process, id),
        None => Value::NIL,
    };
    vm.inject(process, process, selector, &[ctx]).map_err(|_| Prim::Fail)
}
