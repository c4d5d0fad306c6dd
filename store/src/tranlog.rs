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
//! and after it, the OOP high-water mark, the object records, and a CRC-32 of all of that,
//! padded to 8 bytes; its magic is written after the rest (see [`TranLog::append`]).
//! Recovery reads records from the start while each one is whole and continues the
//! numbering of the one before, and applies those the object table has not got. Each record
//! is written with zeroes after it, so what an earlier round left past the last record is
//! never read, and the chain always ends at such zeroes: anything else where it ends (a
//! record that fails its checksum, a cut-off file) is damage, and recovery refuses to guess
//! ([`Recovery`]): a flipped byte must not silently drop the commits after it. (A record torn
//! by a power failure while it was written is refused too, although the commit it held was
//! never acknowledged; `--recover-truncating` goes on without it.) The repository says
//! whether the log holds commits it has not got on disk, so that a missing log is refused
//! too rather than started afresh. The header carries the repository's identity: a log is
//! only ever replayed into its own repository.

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
const FORMAT: u32 = 2;
const RECORD_MAGIC: u32 = 0x5254_584f;
/// Magic, body length, commit numbers before and after, OOP high-water mark.
const RECORD_HEAD: usize = 4 + 4 + 8 + 8 + 8;
const CHECKSUM: usize = 4;
/// Zeroes written after each record.
const TERMINATOR: usize = 4;
/// Records start at multiples of this (their size is padded with zeroes to it).
const ALIGN: u64 = 8;

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

/// What recovery does with a log whose chain of records ends in damage, or with a log that
/// is missing although the repository says it holds commits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recovery {
    /// Refuses to go on, saying where the damage is.
    #[default]
    Strict,
    /// Keeps the commits before the damage and gives up the rest, saying so
    /// (`onyx stone --recover-truncating`).
    Truncate,
}

impl Recovery {
    /// What a user can do about a log refused under [`Recovery::Strict`].
    const ADVICE: &str =
        "restore it from a copy, or start the stone with --recover-truncating to go on without those commits";
}

/// What recovery found in the log.
#[derive(Debug, Default)]
pub struct Recovered {
    /// The batches after the object table's last checkpoint, in order.
    pub batches: Vec<Batch>,
    /// What [`Recovery::Truncate`] gave up, said in words.
    pub dropped: Option<String>,
}

