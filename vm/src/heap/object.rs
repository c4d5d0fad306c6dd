//! The shape of one object in the object table: header and body.

use rustc_hash::FxHashMap;
use std::rc::Rc;

use num_bigint::BigInt;

use super::process_list::ProcessList;
use crate::bytecode::CompiledCode;
use crate::heap::slots::Slots;
use crate::process::ProcessState;
use crate::value::Value;

/// Header flag: reached by the current garbage collection.
pub const MARK: u16 = 1;
/// Header flag: the entry is a stub for a persistent object whose body has not been faulted in.
pub const NOT_LOADED: u16 = 2;
/// Header flag: the object is persistent; stores into it go to the write set.
pub const PERSISTENT: u16 = 4;
/// Header flag: the object is persistent and changed in this transaction.
pub const DIRTY: u16 = 8;

/// The layout of a class's instances, kept in the class's `format` slot as
/// `kind << 16 | named instance variable count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Named pointer slots only.
    Fixed = 0,
    /// Named pointer slots followed by indexed pointer slots.
    Variable = 1,
    /// Indexed bytes (String, Symbol, ByteArray); no named slots.
    Bytes = 2,
    /// A boxed IEEE double.
    Float = 3,
    /// An arbitrary-precision integer (LargePositiveInteger / LargeNegativeInteger).
    Large = 4,
    /// A CompiledMethod.
    Method = 5,
    /// A Process: named slots plus the interpreter state.
    Process = 6,
    /// A Semaphore: its excess signals and waiting processes.
    Semaphore = 7,
    /// An identity-keyed dictionary kept natively (MethodDictionary, SymbolDictionary).
    Dict = 8,
    /// Instances are immediates (SmallInteger, Character): never allocated.
    Immediate = 9,
    /// Indexed 32-bit words (WideString, WideSymbol, WordArray); no named slots.
    Words = 10,
    /// Named pointer slots followed by weak indexed pointer slots (WeakArray): the collector
    /// puts nil in an indexed slot whose object nothing else keeps.
    Weak = 11,
}

impl Kind {
    /// Decodes a kind number.
    pub fn from_u8(n: u8) -> Option<Kind> {
        Some(match n {
            0 => Kind::Fixed,
            1 => Kind::Variable,
            2 => Kind::Bytes,
            3 => Kind::Float,
            4 => Kind::Large,
            5 => Kind::Method,
            6 => Kind::Process,
            7 => Kind::Semaphore,
            8 => Kind::Dict,
            9 => Kind::Immediate,
            10 => Kind::Words,
            11 => Kind::Weak,
            _ => return None,
        })
    }

    /// Whether instances have indexed slots or bytes.
    pub fn is_indexable(self) -> bool {
        matches!(self, Kind::Variable | Kind::Bytes | Kind::Words | Kind::Weak)
    }
}

/// Encodes a class format word.
pub fn format(kind: Kind, named: usize) -> i64 {
    ((kind as i64) << 16) | named as i64
}

/// Decodes a class format word into kind and named slot count.
pub fn decode_format(word: i64) -> Option<(Kind, usize)> {
    let kind = Kind::from_u8(u8::try_from(word >> 16).ok()?)?;
    Some((kind, (word & 0xFFFF) as usize))
}

/// An insertion-ordered map keyed by identity (symbols, mostly).
#[derive(Debug, Default, Clone)]
pub struct Dict {
    entries: Vec<(Value, Value)>,
    index: FxHashMap<Value, usize>,
}

impl Dict {
    /// The value stored under `key`.
    pub fn get(&self, key: Value) -> Option<Value> {
        self.index.get(&key).and_then(|&i| self.entries.get(i)).map(|&(_, v)| v)
    }

