//! The transaction log: where a commit becomes durable. The committer writes each batch of
//! commits here and syncs it before it answers them; the object table in the repository
//! file takes the same batch without waiting for the disk, and is made durable in the
//! background at a *checkpoint*, after which the log starts over from its beginning.
//!
//! The log is the file `tranlog.onyx` beside the repository file: a header block, then
//! records. The file grows in steps of zeroes up to [`CAPACITY`] and from then on is only
//! overwritten in place, never appended to: syncing an overwrite needs no journal commit of
//! the file's size, which makes it about twice as fast as syncing an append.
//!
//! A record is one batch: a magic number, the length of its body, the commit number before
//! and after it, the OOP high-water mark, the object records, and a CRC-32 of all of that.
//! Recovery reads records from the start while each one is whole and continues the
//! numbering of the one before, and applies those the object table has not got. Each record
//! is written with zeroes after it, so what an earlier round left past the last record is
//! never read; records left over from before the log last started over carry lower
//! numbers than the new ones, and a torn record fails its checksum, so either ends the
//! chain. The header carries the repository's identity: a log is only ever replayed into
//! its own repository.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::repo::Meta;
use onyx_record::{ObjectRecord, Oop};

/// The log file inside a repository folder.
pub const LOG_FILE: &str = "tranlog.onyx";
/// The most the log grows to; a batch that does not fit then waits for a checkpoint.
pub const CAPACITY: u64 = 64 << 20;
/// The log grows in steps of this many bytes.
const GROW: u64 = 4 << 20;
/// The header block: magic and format, then zeroes.
const HEADER: u64 = 4096;
const FILE_MAGIC: &[u8; 12] = b"ONYX TRANLOG";
const FORMAT: u32 = 1;
const RECORD_MAGIC: u32 = 0x5254_584f;
/// Magic, body length, commit numbers before and after, OOP high-water mark.
const RECORD_HEAD: usize = 4 + 4 + 8 + 8 + 8;
const CHECKSUM: usize = 4;
/// Zeroes written after each record.
const TERMINATOR: usize = 4;

/// One batch of commits as the log holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The number of the last commit before this batch.
    pub prev: u64,
    /// The bookkeeping after it (its last commit's number, the OOP high-water mark).
    pub meta: Meta,
    pub records: Vec<ObjectRecord>,
}

/// The open log, owned by the committer.
pub struct TranLog {
    file: File,
    path: PathBuf,
    /// Where the next record goes.
    end: u64,
    /// The file's length (zeroes past `end`).
    len: u64,
}

