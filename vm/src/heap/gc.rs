//! Mark-sweep collection of the object table.
//!
//! Marking uses an explicit work list (no recursion, so deep structures cannot overflow the
//! Rust stack). Sweeping frees unmarked entries and puts their indices on the free list.
//! Objects that are not loaded (stubs of persistent objects) are kept when reachable.

use std::time::{Duration, Instant};

use super::object::MARK;
use super::{Body, Heap};
use crate::bytecode::CompiledCode;
use crate::value::Value;

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
        let mut stack: Vec<Value> = Vec::with_capacity(4096);
        let push = |v: Value, stack: &mut Vec<Value>| {
            if v.is_object() {
                stack.push(v);
            }
        };
        for &r in roots.iter().chain(self.write_set.iter()) {
            push(r, &mut stack);
        }
        while let Some(v) = stack.pop() {
            let Some(obj) = self.objects.get_mut(v.index()) else { continue };
            if obj.flags & MARK != 0 || matches!(obj.body, Body::Free) {
                continue;
            }
            obj.flags |= MARK;
            push(obj.class, &mut stack);
            match &obj.body {
                Body::Slots(slots) => slots.iter().for_each(|&s| push(s, &mut stack)),
                Body::Method(code) => trace_code(code, &mut |s| push(s, &mut stack)),
                Body::Process(p) => {
                    p.slots.iter().for_each(|&s| push(s, &mut stack));
                    if let Some(state) = &p.state {
                        state.trace(&mut |s| push(s, &mut stack));
                    }
                }
                Body::Semaphore(s) => s.waiting.iter().for_each(|w| push(w.process, &mut stack)),
                Body::Dict(d) => d.entries().iter().for_each(|&(k, val)| {
                    push(k, &mut stack);
                    push(val, &mut stack);
                }),
                Body::Chunked(c) => c.loaded().for_each(|s| push(s, &mut stack)),
                Body::Free | Body::NotLoaded | Body::Bytes(_) | Body::Words(_) | Body::Float(_) | Body::Large(_) => {}
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
}
