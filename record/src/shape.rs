//! The kinds of body a record may have and what each holds, which the stone checks at every
//! commit ([`ObjectRecord::check_shape`]) and a gem relies on when it loads a record:
//!
//! | body | kind | words | bytes |
//! |---|---|---|---|
//! | pointer slots | [`SLOTS`] | the slots | none |
//! | bytes (String, ByteArray, ...) | [`BYTES`] | none | the bytes |
//! | Float | [`FLOAT`] | none | the IEEE double, little-endian |
//! | large integer | [`LARGE`] | none | the magnitude, little-endian (the class gives the sign) |
//! | compiled method | [`METHOD`] | its class, selector, protocol | its source, UTF-8 |
//! | native dictionary | [`DICT`] | keys and values, alternating | none |
//! | Semaphore | [`SEMAPHORE`] | none | excess signals, a little-endian i64 |
//! | 32-bit words (WideString, WordArray, ...) | [`WORDS`] | none | each word, little-endian |
//!
//! Every slot word is a reference, an immediate or a symbol ([`crate::word`]); only pointer
//! objects have named slots. A record in a commit is whole: the [`CHUNKED_HEADER`] mark is
//! the stone's, on records it sends.

use crate::record::{CHUNKED_HEADER, ObjectRecord};
use crate::word::{MAX_OOP, is_record_word};

/// Pointer slots.
pub const SLOTS: u8 = 0;
/// Bytes.
pub const BYTES: u8 = 1;
/// A boxed Float.
pub const FLOAT: u8 = 2;
/// A large integer.
pub const LARGE: u8 = 3;
/// A compiled method, kept as its source.
pub const METHOD: u8 = 4;
/// A native identity dictionary.
pub const DICT: u8 = 5;
/// A Semaphore.
pub const SEMAPHORE: u8 = 6;
/// 32-bit words.
pub const WORDS: u8 = 7;

/// The most slots an object may have (2^28: two GiB of slot words).
pub const MAX_WORDS: usize = 1 << 28;
/// The most bytes an object may hold (one GiB).
pub const MAX_BYTES: usize = 1 << 30;

impl ObjectRecord {
    /// Checks that the record is a whole object of a known kind holding what that kind holds
    /// (see the module's table); answers what is wrong otherwise.
    pub fn check_shape(&self) -> Result<(), String> {
        let oop = self.oop;
        let fail = |what: String| Err(format!("object {oop}: {what}"));
        if self.kind & CHUNKED_HEADER != 0 {
            return fail("a record marked as a chunked header (only the stone sends those)".into());
        }
        if self.class == 0 || self.class > MAX_OOP {
            return fail(format!("class {} is not an object", self.class));
        }
        if self.words.len() > MAX_WORDS || self.bytes.len() > MAX_BYTES {
            return fail(format!(
                "{} slots and {} bytes (at most {MAX_WORDS} and {MAX_BYTES})",
                self.words.len(),
                self.bytes.len()
            ));
        }
        if self.named as usize > self.words.len() {
            return fail("more named slots than slots".into());
        }
        if self.named != 0 && self.kind != SLOTS {
            return fail("named slots in an object without pointer slots".into());
        }
        if let Some(w) = self.words.iter().find(|&&w| !is_record_word(w)) {
            return fail(format!("slot word {w:#x} is not a value"));
        }
        let (words, bytes) = (self.words.len(), self.bytes.len());
        match self.kind {
            SLOTS if bytes != 0 => fail("bytes in a pointer object".into()),
            BYTES | LARGE if words != 0 => fail("slots in a byte object".into()),
            WORDS if words != 0 || bytes % 4 != 0 => fail(format!("a word object of {bytes} bytes and {words} slots")),
            FLOAT if (words, bytes) != (0, 8) => fail(format!("a Float of {bytes} bytes and {words} slots")),
            SEMAPHORE if (words, bytes) != (0, 8) => fail(format!("a Semaphore of {bytes} bytes and {words} slots")),
            DICT if bytes != 0 || words % 2 != 0 => fail(format!("a dictionary of {words} words and {bytes} bytes")),
            METHOD if words != 3 => fail(format!("a method of {words} words (its class, selector and protocol)")),
            METHOD if std::str::from_utf8(&self.bytes).is_err() => fail("a method whose source is not UTF-8".into()),
            SLOTS | BYTES | LARGE | FLOAT | SEMAPHORE | DICT | METHOD | WORDS => Ok(()),
            other => fail(format!("unknown kind {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::{TAG_INT, ref_word};

    fn object(kind: u8, words: Vec<u64>, bytes: Vec<u8>) -> ObjectRecord {
        ObjectRecord { oop: 40, class: 17, kind, hash: 1, named: 0, policy: 0, words, bytes }
    }

    #[test]
    fn each_kind_holds_what_it_holds_and_nothing_else() {
        let int = (5 << 3) | TAG_INT;
        let good = [
            object(SLOTS, vec![ref_word(41), int], vec![]),
            object(BYTES, vec![], b"abc".to_vec()),
            object(FLOAT, vec![], 1.5f64.to_le_bytes().to_vec()),
            object(LARGE, vec![], vec![1, 2, 3]),
            object(METHOD, vec![ref_word(17), crate::word::symbol_word(3), crate::word::NIL], b"foo ^1".to_vec()),
            object(DICT, vec![int, int], vec![]),
            object(SEMAPHORE, vec![], 0i64.to_le_bytes().to_vec()),
            object(WORDS, vec![], 8364u32.to_le_bytes().to_vec()),
        ];
        for r in &good {
            assert_eq!(r.check_shape(), Ok(()), "{r:?}");
        }
        let bad = [
            object(0x80, vec![], vec![0; 16]),
            object(8, vec![], vec![]),
            object(WORDS, vec![], vec![1, 2, 3]),
            object(WORDS, vec![int], vec![]),
            object(FLOAT, vec![], vec![1, 2, 3]),
            object(SEMAPHORE, vec![int], vec![0; 8]),
            object(DICT, vec![int], vec![]),
            object(METHOD, vec![ref_word(17)], b"foo".to_vec()),
            object(METHOD, vec![ref_word(17), int, int], vec![0xff, 0xfe]),
            object(SLOTS, vec![0b111], vec![]),
            object(SLOTS, vec![], vec![1]),
            object(BYTES, vec![int], vec![1]),
            ObjectRecord { named: 1, ..object(BYTES, vec![int], vec![]) },
            ObjectRecord { named: 3, ..object(SLOTS, vec![int], vec![]) },
            ObjectRecord { class: 0, ..object(SLOTS, vec![], vec![]) },
        ];
        for r in &bad {
            assert!(r.check_shape().is_err(), "{r:?}");
        }
    }
}
