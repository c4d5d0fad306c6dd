//! Context primitives (200-229): reading frames as Context objects, and the stack surgery the
//! exception system needs (handler and unwind search, `terminateTo:`, `restart`), plus the
//! report of an unhandled error.
//!
//! A Context is a handle `(process, frame id)`; it is *dead* once its frame has returned.

use super::table::{self, HANDLER_MARKER, UNWIND_MARKER};
use super::{Args, Prim, PrimResult, boolean};
use crate::bytecode::VarLoc;
use crate::heap::Body;
use crate::interpreter::context_slots as cx;
use crate::process::{Frame, ProcessState};
use crate::value::Value;
use crate::vm::Vm;

/// Runs `f` on the frames of `process` (running or not).
fn with_state<R>(vm: &mut Vm, process: Value, f: impl FnOnce(&mut ProcessState) -> R) -> Option<R> {
    if process == vm.scheduler.active {
        return Some(f(&mut vm.scheduler.state));
    }
    match &mut vm.heap.get_mut(process)?.body {
        Body::Process(p) => p.state.as_deref_mut().map(f),
        _ => None,
    }
}

/// The Context for frame `id` of `process`, made on first use; nil if the frame is gone.
pub(crate) fn context_for_id(vm: &mut Vm, process: Value, id: u64) -> Value {
    let existing = with_state(vm, process, |s| s.frame_index(id).and_then(|i| s.frames.get(i)).map(|f| f.context));
    match existing {
        Some(Some(ctx)) if !ctx.is_nil() => ctx,
        Some(Some(_)) => {
            let (receiver, method) = with_state(vm, process, |s| {
                s.frame_index(id)
                    .and_then(|i| s.frames.get(i))
                    .map(|f| (s.stack.get(f.base as usize).copied().unwrap_or(Value::NIL), f.method))
            })
            .flatten()
            .unwrap_or((Value::NIL, Value::NIL));
            let ctx = new_context(vm, process, id, receiver, method);
            with_state(vm, process, |s| {
                if let Some(f) = s.frame_index(id).and_then(|i| s.frames.get_mut(i)) {
                    f.context = ctx;
                }
            });
            ctx
        }
        _ => Value::NIL,
    }
}

/// A Context object for frame `id` of `process`.
pub(crate) fn new_context(vm: &mut Vm, process: Value, id: u64, receiver: Value, method: Value) -> Value {
    let class = vm.known.context;
    let named = vm.format_of(class).map_or(cx::SIZE, |(_, n)| n.max(cx::SIZE));
    let mut slots = vec![Value::NIL; named];
    slots[cx::PROCESS] = process;
    slots[cx::FRAME_ID] = Value::small(id as i64);
    slots[cx::RECEIVER] = receiver;
    slots[cx::METHOD] = method;
    vm.heap.alloc(class, named, Body::Slots(slots.into()))
}

/// The process and frame id a Context refers to.
fn handle(vm: &Vm, ctx: Value) -> Result<(Value, u64), Prim> {
    if vm.class_of(ctx) != vm.known.context {
        return Err(Prim::Fail);
    }
    let process = vm.heap.slot(ctx, cx::PROCESS).ok_or(Prim::Fail)?;
    let id = vm.heap.slot(ctx, cx::FRAME_ID).and_then(Value::as_int).ok_or(Prim::Fail)?;
    Ok((process, id as u64))
}

/// The index of a live context's frame in its process.
fn frame_of(vm: &mut Vm, ctx: Value) -> Result<(Value, usize), Prim> {
    let (process, id) = handle(vm, ctx)?;
    let index = with_state(vm, process, |s| s.frame_index(id)).flatten().ok_or(Prim::Fail)?;
    Ok((process, index))
}

fn frame_clone(vm: &mut Vm, process: Value, index: usize) -> Option<Frame> {
    with_state(vm, process, |s| s.frames.get(index).cloned()).flatten()
}