impl TranLog {
    /// Opens the log of repository `id` in folder `dir` and answers it with the batches it
    /// holds after commit `durable`, which is where the object table stands. `pending` is the
    /// repository's word that the log may hold such batches: then a missing or truncated log,
    /// or a chain of records that ends in anything but the zeroes written after the last one,
    /// is damage, refused under [`Recovery::Strict`]. Without it the log holds nothing the
    /// object table lacks, and starts over (made if missing).
    pub fn open(
        dir: &Path,
        id: u64,
        durable: u64,
        pending: bool,
        recovery: Recovery,
    ) -> Result<(TranLog, Recovered), StoreError> {
        let path = dir.join(LOG_FILE);
        let shown = path.display().to_string();
        let io = |what: &str, e: std::io::Error| StoreError::Storage(format!("cannot {what} {shown}: {e}"));
        let existed = path.exists();
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path);
        let file = file.map_err(|e| io("open", e))?;
        let len = file.metadata().map_err(|e| io("read", e))?.len();
        let mut log = TranLog { file, path, end: HEADER, len };
        let mut header = [0u8; 24];
        let read = log.file.read_exact_at(&mut header, 0);
        if len < HEADER || read.is_err() || header == [0u8; 24] {
            // No log, or one whose making was cut short (it cannot hold a record yet).
            let mut recovered = Recovered::default();
            if pending {
                let what = if existed { "cut short" } else { "missing" };
                let loss = format!(
                    "the repository says commits after commit {durable} are in its transaction log {shown}, \
                     and the log is {what}"
                );
                match recovery {
                    Recovery::Strict => return Err(StoreError::Corrupt(format!("{loss}: {}", Recovery::ADVICE))),
                    Recovery::Truncate => recovered.dropped = Some(format!("{loss}: any such commits are lost")),
                }
            }
            log.initialize(id)?;
            return Ok((log, recovered));
        }
        log.check_header(&header, id)?;
        if !pending {
            return Ok((log, Recovered::default()));
        }
        let recovered = log.recover(durable, recovery)?;
        Ok((log, recovered))
    }

    /// The batches the log in `dir` holds after commit `durable`, read without changing
    /// anything (as `onyx verify` does), and refused exactly where [`TranLog::open`] under
    /// [`Recovery::Strict`] refuses it: a log that is not this repository's, and when
    /// `pending`, a missing or cut-short log or damage in its chain.
    pub fn inspect(dir: &Path, id: u64, durable: u64, pending: bool) -> Result<Vec<Batch>, StoreError> {
        let path = dir.join(LOG_FILE);
        let shown = path.display().to_string();
        let missing = |what: &str| {
            let loss = format!(
                "the repository says commits after commit {durable} are in its transaction log {shown}, and the log \
                 is {what}"
            );
            if pending { Err(StoreError::Corrupt(format!("{loss}: {}", Recovery::ADVICE))) } else { Ok(Vec::new()) }
        };
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return missing("missing"),
            Err(e) => return Err(StoreError::Storage(format!("cannot open {shown}: {e}"))),
        };
        let len = file.metadata().map_err(|e| StoreError::Storage(format!("cannot read {shown}: {e}")))?.len();
        let mut log = TranLog { file, path, end: HEADER, len };
        let mut header = [0u8; 24];
        if len < HEADER || log.file.read_exact_at(&mut header, 0).is_err() || header == [0u8; 24] {
            return missing("cut short");
        }
        log.check_header(&header, id)?;
        if !pending {
            return Ok(Vec::new());
        }
        Ok(log.recover(durable, Recovery::Strict)?.batches)
    }

    /// Checks that the log is one, of this format, and repository `id`'s.
    fn check_header(&self, header: &[u8; 24], id: u64) -> Result<(), StoreError> {
        let shown = self.path.display();
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
        Ok(())
    }

    /// Reads the chain of records from the start; answers the batches after `durable`. The
    /// chain ends where the zeroes written after its last record are; anything else there (a
    /// record that fails its checksum, a cut-off file, bytes that are no record) is damage.
    fn recover(&mut self, durable: u64, recovery: Recovery) -> Result<Recovered, StoreError> {
        let mut recovered = Recovered::default();
        let mut at = HEADER;
        let mut last: Option<u64> = None;
        loop {
            match self.read_record(at)? {
                Some((batch, size))
                    if last.is_none_or(|seq| batch.prev == seq) && batch.meta.commit_seq > batch.prev =>
                {
                    last = Some(batch.meta.commit_seq);
                    at += size;
                    if batch.meta.commit_seq > durable {
                        let expected = recovered.batches.last().map_or(durable, |b: &Batch| b.meta.commit_seq);
                        if batch.prev != expected {
                            return Err(StoreError::Corrupt(format!(
                                "{}: the log continues from commit {} but the repository stands at commit {expected}",
                                self.path.display(),
                                batch.prev
                            )));
                        }
                        recovered.batches.push(batch);
                    }
                }
                _ if self.ends_at(at) => break,
                _ => {
                    let kept = recovered.batches.last().map_or(durable, |b| b.meta.commit_seq);
                    let damage = format!(
                        "{}: the record at byte {at} is damaged (it fails its checksum, is cut off or is no \
                         record), and commits after commit {kept} may be in it or after it",
                        self.path.display()
                    );
                    match recovery {
                        Recovery::Strict => {
                            return Err(StoreError::Corrupt(format!("{damage}: {}", Recovery::ADVICE)));
                        }
                        Recovery::Truncate => {
                            recovered.dropped = Some(format!(
                                "{damage}: the log was cut there, and the stone goes on from commit {kept}"
                            ));
                            break;
                        }
                    }
                }
            }
        }
        self.end = at;
        Ok(recovered)
    }

    /// Whether the zeroes written after a last record are at `at`.
    fn ends_at(&self, at: u64) -> bool {
        let mut zeroes = [1u8; TERMINATOR];
        at + TERMINATOR as u64 <= self.len
            && self.file.read_exact_at(&mut zeroes, at).is_ok()
            && zeroes == [0u8; TERMINATOR]
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
        let size = (RECORD_HEAD as u64 + body + CHECKSUM as u64).next_multiple_of(ALIGN);
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
        // Everything but the magic first, then the magic: a process killed part way leaves
        // the zeroes of the last terminator where the magic goes, so the log ends cleanly
        // before the half-written record (which was never acknowledged). Records are 8-byte
        // aligned, so the magic's write never straddles a page.
        let (magic, rest) = bytes.split_at(4);
        self.file.write_all_at(rest, at + 4).map_err(|e| self.error("write", e))?;
        self.file.write_all_at(magic, at).map_err(|e| self.error("write", e))?;
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
    out.resize(out.len().next_multiple_of(ALIGN as usize), 0);
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
        ObjectRecord { oop, class: 20, kind: 0, hash: 1, named: 0, policy: 0, words: vec![value], bytes: Vec::new() }
    }

    fn meta(seq: u64) -> Meta {
        Meta { oop_high: 100, commit_seq: seq }
    }

    const ID: u64 = 77;

    /// Opens the log in `dir`; one that exists is taken to hold commits (a new one is made).
    fn open(dir: &Path, durable: u64) -> (TranLog, Vec<Batch>) {
        let pending = dir.join(LOG_FILE).exists();
        let (log, recovered) =
            TranLog::open(dir, ID, durable, pending, Recovery::Strict).unwrap_or_else(|e| panic!("{e}"));
        (log, recovered.batches)
    }

    fn refused(dir: &Path, durable: u64) -> String {
        match TranLog::open(dir, ID, durable, true, Recovery::Strict) {
            Err(StoreError::Corrupt(why)) => why,
            Err(other) => panic!("refused as {other:?}"),
            Ok(_) => panic!("not refused"),
        }
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
    fn a_damaged_record_is_refused_naming_its_offset_unless_truncating_is_asked_for() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(dir.path(), 0);
        append(&mut log, 0, 1, &[record(30, 1)]);
        let torn = append(&mut log, 1, 2, &[record(30, 2)]);
        append(&mut log, 2, 3, &[record(30, 3)]);
        // One byte of the second record's body flipped: the third, valid, follows it.
        let mut byte = [0u8];
        log.file.read_exact_at(&mut byte, torn + RECORD_HEAD as u64 + 20).unwrap_or_else(|e| panic!("{e}"));
        log.file.write_all_at(&[byte[0] ^ 0x10], torn + RECORD_HEAD as u64 + 20).unwrap_or_else(|e| panic!("{e}"));
        drop(log);
        let why = refused(dir.path(), 0);
        assert!(why.contains(&format!("byte {torn}")) && why.contains("--recover-truncating"), "{why}");
        let (mut log, recovered) =
            TranLog::open(dir.path(), ID, 0, true, Recovery::Truncate).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(recovered.batches.len(), 1);
        assert!(recovered.dropped.is_some_and(|d| d.contains(&format!("byte {torn}"))));
        assert_eq!(log.end, torn);
        append(&mut log, 1, 2, &[record(30, 5)]);
        drop(log);
        let (_, found) = open(dir.path(), 0);
        assert_eq!(found.last().map(|b| b.records.clone()), Some(vec![record(30, 5)]));
    }

    #[test]
    fn a_record_whose_writer_was_killed_before_its_magic_ends_the_log_cleanly() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(dir.path(), 0);
        append(&mut log, 0, 1, &[record(30, 1)]);
        // The second append's first write happened, its magic's did not.
        let at = log.end;
        let bytes = encode(1, meta(2), [&record(30, 2)]);
        log.file.write_all_at(&bytes[4..], at + 4).unwrap_or_else(|e| panic!("{e}"));
        drop(log);
        let (log, found) = open(dir.path(), 0);
        assert_eq!((found.len(), log.end), (1, at));
    }

    #[test]
    fn a_missing_or_cut_log_is_refused_when_the_repository_says_it_holds_commits() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(dir.path(), 0);
        append(&mut log, 0, 1, &[record(30, 1)]);
        let end = log.end;
        drop(log);
        // Cut within the last record, and cut right after it (before its zeroes).
        for cut in [end - 3, end] {
            let file = OpenOptions::new().write(true).open(dir.path().join(LOG_FILE)).unwrap_or_else(|e| panic!("{e}"));
            file.set_len(cut).unwrap_or_else(|e| panic!("{e}"));
            drop(file);
            assert!(refused(dir.path(), 0).contains("is damaged"));
        }
        std::fs::remove_file(dir.path().join(LOG_FILE)).unwrap_or_else(|e| panic!("{e}"));
        assert!(refused(dir.path(), 0).contains("is missing"));
        // Nothing pending: a missing log is made afresh.
        let (log, recovered) =
            TranLog::open(dir.path(), ID, 1, false, Recovery::Strict).unwrap_or_else(|e| panic!("{e}"));
        assert!(recovered.batches.is_empty() && log.is_empty());
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
        assert!(refused(dir.path(), 2).contains("continues from commit 5"));
    }

    #[test]
    fn a_whole_record_that_does_not_decode_is_an_error_not_the_end_of_the_log() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (log, _) = open(dir.path(), 0);
        // A record of another version: its checksum holds, its object does not decode.
        let mut bytes = encode(0, meta(1), [&record(30, 1)]);
        bytes[RECORD_HEAD + 12] = 99;
        let body = RECORD_HEAD + u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
        let sum = crc32fast::hash(&bytes[..body]);
        bytes[body..body + CHECKSUM].copy_from_slice(&sum.to_le_bytes());
        log.file.write_all_at(&bytes, HEADER).unwrap_or_else(|e| panic!("{e}"));
        drop(log);
        assert!(refused(dir.path(), 0).contains("does not decode"));
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
        assert!(matches!(TranLog::open(dir.path(), ID, 0, true, Recovery::Strict), Err(StoreError::NotARepository(_))));
        let other = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (mut log, _) = open(other.path(), 0);
        let huge = ObjectRecord { words: vec![0; (CAPACITY / 8) as usize], ..record(30, 0) };
        assert!(matches!(log.append(0, meta(1), [&huge]), Ok(None)));
        assert!(log.is_empty());
    }
}
