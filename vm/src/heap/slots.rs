//! The pointer slots of an object: a fixed-length buffer of Values whose layout is fixed
//! (`#[repr(C)]`: data pointer, then length), so that native code can index it.
//!
//! An object's slot count never changes in place (growing a collection allocates a new
//! object, and `become:` swaps whole bodies), so the buffer is a boxed slice, not a vector.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::value::Value;

/// A boxed slice of Values with a stable layout.
#[repr(C)]
pub struct Slots {
    /// Start of the buffer (dangling when empty). Owned: made by `Box::into_raw`.
    ptr: NonNull<Value>,
    /// Number of Values.
    len: usize,
}

impl Slots {
    /// Byte offset of the data pointer, for native code.
    pub const PTR_OFFSET: usize = std::mem::offset_of!(Slots, ptr);
    /// Byte offset of the length, for native code.
    pub const LEN_OFFSET: usize = std::mem::offset_of!(Slots, len);
}

impl From<Vec<Value>> for Slots {
    fn from(values: Vec<Value>) -> Slots {
        let boxed: Box<[Value]> = values.into_boxed_slice();
        let len = boxed.len();
        let raw: *mut [Value] = Box::into_raw(boxed);
        // `Box::into_raw` never answers null.
        let ptr = NonNull::new(raw.cast::<Value>()).unwrap_or(NonNull::dangling());
        Slots { ptr, len }
    }
}

impl Deref for Slots {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        // SAFETY: `ptr` and `len` come from a boxed slice this value owns.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut [Value] {
        // SAFETY: as for `deref`; `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        let raw = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len);
        // SAFETY: rebuilds the box `from` took apart, exactly once.
        drop(unsafe { Box::from_raw(raw) });
    }
}

impl Clone for Slots {
    fn clone(&self) -> Slots {
        Slots::from(self.to_vec())
    }
}

impl std::fmt::Debug for Slots {
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
        let empty = Slots::from(Vec::new());
        assert!(empty.is_empty());
        assert_eq!(s.clone().len(), 3);
    }

    #[test]
    fn body_tag_and_payload_offset() {
        use crate::heap::Body;
        let body = Body::Slots(Slots::from(vec![Value::small(7)]));
        assert_eq!(body.tag(), Body::SLOTS_TAG);
        assert_ne!(Body::Free.tag(), Body::SLOTS_TAG);
        assert_ne!(Body::Bytes(vec![1]).tag(), Body::SLOTS_TAG);
        let Body::Slots(s) = &body else { unreachable!() };
        let base = (&body as *const Body).cast::<u8>();
        // SAFETY: reads the data pointer of the Slots payload at the documented offset.
        let ptr = unsafe { *base.add(Body::PAYLOAD_OFFSET + Slots::PTR_OFFSET).cast::<usize>() };
        assert_eq!(ptr, s.as_ptr() as usize);
    }
}
