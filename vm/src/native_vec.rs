//! A growable vector whose layout native code relies on (`#[repr(C)]`: data pointer, length,
//! capacity): a process's frames and value stack. Native code switches processes by reading
//! the next process's vectors and writing the length of the one it leaves, which a `Vec`'s
//! unspecified layout would not allow.
//!
//! It is a `Vec` in all but layout: it dereferences to a slice, and anything else a `Vec`
//! offers is reached through [`NativeVec::with_vec`].

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// A vector with a stable layout.
#[repr(C)]
pub struct NativeVec<T> {
    /// The buffer (dangling while the capacity is 0). Owned: from a `Vec` of `T`.
    ptr: NonNull<T>,
    /// Elements in use.
    len: usize,
    /// Elements the buffer holds.
    cap: usize,
}

impl NativeVec<()> {
    /// Byte offset of the data pointer, for native code (the same for every element type).
    pub const PTR_OFFSET: usize = std::mem::offset_of!(NativeVec<()>, ptr);
    /// Byte offset of the length, for native code.
    pub const LEN_OFFSET: usize = std::mem::offset_of!(NativeVec<()>, len);
    /// Byte offset of the capacity, for native code.
    pub const CAP_OFFSET: usize = std::mem::offset_of!(NativeVec<()>, cap);
}

impl<T> NativeVec<T> {
    /// An empty vector that can hold `cap` elements without growing.
    pub fn with_capacity(cap: usize) -> NativeVec<T> {
        Vec::with_capacity(cap).into()
    }

    /// An empty vector with no buffer.
    pub fn new() -> NativeVec<T> {
        Vec::new().into()
    }

    /// Runs `f` on the elements as a `Vec` (for whatever changes the buffer: push, reserve,
    /// resize, truncate, ...).
    pub fn with_vec<R>(&mut self, f: impl FnOnce(&mut Vec<T>) -> R) -> R {
        // SAFETY: the three parts describe a buffer a `Vec<T>` made and gave up; it is taken
        // back for the call and given up again after, so exactly one owner exists at a time
        // (a panic in `f` would leave the vector empty, not freed twice: it is taken out first).
        let mut v = unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), self.len, self.cap) };
        // The buffer is `v`'s now: the parts are forgotten, not dropped.
        std::mem::forget(std::mem::take(self));
        let r = f(&mut v);
        *self = v.into();
        r
    }

    /// Elements the buffer holds.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The buffer.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Sets the length.
    ///
    /// # Safety
    /// As for `Vec::set_len`: at most the capacity, the elements below it initialised.
    pub unsafe fn set_len(&mut self, len: usize) {
        self.len = len;
    }

    /// Appends `value`.
    pub fn push(&mut self, value: T) {
        if self.len < self.cap {
            // SAFETY: below the capacity, so within the buffer, and past the initialised part.
            unsafe { self.ptr.as_ptr().add(self.len).write(value) };
            self.len += 1;
        } else {
            self.with_vec(|v| v.push(value));
        }
    }

    /// Removes and answers the last element.
    pub fn pop(&mut self) -> Option<T> {
        let len = self.len.checked_sub(1)?;
        self.len = len;
        // SAFETY: the element at the old last index was initialised and is no longer in use.
        Some(unsafe { self.ptr.as_ptr().add(len).read() })
    }

    /// Shortens to `len` elements (dropping the rest).
    pub fn truncate(&mut self, len: usize) {
        self.with_vec(|v| v.truncate(len));
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Makes room for `additional` more elements.
    pub fn reserve(&mut self, additional: usize) {
        if self.cap - self.len < additional {
            self.with_vec(|v| v.reserve(additional));
        }
    }

    /// Removes and answers the element at `index` (which must be in range).
    pub fn remove(&mut self, index: usize) -> T {
        self.with_vec(|v| v.remove(index))
    }
}

impl<T: Clone> NativeVec<T> {
    /// Resizes to `len`, filling with `value`.
    pub fn resize(&mut self, len: usize, value: T) {
        self.with_vec(|v| v.resize(len, value));
    }
}

impl<T> From<Vec<T>> for NativeVec<T> {
    fn from(v: Vec<T>) -> NativeVec<T> {
        let mut v = ManuallyDrop::new(v);
        let (len, cap) = (v.len(), v.capacity());
        // A `Vec`'s pointer is never null (dangling when nothing is allocated).
        let ptr = NonNull::new(v.as_mut_ptr()).unwrap_or(NonNull::dangling());
        NativeVec { ptr, len, cap }
    }
}

impl<T> Default for NativeVec<T> {
    fn default() -> Self {
        NativeVec::new()
    }
}

impl<T> Drop for NativeVec<T> {
    fn drop(&mut self) {
        // SAFETY: as in `with_vec`; the vector is not used after.
        drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), self.len, self.cap) });
    }
}

impl<T> Deref for NativeVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` elements of the buffer are initialised.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for NativeVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`; `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Clone> Clone for NativeVec<T> {
    fn clone(&self) -> Self {
        let mut v = Vec::with_capacity(self.cap);
        v.extend_from_slice(self);
        v.into()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for NativeVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T> IntoIterator for &'a NativeVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_vec() {
        let mut v: NativeVec<String> = NativeVec::with_capacity(1);
        v.push("a".into());
        v.push("b".into());
        v.push("c".into());
        assert_eq!(&*v, ["a", "b", "c"]);
        assert_eq!(v.pop().as_deref(), Some("c"));
        v.resize(4, "z".into());
        assert_eq!(&*v, ["a", "b", "z", "z"]);
        assert_eq!(v.remove(0), "a");
        v.truncate(1);
        let w = v.clone();
        v.clear();
        assert!(v.is_empty() && v.capacity() >= 4);
        assert_eq!(&*w, ["b"]);
        let mut e: NativeVec<u8> = NativeVec::new();
        assert_eq!(e.pop(), None);
        e.reserve(3);
        assert!(e.capacity() >= 3);
    }
}
