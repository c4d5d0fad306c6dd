//! The interpreter: one dispatch loop over register instructions.
//!
//! The loop keeps the running frame in locals: a pointer to its code, its pc, and a pointer
//! to its registers. Sends that hit their inline cache activate the callee and returns pop
//! to the caller without leaving the loop; everything else (`calls`) goes through the VM and
//! the loop reloads its locals from the top frame.
//!
//! Registers, literals, caches and instructions are read without bounds checks. What makes
//! that sound: every `CompiledCode` passed the verifier (`crate::verify`), so its operands are
//! within its frame and its jumps within its code; every activation sizes the value stack to
//! `base + frame_size` before the frame runs; and the register pointer is taken again after
//! anything that may grow (reallocate) the value stack.

mod calls;
mod native;

use std::time::Instant;

use crate::bytecode::{CacheEntry, CompiledCode, Instr};
use crate::jit::Exit;
use crate::primitives::{self, Prim};
use crate::value::Value;
use crate::vm::Vm;

/// Why [`Vm::run`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No process is ready to run.
    Idle,
    /// The deadline passed.
    Timeslice,
    /// The host set the interrupt flag.
    Interrupted,
    /// The watched process finished or was suspended.
    Watched,
}

/// What the interpreter does after a send.
pub(crate) enum Flow {
    /// A primitive answered; the same frame continues.
    Done,
    /// Frames or processes changed; reload from the top frame.
    Reload,
}

/// Slot indices of BlockClosure objects (copied values follow as indexed slots).
pub mod closure_slots {
    /// The activation id of the frame that created the closure (SmallInteger).
    pub const OUTER: usize = 0;
    /// The home CompiledMethod.
    pub const METHOD: usize = 1;
    /// Index of the block in the method's blocks.
    pub const INDEX: usize = 2;
    /// The receiver (`self` inside the block).
    pub const RECEIVER: usize = 3;
    /// The activation id of the home method activation (SmallInteger).
    pub const HOME: usize = 4;
    /// Named slots of a BlockClosure.
    pub const SIZE: usize = 5;
}

/// Slot indices of Context objects.
pub mod context_slots {
    /// The Process the frame belongs to.
    pub const PROCESS: usize = 0;
    /// The frame's activation id (SmallInteger).
    pub const FRAME_ID: usize = 1;
    /// The receiver, kept for when the frame has returned.
    pub const RECEIVER: usize = 2;
    /// The method, kept for when the frame has returned.
    pub const METHOD: usize = 3;
    /// Named slots of a Context.
    pub const SIZE: usize = 4;
}

/// Sends and backward jumps between interrupt checks.
const CHECK_INTERVAL: i32 = 1000;

impl Vm {
    /// Runs ready processes until none is ready, the deadline passes, the host interrupts,
    /// or the watched process stops.
    pub fn run(&mut self, deadline: Option<Instant>) -> Stop {
        if self.debug.step.is_some() || self.pauses_pending() {
            self.run_loop::<true>(deadline)
        } else {
            self.run_loop::<false>(deadline)
        }
    }