impl TranLog {
    /// Opens the log of repository `id` in folder `dir` (creating it if there is none) and
    /// answers it with the batches it holds after commit `durable`, which is where the
    /// object table stands.
    pub fn open(dir: &Path, id: u64, durable: u64) -> Result<(TranLog, Vec<Batch>), StoreError> {
        let path = dir.join(LOG_FILE);
        let shown = path.display().to_string();
        let io = |what: &str, e: std::io::Error| StoreError::Storage(format!("cannot {what} {shown}: {e}"));
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path);
        let file = file.map_err(|e| io("open", e))?;
        let len = file.metadata().map_err(|e| io("read", e))?.len();
        let mut log = TranLog { file, path, end: HEADER, len };
        let mut header = [0u8; 24];
        let read = log.file.read_exact_at(&mut header, 0);
        if len < HEADER || read.is_err() || header == [0u8; 24] {
            // No log, or one whose making was cut short (it cannot hold a record yet).
            log.initialize(id)?;
            return Ok((log, Vec::new()));
        }
        if &header[..12] != FILE_MAGIC {
            return Err(StoreError::NotARepository(format!("{shown} is not an Onyx transaction log")));
        }
        let format = u32::from_le_bytes([header[12], header[13], header[14], header[15]]);
        if format != FORMAT {
            return Err(StoreError::NotARepository(format!(
                "{shown} is a transaction log of format {format}, this version reads format {FORMAT}"
            )));
        }
        let owner = u64::from_le_bytes(header[16..24].try_into().unwrap_or_default());
        if owner != id {
            return Err(StoreError::NotARepository(format!(
                "{shown} is the transaction log of another repository (move it away to open this one)"
            )));
        }
        let batches = log.recover(durable)?;
        Ok((log, batches))
    }

    /// Writes the header and the first step of zeroes, durably (the folder entry too).
    fn initialize(&mut self, id: u64) -> Result<(), StoreError> {
        let mut header = vec![0u8; HEADER as usize];
        header[..12].copy_from_slice(FILE_MAGIC);
        header[12..16].copy_from_slice(&FORMAT.to_le_bytes());
        header[16..24].copy_from_slice(&id.to_le_bytes());
        self.file.set_len(0).map_err(|e| self.error("reset", e))?;
        self.file.write_all_at(&header, 0).map_err(|e| self.error("write", e))?;
        self.len = HEADER;
        self.grow(HEADER + GROW)?;
        if let Some(dir) = self.path.parent() {
            File::open(dir).and_then(|d| d.sync_all()).map_err(|e| self.error("record", e))?;
        }
        Ok(())
    }

    /// Reads the chain of records from the start; answers the batches after `durable`.
    fn recover(&mut self, durable: u64) -> Result<Vec<Batch>, StoreError> {
        let mut batches = Vec::new();
        let mut at = HEADER;
        let mut last: Option<u64> = None;
        while let Some((batch, size)) = self.read_record(at)? {
            if last.is_some_and(|seq| batch.prev != seq) || batch.meta.commit_seq <= batch.prev {
                break;
            }
            last = Some(batch.meta.commit_seq);
            at += size;
            if batch.meta.commit_seq > durable {
                let expected = batches.last().map_or(durable, |b: &Batch| b.meta.commit_seq);
                if batch.prev != expected {
                    return Err(StoreError::Corrupt(format!(
                        "{}: the log continues from commit {} but the repository stands at commit {expected}",
                        self.path.display(),
                        batch.prev
                    )));
                }
                batches.push(batch);
            }
        }
        self.end = at;
        Ok(batches)
    }

    /// The whole record at `at` and its size, if there is one (a torn or foreign one is
    /// none). A record whose checksum holds but whose objects do not decode was written
    /// whole by something else: that is an error, not the log's end.
    fn read_record(&self, at: u64) -> Result<Option<(Batch, u64)>, StoreError> {
        let mut head = [0u8; RECORD_HEAD];
        if self.file.read_exact_at(&mut head, at).is_err() {
            return Ok(None);
        }
        let word = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().unwrap_or_default());
        let half = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap_or_default());
        if half(0) != RECORD_MAGIC {
            return Ok(None);
        }
        let body = u64::from(half(4));
        let size = RECORD_HEAD as u64 + body + CHECKSUM as u64;
        if at + size > self.len {
            return Ok(None);
        }
        let mut rest = vec![0u8; (body as usize) + CHECKSUM];
        if self.file.read_exact_at(&mut rest, at + RECORD_HEAD as u64).is_err() {
            return Ok(None);
        }
        let (body_bytes, sum) = rest.split_at(body as usize);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&head);
        crc.update(body_bytes);
        if crc.finalize().to_le_bytes() != sum {
            return Ok(None);
        }
        let records = decode_records(body_bytes).ok_or_else(|| {
            StoreError::Corrupt(format!("{}: a whole record at byte {at} does not decode", self.path.display()))
        })?;
        let batch = Batch { prev: word(8), meta: Meta { commit_seq: word(16), oop_high: word(24) }, records };
        Ok(Some((batch, size)))
    }

    /// Writes a batch and syncs it. Answers where it went, or `None` when the log is full
    /// (a checkpoint and [`TranLog::start_over`] make room). Zeroes follow the record in the
    /// same write, so that whatever an earlier round left after it never reads as its
    /// successor.
    pub fn append<'a>(
        &mut self,
        prev: u64,
        meta: Meta,
        records: impl IntoIterator<Item = &'a ObjectRecord>,
    ) -> Result<Option<u64>, StoreError> {
        let mut bytes = encode(prev, meta, records);
        let at = self.end;
        let end = at + bytes.len() as u64;
        bytes.extend_from_slice(&[0u8; TERMINATOR]);
        let written = at + bytes.len() as u64;
        if written > CAPACITY {
            return Ok(None);
        }
        if written > self.len {
            self.grow(written.next_multiple_of(GROW).max(self.len + GROW).min(CAPACITY))?;
        }
        self.file.write_all_at(&bytes, at).map_err(|e| self.error("write", e))?;
        self.file.sync_data().map_err(|e| self.error("sync", e))?;
        self.end = end;
        Ok(Some(at))
    }

    /// Takes back the record written at `at` (the last one): its magic is zeroed, durably.
    pub fn retract(&mut self, at: u64) -> Result<(), StoreError> {
        self.file.write_all_at(&[0u8; 4], at).map_err(|e| self.error("write", e))?;
        self.file.sync_data().map_err(|e| self.error("sync", e))?;
        self.end = at;
        Ok(())
    }

    /// After a checkpoint (the object table holds every batch logged): the next record goes
    /// at the start again.
    pub fn start_over(&mut self) {
        self.end = HEADER;
    }

    /// Where the next record goes.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// Whether the log holds batches written since it last started over.
    pub fn is_empty(&self) -> bool {
        self.end == HEADER
    }

    /// Extends the file with zeroes to `len` bytes, durably.
    fn grow(&mut self, len: u64) -> Result<(), StoreError> {
        let zeroes = vec![0u8; 1 << 20];
        let mut at = self.len;
        while at < len {
            let n = (len - at).min(zeroes.len() as u64);
            self.file.write_all_at(&zeroes[..n as usize], at).map_err(|e| self.error("grow", e))?;
            at += n;
        }
        self.file.sync_all().map_err(|e| self.error("sync", e))?;
        self.len = len;
        Ok(())
    }

    fn error(&self, what: &str, e: std::io::Error) -> StoreError {
        StoreError::Storage(format!("cannot {what} the transaction log {}: {e}", self.path.display()))
    }
}

