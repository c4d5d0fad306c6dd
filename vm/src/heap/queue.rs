//! A first-in first-out queue of process references with a fixed layout (`#[repr(C)]`: buffer,
//! capacity, head, length), so that native code can push to and pop from the scheduler's
//! ready queues and semaphores' waiting lists. Its capacity is zero or a power of two; only
//! Rust grows it.

use crate::value::Value;

/// A ring buffer of Values.
#[repr(C)]
pub struct ProcessQueue {
    /// The ring (owned: made by `Box::into_raw`; dangling while `cap` is 0).
    buf: *mut Value,
    /// Slots in the ring: 0 or a power of two.
    cap: usize,
    /// Index of the first element.
    head: usize,
    /// Number of elements.
    len: usize,
}

impl ProcessQueue {
    /// Byte offsets of the fields, for native code.
    pub const BUF_OFFSET: usize = std::mem::offset_of!(ProcessQueue, buf);
    /// See [`ProcessQueue::BUF_OFFSET`].
    pub const CAP_OFFSET: usize = std::mem::offset_of!(ProcessQueue, cap);
    /// See [`ProcessQueue::BUF_OFFSET`].
    pub const HEAD_OFFSET: usize = std::mem::offset_of!(ProcessQueue, head);
    /// See [`ProcessQueue::BUF_OFFSET`].
    pub const LEN_OFFSET: usize = std::mem::offset_of!(ProcessQueue, len);

    /// An empty queue (allocates nothing).
    pub const fn new() -> ProcessQueue {
        ProcessQueue { buf: std::ptr::NonNull::dangling().as_ptr(), cap: 0, head: 0, len: 0 }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, i: usize) -> *mut Value {
        // SAFETY (callers): `cap` is a power of two here, so the index is within the ring.
        unsafe { self.buf.add((self.head + i) & (self.cap - 1)) }
    }

    /// Appends `v`.
    pub fn push_back(&mut self, v: Value) {
        if self.len == self.cap {
            self.grow();
        }
        // SAFETY: `len < cap` after growing; the slot is inside the ring.
        unsafe { *self.slot(self.len) = v };
        self.len += 1;
    }

    /// Puts `v` first.
    pub fn push_front(&mut self, v: Value) {
        if self.len == self.cap {
            self.grow();
        }
        self.head = (self.head + self.cap - 1) & (self.cap - 1);
        // SAFETY: the head is inside the ring.
        unsafe { *self.slot(0) = v };
        self.len += 1;
    }

    /// Removes and answers the first element.
    pub fn pop_front(&mut self) -> Option<Value> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: the queue is not empty, so `cap` is a power of two and the head is in it.
        let v = unsafe { *self.slot(0) };
        self.head = (self.head + 1) & (self.cap - 1);
        self.len -= 1;
        Some(v)
    }

    /// The first element.
    pub fn front(&self) -> Option<Value> {
        // SAFETY: as for `pop_front`.
        (self.len > 0).then(|| unsafe { *self.slot(0) })
    }

    /// The elements, first to last.
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        // SAFETY: every `i < len` is a filled slot of the ring.
        (0..self.len).map(|i| unsafe { *self.slot(i) })
    }

    /// Keeps only the elements for which `keep` answers true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Value) -> bool) {
        let kept: Vec<Value> = self.iter().filter(|&v| keep(v)).collect();
        self.head = 0;
        self.len = 0;
        kept.into_iter().for_each(|v| self.push_back(v));
    }

    fn grow(&mut self) {
        let cap = (self.cap * 2).max(4);
        let mut ring = vec![Value::NIL; cap];
        for (slot, v) in ring.iter_mut().zip(self.iter()) {
            *slot = v;
        }
        let len = self.len;
        self.free();
        self.buf = Box::into_raw(ring.into_boxed_slice()).cast::<Value>();
        self.cap = cap;
        self.head = 0;
        self.len = len;
    }

    fn free(&mut self) {
        if self.cap > 0 {
            let ring = std::ptr::slice_from_raw_parts_mut(self.buf, self.cap);
            // SAFETY: rebuilds the box `grow` took apart, once (the capacity is then reset).
            drop(unsafe { Box::from_raw(ring) });
            self.cap = 0;
        }
    }
}

impl Default for ProcessQueue {
    fn default() -> Self {
        ProcessQueue::new()
    }
}

impl Drop for ProcessQueue {
    fn drop(&mut self) {
        self.free();
    }
}

impl std::fmt::Debug for ProcessQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_is_fifo_through_growth_and_wraparound() {
        let mut q = ProcessQueue::new();
        assert_eq!(q.pop_front(), None);
        for i in 0..3 {
            q.push_back(Value::small(i));
        }
        assert_eq!(q.pop_front(), Some(Value::small(0)));
        for i in 3..20 {
            q.push_back(Value::small(i));
        }
        q.push_front(Value::small(-1));
        let all: Vec<Value> = q.iter().collect();
        let expected: Vec<Value> = std::iter::once(-1).chain(1..20).map(Value::small).collect();
        assert_eq!(all, expected);
        q.retain(|v| v.as_int().is_some_and(|n| n % 2 == 0));
        assert_eq!(q.front(), Some(Value::small(2)));
        assert_eq!(q.len(), 9);
        while q.pop_front().is_some() {}
        assert!(q.is_empty());
    }
}
