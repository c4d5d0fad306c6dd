//! What the dispatch loop calls out to: sends that miss the fast paths, activation and
//! return, non-local return, doesNotUnderstand:, recursion limits, the interrupt check,
//! closures and contexts, and suspending a process with an error report.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{Flow, Stop, closure_slots};
use crate::bytecode::{BinOp, CacheEntry, CompiledCode, Instr};
use crate::heap::Body;
use crate::primitives::{self, Prim};
use crate::process::{Frame, Status};
use crate::value::Value;
use crate::vm::Vm;

impl Vm {
    /// The SmallInteger and Float fast paths of the special binary selectors, and `at:` on
    /// Arrays and Strings. `None` means: send the message.
    #[inline(always)]
    pub(super) fn bin_fast(&mut self, op: BinOp, x: Value, y: Value) -> Option<Value> {
        if let (Some(a), Some(b)) = (x.as_int(), y.as_int()) {
            return match op {
                BinOp::Add => {
                    Some(Value::int(a + b).unwrap_or_else(|| self.new_integer_i128(i128::from(a) + i128::from(b))))
                }
                BinOp::Sub => {
                    Some(Value::int(a - b).unwrap_or_else(|| self.new_integer_i128(i128::from(a) - i128::from(b))))
                }
                BinOp::Mul => Some(self.new_integer_i128(i128::from(a) * i128::from(b))),
                BinOp::Lt => Some(Value::boolean(a < b)),
                BinOp::Gt => Some(Value::boolean(a > b)),
                BinOp::Le => Some(Value::boolean(a <= b)),
                BinOp::Ge => Some(Value::boolean(a >= b)),
                BinOp::Eq => Some(Value::boolean(a == b)),
                BinOp::Ne => Some(Value::boolean(a != b)),
                BinOp::Div if b != 0 => Value::int(a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0)),
                BinOp::Slash if b != 0 && a % b == 0 => Value::int(a / b),
                BinOp::Mod if b != 0 => {
                    let m = a.rem_euclid(b);
                    Some(Value::small(if b < 0 && m != 0 { m + b } else { m }))
                }
                BinOp::BitAnd => Some(Value::small(a & b)),
                BinOp::BitOr => Some(Value::small(a | b)),
                BinOp::BitXor => Some(Value::small(a ^ b)),
                BinOp::BitShift if (0..64).contains(&b) => {
                    let r = i128::from(a) << b;
                    if (r >> b) == i128::from(a) { Some(self.new_integer_i128(r)) } else { None }
                }
                // Shifting right by 63 or more leaves the sign.
                BinOp::BitShift if b < 0 => Some(Value::small(a >> (-b).min(63))),
                _ => None,
            };
        }
        match op {
            BinOp::At => {
                let i = y.as_int()?;
                let obj = self.heap.get(x)?;
                if obj.class == self.known.array {
                    let slots = obj.slots()?;
                    return usize::try_from(i - 1).ok().and_then(|i| slots.get(i)).copied();
                }
                if obj.class == self.known.string {
                    let bytes = obj.bytes()?;
                    return usize::try_from(i - 1).ok().and_then(|i| bytes.get(i)).map(|&b| Value::char(u32::from(b)));
                }
                None
            }
            _ if op.has_float_path() => {
                // Two SmallIntegers were handled above: a Float is one of them at least.
                let (a, b) = (self.float_operand(x)?, self.float_operand(y)?);
                Some(match op {
                    BinOp::Add => self.new_float(a + b),
                    BinOp::Sub => self.new_float(a - b),
                    BinOp::Mul => self.new_float(a * b),
                    // Dividing by zero is the method's (ZeroDivide).
                    BinOp::Slash if b == 0.0 => return None,
                    BinOp::Slash => self.new_float(a / b),
                    BinOp::Lt => Value::boolean(a < b),
                    BinOp::Gt => Value::boolean(a > b),
                    BinOp::Le => Value::boolean(a <= b),
                    BinOp::Ge => Value::boolean(a >= b),
                    BinOp::Eq => Value::boolean(a == b),
                    _ => Value::boolean(a != b),
                })
            }
            _ => None,
        }
    }

    /// A Float's double, or a SmallInteger's when a double holds it exactly (beyond 2^53 the
    /// primitive compares exactly).
    #[inline(always)]
    fn float_operand(&self, v: Value) -> Option<f64> {
        if let Some(f) = v.as_float() {
            return Some(f);
        }
        match v.as_int() {
            Some(n) if n.unsigned_abs() <= 1 << 53 => Some(n as f64),
            Some(_) => None,
            None => self.float_of(v),
        }
    }

    /// `at:put:` on an Array (exactly) with a SmallInteger index in range: stores the value.
    /// False means: send the message.
    #[inline(always)]
    pub(super) fn at_put_fast(&mut self, recv: Value, index: Value, value: Value) -> bool {
        let Some(i) = index.as_int() else { return false };
        let array = self.known.array;
        let Some(obj) = self.heap.get_mut(recv) else { return false };
        if obj.class != array {
            return false;
        }
        let Some(slot) = obj.slots_mut().and_then(|s| usize::try_from(i - 1).ok().and_then(|i| s.get_mut(i))) else {
            return false;
        };
        *slot = value;
        self.heap.note_store(recv);
        true
    }

    /// The stack index just above the top frame's registers.
    pub(crate) fn frame_top(&self) -> usize {
        self.scheduler.state.frames.last().map_or(0, Frame::top)
    }

    /// Sends `selector` to `recv` with `args` placed above the top frame; the answer goes to
    /// stack index `ret`.
    pub(crate) fn send_from_top(&mut self, selector: Value, recv: Value, args: &[Value], ret: usize) -> Flow {
        self.send_special(selector, recv, args, ret, None)
    }

    /// Sends the special selector an instruction stands for (when its fast path does not
    /// apply) from the frame top, through the instruction's inline cache, which native code
    /// reads too (or, without a cache, any selector); the answer goes to stack index `ret`.
    pub(crate) fn send_special(
        &mut self,
        selector: Value,
        recv: Value,
        args: &[Value],
        ret: usize,
        cache: Option<&Cell<CacheEntry>>,
    ) -> Flow {
        let at = self.frame_top();
        let need = at + 1 + args.len();
        let stack = &mut self.scheduler.state.stack;
        if stack.len() < need {
            stack.resize(need, Value::NIL);
        }
        stack[at] = recv;
        stack[at + 1..need].copy_from_slice(args);
        self.fault_in(recv);
        let class = self.class_of(recv);
        let hit = cache.map(Cell::get).filter(|e| e.class == class && e.epoch == self.cache_epoch);
        if let Some(entry) = hit {
            return self.invoke(entry.method, at, args.len(), ret);
        }
        match self.lookup_code(class, selector) {
            Some((method, code)) => {
                if let Some(slot) = cache {
                    slot.set(CacheEntry { class, method, epoch: self.cache_epoch, code });
                }
                self.invoke(method, at, args.len(), ret)
            }
            None => {
                self.send_dnu(at, args.len(), selector, ret);
                Flow::Reload
            }
        }
    }

    /// Runs `method` for the receiver at stack index `at` with `nargs` arguments after it:
    /// its primitive if it has one and it succeeds, else a new activation.
    pub(crate) fn invoke(&mut self, method: Value, at: usize, nargs: usize, ret: usize) -> Flow {
        let Some(code) = self.code_of(method) else {
            self.fatal_error("a method dictionary holds something that is not a method");
            return Flow::Reload;
        };
        if code.primitive != 0 {
            match primitives::call(self, code.primitive, at, nargs, ret) {
                Ok(v) => {
                    if let Some(slot) = self.scheduler.state.stack.get_mut(ret) {
                        *slot = v;
                    }
                    return Flow::Done;
                }
                Err(Prim::Switched) => return Flow::Reload,
                Err(Prim::Fail) => {}
            }
        }
        if usize::from(code.num_args) != nargs {
            self.fatal_error("wrong number of arguments for method");
            return Flow::Reload;
        }
        self.activate(method, code, at, ret, Value::NIL, None);
        Flow::Reload
    }

    /// Pushes a frame for `code` whose registers start at stack index `at`.
    #[inline(always)]
    pub(crate) fn activate(
        &mut self,
        method: Value,
        code: Rc<CompiledCode>,
        at: usize,
        ret: usize,
        closure: Value,
        home: Option<u64>,
    ) {
        let state = &mut self.scheduler.state;
        if state.frames.len() >= self.depth_limit {
            self.refuse_deep_activation();
            return;
        }
        let top = at + code.frame_size as usize;
        if state.stack.len() < top {
            state.stack.resize(top.max(state.stack.len() * 2), Value::NIL);
        }
        let first_temp = at + 1 + code.num_args as usize + code.num_copied as usize;
        for slot in state.stack.iter_mut().skip(first_temp).take(code.num_temps as usize) {
            *slot = Value::NIL;
        }
        let id = self.next_frame_id;
        self.next_frame_id += 1;
        crate::process::push_frame(
            &mut state.frames,
            Rc::as_ptr(&code),
            method,
            closure,
            at as u32,
            ret as u32,
            id,
            home.unwrap_or(id),
        );
    }

    /// An activation beyond the recursion limit: instead of it, signal the recursion error
    /// (the limit rises while it is handled), or stop the process if the handler recursed
    /// beyond the raised limit too.
    #[cold]
    fn refuse_deep_activation(&mut self) {
        if self.scheduler.state.overflow_signalled {
            self.fatal_error("stack overflow: the recursion error handler recursed too deep");
            return;
        }
        self.scheduler.state.overflow_signalled = true;
        self.depth_limit = self.config.max_depth + 10_000;
        let sel = self.known.sel_stack_overflow;
        let process = self.scheduler.active;
        let top = self.frame_top();
        let _ = self.send_from_top(sel, process, &[], top);
    }

    /// Pops the top frame, handing `v` to its caller (or finishing the process).
    pub(crate) fn return_from_top(&mut self, v: Value) {
        let Some(frame) = self.scheduler.state.frames.pop() else {
            self.finish_active(v);
            return;
        };
        if self.scheduler.state.frames.is_empty() {
            self.finish_active(v);
            return;
        }
        if let Some(slot) = self.scheduler.state.stack.get_mut(frame.ret as usize) {
            *slot = v;
        }
    }

    /// `^ v` from a block: return from its home method activation, through unwind blocks.
    pub(super) fn non_local_return(&mut self, v: Value) {
        let Some(top) = self.scheduler.state.frames.last() else { return };
        let (home, closure) = (top.home, top.closure);
        let Some(hi) = self.scheduler.state.frame_index(home) else {
            let sel = self.known.sel_cannot_return;
            let ret = self.frame_top();
            let _ = self.send_from_top(sel, closure, &[v], ret);
            return;
        };
        let frames = &self.scheduler.state.frames;
        let unwind = (hi + 1..frames.len())
            .find(|&i| frames.get(i).is_some_and(|f| f.code().primitive == primitives::UNWIND_MARKER));
        if let Some(first_unwind) = unwind {
            let top_index = frames.len() - 1;
            let this_context = self.context_for_frame(top_index);
            let unwind_context = self.context_for_frame(first_unwind);
            let sel = self.known.sel_about_to_return;
            let ret = self.frame_top();
            let _ = self.send_from_top(sel, this_context, &[v, unwind_context], ret);
            return;
        }
        let ret = self.scheduler.state.frames.get(hi).map_or(0, |f| f.ret as usize);
        self.scheduler.state.frames.truncate(hi);
        if self.scheduler.state.frames.is_empty() {
            self.finish_active(v);
        } else if let Some(slot) = self.scheduler.state.stack.get_mut(ret) {
            *slot = v;
        }
    }

    /// Sends `doesNotUnderstand:` for a failed lookup of `selector` (receiver at `at`).
    pub(crate) fn send_dnu(&mut self, at: usize, nargs: usize, selector: Value, ret: usize) {
        if self.fault_error.is_some() {
            self.fault_failed("an object could not be faulted in");
            return;
        }
        let stack = &self.scheduler.state.stack;
        let args = stack.get(at + 1..at + 1 + nargs).map(<[Value]>::to_vec).unwrap_or_default();
        let recv = stack.get(at).copied().unwrap_or(Value::NIL);
        let args = self.new_array(args);
        let message_class = self.known.message;
        let named = self.format_of(message_class).map_or(2, |(_, n)| n.max(2));
        let class = self.class_of(recv);
        let mut slots = vec![Value::NIL; named];
        slots[0] = selector;
        slots[1] = args;
        if let Some(s) = slots.get_mut(2) {
            *s = class;
        }
        let message = self.heap.alloc(message_class, named, Body::Slots(slots.into()));
        let dnu = self.known.sel_does_not_understand;
        match self.lookup(class, dnu) {
            Some(m) => {
                if let Some(s) = self.scheduler.state.stack.get_mut(at + 1) {
                    *s = message;
                }
                let _ = self.invoke(m, at, 1, ret);
            }
            None => {
                let name = self.string_of(selector).unwrap_or_default();
                self.fatal_error(&format!("{} does not understand #{name}", self.class_name(class)));
            }
        }
    }

    /// Collects if enough was allocated (or a collection was asked for): at safepoints only.
    pub(super) fn collect_if_wanted(&mut self) {
        if self.heap.wants_gc() {
            self.collect_garbage();
            self.check_memory();
        }
    }

    /// The periodic check: collector, timers, preemption, host interrupt, deadline.
    pub(super) fn check_interrupts(&mut self, deadline: Option<Instant>) -> Option<Stop> {
        self.collect_if_wanted();
        if self.scheduler.state.overflow_signalled && self.scheduler.state.frames.len() < self.config.max_depth / 2 {
            self.scheduler.state.overflow_signalled = false;
        }
        self.depth_limit = if self.scheduler.state.overflow_signalled {
            self.config.max_depth + 10_000
        } else {
            self.config.max_depth
        };
        if self.next_timer().is_some() {
            let now = Instant::now();
            if self.fire_timers(now) {
                self.preempt();
            }
        }
        if self.long_ops_pending() && self.finish_long_ops() {
            self.preempt();
        }
        if self.interrupt.load(Ordering::Relaxed) {
            return Some(Stop::Interrupted);
        }
        if let Some(d) = deadline
            && Instant::now() >= d
        {
            return Some(Stop::Timeslice);
        }
        None
    }

    /// The running process finished with `v`.
    pub(crate) fn finish_active(&mut self, v: Value) {
        let active = self.scheduler.active;
        self.scheduler.state.result = v;
        self.scheduler.state.status = Status::Terminated;
        self.scheduler.state.frames.clear();
        self.end_step_of_active();
        if Some(active) == self.watch {
            self.watch_stopped = true;
        }
        self.switch_to_next();
    }

    /// Stops the running process with an error no Smalltalk code can handle (a broken
    /// kernel or VM invariant); the process is suspended with a report, the VM goes on.
    pub(crate) fn fatal_error(&mut self, message: &str) {
        self.suspend_active_with_error("VMError", message.to_string());
    }

    /// Suspends the running process with an error report built from its stack.
    pub(crate) fn suspend_active_with_error(&mut self, class_name: &str, description: String) {
        self.suspend_active_with_error_from(class_name, description, None);
    }

    /// Suspends the running process with an error report of its stack from frame `top` down.
    pub(crate) fn suspend_active_with_error_from(&mut self, class_name: &str, description: String, top: Option<usize>) {
        let stack = self.stack_report(top);
        self.scheduler.state.error =
            Some(Box::new(crate::error::ErrorReport { class_name: class_name.to_string(), description, stack }));
        self.scheduler.state.status = Status::Suspended;
        self.scheduler.state.shown_top = top;
        self.scheduler.state.stepped = false;
        self.end_step_of_active();
        let process = self.scheduler.active;
        let watched = Some(process) == self.watch;
        if watched {
            self.watch_stopped = true;
        }
        self.switch_to_next();
        // What no host watches (a forked process) is kept for a debugger; a host decides
        // for its own.
        if !watched {
            self.keep(process, crate::debug::DebugEvent::Failed);
        }
    }

    /// Runs an instruction that makes an object without a send (a temp vector, a closure, a
    /// brace array, `thisContext`, a receiver's class) for the top frame, whose registers
    /// are at `regs`. The dispatch loop and native code both run these here.
    pub(super) fn make_object(&mut self, instr: Instr, regs: *mut Value) {
        // SAFETY: the instruction is the top frame's, verified, so its registers are inside
        // the frame's window at `regs`; making objects never moves the value stack.
        let reg = |r: u8| unsafe { *regs.add(usize::from(r)) };
        let (dst, value) = match instr {
            Instr::MakeVector { dst, size } => {
                let array = self.known.array;
                (dst, self.heap.alloc(array, 0, Body::Slots(vec![Value::NIL; usize::from(size)].into())))
            }
            Instr::MakeClosure { dst, block, first, count } => {
                let copied: Vec<Value> = (0..count).map(|i| reg(first + i)).collect();
                (dst, self.make_closure(block, copied, reg(0)))
            }
            Instr::MakeArray { dst, first, count } => {
                let items: Vec<Value> = (0..count).map(|i| reg(first + i)).collect();
                (dst, self.new_array(items))
            }
            Instr::LoadContext { dst } => {
                let top = self.scheduler.state.frames.len().saturating_sub(1);
                (dst, self.context_for_frame(top))
            }
            Instr::Class { dst, x } => {
                self.fault_in(reg(x));
                (dst, self.class_of(reg(x)))
            }
            _ => return,
        };
        // SAFETY: as above.
        unsafe { *regs.add(usize::from(dst)) = value };
    }

    /// Builds a BlockClosure for block `index` of the running method.
    pub(super) fn make_closure(&mut self, index: u16, copied: Vec<Value>, receiver: Value) -> Value {
        let (outer, method, home) = match self.scheduler.state.frames.last() {
            Some(f) => (f.id, f.method, f.home),
            None => (0, Value::NIL, 0),
        };
        let mut slots = Vec::with_capacity(closure_slots::SIZE + copied.len());
        slots.extend_from_slice(&[
            Value::small(outer as i64),
            method,
            Value::small(i64::from(index)),
            receiver,
            Value::small(home as i64),
        ]);
        slots.extend(copied);
        let class = self.known.block_closure;
        self.heap.alloc(class, closure_slots::SIZE, Body::Slots(slots.into()))
    }

    /// The Context object for frame `index` of the running process, made on first use.
    pub(crate) fn context_for_frame(&mut self, index: usize) -> Value {
        let Some(frame) = self.scheduler.state.frames.get(index) else { return Value::NIL };
        if !frame.context.is_nil() {
            return frame.context;
        }
        let (id, method, base) = (frame.id, frame.method, frame.base as usize);
        let receiver = self.scheduler.state.stack.get(base).copied().unwrap_or(Value::NIL);
        let process = self.scheduler.active;
        let ctx = crate::primitives::context::new_context(self, process, id, receiver, method);
        if let Some(f) = self.scheduler.state.frames.get_mut(index) {
            f.context = ctx;
        }
        ctx
    }
}
