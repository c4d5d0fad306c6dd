//! The interpreter's side of native code: entering it with a [`JitCtx`] that describes the
//! running process, taking the process back when it exits, and running primitives for it.
//!
//! While native code runs, the frame vector's length, the next frame id and the interrupt
//! countdown live in the context; everything else it reads stays valid because native code
//! does not allocate, and when it switches processes (on `wait`, `jit/x64/process.rs`) it
//! describes the next one in the context itself. A primitive may do both, so the primitive
//! hook gives the process back to the VM first and describes it afresh afterwards.

use std::cell::Cell;
use std::rc::Rc;

use crate::bytecode::{CacheEntry, CompiledCode, Instr};
use crate::heap::Body;
use crate::interpreter::closure_slots as cl;
use crate::jit::{self, Exit, JitConfig, JitCtx, Next};
use crate::primitives::{self, Prim};
use crate::value::Value;
use crate::vm::Vm;

/// Exit to the interpreter, which looks at the top frame first.
const EXIT: Next = Next { entry: Next::EXIT, regs: std::ptr::null_mut() };

/// The largest `new:` [`Vm::quick_primitive`] makes (a larger one may need a collection
/// first, which the general path makes).
const QUICK_NEW_LIMIT: usize = 1024;

/// Go on after the send, in the sending frame whose registers are at `regs`.
fn go_on(regs: *mut Value) -> Next {
    Next { entry: Next::GO_ON, regs }
}

impl Vm {
    /// Runs native code from `entry` for the top frame, whose registers are at `regs`.
    pub(super) fn run_native(&mut self, regs: *mut Value, entry: usize, countdown: &mut i32) -> Exit {
        let mut ctx = JitCtx {
            frames: std::ptr::null_mut(),
            frames_len: 0,
            frames_cap: 0,
            depth_limit: 0,
            stack: std::ptr::null_mut(),
            stack_end: std::ptr::null_mut(),
            objects: std::ptr::null(),
            objects_len: 0,
            small_integer: self.known.small_integer,
            small_float: self.known.small_float,
            character: self.known.character,
            undefined_object: self.known.undefined_object,
            true_class: self.known.true_class,
            false_class: self.known.false_class,
            array: self.known.array,
            string: self.known.string,
            symbol: self.known.symbol,
            byte_array: self.known.byte_array,
            block_closure: self.known.block_closure,
            ready: std::ptr::null_mut(),
            ready_mask: std::ptr::null_mut(),
            scheduler: std::ptr::null_mut(),
            epoch: 0,
            next_frame_id: 0,
            countdown: i64::from(*countdown),
            vm: std::ptr::null_mut(),
            primitive: native_primitive,
            make_object: native_make_object,
            refill: native_refill,
        };
        self.describe(&mut ctx);
        // SAFETY: `entry` is from the top frame's code's entry table, `regs` is that frame's
        // register window, and `ctx` describes this process's stacks and the heap; only
        // native code and `native_primitive` (which keeps `ctx` up to date) touch them until
        // native code exits.
        let exit = unsafe { jit::enter(&mut ctx, regs, entry) };
        self.take_back(&ctx);
        *countdown = ctx.countdown.clamp(i64::from(i32::MIN), i64::from(super::CHECK_INTERVAL)) as i32;
        exit
    }

    /// Fills in what may have changed since `ctx` was made or last filled: the running
    /// process's stacks, the object table, the cache epoch, frame ids (and the VM pointer,
    /// taken last so that no later use of `self` outdates it).
    fn describe(&mut self, ctx: &mut JitCtx) {
        let (objects, objects_len) = self.heap.table_raw();
        let state = &mut *self.scheduler.state;
        let stack = state.stack.as_mut_ptr();
        ctx.frames = state.frames.as_mut_ptr();
        ctx.frames_len = state.frames.len();
        ctx.frames_cap = state.frames.capacity();
        ctx.depth_limit = self.depth_limit;
        ctx.stack = stack;
        // SAFETY: one past the end of the stack's initialised slots.
        ctx.stack_end = unsafe { stack.add(state.stack.len()) };
        ctx.objects = objects;
        ctx.objects_len = objects_len;
        ctx.epoch = u64::from(self.cache_epoch);
        ctx.next_frame_id = self.next_frame_id;
        (ctx.ready, ctx.ready_mask) = self.scheduler.ready.raw();
        ctx.scheduler = &mut self.scheduler;
        ctx.vm = self;
    }

    /// Takes back what native code changed: the frames it pushed or popped and frame ids.
    fn take_back(&mut self, ctx: &JitCtx) {
        let frames = &mut self.scheduler.state.frames;
        // SAFETY: native code only pops frames (which need no drop) and pushes frames it
        // wrote completely, within the capacity it was given.
        unsafe { frames.set_len(ctx.frames_len.min(frames.capacity())) };
        self.next_frame_id = ctx.next_frame_id;
    }

