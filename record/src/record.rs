//! Object records: one persistent object as the stone stores it and as gems send and receive
//! it, with its binary encoding. A record's slot words are tagged as [`crate::word`] says, so
//! the stone can follow references (for traversals and for checking a commit) without
//! knowing anything else about Smalltalk.

use crate::word::{word_ref, word_symbol};

/// The size of one chunk of a large object's contents, in bytes: an object whose record
/// would exceed it is stored, and fetched, chunk by chunk.
pub const CHUNK: usize = 64 * 1024;

/// A record that does not decode: the object, and what is wrong with its bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("object {oop}: {what}")]
pub struct DecodeError {
    /// The object whose record it is.
    pub oop: Oop,
    /// What is wrong.
    pub what: String,
}

/// A persistent object's identity: 61 bits, never reused while the object lives.
pub type Oop = u64;

/// OOPs below this are reserved; the repository's root (`UserGlobals` and what hangs off it)
/// is [`ROOT`].
pub const FIRST_OOP: Oop = 16;

/// The root object: everything reachable from it persists.
pub const ROOT: Oop = FIRST_OOP;

/// Set in a fetched record's `kind` when the object is too large to send whole: the record is
/// only its header, `bytes` holding its word count and byte count (two little-endian u64),
/// and its contents come chunk by chunk (see `Stone::fetch_chunk`).
pub const CHUNKED_HEADER: u8 = 0x80;

/// One object: its class, shape and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectRecord {
    /// The object.
    pub oop: Oop,
    /// Its class (itself a persistent object).
    pub class: Oop,
    /// The body kind (pointers, bytes, float, method, ...: see [`crate::shape`]).
    pub kind: u8,
    /// The identity hash, kept for the object's life.
    pub hash: u32,
    /// How many of `words` are named instance variables.
    pub named: u32,
    /// The object security policy it belongs to, which says who may read and change it
    /// (see [`crate::link::NO_POLICY`]).
    pub policy: u32,
    /// Slot words (references and immediates).
    pub words: Vec<u64>,
    /// Byte contents (strings, byte arrays, the encoded parts of floats, integers, methods).
    pub bytes: Vec<u8>,
}

/// Encoding version, the first byte of every encoded record (2: with its policy).
pub const VERSION: u8 = 2;
/// Fixed part: version, class, kind, hash, named, policy, word count, byte count.
pub const HEADER: usize = 1 + 8 + 1 + 4 + 4 + 4 + 4 + 4;

impl ObjectRecord {
    /// For the header of an object sent chunk by chunk: its word and byte counts.
    pub fn chunked_sizes(&self) -> Option<(u64, u64)> {
        if self.kind & CHUNKED_HEADER == 0 {
            return None;
        }
        let words = u64::from_le_bytes(self.bytes.get(0..8)?.try_into().ok()?);
        let bytes = u64::from_le_bytes(self.bytes.get(8..16)?.try_into().ok()?);
        Some((words, bytes))
    }

