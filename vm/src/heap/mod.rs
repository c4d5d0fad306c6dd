//! Object memory: the local object table, allocation, the write barrier, stubs of persistent
//! objects not loaded yet, and the mark-sweep collector for transient objects.
//!
//! **Invariant:** every `Value` reference held by a live object, a process or a VM root names a
//! table entry that is not `Body::Free`. The collector only runs at safepoints of the
//! interpreter (never inside a primitive), so Rust code may hold `Value`s in locals freely.

mod gc;
pub mod object;
pub mod process_list;
pub mod slots;

pub use gc::GcStats;
pub use object::{Body, Chunked, Dict, Kind, Object, ProcessBody, SemaphoreBody};
pub use process_list::ProcessList;
pub use slots::Slots;

use object::{DIRTY, NOT_LOADED, PERSISTENT};

use crate::value::Value;

/// The local object table.
pub struct Heap {
    objects: Vec<Object>,
    free: Vec<u32>,
    hash_seed: u32,
    allocated_since_gc: usize,
    gc_threshold: usize,
    /// What the objects took after the last collection, less what was evicted since.
    live_bytes: usize,
    /// The memory limit: see [`Heap::has_room`].
    limit: usize,
    write_set: Vec<Value>,
    /// The collector's work list, kept between collections (see `collect`).
    mark_stack: Vec<Value>,
    stats: GcStats,
}

/// Bytes allocated between collections at least, whatever the live size.
const MIN_GC_THRESHOLD: usize = 32 << 20;

/// Bytes allocated between collections at least, however near the memory limit.
const MIN_GC_THRESHOLD_NEAR_LIMIT: usize = 4 << 20;

impl Default for Heap {
    fn default() -> Self {
        Heap::new()
    }
}

impl Heap {
    /// An empty heap.
    pub fn new() -> Heap {
        Heap {
            objects: Vec::with_capacity(1 << 16),
            free: Vec::new(),
            hash_seed: 0x2545_F491,
            allocated_since_gc: 0,
            gc_threshold: MIN_GC_THRESHOLD,
            live_bytes: 0,
            limit: usize::MAX,
            write_set: Vec::new(),
            mark_stack: Vec::with_capacity(4096),
            stats: GcStats::default(),
        }
    }

    fn next_hash(&mut self) -> u32 {
        // xorshift32: cheap, well spread, never zero.
        let mut x = self.hash_seed;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.hash_seed = x;
        x & 0x3FFF_FFFF
    }

    /// Allocates an object; `named` is the number of named slots at the front of a slots body.
    pub fn alloc(&mut self, class: Value, named: usize, body: Body) -> Value {
        let hash = self.next_hash();
        let mut object = Object { class, hash, flags: 0, named: named as u16, body };
        self.allocated_since_gc += object.footprint();
        let index = self.free.pop().map_or(self.objects.len(), |i| i as usize);
        // A process's body knows its object: the scheduler's queues hold bodies.
        if let Body::Process(p) = &mut object.body {
            p.process = Value::object(index);
        }
        match self.objects.get_mut(index) {
            Some(slot) => *slot = object,
            None => self.objects.push(object),
        }
        Value::object(index)
    }

    /// Allocates an empty entry for a persistent object whose contents are on their way
    /// (see [`Heap::install`]).
    pub fn alloc_stub(&mut self) -> Value {
        let v = self.alloc(Value::NIL, 0, Body::NotLoaded);
        if let Some(obj) = self.get_mut(v) {
            obj.flags = NOT_LOADED | PERSISTENT;
        }
        v
    }

    /// Gives entry `v` the contents of its persistent object as committed (clean, loaded),
    /// answering the body it replaces.
    pub fn install(&mut self, v: Value, class: Value, hash: u32, named: u16, body: Body) -> Option<Body> {
        let obj = self.get_mut(v)?;
        obj.class = class;
        obj.hash = hash;
        obj.named = named;
        obj.flags = (obj.flags & !(NOT_LOADED | DIRTY)) | PERSISTENT;
        let footprint_before = obj.footprint();
        let mut old = std::mem::replace(&mut obj.body, body);
        // Processes waiting on a semaphore go on waiting on it as it is brought in afresh.
        if let (Body::Semaphore(was), Body::Semaphore(now)) = (&mut old, &mut obj.body) {
            std::mem::swap(&mut was.waiting, &mut now.waiting);
        }
        let grown = obj.footprint().saturating_sub(footprint_before);
        self.allocated_since_gc += grown;
        Some(old)
    }

