//! Mark-sweep collection of the object table.
//!
//! The indexed slots of a weak object (a WeakArray's) are not followed: once marking is done,
//! each that refers to an unmarked object is set to nil before the sweep.
//!
//! Marking uses an explicit work list (no recursion, so deep structures cannot overflow the
//! Rust stack). Sweeping frees unmarked entries and puts their indices on the free list.
//! Objects that are not loaded (stubs of persistent objects) are kept when reachable.

use std::time::{Duration, Instant};

use super::object::{Kind, MARK, decode_format};
use super::{Body, Heap};
use crate::bytecode::CompiledCode;
use crate::value::Value;
use crate::vm::class_slots;

/// What the collector has done so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct GcStats {
    /// Collections run.
    pub collections: u64,
    /// Objects freed in all.
    pub freed: u64,
    /// Objects alive after the last collection.
    pub live_after_last: usize,
    /// Total time spent collecting.
    pub total_time: Duration,
}

fn trace_code(code: &CompiledCode, push: &mut impl FnMut(Value)) {
    code.literals.iter().chain(code.special_selectors.iter()).for_each(|&v| push(v));
    push(code.selector);
    push(code.method_class.get());
    push(code.protocol.get());
    push(code.pragmas);
    for block in code.blocks.iter() {
        trace_code(block, push);
    }
}

impl Heap {
    /// Collects every object not reachable from `roots`. Answers the number freed.
    pub fn collect(&mut self, roots: &[Value]) -> usize {
        let start = Instant::now();
        // The work list is kept from one collection to the next: freeing a large block right
        // after the sweep has freed many small ones makes the allocator consolidate them all.
        let mut stack = std::mem::take(&mut self.mark_stack);
        stack.clear();
        stack.extend(roots.iter().chain(self.write_set.iter()).filter(|v| v.is_object()));
        let mut weak = Vec::new();
        self.mark(&mut stack, &mut weak);
        self.mark_stack = stack;
        // What a weak slot refers to stays if something else keeps it. The repository's
        // objects are always kept (the VM's roots hold every one it knows), so a weak slot
        // never loses one.
        for &(w, named) in &weak {
            let Some(obj) = self.objects.get(w.index()) else { continue };
            let Body::Slots(slots) = &obj.body else { continue };
            let dead: Vec<usize> = (named..slots.len())
                .filter(|&i| {
                    let s = slots[i];
                    s.is_object() && self.objects.get(s.index()).is_none_or(|o| o.flags & MARK == 0)
                })
                .collect();
            if let Some(Body::Slots(slots)) = self.objects.get_mut(w.index()).map(|o| &mut o.body) {
                for i in dead {
                    slots[i] = Value::NIL;
                }
            }
        }
        let mut freed = 0;
        let mut live_bytes = 0;
        for (i, obj) in self.objects.iter_mut().enumerate() {
            if matches!(obj.body, Body::Free) {
                continue;
            }
            if obj.flags & MARK != 0 {
                obj.flags &= !MARK;
                live_bytes += obj.footprint();
            } else {
                obj.body = Body::Free;
                obj.class = Value::NIL;
                obj.flags = 0;
                self.free.push(i as u32);
                freed += 1;
            }
        }
        self.allocated_since_gc = 0;
        self.live_bytes = live_bytes;
        self.gc_threshold = self.threshold_for(live_bytes);
        self.stats.collections += 1;
        self.stats.freed += freed as u64;
        self.stats.live_after_last = self.live_count();
        self.stats.total_time += start.elapsed();
        freed
    }

    /// Marks everything reachable from `stack`; the weak objects met go in `weak` with their
    /// named slot counts, their indexed slots not followed.
    fn mark(&mut self, stack: &mut Vec<Value>, weak: &mut Vec<(Value, usize)>) {
        let push = |v: Value, stack: &mut Vec<Value>| {
            if v.is_object() {
                stack.push(v);
            }
        };
        while let Some(v) = stack.pop() {
            let Some(obj) = self.objects.get(v.index()) else { continue };
            if obj.flags & MARK != 0 || matches!(obj.body, Body::Free) {
                continue;
            }
            let weak_named = match obj.body {
                Body::Slots(_) => self.weak_layout(obj.class),
                _ => None,
            };
            let Some(obj) = self.objects.get_mut(v.index()) else { continue };
            obj.flags |= MARK;
            push(obj.class, stack);
            match &obj.body {
                Body::Slots(slots) => {
                    let strong = weak_named.unwrap_or(slots.len());
                    slots.iter().take(strong).for_each(|&s| push(s, stack));
                    if let Some(named) = weak_named {
                        weak.push((v, named));
                    }
                }
                Body::Method(code) => trace_code(code, &mut |s| push(s, stack)),
                Body::Process(p) => {
                    p.slots.iter().for_each(|&s| push(s, stack));
                    if let Some(state) = &p.state {
                        state.trace(&mut |s| push(s, stack));
                    }
                }
                Body::Semaphore(s) => s.waiting.processes().for_each(|p| push(p, stack)),
                Body::Dict(d) => d.entries().iter().for_each(|&(k, val)| {
                    push(k, stack);
                    push(val, stack);
                }),
                Body::Chunked(c) => c.loaded().for_each(|s| push(s, stack)),
                Body::Free | Body::NotLoaded | Body::Bytes(_) | Body::Words(_) | Body::Float(_) | Body::Large(_) => {}
            }
        }
    }

    /// The named slot count of `class`'s instances when their indexed slots are weak.
    fn weak_layout(&self, class: Value) -> Option<usize> {
        let format = self.slot(class, class_slots::FORMAT)?.as_int()?;
        match decode_format(format)? {
            (Kind::Weak, named) => Some(named),
            _ => None,
        }
    }
}