/// A record as the log holds it (see the module's documentation).
fn encode<'a>(prev: u64, meta: Meta, records: impl IntoIterator<Item = &'a ObjectRecord>) -> Vec<u8> {
    let mut out = vec![0u8; RECORD_HEAD];
    for r in records {
        let body = r.encode();
        out.extend_from_slice(&r.oop.to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
    }
    let body = (out.len() - RECORD_HEAD) as u32;
    out[0..4].copy_from_slice(&RECORD_MAGIC.to_le_bytes());
    out[4..8].copy_from_slice(&body.to_le_bytes());
    out[8..16].copy_from_slice(&prev.to_le_bytes());
    out[16..24].copy_from_slice(&meta.commit_seq.to_le_bytes());
    out[24..32].copy_from_slice(&meta.oop_high.to_le_bytes());
    let sum = crc32fast::hash(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The object records of a record's body, or `None` if any is damaged.
fn decode_records(mut body: &[u8]) -> Option<Vec<ObjectRecord>> {
    let mut records = Vec::new();
    while !body.is_empty() {
        let oop = Oop::from_le_bytes(body.get(0..8)?.try_into().ok()?);
        let len = u32::from_le_bytes(body.get(8..12)?.try_into().ok()?) as usize;
        records.push(ObjectRecord::decode(oop, body.get(12..12 + len)?).ok()?);
        body = &body[12 + len..];
    }
    Some(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(oop: Oop, value: u64) -> ObjectRecord {
        ObjectRecord { oop, class: 20, kind: 0, hash: 1, named: 0, words: vec![value], bytes: Vec::new() }
    }

    fn meta(seq: u64) -> Meta {
        Meta { oop_high: 100, commit_seq: seq }
    }

    const ID: u64 = 77;

    fn open(dir: &Path, durable: u64) -> (TranLog, Vec<Batch>) {
        TranLog::open(dir, ID, durable).unwrap_or_else(|e| panic!("{e}"))
    }

    fn append(log: &mut TranLog, prev: u64, seq: u64, records: &[ObjectRecord]) -> u64 {
        log.append(prev, meta(seq), records).unwrap_or_else(|e| panic!("{e}")).unwrap_or_else(|| panic!("log full"))
    }

    #[test]
    fn batches_after_the_durable_commit_are_recovered_in_order() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, found) = open(dir.path(), 0);
        assert!(found.is_empty());
        append(&mut log, 0, 1, &[record(30, 1)]);
        append(&mut log, 1, 3, &[record(31, 2), record(32, 3)]);
        append(&mut log, 3, 4, &[record(30, 4)]);
        drop(log);
        let (_, found) = open(dir.path(), 1);
        assert_eq!(found.iter().map(|b| (b.prev, b.meta.commit_seq)).collect::<Vec<_>>(), vec![(1, 3), (3, 4)]);
        assert_eq!(found[0].records, vec![record(31, 2), record(32, 3)]);
        let (_, none) = open(dir.path(), 4);
        assert!(none.is_empty());
    }

    #[test]
    fn a_torn_record_ends_the_log_and_the_next_write_goes_in_its_place() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(dir.path(), 0);
        append(&mut log, 0, 1, &[record(30, 1)]);
        let torn = append(&mut log, 1, 2, &[record(30, 2)]);
        // A crash in the middle of the second record's write: its last bytes never arrived.
        let end = log.end;
        log.file.write_all_at(&[0u8; 6], end - 6).unwrap_or_else(|e| panic!("{e}"));
        drop(log);
        let (mut log, found) = open(dir.path(), 0);
        assert_eq!(found.len(), 1);
        assert_eq!(log.end, torn);
        append(&mut log, 1, 2, &[record(30, 5)]);
        drop(log);
        let (_, found) = open(dir.path(), 0);
        assert_eq!(found.last().map(|b| b.records.clone()), Some(vec![record(30, 5)]));
    }

    #[test]
    fn records_from_before_a_start_over_are_not_taken_for_new_ones() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(dir.path(), 0);
        append(&mut log, 0, 1, &[record(30, 1)]);
        append(&mut log, 1, 2, &[record(30, 2)]);
        append(&mut log, 2, 3, &[record(30, 3)]);
        // Checkpointed at 3; the log starts over and one new batch overwrites the first.
        log.start_over();
        append(&mut log, 3, 4, &[record(30, 4)]);
        drop(log);
        let (_, found) = open(dir.path(), 3);
        assert_eq!(found.iter().map(|b| b.meta.commit_seq).collect::<Vec<_>>(), vec![4]);
        // Started over with nothing new: the old records are all behind the checkpoint.
        let (mut log, _) = open(dir.path(), 4);
        log.start_over();
        drop(log);
        let (_, found) = open(dir.path(), 4);
        assert!(found.is_empty());
    }

    #[test]
    fn a_retracted_batch_is_gone_and_a_log_ahead_of_the_repository_is_an_error() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(dir.path(), 0);
        append(&mut log, 0, 1, &[record(30, 1)]);
        let at = append(&mut log, 1, 2, &[record(30, 2)]);
        log.retract(at).unwrap_or_else(|e| panic!("{e}"));
        drop(log);
        let (_, found) = open(dir.path(), 0);
        assert_eq!(found.len(), 1);
        // The repository lost a commit the log does not hold: recovery cannot fill the gap.
        let (mut log, _) = open(dir.path(), 0);
        log.start_over();
        append(&mut log, 5, 6, &[record(30, 6)]);
        drop(log);
        assert!(matches!(TranLog::open(dir.path(), ID, 2), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn a_whole_record_that_does_not_decode_is_an_error_not_the_end_of_the_log() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (log, _) = open(dir.path(), 0);
        // A record of another version: its checksum holds, its object does not decode.
        let mut bytes = encode(0, meta(1), [&record(30, 1)]);
        bytes[RECORD_HEAD + 12] = 99;
        let body = bytes.len() - CHECKSUM;
        let sum = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
        log.file.write_all_at(&bytes, HEADER).unwrap_or_else(|e| panic!("{e}"));
        drop(log);
        assert!(matches!(TranLog::open(dir.path(), ID, 0), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn what_follows_the_last_record_is_never_read_as_its_successor() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(dir.path(), 0);
        append(&mut log, 0, 1, &[record(30, 1)]);
        append(&mut log, 1, 2, &[record(30, 2)]);
        // Checkpointed at 2, the log starts over. Bytes an earlier round left exactly where
        // the next record ends would continue its chain, but for the zeroes written after it.
        log.start_over();
        let next = encode(2, meta(3), [&record(30, 3)]);
        let stale = encode(3, meta(4), [&record(30, 4)]);
        log.file.write_all_at(&stale, HEADER + next.len() as u64).unwrap_or_else(|e| panic!("{e}"));
        append(&mut log, 2, 3, &[record(30, 3)]);
        drop(log);
        let (_, found) = open(dir.path(), 2);
        assert_eq!(found.iter().map(|b| b.meta.commit_seq).collect::<Vec<_>>(), vec![3]);
    }

    #[test]
    fn a_foreign_file_is_refused_and_a_full_log_says_so() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join(LOG_FILE), vec![7u8; 8192]).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(TranLog::open(dir.path(), ID, 0), Err(StoreError::NotARepository(_))));
        let other = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(other.path(), 0);
        let huge = ObjectRecord { words: vec![0; (CAPACITY / 8) as usize], ..record(30, 0) };
        assert!(matches!(log.append(0, meta(1), [&huge]), Ok(None)));
        assert!(log.is_empty());
    }
}
