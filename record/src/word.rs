//! The tags of a 64-bit word, shared by the VM's values and the stone's records: the low
//! three bits say what the word is.
//!
//! ```text
//!  63                                   3 2 1 0
//! +--------------------------------------+-----+
//! | object (VM: table index; record: OOP) | 000 |
//! | signed 61-bit integer                 | 001 |  SmallInteger
//! | Unicode code point                    | 010 |  Character
//! | 0 nil, 1 true, 2 false                | 011 |  special constants
//! | symbol id in the stone's table        | 100 |  records only: a Symbol
//! | float: sign, 8-bit exponent, mantissa | 101 |  SmallFloat64
//! +--------------------------------------+-----+
//! ```
//!
//! An immediate float is a double whose exponent is within 2^-126..2^128 (as Spur's
//! SmallFloat64 and GemStone's SmallDouble hold it): its 64 bits rotated left by one (the
//! sign to bit 0), the exponent rebased by 896 so that eight bits hold it, shifted over the
//! tag. Zero and negative zero are the words whose payload is 0 and 1. Every other double
//! (subnormals, infinities, NaNs, the very large and the very small) is a boxed Float; a
//! double that fits is always immediate, so equal immediate floats are identical.
//!
//! An immediate (SmallInteger, Character, nil, true, false) means the same in every gem and
//! in the stone, so a record carries it as the VM holds it. A reference is an OOP in a
//! record and an object-table index in a VM; a Symbol is named by its id, since every gem
//! interns its own copy.

use crate::record::Oop;

/// How many low bits hold the tag.
pub const TAG_BITS: u32 = 3;
/// The tag bits of a word.
pub const TAG_MASK: u64 = 0b111;
/// A reference to an object.
pub const TAG_OBJECT: u64 = 0b000;
/// A SmallInteger.
pub const TAG_INT: u64 = 0b001;
/// A Character.
pub const TAG_CHAR: u64 = 0b010;
/// nil, true or false.
pub const TAG_SPECIAL: u64 = 0b011;
/// A Symbol, by its id in the stone's symbol table (in records only).
pub const TAG_SYMBOL: u64 = 0b100;
/// An immediate float.
pub const TAG_FLOAT: u64 = 0b101;

/// What is taken off a rotated double's bits to rebase its exponent (896 = 1023 - 127).
pub const FLOAT_OFFSET: u64 = 896 << 53;

/// The word of the immediate float `f`, if its exponent fits (and it is a number).
#[inline(always)]
pub fn float_word(f: f64) -> Option<u64> {
    let rotated = f.to_bits().rotate_left(1);
    if rotated <= 1 {
        return Some((rotated << TAG_BITS) | TAG_FLOAT);
    }
    // The biased exponent must be 897..=1151 after the rotation put it in bits 53..64.
    let exponent = rotated >> 53;
    if exponent.wrapping_sub(897) <= 254 { Some(((rotated - FLOAT_OFFSET) << TAG_BITS) | TAG_FLOAT) } else { None }
}

/// The double an immediate float word holds (the caller has checked the tag).
#[inline(always)]
pub fn word_float(word: u64) -> f64 {
    let payload = word >> TAG_BITS;
    let rotated = if payload > 1 { payload + FLOAT_OFFSET } else { payload };
    f64::from_bits(rotated.rotate_right(1))
}

/// The largest OOP a tagged word can hold.
pub const MAX_OOP: Oop = (1 << (64 - TAG_BITS)) - 1;

/// The word that refers to `oop`.
pub fn ref_word(oop: Oop) -> u64 {
    (oop << TAG_BITS) | TAG_OBJECT
}

/// The OOP a slot word refers to, or `None` for an immediate or a symbol.
pub fn word_ref(word: u64) -> Option<Oop> {
    (word & TAG_MASK == TAG_OBJECT).then_some(word >> TAG_BITS)
}

/// The word that names the symbol with id `id`.
pub fn symbol_word(id: u64) -> u64 {
    (id << TAG_BITS) | TAG_SYMBOL
}

/// The symbol id a slot word names, if it names one.
pub fn word_symbol(word: u64) -> Option<u64> {
    (word & TAG_MASK == TAG_SYMBOL).then_some(word >> TAG_BITS)
}

/// nil, true and false.
pub const NIL: u64 = TAG_SPECIAL;
/// `true`.
pub const TRUE: u64 = (1 << TAG_BITS) | TAG_SPECIAL;
/// `false`.
pub const FALSE: u64 = (2 << TAG_BITS) | TAG_SPECIAL;

/// Whether `word` is an immediate: a SmallInteger, a Character (a code point of 32 bits at
/// most), nil, true, false, or an immediate float in its one encoding.
pub fn is_immediate(word: u64) -> bool {
    match word & TAG_MASK {
        TAG_INT => true,
        TAG_CHAR => word >> TAG_BITS <= u64::from(u32::MAX),
        TAG_SPECIAL => matches!(word, NIL | TRUE | FALSE),
        TAG_FLOAT => float_word(word_float(word)) == Some(word),
        _ => false,
    }
}

/// Whether `word` means something in a record: a reference, an immediate or a symbol.
pub fn is_record_word(word: u64) -> bool {
    word_ref(word).is_some() || word_symbol(word).is_some() || is_immediate(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_symbols_round_trip_and_immediates_are_neither() {
        assert_eq!(word_ref(ref_word(MAX_OOP)), Some(MAX_OOP));
        assert_eq!(word_symbol(symbol_word(42)), Some(42));
        assert_eq!(word_ref(symbol_word(42)), None);
        assert_eq!(word_symbol(ref_word(42)), None);
        for immediate in [TAG_INT | (7 << TAG_BITS), TAG_CHAR, TAG_SPECIAL] {
            assert_eq!((word_ref(immediate), word_symbol(immediate)), (None, None));
            assert!(is_immediate(immediate) && is_record_word(immediate));
        }
        for nonsense in [0b110, 0b111, (3 << TAG_BITS) | TAG_SPECIAL, (1 << 40) | TAG_CHAR] {
            assert!(!is_record_word(nonsense), "{nonsense:#x}");
        }
    }

    #[test]
    fn floats_whose_exponent_fits_are_immediate_and_round_trip() {
        let smallest = 2f64.powi(-126);
        let below = 2f64.powi(-127);
        let largest = f64::from_bits(2f64.powi(129).to_bits() - 1);
        for f in [0.0, -0.0, 1.0, -1.5, 0.1, 3.0e38, -1.0e-37, smallest, -smallest, largest, -largest] {
            let w = float_word(f).unwrap_or_else(|| panic!("{f:e} should be immediate"));
            assert_eq!(w & TAG_MASK, TAG_FLOAT);
            assert_eq!(word_float(w).to_bits(), f.to_bits(), "{f:e}");
            assert!(is_immediate(w) && is_record_word(w));
        }
        for f in [below, smallest.next_down(), 2f64.powi(129), 1.0e300, 1.0e-300, 5e-324, f64::INFINITY, f64::NAN] {
            assert_eq!(float_word(f), None, "{f:e} should be boxed");
        }
        // A payload that decodes to a double outside the range is no word at all: each
        // immediate float has one encoding.
        let forged = (2 << TAG_BITS) | TAG_FLOAT;
        assert!(!is_immediate(forged));
    }
}