    /// Sets the memory limit (`None`: none). [`Heap::has_room`] answers against it, and
    /// collections come often enough that the objects do not pass it unseen.
    pub fn set_limit(&mut self, bytes: Option<usize>) {
        self.limit = bytes.unwrap_or(usize::MAX);
        self.gc_threshold = self.threshold_for(self.live_bytes);
    }

    /// The memory limit (`usize::MAX`: none).
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// At most the memory the objects take now: what was live after the last collection
    /// and everything allocated since (nothing is freed between collections).
    pub fn in_use(&self) -> usize {
        self.live_bytes.saturating_add(self.allocated_since_gc)
    }

    /// What the objects took after the last collection (less what was evicted since).
    pub fn live_bytes(&self) -> usize {
        self.live_bytes
    }

    /// Whether `bytes` more fit under the memory limit, counting garbage not collected yet
    /// as in use (so a refusal may turn into room after a collection).
    pub fn has_room(&self, bytes: usize) -> bool {
        self.in_use().saturating_add(bytes) <= self.limit
    }

    /// How much to allocate before the next collection, with `live` bytes alive: as much as
    /// is alive (so collecting costs in proportion to allocating), but no further than the
    /// memory limit.
    fn threshold_for(&self, live: usize) -> usize {
        let room = self.limit.saturating_sub(live);
        MIN_GC_THRESHOLD.max(live).min(room).max(MIN_GC_THRESHOLD_NEAR_LIMIT)
    }

    /// Asks for a collection at the next safepoint.
    pub fn request_gc(&mut self) {
        self.allocated_since_gc = self.gc_threshold;
    }

    /// Whether enough has been allocated since the last collection to collect again.
    #[inline]
    pub fn wants_gc(&self) -> bool {
        self.allocated_since_gc >= self.gc_threshold
    }

    /// The entry of an object reference (`None` for immediates and free entries).
    #[inline(always)]
    pub fn get(&self, v: Value) -> Option<&Object> {
        if !v.is_object() {
            return None;
        }
        self.objects.get(v.index()).filter(|o| !matches!(o.body, Body::Free))
    }

    /// The entry of an object reference, mutably. Callers that store references must use
    /// [`Heap::note_store`] (or the slot helpers, which do) for the write barrier.
    #[inline(always)]
    pub fn get_mut(&mut self, v: Value) -> Option<&mut Object> {
        if !v.is_object() {
            return None;
        }
        self.objects.get_mut(v.index()).filter(|o| !matches!(o.body, Body::Free))
    }

    /// Whether `v` is an object whose contents are not in memory yet (a stub of a
    /// persistent object; the VM faults it in: see `persist`).
    #[inline(always)]
    pub fn is_stub(&self, v: Value) -> bool {
        self.get(v).is_some_and(|o| o.flags & NOT_LOADED != 0)
    }

    /// The write barrier: records `v` in the write set the first time a persistent object
    /// changes in a transaction.
    #[inline(always)]
    pub fn note_store(&mut self, v: Value) {
        if let Some(obj) = self.objects.get_mut(v.index())
            && obj.flags & (PERSISTENT | DIRTY) == PERSISTENT
        {
            obj.flags |= DIRTY;
            self.write_set.push(v);
        }
    }

    /// Marks an object persistent (done by the store when it commits or faults an object in).
    pub fn set_persistent(&mut self, v: Value) {
        if let Some(obj) = self.get_mut(v) {
            obj.flags |= PERSISTENT;
        }
    }

    /// Counts `bytes` that came into existing objects toward the next collection.
    pub fn note_allocation(&mut self, bytes: usize) {
        self.allocated_since_gc += bytes;
    }

    /// Memory the objects take (their entries and contents), in bytes.
    pub fn footprint(&self) -> usize {
        self.objects.iter().map(Object::footprint).sum()
    }

    /// Drops the contents of persistent object `v` if it is clean (unchanged in this
    /// transaction): it becomes a stub again (keeping its class), to be faulted back in when
    /// touched. Answers the bytes freed.
    pub fn evict(&mut self, v: Value) -> usize {
        let Some(obj) = self.get_mut(v) else { return 0 };
        if obj.flags & (PERSISTENT | DIRTY | NOT_LOADED) != PERSISTENT {
            return 0;
        }
        let before = obj.footprint();
        obj.body = Body::NotLoaded;
        obj.flags |= NOT_LOADED;
        let freed = before.saturating_sub(obj.footprint());
        self.live_bytes = self.live_bytes.saturating_sub(freed);
        freed
    }

    /// Drops the contents of persistent object `v`, changed or not (its reload failed: it
    /// must come in fresh), answering the body it had.
    pub fn evict_any(&mut self, v: Value) -> Option<Body> {
        let obj = self.get_mut(v)?;
        if obj.flags & PERSISTENT == 0 {
            return None;
        }
        obj.flags = (obj.flags | NOT_LOADED) & !DIRTY;
        Some(std::mem::replace(&mut obj.body, Body::NotLoaded))
    }