fn context_at(vm: &mut Vm, process: Value, index: usize) -> Value {
    match frame_clone(vm, process, index) {
        Some(f) => context_for_id(vm, process, f.id),
        None => Value::NIL,
    }
}

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    if index == table::CONTEXT_IS_DEAD {
        return boolean(frame_of(vm, r).is_err());
    }
    if index == table::EXCEPTION_REPORT_UNHANDLED {
        // Exception>>primReportUnhandled: description — suspends the running process.
        let class_name = vm.class_name(vm.class_of(r));
        let description = match vm.string_of(a.arg(vm, 0)) {
            Some(text) => format!("{class_name}: {text}"),
            None => class_name.clone(),
        };
        if let Some(slot) = vm.scheduler.state.stack.get_mut(a.ret) {
            *slot = Value::NIL;
        }
        // Report from the signaller down: skip the frames of the exception machinery.
        let top = signaller_index(vm, r);
        vm.suspend_active_with_error_from(&class_name, description, top);
        return Err(Prim::Switched);
    }
    let (process, i) = frame_of(vm, r)?;
    let frame = frame_clone(vm, process, i).ok_or(Prim::Fail)?;
    match index {
        table::CONTEXT_SENDER => Ok(if i == 0 { Value::NIL } else { context_at(vm, process, i - 1) }),
        table::CONTEXT_RECEIVER => register(vm, process, &frame, 0),
        table::CONTEXT_METHOD => Ok(frame.method),
        table::CONTEXT_TEMP_AT => {
            let k = temp_index(&frame, a.arg(vm, 0))?;
            register(vm, process, &frame, k)
        }
        table::CONTEXT_TEMP_AT_PUT => {
            let k = temp_index(&frame, a.arg(vm, 0))?;
            let v = a.arg(vm, 1);
            with_state(vm, process, |s| {
                if let Some(slot) = s.stack.get_mut(frame.base as usize + k) {
                    *slot = v;
                }
            });
            Ok(v)
        }
        table::CONTEXT_CLOSURE => Ok(frame.closure),
        table::CONTEXT_NEXT_HANDLER_CONTEXT => {
            // nextHandlerContext: the nearest on:do: activation below this one
            let found = with_state(vm, process, |s| {
                (0..i).rev().find(|&j| {
                    s.frames.get(j).is_some_and(|f| f.closure.is_nil() && f.code().primitive == HANDLER_MARKER)
                })
            })
            .flatten();
            Ok(found.map_or(Value::NIL, |j| context_at(vm, process, j)))
        }
        table::CONTEXT_FIND_NEXT_UNWIND_CONTEXT => {
            // findNextUnwindContextUpTo: aContext
            let limit = match frame_of(vm, a.arg(vm, 0)) {
                Ok((p, j)) if p == process => Some(j),
                _ => None,
            };
            let found = with_state(vm, process, |s| {
                (0..i).rev().take_while(|&j| Some(j) != limit).find(|&j| {
                    s.frames.get(j).is_some_and(|f| f.closure.is_nil() && f.code().primitive == UNWIND_MARKER)
                })
            })
            .flatten();
            Ok(found.map_or(Value::NIL, |j| context_at(vm, process, j)))
        }
        table::CONTEXT_TERMINATE_TO => terminate_to(vm, a, process, i),
        table::CONTEXT_RESTART => restart(vm, process, i, None),
        table::CONTEXT_RESTART_IN => {
            let method = a.arg(vm, 0);
            restart(vm, process, i, (!method.is_nil()).then_some(method))
        }
        table::CONTEXT_STEP_POINT => {
            // step point: {line. column. start. end} (1-based offsets)
            let pc = current_pc(vm, process, i, &frame);
            let sp = frame.code().step_point_at(pc);
            let (start, end) = sp.map_or((0, 0), |s| (s.span.start as usize, s.span.end as usize));
            let (line, col) = crate::compiler::parser::line_col(&frame.code().source, start);
            let items = vec![
                Value::small(line as i64),
                Value::small(col as i64),
                Value::small(start as i64 + 1),
                Value::small(end as i64),
            ];
            Ok(vm.new_array(items))
        }
        table::CONTEXT_LABEL => {
            let label = vm.frame_label(&frame);
            Ok(vm.new_string(&label))
        }
        table::CONTEXT_NUM_ARGS => Ok(Value::small(i64::from(frame.code().num_args))),
        table::CONTEXT_TEMP_NAMES => {
            // names of the arguments and temporaries
            let names: Vec<String> = frame.code().var_names.iter().map(|(n, _)| n.clone()).collect();
            let items = names.iter().map(|n| vm.new_string(n)).collect();
            Ok(vm.new_array(items))
        }
        table::CONTEXT_TEMP_NAMED => {
            // tempNamed:
            let name = vm.string_of(a.arg(vm, 0)).ok_or(Prim::Fail)?;
            let loc = frame.code().var_names.iter().find(|(n, _)| *n == name).map(|(_, l)| *l).ok_or(Prim::Fail)?;
            match loc {
                VarLoc::Reg(k) => register(vm, process, &frame, usize::from(k)),
                VarLoc::Vector { vec, index } => {
                    let v = register(vm, process, &frame, usize::from(vec))?;
                    vm.heap.slot(v, usize::from(index)).ok_or(Prim::Fail)
                }
            }
        }
        table::CONTEXT_PC => Ok(Value::small(current_pc(vm, process, i, &frame) as i64)),
        table::CONTEXT_PROCESS => Ok(process),
        table::CONTEXT_HOME => {
            // home: the context of the method activation a block belongs to
            Ok(context_for_id(vm, process, frame.home))
        }
        _ => Err(Prim::Fail),
    }
}