    /// The OOPs this object refers to: its class and every reference slot.
    pub fn references(&self) -> impl Iterator<Item = Oop> + '_ {
        std::iter::once(self.class).chain(self.words.iter().filter_map(|&w| word_ref(w)))
    }

    /// The OOPs this object's slots refer to (its class aside).
    pub fn slot_references(&self) -> impl Iterator<Item = Oop> + '_ {
        self.words.iter().filter_map(|&w| word_ref(w))
    }

    /// The symbol ids this object's slots name.
    pub fn symbols(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().filter_map(|&w| word_symbol(w))
    }

    /// The size of the encoded record, which is what traversal budgets count.
    pub fn encoded_len(&self) -> usize {
        HEADER + 8 * self.words.len() + self.bytes.len()
    }

    /// The record's body as the repository stores it (the OOP is the key, not part of it).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.push(VERSION);
        out.extend_from_slice(&self.class.to_le_bytes());
        out.push(self.kind);
        out.extend_from_slice(&self.hash.to_le_bytes());
        out.extend_from_slice(&self.named.to_le_bytes());
        out.extend_from_slice(&self.policy.to_le_bytes());
        out.extend_from_slice(&(self.words.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self.bytes.len() as u32).to_le_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.bytes);
        out
    }

    /// Decodes what [`ObjectRecord::encode`] wrote for object `oop`; anything else (a
    /// truncated, padded or foreign value) is a [`DecodeError`].
    pub fn decode(oop: Oop, data: &[u8]) -> Result<ObjectRecord, DecodeError> {
        let (mut record, nwords, nbytes) = ObjectRecord::decode_head(oop, data)?;
        if data.len() != HEADER + 8 * nwords + nbytes {
            return Err(DecodeError { oop, what: "length does not match its header".into() });
        }
        if record.named as usize > nwords {
            return Err(DecodeError { oop, what: "more named slots than slots".into() });
        }
        let mut r = Reader { data, at: HEADER };
        record.words = (0..nwords).map(|_| r.u64().unwrap_or_default()).collect();
        record.bytes = data[r.at..].to_vec();
        Ok(record)
    }

    /// The fixed part of an encoded record (its first [`HEADER`] bytes): the record without
    /// contents, and how many slot words and bytes the contents hold.
    pub fn decode_head(oop: Oop, data: &[u8]) -> Result<(ObjectRecord, usize, usize), DecodeError> {
        let corrupt = |what: &str| DecodeError { oop, what: what.to_string() };
        let mut r = Reader { data, at: 0 };
        let version = r.u8().ok_or_else(|| corrupt("empty record"))?;
        if version != VERSION {
            return Err(corrupt(&format!("unknown record version {version}")));
        }
        let (class, kind, hash, named, policy, nwords, nbytes) =
            match (r.u64(), r.u8(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32()) {
                (Some(c), Some(k), Some(h), Some(n), Some(p), Some(w), Some(b)) => {
                    (c, k, h, n, p, w as usize, b as usize)
                }
                _ => return Err(corrupt("truncated header")),
            };
        let record = ObjectRecord { oop, class, kind, hash, named, policy, words: Vec::new(), bytes: Vec::new() };
        Ok((record, nwords, nbytes))
    }
}

/// Little-endian reads from a byte slice, `None` past its end.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let bytes = self.data.get(self.at..self.at + N)?;
        self.at += N;
        bytes.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::ref_word;

    fn sample() -> ObjectRecord {
        ObjectRecord {
            oop: 100,
            class: 17,
            kind: 2,
            hash: 0xdead,
            named: 1,
            policy: 3,
            words: vec![ref_word(101), 0b011, (42 << 3) | 1],
            bytes: b"abc".to_vec(),
        }
    }

    #[test]
    fn records_round_trip_and_name_their_references() {
        let r = sample();
        let data = r.encode();
        assert_eq!(data.len(), r.encoded_len());
        assert_eq!(ObjectRecord::decode(100, &data).ok(), Some(r.clone()));
        assert_eq!(r.references().collect::<Vec<_>>(), vec![17, 101]);
    }

    #[test]
    fn damaged_records_are_errors_not_panics() {
        let data = sample().encode();
        for cut in 0..data.len() {
            assert!(ObjectRecord::decode(100, &data[..cut]).is_err(), "cut at {cut}");
        }
        let mut padded = data.clone();
        padded.push(0);
        assert!(ObjectRecord::decode(100, &padded).is_err());
        let mut foreign = data.clone();
        foreign[0] = 9;
        assert!(ObjectRecord::decode(100, &foreign).is_err());
        let mut lying = data;
        lying[14] = 200; // named > words
        assert!(ObjectRecord::decode(100, &lying).is_err());
        let mut lying = sample().encode();
        lying[22] = 200; // more words than there are
        assert!(ObjectRecord::decode(100, &lying).is_err());
    }
}