    /// A send from native code to a method with a primitive (see [`JitCtx::primitive`]):
    /// the primitive, and if it fails the method's code, as the interpreter's send does. The
    /// receiver is in register `a` and the answer goes to register `ret`.
    fn primitive_for_native(&mut self, entry: CacheEntry, a: usize, nargs: usize, ret: usize) -> Next {
        let Some(base) = self.scheduler.state.frames.last().map(|f| f.base as usize) else { return EXIT };
        let (at, ret) = (base + a, base + ret);
        // SAFETY: native code checked that the entry is from this epoch, so the method that
        // owns the code is alive (see `CacheEntry::code`).
        let callee = unsafe { &*entry.code };
        match primitives::call(self, callee.primitive, at, nargs, ret) {
            Ok(v) => {
                if let Some(slot) = self.scheduler.state.stack.get_mut(ret) {
                    *slot = v;
                }
                return go_on(self.regs_at(base));
            }
            Err(Prim::Switched) => {}
            Err(Prim::Fail) => {
                if usize::from(callee.num_args) != nargs {
                    self.fatal_error("wrong number of arguments for method");
                } else if let Some(code) = self.code_of(entry.method) {
                    self.activate(entry.method, code, at, ret, Value::NIL, None);
                }
            }
        }
        self.native_entry_of_top()
    }

    /// `value`, `value:`, ... sent from native code to a BlockClosure: the block's frame
    /// pushed as native code pushes a method's, without handing the process back, and its
    /// native entry (or an exit, for the interpreter to warm it up). `None` leaves it to the
    /// general primitive path: not a closure, wrong arguments, a stub, no room for the frame.
    fn closure_for_native(
        &mut self,
        ctx: &mut JitCtx,
        regs: *mut Value,
        a: usize,
        nargs: usize,
        ret: usize,
    ) -> Option<Next> {
        // SAFETY: `regs` is the sending frame's window, inside the stack `ctx` describes.
        let base = usize::try_from(unsafe { regs.offset_from(ctx.stack) }).ok()?;
        let at = base + a;
        let stack = &mut self.scheduler.state.stack;
        let closure = *stack.get(at)?;
        let obj = self.heap.get(closure)?;
        if obj.class != self.known.block_closure {
            return None;
        }
        let slots = obj.slots()?;
        let slot = |i: usize| slots.get(i).copied().unwrap_or(Value::NIL);
        let (method, receiver) = (slot(cl::METHOD), slot(cl::RECEIVER));
        let index = usize::try_from(slot(cl::INDEX).as_int()?).ok()?;
        let home = u64::try_from(slot(cl::HOME).as_int()?).ok()?;
        let copied = slots.get(cl::SIZE..)?;
        let code = match &self.heap.get(method)?.body {
            Body::Method(m) => Rc::as_ptr(m.blocks.get(index)?),
            _ => return None,
        };
        // SAFETY: the block's code belongs to `method`, which the closure keeps alive.
        let callee = unsafe { &*code };
        let first_copied = at + 1 + nargs;
        let top = (at + usize::from(callee.frame_size)).max(first_copied + copied.len());
        let room = ctx.frames_len < ctx.frames_cap && ctx.frames_len < ctx.depth_limit && top <= stack.len();
        if usize::from(callee.num_args) != nargs || copied.len() != usize::from(callee.num_copied) || !room {
            return None;
        }
        stack[at] = receiver;
        stack.get_mut(first_copied..first_copied + copied.len())?.copy_from_slice(copied);
        let first_temp = first_copied + copied.len();
        stack.get_mut(first_temp..first_temp + usize::from(callee.num_temps))?.fill(Value::NIL);
        let id = ctx.next_frame_id;
        ctx.next_frame_id += 1;
        // SAFETY: below the capacity native code was given; native code pushes frames there
        // the same way, and `take_back` makes them part of the vector.
        unsafe {
            let frame = ctx.frames.add(ctx.frames_len);
            crate::process::write_frame(frame, code, method, closure, at as u32, (base + ret) as u32, id, home);
        }
        ctx.frames_len += 1;
        match callee.native.entry(0) {
            // SAFETY: `at` is within the stack (checked above).
            Some(entry) => Some(Next { entry, regs: unsafe { ctx.stack.add(at) } }),
            None => Some(EXIT),
        }
    }