    /// Whether `v` changed in this transaction.
    pub fn is_dirty(&self, v: Value) -> bool {
        self.get(v).is_some_and(|o| o.flags & DIRTY != 0)
    }

    /// Forgets that `objects` changed (their contents are about to be reloaded).
    pub fn forget_writes(&mut self, objects: &[Value]) {
        for &v in objects {
            if let Some(obj) = self.get_mut(v) {
                obj.flags &= !DIRTY;
            }
        }
        self.write_set.retain(|v| !objects.contains(v));
    }

    /// Whether a persistent object changed since the write set was last taken.
    pub fn has_writes(&self) -> bool {
        !self.write_set.is_empty()
    }

    /// Takes the write set: the persistent objects changed since it was last taken.
    pub fn take_write_set(&mut self) -> Vec<Value> {
        for v in &self.write_set {
            if let Some(obj) = self.objects.get_mut(v.index()) {
                obj.flags &= !DIRTY;
            }
        }
        std::mem::take(&mut self.write_set)
    }

    /// Reads slot `i` (0-based, named slots first) of a pointer object.
    #[inline]
    pub fn slot(&self, obj: Value, i: usize) -> Option<Value> {
        self.get(obj)?.slots()?.get(i).copied()
    }

    /// Writes slot `i` of a pointer object, through the write barrier. Answers false if
    /// the object has no such slot.
    #[inline]
    pub fn set_slot(&mut self, obj: Value, i: usize, value: Value) -> bool {
        let Some(slot) = self.get_mut(obj).and_then(|o| o.slots_mut()).and_then(|s| s.get_mut(i)) else {
            return false;
        };
        *slot = value;
        self.note_store(obj);
        true
    }

    /// The bytes of a byte object.
    pub fn bytes(&self, obj: Value) -> Option<&[u8]> {
        self.get(obj)?.bytes()
    }

    /// The object table as raw parts, for native code (valid until the next allocation).
    pub(crate) fn table_raw(&self) -> (*const Object, usize) {
        (self.objects.as_ptr(), self.objects.len())
    }

    /// The class of an object reference (immediates are the VM's business).
    #[inline(always)]
    pub fn class_of_object(&self, v: Value) -> Option<Value> {
        self.get(v).map(|o| o.class)
    }

    /// Number of table entries in use.
    pub fn live_count(&self) -> usize {
        self.objects.len() - self.free.len()
    }

    /// Collector statistics.
    pub fn stats(&self) -> GcStats {
        self.stats
    }

    /// Every object reference in the table (for `allInstances`, class migration).
    pub fn all_objects(&self) -> impl Iterator<Item = (Value, &Object)> {
        self.objects
            .iter()
            .enumerate()
            .filter(|(_, o)| !matches!(o.body, Body::Free))
            .map(|(i, o)| (Value::object(i), o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_barrier_records_changed_persistent_objects_once() {
        let mut heap = Heap::new();
        let transient = heap.alloc(Value::NIL, 2, Body::Slots(vec![Value::NIL; 2].into()));
        let persistent = heap.alloc(Value::NIL, 2, Body::Slots(vec![Value::NIL; 2].into()));
        heap.set_persistent(persistent);
        assert!(heap.set_slot(transient, 0, Value::TRUE));
        assert!(heap.set_slot(persistent, 0, Value::TRUE));
        assert!(heap.set_slot(persistent, 1, Value::FALSE));
        assert_eq!(heap.take_write_set(), vec![persistent]);
        assert!(heap.take_write_set().is_empty());
        assert!(heap.set_slot(persistent, 1, Value::NIL));
        assert_eq!(heap.take_write_set(), vec![persistent], "a new transaction records it again");
    }

    #[test]
    fn collection_frees_unreachable_objects_and_reuses_their_entries() {
        let mut heap = Heap::new();
        let kept = heap.alloc(Value::NIL, 1, Body::Slots(vec![Value::NIL].into()));
        let child = heap.alloc(Value::NIL, 0, Body::Bytes(vec![1, 2].into()));
        heap.set_slot(kept, 0, child);
        let garbage = heap.alloc(Value::NIL, 0, Body::Float(1.0));
        assert_eq!(heap.collect(&[kept]), 1);
        assert!(heap.get(garbage).is_none());
        assert_eq!(heap.bytes(child), Some(&[1u8, 2][..]));
        let reused = heap.alloc(Value::NIL, 0, Body::Float(2.0));
        assert_eq!(reused, garbage, "the freed entry is reused");
    }
}
