//! The indexed contents of an object whose layout native code relies on: a fixed-length
//! buffer (`#[repr(C)]`: data pointer, then length) of Values (pointer slots) or of bytes
//! (a String's or ByteArray's), so that native code can index it.
//!
//! An object's size never changes in place (growing a collection allocates a new object, and
//! `become:` swaps whole bodies), so the buffer is a boxed slice, not a vector.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::value::Value;

/// A boxed slice with a stable layout: Values by default, bytes for byte objects.
#[repr(C)]
pub struct Slots<T = Value> {
    /// Start of the buffer (dangling when empty). Owned: made by `Box::into_raw`.
    ptr: NonNull<T>,
    /// Number of elements.
    len: usize,
}

impl Slots {
    /// Byte offset of the data pointer, for native code (the same for every element type).
    pub const PTR_OFFSET: usize = std::mem::offset_of!(Slots, ptr);
    /// Byte offset of the length, for native code.
    pub const LEN_OFFSET: usize = std::mem::offset_of!(Slots, len);
}

// Byte objects' buffers are laid out as pointer slots are: native code reads both alike.
const _: () = assert!(std::mem::offset_of!(Slots<u8>, ptr) == Slots::PTR_OFFSET);
const _: () = assert!(std::mem::offset_of!(Slots<u8>, len) == Slots::LEN_OFFSET);

impl<T> From<Vec<T>> for Slots<T> {
    fn from(values: Vec<T>) -> Slots<T> {
        let boxed: Box<[T]> = values.into_boxed_slice();
        let len = boxed.len();
        let raw: *mut [T] = Box::into_raw(boxed);
        // `Box::into_raw` never answers null.
        let ptr = NonNull::new(raw.cast::<T>()).unwrap_or(NonNull::dangling());
        Slots { ptr, len }
    }
}

impl<T> Deref for Slots<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` and `len` come from a boxed slice this value owns.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for Slots<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`; `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Slots<T> {
    fn drop(&mut self) {
        let raw = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len);
        // SAFETY: rebuilds the box `from` took apart, exactly once.
        drop(unsafe { Box::from_raw(raw) });
    }
}

impl<T: Clone> Clone for Slots<T> {
    fn clone(&self) -> Slots<T> {
        Slots::from(self.to_vec())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Slots<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_round_trip_and_layout() {
        let s = Slots::from(vec![Value::small(1), Value::NIL, Value::TRUE]);
        assert_eq!(&*s, &[Value::small(1), Value::NIL, Value::TRUE]);
        let words: [usize; 2] = [
            // SAFETY: reading the two words of a repr(C) struct of two word-sized fields.
            unsafe { *((&s as *const Slots).cast::<u8>().add(Slots::PTR_OFFSET).cast::<usize>()) },
            unsafe { *((&s as *const Slots).cast::<u8>().add(Slots::LEN_OFFSET).cast::<usize>()) },
        ];
        assert_eq!(words, [s.as_ptr() as usize, 3]);
        let empty: Slots = Slots::from(Vec::new());
        assert!(empty.is_empty());
        assert_eq!(s.clone().len(), 3);
    }

    #[test]
    fn body_tag_and_payload_offset() {
        use crate::heap::Body;
        let body = Body::Slots(Slots::from(vec![Value::small(7)]));
        assert_eq!(body.tag(), Body::SLOTS_TAG);
        assert_ne!(Body::Free.tag(), Body::SLOTS_TAG);
        assert_ne!(Body::Bytes(vec![1].into()).tag(), Body::SLOTS_TAG);
        assert_eq!(Body::Bytes(vec![1].into()).tag(), Body::BYTES_TAG);
        assert_eq!(Body::Semaphore(Box::default()).tag(), Body::SEMAPHORE_TAG);
        let Body::Slots(s) = &body else { unreachable!() };
        let base = (&body as *const Body).cast::<u8>();
        // SAFETY: reads the data pointer of the Slots payload at the documented offset.
        let ptr = unsafe { *base.add(Body::PAYLOAD_OFFSET + Slots::PTR_OFFSET).cast::<usize>() };
        assert_eq!(ptr, s.as_ptr() as usize);
    }
}
