//! `Value`: one tagged 64-bit word, the only way Smalltalk values travel through the VM.
//!
//! ```text
//!  63                                   3 2 1 0
//! +--------------------------------------+-----+
//! | object-table index                   | 000 |  object reference (OOP)
//! | signed 61-bit integer                | 001 |  SmallInteger
//! | Unicode code point                   | 010 |  Character
//! | 0 nil, 1 true, 2 false               | 011 |  special constants
//! | float (see `onyx_record::word`)      | 101 |  SmallFloat64
//! +--------------------------------------+-----+
//! ```
//!
//! An object reference is an index into the local object table ([`crate::heap::Heap`]);
//! the table entry says whether the object is loaded, persistent or dirty. The tags are
//! `onyx_record::word`'s, which the stone's records share (an immediate means the same in a
//! record as here).

use std::fmt;

use onyx_record::word::{self, TAG_BITS, TAG_CHAR, TAG_FLOAT, TAG_INT, TAG_MASK, TAG_OBJECT};

/// A Smalltalk value: an immediate or a reference through the object table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Value(u64);

impl Value {
    /// `nil`
    pub const NIL: Value = Value(word::NIL);
    /// `true`
    pub const TRUE: Value = Value(word::TRUE);
    /// `false`
    pub const FALSE: Value = Value(word::FALSE);

    /// The largest SmallInteger, `2 ** 60 - 1`.
    pub const MAX_INT: i64 = (1 << 60) - 1;
    /// The smallest SmallInteger, `-(2 ** 60)`.
    pub const MIN_INT: i64 = -(1 << 60);

    /// A SmallInteger, if `n` fits in 61 bits.
    #[inline(always)]
    pub fn int(n: i64) -> Option<Value> {
        if (Self::MIN_INT..=Self::MAX_INT).contains(&n) {
            Some(Value(((n as u64) << TAG_BITS) | TAG_INT))
        } else {
            None
        }
    }

    /// A SmallInteger from a value the caller knows is in range (a small constant, a size).
    /// Out-of-range values wrap; use [`Value::int`] when the range is not known.
    #[inline(always)]
    pub fn small(n: i64) -> Value {
        debug_assert!((Self::MIN_INT..=Self::MAX_INT).contains(&n));
        Value(((n as u64) << TAG_BITS) | TAG_INT)
    }

    /// A Character.
    #[inline]
    pub fn char(c: u32) -> Value {
        Value(((c as u64) << TAG_BITS) | TAG_CHAR)
    }

    /// `true` or `false`.
    #[inline(always)]
    pub fn boolean(b: bool) -> Value {
        if b { Value::TRUE } else { Value::FALSE }
    }

    /// A reference to the object at `index` in the object table.
    #[inline(always)]
    pub fn object(index: usize) -> Value {
        Value((index as u64) << TAG_BITS)
    }

    /// Is this a SmallInteger?
    #[inline(always)]
    pub fn is_int(self) -> bool {
        self.0 & TAG_MASK == TAG_INT
    }

    /// The integer of a SmallInteger.
    #[inline(always)]
    pub fn as_int(self) -> Option<i64> {
        if self.is_int() { Some((self.0 as i64) >> TAG_BITS) } else { None }
    }

    /// The integer of a value known to be a SmallInteger (checked by the caller).
    #[inline(always)]
    pub fn int_unchecked(self) -> i64 {
        (self.0 as i64) >> TAG_BITS
    }

    /// Is this a Character?
    #[inline]
    pub fn is_char(self) -> bool {
        self.0 & TAG_MASK == TAG_CHAR
    }

    /// The code point of a Character.
    #[inline]
    pub fn as_char(self) -> Option<u32> {
        if self.is_char() { Some((self.0 >> TAG_BITS) as u32) } else { None }
    }

    /// The immediate float `f`, if its exponent fits (see `onyx_record::word`); other
    /// doubles are boxed.
    #[inline(always)]
    pub fn float(f: f64) -> Option<Value> {
        word::float_word(f).map(Value)
    }

    /// Is this an immediate float?
    #[inline(always)]
    pub fn is_float(self) -> bool {
        self.0 & TAG_MASK == TAG_FLOAT
    }

    /// The double of an immediate float.
    #[inline(always)]
    pub fn as_float(self) -> Option<f64> {
        if self.is_float() { Some(word::word_float(self.0)) } else { None }
    }

    /// Is this a reference through the object table?
    #[inline(always)]
    pub fn is_object(self) -> bool {
        self.0 & TAG_MASK == TAG_OBJECT
    }

    /// The object-table index of a reference.
    #[inline(always)]
    pub fn as_object(self) -> Option<usize> {
        if self.is_object() { Some((self.0 >> TAG_BITS) as usize) } else { None }
    }

    /// The object-table index; only meaningful when [`Value::is_object`] holds.
    #[inline(always)]
    pub fn index(self) -> usize {
        (self.0 >> TAG_BITS) as usize
    }

    /// Is this `nil`?
    #[inline(always)]
    pub fn is_nil(self) -> bool {
        self == Value::NIL
    }

    /// The raw bits (for hashing and persistence).
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Rebuilds a value from [`Value::bits`].
    #[inline]
    pub fn from_bits(bits: u64) -> Value {
        Value(bits)
    }

    /// The immediate (SmallInteger, Character, nil, true, false or float) with these bits, if
    /// they are one; object references and anything malformed answer `None`.
    pub fn immediate_from_bits(bits: u64) -> Option<Value> {
        word::is_immediate(bits).then_some(Value(bits))
    }
}

impl Default for Value {
    fn default() -> Self {
        Value::NIL
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.as_int() {
            write!(f, "{n}")
        } else if let Some(c) = self.as_char() {
            write!(f, "${}", char::from_u32(c).unwrap_or('?'))
        } else if let Some(x) = self.as_float() {
            write!(f, "{x:?}")
        } else if *self == Value::NIL {
            f.write_str("nil")
        } else if *self == Value::TRUE {
            f.write_str("true")
        } else if *self == Value::FALSE {
            f.write_str("false")
        } else {
            write!(f, "@{}", self.index())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_integer_range_is_61_bits() {
        assert_eq!(Value::MAX_INT, 1_152_921_504_606_846_975);
        assert_eq!(Value::int(Value::MAX_INT).and_then(Value::as_int), Some(Value::MAX_INT));
        assert_eq!(Value::int(Value::MIN_INT).and_then(Value::as_int), Some(Value::MIN_INT));
        assert!(Value::int(Value::MAX_INT + 1).is_none());
        assert!(Value::int(Value::MIN_INT - 1).is_none());
        assert_eq!(Value::small(-5).as_int(), Some(-5));
    }

    #[test]
    fn tags_do_not_overlap() {
        let zero = Value::float(0.0).unwrap_or_default();
        let vals = [Value::NIL, Value::TRUE, Value::FALSE, Value::small(0), Value::char(0), Value::object(0), zero];
        for (i, a) in vals.iter().enumerate() {
            for b in &vals[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(Value::object(7).is_object());
        assert_eq!(Value::object(7).as_object(), Some(7));
        assert_eq!(Value::char(0x1F600).as_char(), Some(0x1F600));
        assert_eq!(std::mem::size_of::<Value>(), 8);
        assert_eq!(Value::float(-2.5).and_then(Value::as_float), Some(-2.5));
        assert!(Value::float(f64::NAN).is_none());
    }
}
