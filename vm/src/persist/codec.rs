//! Local objects as records and back: each kind of body as the record of its kind
//! (`onyx_record::shape` says what each holds). A method is stored as its source and
//! recompiled when loaded; a Semaphore keeps its excess signals, not its waiting processes.
//!
//! Symbols are never records: a slot that holds one holds its id in the stone's symbol table
//! (see `onyx_record::word`). Processes are transient; committing one is an error.
//!
//! An object that cannot be written is the caller's mistake ([`StoneError::Invalid`]); a
//! record that cannot be read is damage ([`StoneError::Damaged`]).

use num_bigint::{BigInt, Sign};
use onyx_record::word::{ref_word, symbol_word};
use onyx_record::word::{word_ref, word_symbol};
use onyx_record::{CHUNK, CHUNKED_HEADER, ObjectRecord, Oop, StoneError};

use super::Persistence;

use crate::heap::{Body, Dict, SemaphoreBody};
use crate::value::Value;
use crate::vm::Vm;

pub(super) use onyx_record::shape::{BYTES, DICT, FLOAT, LARGE, MAX_BYTES, MAX_WORDS, METHOD, SEMAPHORE, SLOTS, WORDS};

/// How a local reference is named in a record: the persistent object's OOP, or a symbol's
/// id. Answers `None` for an object that has neither (the caller makes it persistent first).
pub(super) trait Naming {
    fn word_for(&self, vm: &Vm, v: Value) -> Option<u64>;
}

/// The references a body holds (its class aside), in the order the record stores them.
pub(super) fn references(vm: &Vm, v: Value) -> Vec<Value> {
    let Some(obj) = vm.heap.get(v) else { return Vec::new() };
    match &obj.body {
        Body::Slots(s) => s.to_vec(),
        Body::Process(p) => p.slots.to_vec(),
        Body::Dict(d) => d.entries().iter().flat_map(|&(k, v)| [k, v]).collect(),
        Body::Method(code) => vec![code.method_class.get(), code.selector, code.protocol.get()],
        Body::Chunked(c) => c.loaded().collect(),
        _ => Vec::new(),
    }
}

/// Object `v` as the record of persistent object `oop`.
pub(super) fn encode(vm: &Vm, v: Value, oop: Oop, naming: &impl Naming) -> Result<ObjectRecord, StoneError> {
    let invalid = |what: String| StoneError::Invalid(what);
    let obj = vm.heap.get(v).ok_or_else(|| invalid(format!("object {} does not exist", v.index())))?;
    let word = |x: Value| -> Result<u64, StoneError> {
        if !x.is_object() {
            return Ok(x.bits());
        }
        naming.word_for(vm, x).ok_or_else(|| invalid(format!("object {} has no OOP", x.index())))
    };
    let words_of = |values: &[Value]| values.iter().map(|&x| word(x)).collect::<Result<Vec<u64>, StoneError>>();
    let (kind, words, bytes) = match &obj.body {
        Body::Slots(s) => (SLOTS, words_of(s)?, Vec::new()),
        Body::Bytes(b) => (BYTES, Vec::new(), b.to_vec()),
        Body::Words(w) => (WORDS, Vec::new(), w.iter().flat_map(|w| w.to_le_bytes()).collect()),
        Body::Float(f) => (FLOAT, Vec::new(), f.to_le_bytes().to_vec()),
        Body::Large(n) => (LARGE, Vec::new(), n.magnitude().to_bytes_le()),
        Body::Method(code) => {
            let refs = [code.method_class.get(), code.selector, code.protocol.get()];
            (METHOD, words_of(&refs)?, code.source.as_bytes().to_vec())
        }
        Body::Dict(d) => {
            let flat: Vec<Value> = d.entries().iter().flat_map(|&(k, v)| [k, v]).collect();
            (DICT, words_of(&flat)?, Vec::new())
        }
        Body::Semaphore(s) => (SEMAPHORE, Vec::new(), s.excess_signals.to_le_bytes().to_vec()),
        Body::Chunked(c) => {
            let all: Option<Vec<Value>> = (0..c.len).map(|i| c.get(i)).collect();
            let all = all.ok_or_else(|| invalid(format!("object {} is not all in memory", v.index())))?;
            (SLOTS, words_of(&all)?, Vec::new())
        }
        Body::Process(_) => return Err(invalid(format!("a Process cannot be committed (object {})", v.index()))),
        Body::Free | Body::NotLoaded => return Err(invalid(format!("object {} is not in memory", v.index()))),
    };
    let class = word(obj.class).map(|w| w >> 3)?;
    // The policy is the persistence's to say (see `send_commit`).
    let policy = onyx_record::NO_POLICY;
    Ok(ObjectRecord { oop, class, kind, hash: obj.hash, named: u32::from(obj.named), policy, words, bytes })
}