/// Slot of Exception's `signalContext` instance variable (Kernel-Exceptions defines
/// `messageText tag signalContext ...`).
const EXCEPTION_SIGNAL_CONTEXT: usize = 2;

/// The index of the frame that signalled `exception` in the running process: below the
/// `signal` activation, past the frames whose receiver is the exception or its class, and
/// past the methods marked `<debuggerHidden>` that signal for their sender (`halt`).
fn signaller_index(vm: &mut Vm, exception: Value) -> Option<usize> {
    let hidden = vm.intern("debuggerHidden");
    let is_hidden = |vm: &Vm, f: &Frame| {
        let pragmas = f.code().pragmas;
        let count = vm.heap.get(pragmas).and_then(|o| o.slots()).map_or(0, <[Value]>::len);
        (0..count).any(|k| vm.heap.slot(pragmas, k).and_then(|p| vm.heap.slot(p, 0)) == Some(hidden))
    };
    let ctx = vm.heap.slot(exception, EXCEPTION_SIGNAL_CONTEXT)?;
    let (process, mut i) = frame_of(vm, ctx).ok()?;
    if process != vm.scheduler.active {
        return None;
    }
    let class = vm.class_of(exception);
    loop {
        let f = vm.scheduler.state.frames.get(i)?;
        let receiver = vm.scheduler.state.stack.get(f.base as usize).copied().unwrap_or(Value::NIL);
        let machinery = receiver == exception || receiver == class || (f.closure.is_nil() && is_hidden(vm, f));
        if !machinery || i == 0 {
            return Some(i);
        }
        i -= 1;
    }
}

/// The pc whose step point describes where a frame is: the next instruction for the top
/// frame, the pending send for the others.
fn current_pc(vm: &mut Vm, process: Value, index: usize, frame: &Frame) -> usize {
    let is_top = with_state(vm, process, |s| s.frames.len() == index + 1).unwrap_or(false);
    if is_top && process != vm.scheduler.active { frame.pc as usize } else { (frame.pc as usize).saturating_sub(1) }
}

/// A 1-based `tempAt:` index as a register number (arguments then temporaries; 0 is the
/// receiver).
fn temp_index(frame: &Frame, k: Value) -> Result<usize, Prim> {
    let k = k.as_int().ok_or(Prim::Fail)?;
    let size = i64::from(frame.code().frame_size);
    if k < 0 || k >= size { Err(Prim::Fail) } else { Ok(k as usize) }
}

fn register(vm: &mut Vm, process: Value, frame: &Frame, k: usize) -> PrimResult {
    with_state(vm, process, |s| s.stack.get(frame.base as usize + k).copied()).flatten().ok_or(Prim::Fail)
}

/// `thisContext terminateTo: aContext`: drops every frame between the running method and
/// `aContext`, so that the running method returns into `aContext`.
fn terminate_to(vm: &mut Vm, a: Args, process: Value, top_index: usize) -> PrimResult {
    if process != vm.scheduler.active || top_index + 1 != vm.scheduler.state.frames.len() {
        return Err(Prim::Fail);
    }
    let (target_process, c) = frame_of(vm, a.arg(vm, 0))?;
    if target_process != process || c >= top_index {
        return Err(Prim::Fail);
    }
    let state = &mut vm.scheduler.state;
    let Some(above) = state.frames.get(c + 1).cloned() else { return Err(Prim::Fail) };
    if c + 1 == top_index {
        return Ok(a.recv(vm));
    }
    // The running frame stays where it is: its registers start at or above the base of the
    // frame just above the target, that is at or above the target's pending send register,
    // above which every register of the target is dead scratch (see `crate::bytecode`).
    let Some(mut top) = state.frames.pop() else { return Err(Prim::Fail) };
    debug_assert!(top.base >= above.base);
    state.frames.truncate(c + 1);
    top.ret = above.ret;
    state.frames.push(top);
    if let Some(slot) = state.stack.get_mut(a.ret) {
        *slot = Value::NIL;
    }
    Err(Prim::Switched)
}