    /// The primitives object, string and number code runs all the time (`=` between byte
    /// strings, `size`, `new` and `new:`, SmallInteger and Float arithmetic native code does
    /// not inline, such as `&` or a Float's `/` and `sqrt`), answered without handing the
    /// process back: none of them touches frames or switches processes. `None` when the
    /// primitive is another or its operands are not the ordinary case (a stub, a wide string,
    /// a chunked object), which the general path answers.
    fn quick_primitive(
        &mut self,
        ctx: &mut JitCtx,
        primitive: u16,
        regs: *mut Value,
        a: usize,
        nargs: usize,
        ret: usize,
    ) -> Option<Next> {
        // SAFETY: `regs` is the sending frame's window; the receiver's register `a`, the
        // argument registers after it and `ret` are verified registers of it.
        let operand = |i: usize| unsafe { *regs.add(a + i) };
        let answer = match (primitive, nargs) {
            (primitives::STRING_EQUAL, 1) => Value::boolean(primitives::narrow_equal(self, operand(0), operand(1))?),
            (primitives::OBJECT_BASIC_SIZE, 0) => {
                let obj = self.heap.get(operand(0))?;
                match &obj.body {
                    Body::Slots(_) | Body::Bytes(_) | Body::Words(_) => Value::small(obj.indexed_len() as i64),
                    _ => return None,
                }
            }
            (p, 0)
                if primitives::is_float(p)
                    && let Some(x) = self.float_of(operand(0)) =>
            {
                let f = primitives::float_elementary(p, x)?;
                // A result beyond the immediate range is boxed: the table may grow.
                let made = self.new_float(f);
                (ctx.objects, ctx.objects_len) = self.heap.table_raw();
                made
            }
            (p, 1)
                if primitives::is_integer(p)
                    && let (Some(x), Some(y)) = (operand(0).as_int(), operand(1).as_int()) =>
            {
                // A large integer result is an allocation: the table may grow.
                let made = primitives::integer_small(self, p, x, y)?.ok();
                (ctx.objects, ctx.objects_len) = self.heap.table_raw();
                made?
            }
            (p, 1)
                if primitives::is_float(p)
                    && let Some(x) = self.float_of(operand(0)) =>
            {
                let made = primitives::float_binary(self, p, x, operand(1))?.ok();
                (ctx.objects, ctx.objects_len) = self.heap.table_raw();
                made?
            }
            (primitives::BEHAVIOR_BASIC_NEW, 0) | (primitives::BEHAVIOR_BASIC_NEW_SIZE, 1) => {
                let size = if nargs == 0 { 0 } else { primitives::size_arg(operand(1)).ok()? };
                if size > QUICK_NEW_LIMIT {
                    return None;
                }
                // An allocation this small does not collect, but it is made as the general
                // path makes one (the process handed back, described afresh) all the same.
                self.take_back(ctx);
                let made = primitives::instantiate(self, operand(0), size).ok();
                self.describe(ctx);
                made?
            }
            _ => return None,
        };
        // SAFETY: as above.
        unsafe { *regs.add(ret) = answer };
        Some(go_on(regs))
    }

    /// `signal` and `wait` sent from native code, the process switch path kept short: what
    /// touches neither frames nor the object table runs without handing the process back.
    /// The semaphore is in the send's register, which is also where its answer (itself) goes;
    /// `regs` is the sending frame's window, where native code goes on unless the process
    /// switched. `None` when `semaphore` is not one (the primitive fails in the general path).
    fn semaphore_for_native(
        &mut self,
        ctx: &mut JitCtx,
        primitive: u16,
        semaphore: Value,
        regs: *mut Value,
    ) -> Option<Next> {
        if primitive == primitives::SEMAPHORE_SIGNAL {
            if !self.signal_semaphore(semaphore)? {
                return Some(go_on(regs));
            }
            // A higher-priority process is ready.
            self.take_back(ctx);
            self.preempt();
        } else {
            self.take_back(ctx);
            if !self.wait_semaphore(semaphore)? {
                return Some(go_on(regs));
            }
        }
        self.describe(ctx);
        Some(self.native_entry_of_top())
    }

    /// Where native code goes on after frames or processes changed: the top frame's native
    /// entry and registers, or [`EXIT`] when the interpreter must look first (a collection
    /// asked for, e.g. by `Smalltalk garbageCollect`, runs there before the next instruction).
    fn native_entry_of_top(&mut self) -> Next {
        if self.watch_stopped || self.scheduler.active.is_nil() || self.heap.wants_gc() {
            return EXIT;
        }
        let Some(f) = self.scheduler.state.frames.last() else { return EXIT };
        let (code, base, pc) = (f.code(), f.base as usize, f.pc as usize);
        // Code not compiled yet is warmed up (counted) by the interpreter, where it runs.
        if self.config.jit == JitConfig::Off {
            return EXIT;
        }
        let entry = code.native.entry(pc);
        match entry {
            Some(entry) => Next { entry, regs: self.regs_at(base) },
            None => EXIT,
        }
    }
}