/// How a record's words become local values: OOPs to local objects, symbol ids to symbols.
pub(super) trait Resolving {
    fn local_for(&mut self, vm: &mut Vm, oop: Oop) -> Value;
    fn symbol_for(&self, id: u64) -> Option<Value>;
    /// The whole contents (slot words, then bytes) of an object sent chunk by chunk.
    fn contents(&mut self, oop: Oop, len: usize) -> Result<Vec<u8>, StoneError>;
}

/// What a record says that no object can be: damage.
fn damaged(what: String) -> StoneError {
    StoneError::Damaged(what)
}

/// The local value a record word stands for.
pub(super) fn value_of(vm: &mut Vm, word: u64, resolve: &mut impl Resolving) -> Result<Value, StoneError> {
    if let Some(oop) = word_ref(word) {
        return Ok(resolve.local_for(vm, oop));
    }
    if let Some(id) = word_symbol(word) {
        return resolve.symbol_for(id).ok_or_else(|| damaged(format!("unknown symbol {id}")));
    }
    Value::immediate_from_bits(word).ok_or_else(|| damaged(format!("{word:#x} is not a value")))
}

fn values_of(vm: &mut Vm, words: &[u64], resolve: &mut impl Resolving) -> Result<Vec<Value>, StoneError> {
    words.iter().map(|&w| value_of(vm, w, resolve)).collect()
}

/// A record fetched as a chunked header, made whole unless it is a pointer object (which
/// stays in chunks): a long string or a big method's source comes in at once.
pub(super) fn whole(r: ObjectRecord, resolve: &mut impl Resolving) -> Result<ObjectRecord, StoneError> {
    if !comes_in_whole(&r) {
        return Ok(r);
    }
    let Some((words, bytes)) = r.chunked_sizes() else { return Ok(r) };
    let kind = r.kind & !CHUNKED_HEADER;
    let too_large = || damaged(format!("object {}: {words} slots and {bytes} bytes, more than an object holds", r.oop));
    let nwords = usize::try_from(words).ok().filter(|&n| n <= MAX_WORDS).ok_or_else(too_large)?;
    let nbytes = usize::try_from(bytes).ok().filter(|&n| n <= MAX_BYTES).ok_or_else(too_large)?;
    let split = nwords.checked_mul(8).ok_or_else(too_large)?;
    let total = split.checked_add(nbytes).ok_or_else(too_large)?;
    let data = resolve.contents(r.oop, total)?;
    let (w, b) = data.split_at(split.min(data.len()));
    let words = w.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())).collect();
    Ok(ObjectRecord { kind, words, bytes: b.to_vec(), ..r })
}

/// Whether `r` is the header of a large object that [`whole`] brings in chunk by chunk
/// (any large object but a pointer object, which stays in chunks).
pub(super) fn comes_in_whole(r: &ObjectRecord) -> bool {
    r.chunked_sizes().is_some() && r.kind & !CHUNKED_HEADER != SLOTS
}

