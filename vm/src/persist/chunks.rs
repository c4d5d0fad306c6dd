//! Large persistent objects, brought in chunk by chunk: a fetch sends such an object as its
//! header (see `onyx_record::CHUNKED_HEADER`), the VM holds it as a
//! [`Body::Chunked`] body, and each chunk of slots comes from the stone when a slot in it is
//! first read or written. So touching one element of a million-element Array brings in
//! 8,192 slots, not a million. A commit of such an object (changed, or reached by a change)
//! brings in the rest first and writes it whole.

use onyx_record::StoneError;
use onyx_record::word::word_symbol;

use super::{Persistence, codec, lost};
use crate::heap::Body;
use crate::heap::object::CHUNK_SLOTS;
use crate::value::Value;
use crate::vm::Vm;

impl Persistence {
    /// Brings chunk `index` of large object `v` into memory (if it is not there yet).
    pub(super) fn load_chunk(&mut self, vm: &mut Vm, v: Value, index: usize) -> Result<(), StoneError> {
        let missing = matches!(vm.heap.get(v).map(|o| &o.body), Some(Body::Chunked(c)) if c.chunks.get(index).is_some_and(Option::is_none));
        if !missing {
            return Ok(());
        }
        let oop = self.oop_of.get(&v).copied().ok_or_else(|| lost("a large object without an OOP"))?;
        let chunk = u32::try_from(index).map_err(|_| StoneError::Invalid("a chunk number out of range".into()))?;
        let data = self.link.fetch_chunk(oop, chunk)?;
        self.stats.fetches += 1;
        let len = match vm.heap.get(v).map(|o| &o.body) {
            Some(Body::Chunked(c)) => c.len,
            _ => return Ok(()),
        };
        let expected = CHUNK_SLOTS.min(len.saturating_sub(index * CHUNK_SLOTS)) * 8;
        if data.len() != expected {
            return Err(StoneError::Damaged(format!(
                "object {oop}: chunk {index} holds {} bytes, not {expected}",
                data.len()
            )));
        }
        let words: Vec<u64> =
            data.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default())).collect();
        vm.heap.note_allocation(data.len());
        self.learn_symbols(vm, words.iter().filter_map(|&w| word_symbol(w)).collect())?;
        let values = words.iter().map(|&w| codec::value_of(vm, w, self)).collect::<Result<Vec<Value>, StoneError>>()?;
        if let Some(Body::Chunked(c)) = vm.heap.get_mut(v).map(|o| &mut o.body)
            && let Some(slot) = c.chunks.get_mut(index)
        {
            *slot = Some(values.into_boxed_slice());
        }
        Ok(())
    }

    /// Brings every chunk of large object `v` into memory.
    pub(super) fn load_all_chunks(&mut self, vm: &mut Vm, v: Value) -> Result<(), StoneError> {
        let count = match vm.heap.get(v).map(|o| &o.body) {
            Some(Body::Chunked(c)) => c.chunks.len(),
            _ => return Ok(()),
        };
        (0..count).try_for_each(|i| self.load_chunk(vm, v, i))
    }
}

impl Vm {
    /// Slot `i` (0-based, named slots first) of large object `v`, its chunk brought in if
    /// needed; `None` if there is no such slot or the chunk could not be had.
    pub(crate) fn chunked_slot(&mut self, v: Value, i: usize) -> Option<Value> {
        self.ensure_chunk(v, i)?;
        match &self.heap.get(v)?.body {
            Body::Chunked(c) => c.get(i),
            _ => None,
        }
    }

    /// Stores into slot `i` of large object `v` (through the write barrier); answers false
    /// if there is no such slot or its chunk could not be had.
    pub(crate) fn set_chunked_slot(&mut self, v: Value, i: usize, value: Value) -> bool {
        if self.ensure_chunk(v, i).is_none() {
            return false;
        }
        let stored = match self.heap.get_mut(v).map(|o| &mut o.body) {
            Some(Body::Chunked(c)) => c.get_mut(i).map(|slot| *slot = value).is_some(),
            _ => false,
        };
        if stored {
            self.heap.note_store(v);
        }
        stored
    }

    fn ensure_chunk(&mut self, v: Value, i: usize) -> Option<()> {
        let Some(Body::Chunked(c)) = self.heap.get(v).map(|o| &o.body) else { return None };
        if i >= c.len {
            return None;
        }
        if c.get(i).is_some() {
            return Some(());
        }
        let mut p = self.persist.take()?;
        let result = p.load_chunk(self, v, i / CHUNK_SLOTS);
        self.persist = Some(p);
        if let Err(e) = result {
            self.last_store_error = Some(e.context("a chunk could not be faulted in"));
            return None;
        }
        Some(())
    }

    /// Every slot of large object `v`, all its chunks brought in.
    pub(crate) fn chunked_values(&mut self, v: Value) -> Option<Vec<Value>> {
        let mut p = self.persist.take()?;
        let result = p.load_all_chunks(self, v);
        self.persist = Some(p);
        if let Err(e) = result {
            self.last_store_error = Some(e.context("a large object could not be faulted in"));
            return None;
        }
        match &self.heap.get(v)?.body {
            Body::Chunked(c) => (0..c.len).map(|i| c.get(i)).collect(),
            _ => None,
        }
    }

    /// Whether `v` is a large object held chunk by chunk.
    pub(crate) fn is_chunked(&self, v: Value) -> bool {
        matches!(self.heap.get(v).map(|o| &o.body), Some(Body::Chunked(_)))
    }
}