/// The primitive hook native code calls (see [`JitCtx::primitive`]).
///
/// # Safety
/// Called only by native code, with the context it runs under and a cache entry of the
/// running code that was filled in the current epoch.
unsafe extern "sysv64" fn native_primitive(
    ctx: *mut JitCtx,
    entry: *const CacheEntry,
    regs: *mut Value,
    a: u64,
    nargs: u64,
    ret: u64,
) -> Next {
    // SAFETY: native code passes the context `run_native` made, whose `vm` is the VM that
    // entered native code and is not otherwise in use while native code runs.
    let (ctx, vm) = unsafe { (&mut *ctx, &mut *(*ctx).vm) };
    // SAFETY: the entry is a cache slot of code a frame keeps alive.
    let entry = unsafe { *entry };
    // SAFETY: as for `entry`, and native code checked the epoch.
    let primitive = unsafe { (*entry.code).primitive };
    if nargs == 0 && matches!(primitive, primitives::SEMAPHORE_SIGNAL | primitives::SEMAPHORE_WAIT) {
        // SAFETY: `regs` is the sending frame's window and `a` a verified register of it.
        let semaphore = unsafe { *regs.add(a as usize) };
        if let Some(outcome) = vm.semaphore_for_native(ctx, primitive, semaphore, regs) {
            return outcome;
        }
    }
    if let Some(next) = vm.quick_primitive(ctx, primitive, regs, a as usize, nargs as usize, ret as usize) {
        return next;
    }
    vm.other_primitive(ctx, entry, primitive, regs, a as usize, nargs as usize, ret as usize)
}

impl Vm {
    /// The primitives neither the process switch path nor [`Vm::quick_primitive`] answers: a
    /// block's `value` and the general path. Kept out of line so that the hook's quick paths
    /// are short.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn other_primitive(
        &mut self,
        ctx: &mut JitCtx,
        entry: CacheEntry,
        primitive: u16,
        regs: *mut Value,
        a: usize,
        nargs: usize,
        ret: usize,
    ) -> Next {
        if primitive == primitives::BLOCK_VALUE
            && let Some(next) = self.closure_for_native(ctx, regs, a, nargs, ret)
        {
            return next;
        }
        self.take_back(ctx);
        let outcome = self.primitive_for_native(entry, a, nargs, ret);
        self.describe(ctx);
        outcome
    }
}

/// The object-making hook native code calls (see [`JitCtx::make_object`]).
///
/// # Safety
/// Called only by native code, with the context it runs under, the top frame's registers
/// and the pc of one of its instructions.
unsafe extern "sysv64" fn native_make_object(ctx: *mut JitCtx, regs: *mut Value, pc: u64) {
    // SAFETY: as for `native_primitive`.
    let (ctx, vm) = unsafe { (&mut *ctx, &mut *(*ctx).vm) };
    vm.take_back(ctx);
    let instr = vm.scheduler.state.frames.last().and_then(|f| f.code().instrs.get(pc as usize));
    if let Some(instr) = instr {
        vm.make_object(instr, regs);
    }
    vm.describe(ctx);
}

/// The inline-cache refill native code calls (see [`JitCtx::refill`]).
///
/// # Safety
/// Called only by native code, with the context it runs under, an inline cache of `code`
/// (the running code, which a frame keeps alive) and the pc of the send it belongs to.
unsafe extern "sysv64" fn native_refill(
    ctx: *mut JitCtx,
    entry: *const Cell<CacheEntry>,
    class: Value,
    code: *const CompiledCode,
    pc: u64,
) -> u64 {
    // SAFETY: as for `native_primitive`.
    let (ctx, vm) = unsafe { (&mut *ctx, &mut *(*ctx).vm) };
    // SAFETY: as the caller promises.
    let (entry, code) = unsafe { (&*entry, &*code) };
    let Some(selector) = code.instrs.get(pc as usize).and_then(|i| vm.selector_sent(code, i)) else { return 0 };
    let found = vm.lookup_code(class, selector);
    // A lookup may bring classes and methods in from the repository, growing the table.
    (ctx.objects, ctx.objects_len) = vm.heap.table_raw();
    let Some((method, target)) = found else { return 0 };
    entry.set(CacheEntry { class, method, epoch: vm.cache_epoch, code: target });
    u64::from(u64::from(vm.cache_epoch) == ctx.epoch)
}

impl Vm {
    /// The selector instruction `instr` of `code` sends through its inline cache (a super
    /// send's cache is keyed on another class: none).
    fn selector_sent(&self, code: &CompiledCode, instr: Instr) -> Option<Value> {
        match instr {
            Instr::Send { lit, .. } => code.literals.get(usize::from(lit)).copied(),
            Instr::Bin { op, .. }
            | Instr::BinImm { op, .. }
            | Instr::CmpJump { op, .. }
            | Instr::CmpImmJump { op, .. } => self.known.bin_selectors.get(op as usize).copied(),
            Instr::AtPut { .. } | Instr::AtPutLit { .. } => Some(self.known.sel_at_put),
            _ => None,
        }
    }
}