    /// Stores `value` under `key`, answering the previous value.
    pub fn insert(&mut self, key: Value, value: Value) -> Option<Value> {
        match self.index.get(&key) {
            Some(&i) => self.entries.get_mut(i).map(|e| std::mem::replace(&mut e.1, value)),
            None => {
                self.index.insert(key, self.entries.len());
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, answering its value.
    pub fn remove(&mut self, key: Value) -> Option<Value> {
        let i = self.index.remove(&key)?;
        let (_, value) = self.entries.swap_remove(i);
        if let Some(&(moved, _)) = self.entries.get(i) {
            self.index.insert(moved, i);
        }
        Some(value)
    }

    /// The entries in insertion order (removal reorders the last entry).
    pub fn entries(&self) -> &[(Value, Value)] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The contents of an object. `repr(C, u8)`: the variant tag is the first byte and the
/// payload follows at [`Body::PAYLOAD_OFFSET`], so native code can read Slots bodies.
#[derive(Debug)]
#[repr(C, u8)]
pub enum Body {
    /// A free table entry.
    Free,
    /// A persistent object not faulted in yet.
    NotLoaded,
    /// Named slots followed by indexed slots.
    Slots(Slots),
    /// Indexed bytes.
    Bytes(Slots<u8>),
    /// Indexed 32-bit words (a WideString's code points).
    Words(Vec<u32>),
    /// A boxed Float.
    Float(f64),
    /// A large integer (its sign agrees with its class).
    Large(Box<BigInt>),
    /// A compiled method.
    Method(Rc<CompiledCode>),
    /// A process: named slots, and its frames unless it is the running process.
    Process(Box<ProcessBody>),
    /// A semaphore.
    Semaphore(Box<SemaphoreBody>),
    /// A native identity dictionary.
    Dict(Box<Dict>),
    /// The slots of a large persistent object, brought in chunk by chunk as they are used.
    Chunked(Box<Chunked>),
}

/// Slots per chunk of a large persistent object (the stone's chunk size in words).
pub const CHUNK_SLOTS: usize = onyx_record::CHUNK / 8;

/// The slots of a large persistent object: all of them counted, the chunks in memory loaded.
#[derive(Debug)]
pub struct Chunked {
    /// Slots in all (named ones first).
    pub len: usize,
    /// Each chunk of [`CHUNK_SLOTS`] slots, once loaded.
    pub chunks: Vec<Option<Box<[Value]>>>,
}

impl Chunked {
    /// `len` slots, none loaded yet.
    pub fn unloaded(len: usize) -> Chunked {
        Chunked { len, chunks: (0..len.div_ceil(CHUNK_SLOTS)).map(|_| None).collect() }
    }

    /// Slot `i`, if its chunk is loaded.
    pub fn get(&self, i: usize) -> Option<Value> {
        self.chunks.get(i / CHUNK_SLOTS)?.as_ref()?.get(i % CHUNK_SLOTS).copied()
    }

    /// Slot `i`, mutably, if its chunk is loaded.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Value> {
        self.chunks.get_mut(i / CHUNK_SLOTS)?.as_mut()?.get_mut(i % CHUNK_SLOTS)
    }

    /// Every slot in memory.
    pub fn loaded(&self) -> impl Iterator<Item = Value> + '_ {
        self.chunks.iter().flatten().flat_map(|c| c.iter().copied())
    }
}

impl Body {
    /// The tag byte of [`Body::Slots`] (variants are numbered in declaration order).
    pub const SLOTS_TAG: u8 = 2;
    /// The tag byte of [`Body::Bytes`].
    pub const BYTES_TAG: u8 = 3;
    /// The tag byte of [`Body::Method`].
    pub const METHOD_TAG: u8 = 7;
    /// The tag byte of [`Body::Semaphore`].
    pub const SEMAPHORE_TAG: u8 = 9;
    /// Byte offset of a variant's payload: `repr(C, u8)` puts it after the tag, aligned for
    /// the most aligned variant, which is the enum's own alignment.
    pub const PAYLOAD_OFFSET: usize = std::mem::align_of::<Body>();

    /// The tag byte of this body.
    pub fn tag(&self) -> u8 {
        // SAFETY: a `repr(C, u8)` enum starts with its `u8` tag.
        unsafe { *(self as *const Body).cast::<u8>() }
    }
}

/// The body of a Process object, which is also its record in the scheduler's queues: the
/// queue links and the priority live here, so that a signal or a switch reaches them through
/// the pointer the queue holds (see [`super::process_list`]).
#[derive(Debug)]
#[repr(C)]
pub struct ProcessBody {
    /// The Process class's named instance variables.
    pub slots: Slots,
    /// The frames and value stack; `None` while the process runs (the VM holds them).
    pub state: Option<Box<ProcessState>>,
    /// The next process in the queue this one is in.
    pub(crate) next: *mut ProcessBody,
    /// Whether the process is in a queue (a semaphore's or a ready queue).
    pub(crate) queued: bool,
    /// The process's priority, kept equal to its `priority` slot (the scheduler reads it here).
    pub(crate) priority: usize,
    /// The Process object this is the body of (set when the object is made).
    pub(crate) process: Value,
}

impl ProcessBody {
    /// The body of a new process, in no queue.
    pub fn new(slots: Vec<Value>, state: Option<Box<ProcessState>>, priority: usize) -> ProcessBody {
        ProcessBody {
            slots: slots.into(),
            state,
            next: std::ptr::null_mut(),
            queued: false,
            priority,
            process: Value::NIL,
        }
    }
}

/// The body of a Semaphore (`repr(C)`: native code signals it).
#[derive(Debug, Default)]
#[repr(C)]
pub struct SemaphoreBody {
    /// Signals not consumed by a wait yet.
    pub excess_signals: i64,
    /// Processes waiting, first to be resumed first.
    pub waiting: ProcessList,
}

/// One entry of the object table.
#[derive(Debug)]
pub struct Object {
    /// The object's class.
    pub class: Value,
    /// The identity hash, fixed for the object's life (and persisted with it).
    pub hash: u32,
    /// [`MARK`], [`NOT_LOADED`], [`PERSISTENT`], [`DIRTY`].
    pub flags: u16,
    /// How many of `Body::Slots` are named instance variables.
    pub named: u16,
    /// The contents.
    pub body: Body,
}

impl Object {
    /// The pointer slots (named then indexed), if the object has any.
    pub fn slots(&self) -> Option<&[Value]> {
        match &self.body {
            Body::Slots(s) => Some(s),
            Body::Process(p) => Some(&p.slots),
            _ => None,
        }
    }

    /// The pointer slots, mutably.
    pub fn slots_mut(&mut self) -> Option<&mut [Value]> {
        match &mut self.body {
            Body::Slots(s) => Some(s),
            Body::Process(p) => Some(&mut p.slots),
            _ => None,
        }
    }

    /// The bytes of a byte object.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The words of a word object.
    pub fn words(&self) -> Option<&[u32]> {
        match &self.body {
            Body::Words(w) => Some(w),
            _ => None,
        }
    }

    /// Number of indexed elements (slots beyond the named ones, bytes, or words).
    pub fn indexed_len(&self) -> usize {
        match &self.body {
            Body::Slots(s) => s.len().saturating_sub(self.named as usize),
            Body::Chunked(c) => c.len.saturating_sub(self.named as usize),
            Body::Bytes(b) => b.len(),
            Body::Words(w) => w.len(),
            _ => 0,
        }
    }

    /// Approximate bytes used, for the collector's allocation accounting.
    pub fn footprint(&self) -> usize {
        std::mem::size_of::<Object>()
            + match &self.body {
                Body::Slots(s) => s.len() * 8,
                Body::Bytes(b) => b.len(),
                Body::Words(w) => w.capacity() * 4,
                Body::Large(n) => n.bits() as usize / 8 + 32,
                Body::Process(p) => 256 + p.slots.len() * 8,
                Body::Dict(d) => d.len() * 48,
                Body::Chunked(c) => c.chunks.iter().flatten().map(|c| c.len() * 8).sum(),
                _ => 0,
            }
    }
}