/// The body a record decodes to, or `None` for a method record (whose code is compiled from
/// its source once its class is in memory: see [`method_parts`]).
pub(super) fn decode(vm: &mut Vm, r: &ObjectRecord, resolve: &mut impl Resolving) -> Result<Option<Body>, StoneError> {
    let bad = |what: &str| damaged(format!("object {}: {what}", r.oop));
    if let Some((words, _)) = r.chunked_sizes() {
        // A large pointer object: its slots come in chunk by chunk (see `chunks.rs`); other
        // large objects were made whole before (see [`whole`]).
        if r.kind & !CHUNKED_HEADER != SLOTS {
            return Err(bad("only pointer objects stay in chunks"));
        }
        let nwords = usize::try_from(words).ok().filter(|&n| n <= MAX_WORDS).ok_or_else(|| bad("too many slots"))?;
        return Ok(Some(Body::Chunked(Box::new(crate::heap::Chunked::unloaded(nwords)))));
    }
    Ok(Some(match r.kind {
        SLOTS => {
            Body::Slots(values_of(vm, &r.words, resolve).map_err(|e| e.context(&format!("object {}", r.oop)))?.into())
        }
        BYTES => Body::Bytes(r.bytes.clone().into()),
        WORDS => {
            let words = r.bytes.chunks_exact(4);
            if !words.remainder().is_empty() {
                return Err(bad("a word object of a number of bytes not a multiple of 4"));
            }
            Body::Words(words.map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect())
        }
        FLOAT => {
            let bytes: [u8; 8] = r.bytes.as_slice().try_into().map_err(|_| bad("a Float of bad size"))?;
            Body::Float(f64::from_le_bytes(bytes))
        }
        LARGE => {
            let negative = resolve.local_for(vm, r.class) == vm.known.large_negative;
            let sign = if negative { Sign::Minus } else { Sign::Plus };
            Body::Large(Box::new(BigInt::from_bytes_le(sign, &r.bytes)))
        }
        DICT => {
            let flat = values_of(vm, &r.words, resolve).map_err(|e| e.context(&format!("object {}", r.oop)))?;
            if flat.len() % 2 != 0 {
                return Err(bad("a dictionary with an odd number of words"));
            }
            let mut d = Dict::default();
            for pair in flat.chunks_exact(2) {
                d.insert(pair[0], pair[1]);
            }
            Body::Dict(Box::new(d))
        }
        SEMAPHORE => {
            let bytes: [u8; 8] = r.bytes.as_slice().try_into().map_err(|_| bad("a Semaphore of bad size"))?;
            Body::Semaphore(Box::new(SemaphoreBody { excess_signals: i64::from_le_bytes(bytes), ..Default::default() }))
        }
        METHOD => return Ok(None),
        other => return Err(bad(&format!("unknown kind {other}"))),
    }))
}

/// A method record's class, selector, protocol and source.
pub(super) fn method_parts(
    vm: &mut Vm,
    r: &ObjectRecord,
    resolve: &mut impl Resolving,
) -> Result<(Value, Value, String), StoneError> {
    let [class, _selector, protocol] = r.words.as_slice() else {
        return Err(damaged(format!("object {}: a method record needs three words", r.oop)));
    };
    let class = value_of(vm, *class, resolve)?;
    let protocol = value_of(vm, *protocol, resolve)?;
    let source =
        String::from_utf8(r.bytes.clone()).map_err(|_| damaged(format!("object {}: source is not UTF-8", r.oop)))?;
    Ok((class, protocol, source))
}

impl Naming for Persistence {
    fn word_for(&self, vm: &Vm, v: Value) -> Option<u64> {
        if vm.is_symbol(v) {
            return self.symbol_id.get(&v).map(|&id| symbol_word(id));
        }
        self.oop_of.get(&v).map(|&oop| ref_word(oop))
    }
}

impl Resolving for Persistence {
    fn local_for(&mut self, vm: &mut Vm, oop: Oop) -> Value {
        if let Some(&v) = self.local_of.get(&oop) {
            return v;
        }
        let v = vm.heap.alloc_stub();
        self.map(v, oop);
        v
    }

    fn symbol_for(&self, id: u64) -> Option<Value> {
        self.symbol_of.get(&id).copied()
    }

    fn contents(&mut self, oop: Oop, len: usize) -> Result<Vec<u8>, StoneError> {
        let mut data = Vec::with_capacity(len);
        for index in 0..len.div_ceil(CHUNK) {
            let chunk = u32::try_from(index).map_err(|_| StoneError::Damaged(format!("object {oop}: too large")))?;
            data.extend(self.link.fetch_chunk(oop, chunk)?);
            self.stats.fetches += 1;
        }
        if data.len() != len {
            return Err(StoneError::Damaged(format!("object {oop}: its chunks hold {} bytes, not {len}", data.len())));
        }
        Ok(data)
    }
}
