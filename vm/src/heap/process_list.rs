//! The queues processes wait in: a semaphore's waiters and the scheduler's ready queue of each
//! priority. Each is a FIFO list linked through the process bodies themselves (as Squeak's
//! linked lists of processes are), so that a signal or a switch moves a process from one queue
//! to another by rewriting two pointers, without allocating and without going through the
//! object table.
//!
//! **Invariant:** a process body is in at most one list (its `queued` flag says whether it is
//! in one), and a body in a list stays alive and in place: the list's owner (a semaphore, whose
//! waiters the collector traces, or the scheduler, whose ready processes are roots) keeps the
//! process reachable, and a body is boxed, so the table growing does not move it. Nothing
//! follows a body's `next` except from the head of the list it is in.

use std::ptr::null_mut;

use super::ProcessBody;
use crate::value::Value;

/// A FIFO list of process bodies (`repr(C)`: native code links into it).
#[derive(Debug)]
#[repr(C)]
pub struct ProcessList {
    first: *mut ProcessBody,
    last: *mut ProcessBody,
}

impl Default for ProcessList {
    fn default() -> Self {
        ProcessList { first: null_mut(), last: null_mut() }
    }
}

impl ProcessList {
    /// Byte offset of the first body, for native code.
    pub const FIRST_OFFSET: usize = std::mem::offset_of!(ProcessList, first);
    /// Byte offset of the last body, for native code.
    pub const LAST_OFFSET: usize = std::mem::offset_of!(ProcessList, last);

    /// Whether no process is in the list.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.first.is_null()
    }

    /// Appends `body`; answers false (and changes nothing) if it is in a list already.
    ///
    /// # Safety
    /// `body` is a live process body that stays alive and in place while it is in the list
    /// (see the module's invariant).
    #[inline(always)]
    pub unsafe fn push_back(&mut self, body: *mut ProcessBody) -> bool {
        // SAFETY: the caller promises `body` is live; the last body is in this list, so live.
        unsafe {
            if (*body).queued {
                return false;
            }
            (*body).queued = true;
            (*body).next = null_mut();
            match self.last.as_mut() {
                Some(last) => last.next = body,
                None => self.first = body,
            }
        }
        self.last = body;
        true
    }

    /// Puts `body` first; answers false (and changes nothing) if it is in a list already.
    ///
    /// # Safety
    /// As for [`ProcessList::push_back`].
    pub unsafe fn push_front(&mut self, body: *mut ProcessBody) -> bool {
        // SAFETY: as the caller promises.
        unsafe {
            if (*body).queued {
                return false;
            }
            (*body).queued = true;
            (*body).next = self.first;
        }
        if self.first.is_null() {
            self.last = body;
        }
        self.first = body;
        true
    }

    /// Removes and answers the first body.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<*mut ProcessBody> {
        let first = self.first;
        // SAFETY: a body in the list is live (the module's invariant).
        let body = unsafe { first.as_mut()? };
        self.first = body.next;
        if self.first.is_null() {
            self.last = null_mut();
        }
        body.next = null_mut();
        body.queued = false;
        Some(first)
    }

    /// Removes `process` if it is in the list; answers whether it was.
    pub fn remove(&mut self, process: Value) -> bool {
        let mut prev: *mut ProcessBody = null_mut();
        let mut at = self.first;
        // SAFETY: every body reached from the head is in the list, so live.
        while let Some(body) = unsafe { at.as_mut() } {
            if body.process == process {
                match unsafe { prev.as_mut() } {
                    Some(p) => p.next = body.next,
                    None => self.first = body.next,
                }
                if self.last == at {
                    self.last = prev;
                }
                body.next = null_mut();
                body.queued = false;
                return true;
            }
            prev = at;
            at = body.next;
        }
        false
    }

    /// The bodies in the list, first first.
    pub fn iter(&self) -> impl Iterator<Item = &ProcessBody> + '_ {
        // SAFETY: every body reached from the head is in the list, so live, and the list is
        // borrowed (not changed) while the iterator lives.
        std::iter::successors(unsafe { self.first.as_ref() }, |b| unsafe { b.next.as_ref() })
    }

    /// The processes in the list, first first.
    pub fn processes(&self) -> impl Iterator<Item = Value> + '_ {
        self.iter().map(|b| b.process)
    }
}