/// `aContext primRestart`: drops the frames above it and runs it again from the start; in
/// `method` if given, a method for the same arguments (edit and continue).
fn restart(vm: &mut Vm, process: Value, index: usize, method: Option<Value>) -> PrimResult {
    if process != vm.scheduler.active {
        return Err(Prim::Fail);
    }
    let new_code = match method {
        Some(m) => {
            let code = vm.code_of(m).ok_or(Prim::Fail)?;
            let frame = vm.scheduler.state.frames.get(index).ok_or(Prim::Fail)?;
            if code.is_block || !frame.closure.is_nil() || code.num_args != frame.code().num_args {
                return Err(Prim::Fail);
            }
            Some((m, code))
        }
        None => None,
    };
    let state = &mut vm.scheduler.state;
    state.frames.truncate(index + 1);
    let Some(f) = state.frames.last_mut() else { return Err(Prim::Fail) };
    f.pc = 0;
    if let Some((m, code)) = &new_code {
        f.restart_in(*m, code);
        let top = f.top();
        if state.stack.len() < top {
            state.stack.resize(top, Value::NIL);
        }
    }
    let Some(f) = state.frames.last() else { return Err(Prim::Fail) };
    let first_temp = f.base as usize + 1 + usize::from(f.code().num_args) + usize::from(f.code().num_copied);
    let end = (first_temp + usize::from(f.code().num_temps)).min(state.stack.len());
    if let Some(temps) = state.stack.get_mut(first_temp..end) {
        temps.fill(Value::NIL);
    }
    Err(Prim::Switched)
}

/// How many frames an error report shows (the top ones).
const STACK_REPORT_FRAMES: usize = 40;

impl Vm {
    /// `ReceiverClass(MethodClass)>>selector`, with `[] in ` for blocks (frames of the
    /// running process).
    pub(crate) fn frame_label(&mut self, frame: &Frame) -> String {
        let receiver = self.scheduler.state.stack.get(frame.base as usize).copied().unwrap_or(Value::NIL);
        self.frame_label_for(frame, receiver)
    }

    /// The label of a frame whose receiver (register 0, `self` in blocks too) is `receiver`.
    pub(crate) fn frame_label_for(&self, frame: &Frame, receiver: Value) -> String {
        let method_class = frame.code().method_class.get();
        let selector = self.string_of(frame.code().selector).unwrap_or_default();
        let mc = self.class_name(method_class);
        let rc = self.class_name(self.class_of(receiver));
        let prefix = if frame.code().is_block { "[] in " } else { "" };
        if rc == mc || method_class.is_nil() {
            format!("{prefix}{rc}>>{selector}")
        } else {
            format!("{prefix}{rc}({mc})>>{selector}")
        }
    }

    /// The running process's stack from frame `top` (the top frame when `None`) down, for
    /// error reports.
    pub(crate) fn stack_report(&mut self, top: Option<usize>) -> Vec<crate::error::FrameInfo> {
        let len = self.scheduler.state.frames.len();
        let top = top.unwrap_or(len.saturating_sub(1)).min(len.saturating_sub(1));
        let total = if len == 0 { 0 } else { top + 1 };
        let frames: Vec<Frame> =
            self.scheduler.state.frames.iter().take(total).rev().take(STACK_REPORT_FRAMES).cloned().collect();
        let mut out = Vec::with_capacity(frames.len());
        for f in &frames {
            let pc = (f.pc as usize).saturating_sub(1);
            let start = f.code().step_point_at(pc).map_or(0, |s| s.span.start as usize);
            let (line, column) = crate::compiler::parser::line_col(&f.code().source, start);
            out.push(crate::error::FrameInfo { label: self.frame_label(f), line, column });
        }
        if total > out.len() {
            out.push(crate::error::FrameInfo {
                label: format!("... {} more frames", total - out.len()),
                line: 0,
                column: 0,
            });
        }
        out
    }
}