    /// The dispatch loop. `STEP` is its form while a debugger's step or pause is under way:
    /// no native code, and before each instruction a look whether the step stops there
    /// (`crate::debug::step`) or a pause does (`crate::debug::pause`). The other form is the one all code runs in.
    fn run_loop<const STEP: bool>(&mut self, deadline: Option<Instant>) -> Stop {
        let mut countdown = CHECK_INTERVAL;
        let jit = if STEP { crate::jit::JitConfig::Off } else { self.config.jit };
        'outer: loop {
            // Every frame is saved here: a safepoint (`Smalltalk garbageCollect` comes back
            // through it to collect at once).
            self.collect_if_wanted();
            if self.watch_stopped {
                self.watch_stopped = false;
                return Stop::Watched;
            }
            if self.scheduler.active.is_nil() {
                match self.take_next_ready() {
                    Some(next) => self.activate_process(next),
                    None => return Stop::Idle,
                }
            }
            let Some(frame) = self.scheduler.state.frames.last() else {
                self.finish_active(Value::NIL);
                continue;
            };
            // The frame's Rc keeps the code alive while the frame is on the stack.
            let mut code: *const CompiledCode = frame.code_ptr();
            let mut base = frame.base as usize;
            let mut pc = frame.pc as usize;
            let mut regs: *mut Value = self.regs_at(base);
            macro_rules! code {
                () => {
                    // SAFETY: `code` points to the running frame's code, kept alive by the
                    // frame (see the module comment).
                    unsafe { &*code }
                };
            }
            // Whether the running frame's code has native code (see `crate::jit`).
            let mut native = crate::jit::warm(code!(), jit, self.cache_epoch, &self.heap, &mut self.native_compiled);
            macro_rules! frame_changed {
                () => {
                    native = crate::jit::warm(code!(), jit, self.cache_epoch, &self.heap, &mut self.native_compiled);
                };
            }
            macro_rules! lit {
                ($i:expr) => {{
                    let c = code!();
                    // SAFETY: verified literal index.
                    unsafe { *c.literals.get_unchecked($i as usize) }
                }};
            }
            macro_rules! cache {
                ($i:expr) => {{
                    let c = code!();
                    // SAFETY: verified cache index.
                    unsafe { c.caches.get_unchecked($i as usize) }
                }};
            }
            macro_rules! reg {
                ($r:expr) => {
                    // SAFETY: verified register < frame_size <= stack.len() - base; `regs` was
                    // taken after the last possible reallocation of the stack.
                    unsafe { *regs.add($r as usize) }
                };
            }
            macro_rules! set {
                ($r:expr, $v:expr) => {{
                    let v = $v;
                    // SAFETY: as for `reg!`.
                    unsafe { *regs.add($r as usize) = v }
                }};
            }
            macro_rules! save_pc {
                () => {
                    if let Some(f) = self.scheduler.state.frames.last_mut() {
                        f.pc = pc as u32;
                    }
                };
            }
            macro_rules! flow {
                ($e:expr) => {
                    match $e {
                        // A primitive answered: the stack may have grown.
                        Flow::Done => regs = self.regs_at(base),
                        Flow::Reload => continue 'outer,
                    }
                };
            }
            macro_rules! check {
                ($resume:expr) => {
                    countdown -= 1;
                    if countdown <= 0 {
                        countdown = CHECK_INTERVAL;
                        let resume = $resume;
                        if let Some(f) = self.scheduler.state.frames.last_mut() {
                            f.pc = resume as u32;
                        }
                        if let Some(stop) = self.check_interrupts(deadline) {
                            return stop;
                        }
                        continue 'outer;
                    }
                };
            }
            macro_rules! jump {
                // Jump by `offset`; a backward jump counts toward the interrupt check.
                ($offset:expr) => {{
                    let offset = $offset;
                    pc = (pc as i64 + i64::from(offset)) as usize;
                    if offset < 0 {
                        check!(pc);
                    }
                }};
            }
            macro_rules! send_special {
                // The special selector `op` sent from the frame top, answer into register `dst`.
                ($op:expr, $x:expr, $y:expr, $dst:expr) => {{
                    save_pc!();
                    let sel = self.known.bin_selectors.get($op as usize).copied().unwrap_or(Value::NIL);
                    let cache = code!().special_cache(pc - 1);
                    flow!(self.send_special(sel, $x, &[$y], base + $dst as usize, cache));
                }};
            }
            macro_rules! binary {
                ($op:expr, $dst:expr, $x:expr, $y:expr) => {{
                    let (xv, yv) = ($x, $y);
                    match self.bin_fast($op, xv, yv) {
                        Some(v) => set!($dst, v),
                        None => send_special!($op, xv, yv, $dst),
                    }
                }};
            }
            macro_rules! compare_and_branch {
                ($op:expr, $x:expr, $y:expr, $t:expr, $sense:expr, $offset:expr) => {{
                    let (xv, yv) = ($x, $y);
                    match self.bin_fast($op, xv, yv) {
                        Some(b) if b == Value::boolean($sense) => jump!($offset),
                        Some(Value::TRUE | Value::FALSE) => pc += 1,
                        _ => send_special!($op, xv, yv, $t),
                    }
                }};
            }
            macro_rules! at_put {
                ($dst:expr, $r:expr, $i:expr, $v:expr) => {{
                    let (rv, iv, vv) = ($r, $i, $v);
                    if self.at_put_fast(rv, iv, vv) {
                        set!($dst, vv);
                    } else {
                        save_pc!();
                        let selector = self.known.sel_at_put;
                        let cache = code!().special_cache(pc - 1);
                        flow!(self.send_special(selector, rv, &[iv, vv], base + $dst as usize, cache));
                    }
                }};
            }
            macro_rules! enter {
                // Continue in the frame just pushed on top.
                () => {
                    match self.scheduler.state.frames.last() {
                        Some(f) => {
                            code = f.code_ptr();
                            base = f.base as usize;
                            pc = f.pc as usize;
                            regs = self.regs_at(base);
                            frame_changed!();
                        }
                        None => continue 'outer,
                    }
                };
            }
            'run: loop {
                if STEP && self.step_stops_at(pc) {
                    save_pc!();
                    self.stop_stepped();
                    continue 'outer;
                }
                if STEP && self.pause_stops_at(pc) {
                    continue 'outer;
                }
                if native && let Some(entry) = code!().native.entry(pc) {
                    let exit = self.run_native(regs, entry, &mut countdown);
                    let Some(f) = self.scheduler.state.frames.last_mut() else { continue 'outer };
                    code = f.code_ptr();
                    base = f.base as usize;
                    match exit {
                        Exit::Exec(p) => {
                            // Run this one instruction here; native code goes on after it.
                            pc = p as usize;
                            regs = self.regs_at(base);
                            frame_changed!();
                        }
                        Exit::Check(p) => {
                            f.pc = p;
                            countdown = CHECK_INTERVAL;
                            if let Some(stop) = self.check_interrupts(deadline) {
                                return stop;
                            }
                            continue 'outer;
                        }
                        // Frames or processes changed under a primitive: start over.
                        Exit::Resume => continue 'outer,
                    }
                }
                let c = code!();
                // SAFETY: verified: jumps land inside the code and the last instruction does
                // not fall through, so `pc` is in range.
                let mut instr = unsafe { c.instrs.running(pc) };
                pc += 1;
                // A loop only so a breakpoint can run the instruction it covers.
                'dispatch: loop {
                    match instr {
                        Instr::Move { dst, src } => set!(dst, reg!(src)),
                        Instr::LoadLit { dst, lit } => set!(dst, lit!(lit as usize)),
                        Instr::LoadInt { dst, value } => set!(dst, Value::small(i64::from(value))),
                        Instr::LoadNil { dst } => set!(dst, Value::NIL),
                        Instr::LoadTrue { dst } => set!(dst, Value::TRUE),
                        Instr::LoadFalse { dst } => set!(dst, Value::FALSE),
                        Instr::LoadContext { .. }
                        | Instr::MakeVector { .. }
                        | Instr::MakeClosure { .. }
                        | Instr::MakeArray { .. }
                        | Instr::Class { .. } => self.make_object(instr, regs),
                        Instr::GetIvar { dst, index } => {
                            let recv = reg!(0);
                            if !self.fault_in(recv) {
                                save_pc!();
                                self.fatal_error("the receiver could not be loaded");
                                continue 'outer;
                            }
                            let v = match self.heap.slot(recv, index as usize) {
                                Some(v) => v,
                                None if self.is_chunked(recv) => match self.chunked_slot(recv, index as usize) {
                                    Some(v) => v,
                                    None => {
                                        save_pc!();
                                        self.fatal_error("the receiver could not be loaded");
                                        continue 'outer;
                                    }
                                },
                                None => Value::NIL,
                            };
                            set!(dst, v);
                        }
                        Instr::SetIvar { index, src } => {
                            let recv = reg!(0);
                            let v = reg!(src);
                            let stored = self.fault_in(recv)
                                && (self.heap.set_slot(recv, index as usize, v)
                                    || (self.is_chunked(recv) && self.set_chunked_slot(recv, index as usize, v)));
                            if !stored {
                                save_pc!();
                                self.fatal_error("could not store into an instance variable of the receiver");
                                continue 'outer;
                            }
                        }
                        Instr::GetGlobal { dst, lit } => {
                            let assoc = lit!(lit as usize);
                            if self.heap.is_stub(assoc) && !self.fault_in(assoc) {
                                save_pc!();
                                self.fault_failed("a global could not be faulted in");
                                continue 'outer;
                            }
                            set!(dst, self.heap.slot(assoc, 1).unwrap_or(Value::NIL));
                        }
                        Instr::SetGlobal { lit, src } => {
                            let assoc = lit!(lit as usize);
                            if self.heap.is_stub(assoc) && !self.fault_in(assoc) {
                                save_pc!();
                                self.fault_failed("a global could not be faulted in");
                                continue 'outer;
                            }
                            self.heap.set_slot(assoc, 1, reg!(src));
                        }
                        Instr::GetVector { dst, vec, index } => {
                            let v = reg!(vec);
                            set!(dst, self.heap.slot(v, index as usize).unwrap_or(Value::NIL));
                        }
                        Instr::SetVector { vec, index, src } => {
                            self.heap.set_slot(reg!(vec), index as usize, reg!(src));
                        }
                        Instr::Send { a, nargs, lit, cache } => {
                            check!(pc - 1);
                            let at = base + a as usize;
                            let recv = reg!(a);
                            let class = self.class_of(recv);
                            let slot = cache!(cache as usize);
                            let entry = slot.get();
                            let (method, target) = if entry.class == class && entry.epoch == self.cache_epoch {
                                (entry.method, entry.code)
                            } else {
                                let selector = lit!(lit as usize);
                                // A stub receiver is brought in before its class is looked at.
                                let class = if self.heap.is_stub(recv) {
                                    save_pc!();
                                    if !self.fault_in(recv) {
                                        self.fault_failed("an object could not be faulted in");
                                        continue 'outer;
                                    }
                                    self.class_of(recv)
                                } else {
                                    class
                                };
                                match self.lookup_code(class, selector) {
                                    Some((m, target)) => {
                                        slot.set(CacheEntry {
                                            class,
                                            method: m,
                                            epoch: self.cache_epoch,
                                            code: target,
                                        });
                                        (m, target)
                                    }
                                    None => {
                                        save_pc!();
                                        self.send_dnu(at, nargs as usize, selector, at);
                                        continue 'outer;
                                    }
                                }
                            };
                            save_pc!();
                            // SAFETY: the entry is from this epoch: no collection and no method
                            // change since it was filled, so the method and its code are alive.
                            let callee = unsafe { &*target };
                            if callee.primitive != 0 {
                                match primitives::call(self, callee.primitive, at, nargs as usize, at) {
                                    Ok(v) => {
                                        regs = self.regs_at(base);
                                        set!(a, v);
                                        continue 'run;
                                    }
                                    Err(Prim::Switched) => continue 'outer,
                                    Err(Prim::Fail) => {}
                                }
                            }
                            if callee.num_args != nargs {
                                self.fatal_error("wrong number of arguments for method");
                                continue 'outer;
                            }
                            let depth = self.scheduler.state.frames.len();
                            let top = at + callee.frame_size as usize;
                            if depth >= self.depth_limit || self.scheduler.state.stack.len() < top {
                                let Some(rc) = self.code_of(method) else { continue 'outer };
                                self.activate(method, rc, at, at, Value::NIL, None);
                                enter!();
                                continue 'run;
                            }
                            // The common case inline: room on the stack, below the depth limit.
                            let first_temp = at + 1 + callee.num_args as usize;
                            for slot in
                                self.scheduler.state.stack.iter_mut().skip(first_temp).take(callee.num_temps as usize)
                            {
                                *slot = Value::NIL;
                            }
                            let id = self.next_frame_id;
                            self.next_frame_id += 1;
                            crate::process::push_frame(
                                &mut self.scheduler.state.frames,
                                target,
                                method,
                                Value::NIL,
                                at as u32,
                                at as u32,
                                id,
                                id,
                            );
                            code = target;
                            base = at;
                            pc = 0;
                            regs = self.regs_at(base);
                            frame_changed!();
                        }
                        Instr::SuperSend { a, nargs, lit, cache } => {
                            check!(pc - 1);
                            let at = base + a as usize;
                            let start = self.superclass_of(code!().method_class.get());
                            // The lookup starts at a fixed class: the cache holds its result.
                            let slot = cache!(cache as usize);
                            let entry = slot.get();
                            let method = if entry.class == start && entry.epoch == self.cache_epoch {
                                Some(entry.method)
                            } else {
                                let selector = lit!(lit as usize);
                                self.lookup_code(start, selector).map(|(m, target)| {
                                    slot.set(CacheEntry {
                                        class: start,
                                        method: m,
                                        epoch: self.cache_epoch,
                                        code: target,
                                    });
                                    m
                                })
                            };
                            save_pc!();
                            match method {
                                Some(m) => flow!(self.invoke(m, at, nargs as usize, at)),
                                None => {
                                    let selector = lit!(lit as usize);
                                    self.send_dnu(at, nargs as usize, selector, at);
                                    continue 'outer;
                                }
                            }
                        }
                        Instr::Bin { op, dst, x, y } => binary!(op, dst, reg!(x), reg!(y)),
                        Instr::BinImm { op, dst, x, imm } => binary!(op, dst, reg!(x), Value::small(i64::from(imm))),
                        Instr::CmpJump { op, x, y, t, sense, offset } => {
                            compare_and_branch!(op, reg!(x), reg!(y), t, sense, offset)
                        }
                        Instr::CmpImmJump { op, x, imm, t, sense, offset } => {
                            compare_and_branch!(op, reg!(x), Value::small(i64::from(imm)), t, sense, offset)
                        }
                        Instr::AtPut { dst, r, i, v } => at_put!(dst, reg!(r), reg!(i), reg!(v)),
                        Instr::AtPutLit { dst, r, i, lit } => at_put!(dst, reg!(r), reg!(i), lit!(lit as usize)),
                        Instr::IdEq { dst, x, y } => set!(dst, Value::boolean(reg!(x) == reg!(y))),
                        Instr::IdNe { dst, x, y } => set!(dst, Value::boolean(reg!(x) != reg!(y))),
                        Instr::IsNil { dst, x, negate } => set!(dst, Value::boolean(reg!(x).is_nil() != negate)),
                        Instr::Jump { offset } => jump!(offset),
                        Instr::JumpIfTrue { r, offset } | Instr::JumpIfFalse { r, offset } => {
                            let v = reg!(r);
                            let want = matches!(instr, Instr::JumpIfTrue { .. });
                            if v == Value::boolean(want) {
                                jump!(offset);
                            } else if v != Value::boolean(!want) {
                                save_pc!();
                                let sel = self.known.sel_must_be_boolean;
                                let top = self.frame_top();
                                flow!(self.send_from_top(sel, v, &[], top));
                            }
                        }
                        Instr::JumpIfNil { r, offset } => {
                            if reg!(r).is_nil() {
                                pc = (pc as i64 + i64::from(offset)) as usize;
                            }
                        }
                        Instr::JumpIfNotNil { r, offset } => {
                            if !reg!(r).is_nil() {
                                pc = (pc as i64 + i64::from(offset)) as usize;
                            }
                        }
                        Instr::Return { r } | Instr::BlockReturn { r } => {
                            let v = reg!(r);
                            let frames = &mut self.scheduler.state.frames;
                            let depth = frames.len();
                            if depth >= 2 {
                                // Drop the frame in place (no copy out), then continue the caller.
                                let ret = frames.get(depth - 1).map_or(0, |f| f.ret as usize);
                                frames.truncate(depth - 1);
                                if let Some(slot) = self.scheduler.state.stack.get_mut(ret) {
                                    *slot = v;
                                }
                                enter!();
                            } else {
                                self.return_from_top(v);
                                continue 'outer;
                            }
                        }
                        Instr::NonLocalReturn { r } => {
                            let v = reg!(r);
                            save_pc!();
                            self.non_local_return(v);
                            continue 'outer;
                        }
                        Instr::Break { slot } => match self.break_hit(slot, pc - 1) {
                            // Nothing stops here: the covered instruction runs.
                            Some(covered) => {
                                instr = covered;
                                continue 'dispatch;
                            }
                            // Stopped, or a condition's frame was pushed.
                            None => continue 'outer,
                        },
                    }
                    break;
                }
            }
        }
    }

    /// A pointer to register 0 of the frame whose registers start at stack index `base`.
    #[inline(always)]
    pub(crate) fn regs_at(&mut self, base: usize) -> *mut Value {
        let stack = &mut self.scheduler.state.stack;
        debug_assert!(base <= stack.len());
        // SAFETY: `base` is a frame base, at most the stack's length (activation sizes the
        // stack to cover the frame), so the pointer stays within (or one past) the buffer.
        unsafe { stack.as_mut_ptr().add(base.min(stack.len())) }
    }
}
