//! The memory limit of a VM (`VmConfig::memory_limit`): room for a large allocation, made by
//! collecting when only garbage stands in the way, and the `OutOfMemory` error a process
//! gets when its objects grow past the limit between collections.
//!
//! Large allocations (`basicNew:` of many slots or bytes) ask [`Vm::reserve`] first; small
//! ones go ahead, and the collector, which runs before the objects can pass the limit by
//! more than a few megabytes, finds the rest (see `Heap::set_limit`).
//!
//! [`keep_freed_pages`] is the allocator setting the binaries make at start.

use crate::primitives::Prim;
use crate::vm::Vm;

/// Allocations of this many bytes or more ask for room under the memory limit first
/// (smaller ones are seen by the collector).
pub(crate) const LARGE_ALLOCATION: usize = 1 << 20;

/// Tells the allocator the `onyx` and `onyx-ide` binaries use (mimalloc), through the
/// environment, to keep pages that fell empty for a second instead of giving them back to
/// the system after 10 ms: a collection frees many objects at once and the program then
/// allocates as many again, and pages given back must be faulted in and zeroed again (that
/// was a seventh of a JSON parser's time). A setting of the user's own is kept; processes
/// started from this one inherit it.
///
/// # Safety
/// Changes the environment: call it before any other thread exists.
pub unsafe fn keep_freed_pages() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: as the caller promises, no other thread reads or writes the environment.
        unsafe { std::env::set_var("MIMALLOC_PURGE_DELAY", "1000") };
    }
}

impl Vm {
    /// Whether `bytes` more fit under the memory limit, collecting garbage first if only the
    /// garbage is in the way. On a refusal the primitive fails, and its Smalltalk code signals
    /// `OutOfMemory`.
    ///
    /// This may collect, so a primitive calls it before it holds any object it has made
    /// itself: its receiver and arguments are on the process's stack, which the collector
    /// sees.
    pub(crate) fn reserve(&mut self, bytes: usize) -> Result<(), Prim> {
        if self.heap.has_room(bytes) {
            return Ok(());
        }
        if bytes > self.heap.limit() {
            return Err(Prim::Fail);
        }
        self.collect_garbage();
        if self.heap.has_room(bytes) { Ok(()) } else { Err(Prim::Fail) }
    }

    /// After a collection at a safepoint: if the objects still take more than the limit,
    /// the running process gets an `OutOfMemory` error (its handler may use an eighth more);
    /// if they pass that too while it is handled, the process stops with a report.
    pub(crate) fn check_memory(&mut self) {
        let Some(limit) = self.config.memory_limit else { return };
        let live = self.heap.live_bytes();
        if live <= limit {
            if self.memory_signalled {
                self.memory_signalled = false;
                self.heap.set_limit(Some(limit));
            }
            return;
        }
        if self.scheduler.state.frames.is_empty() {
            return;
        }
        if self.memory_signalled {
            if live > self.heap.limit() {
                self.memory_signalled = false;
                self.heap.set_limit(Some(limit));
                self.suspend_active_with_error(
                    "OutOfMemory",
                    format!("the gem's memory limit of {} MB was passed while handling OutOfMemory", limit >> 20),
                );
            }
            return;
        }
        self.memory_signalled = true;
        self.heap.set_limit(Some(limit.saturating_add(limit / 8)));
        let sel = self.known.sel_out_of_memory;
        let process = self.scheduler.active;
        let top = self.frame_top();
        let _ = self.send_from_top(sel, process, &[], top);
    }
}
