//! The repository file: the object table on redb, its bookkeeping, snapshots to read from and
//! durable batches to write.
//!
//! Tables: `objects` maps an OOP to its encoded [`ObjectRecord`]; an object whose contents
//! exceed [`CHUNK`](onyx_record::CHUNK) bytes keeps only its header there and its contents in `chunks`, keyed by
//! OOP and chunk number, so one element of a large Array is read without the rest; `meta`
//! holds the format version, the OOP high-water mark and the last commit's number;
//! `symbol_names` and `symbol_ids` are the symbol table (see `record.rs`); `users` and
//! `policies` are the users and object security policies (`users.rs`); `object_log` the
//! post-mortem reports of failed processes, by id (see `onyx_record::log`). Every
//! write is one redb transaction. Symbols and deletions are durable when their call returns;
//! commits are written with [`Durability::AtCheckpoint`] once the transaction log holds them
//! (`tranlog.rs`), and are on disk after the next [`Repository::checkpoint`]. The `pending`
//! mark says whether the log may hold commits the object table has not got on disk: it is
//! set, durably, before the first record after a checkpoint, and cleared by the next one.
//!
//! Nothing read back is trusted: every object record and every chunk is stored with a
//! CRC-32 of its OOP (and chunk number) and contents, checked whenever it is read; the file
//! itself is opened with redb's integrity check, which verifies the checksum of every page;
//! and durable writes use two-phase commit, so that after a crash the latest commit always
//! verifies and one that does not is damage, never taken for a torn write.

use std::path::{Path, PathBuf};

use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};

use std::collections::HashMap;

use crate::error::StoreError;
use crate::users::{Policies, Policy, User, encoding};
use onyx_record::record::{HEADER, VERSION};
use onyx_record::{CHUNK, CHUNKED_HEADER, FIRST_OOP, LogEntry, ObjectRecord, Oop, SYSTEM_POLICY};

const OBJECTS: TableDefinition<u64, &[u8]> = TableDefinition::new("objects");
const CHUNKS: TableDefinition<(u64, u32), &[u8]> = TableDefinition::new("chunks");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const SYMBOL_NAMES: TableDefinition<u64, &[u8]> = TableDefinition::new("symbol_names");
const SYMBOL_IDS: TableDefinition<&[u8], u64> = TableDefinition::new("symbol_ids");
const USERS: TableDefinition<&str, &[u8]> = TableDefinition::new("users");
const POLICIES: TableDefinition<u32, &[u8]> = TableDefinition::new("policies");
/// The object log's entries by id (a repository made before it had one has the table once
/// the first entry is written).
const OBJECT_LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("object_log");

/// The object log's entries by user and id, so that each user's are counted apart.
const OBJECT_LOG_USERS: TableDefinition<(&str, u64), ()> = TableDefinition::new("object_log_users");

/// Entries the object log keeps of each user: past it, that user's oldest go, so that no
/// user's reports push out another's.
pub const USER_LOG_LIMIT: u64 = 200;
/// Entries the object log keeps in all: past it, the oldest go (a bound on repositories
/// whose entries predate the per-user count, which only the limit of each user holds).
pub const LOG_LIMIT: u64 = 20_000;

/// The repository format this code reads and writes (2: records carry checksums and
/// policies, and the stone keeps its users).
const FORMAT: u64 = 2;
/// The bytes of the checksum after each stored record and chunk.
const SEAL: usize = 4;
/// The repository file inside a repository folder.
pub const FILE: &str = "repository.onyx";
/// The first byte of a chunked object's header record.
const CHUNKED: u8 = 0x80;

/// The bookkeeping kept beside the objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// No object has an OOP at or above this.
    pub oop_high: Oop,
    /// The number of the last commit.
    pub commit_seq: u64,
}

/// When a write reaches the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Before the write returns.
    Now,
    /// At the next checkpoint (or durable write): the transaction log holds it meanwhile.
    AtCheckpoint,
}

/// An open repository.
pub struct Repository {
    db: Database,
    path: PathBuf,
}

impl Repository {
    /// Creates an empty repository in folder `dir` (made if missing; an existing repository
    /// there is an error).
    pub fn create(dir: &Path) -> Result<Repository, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Storage(format!("cannot create {}: {e}", dir.display())))?;
        let path = dir.join(FILE);
        if path.exists() {
            return Err(StoreError::Invalid(format!("{} already holds a repository", dir.display())));
        }
        remove_stale_log(dir)?;
        let db = Database::create(&path)?;
        Repository::initialize(db, path)
    }

    /// Creates an empty repository whose file is reached through `backend` (a file with a
    /// layer between, such as one that injects write errors); `path` names it in messages.
    pub fn create_with_backend(path: &Path, backend: impl redb::StorageBackend) -> Result<Repository, StoreError> {
        remove_stale_log(path.parent().unwrap_or(Path::new(".")))?;
        let db = Database::builder().create_with_backend(backend)?;
        Repository::initialize(db, path.to_path_buf())
    }

    fn initialize(db: Database, path: PathBuf) -> Result<Repository, StoreError> {
        let txn = db.begin_write()?;
        {
            txn.open_table(OBJECTS)?;
            txn.open_table(CHUNKS)?;
            txn.open_table(SYMBOL_NAMES)?;
            txn.open_table(SYMBOL_IDS)?;
            txn.open_table(USERS)?;
            let system = seal(&[u64::from(SYSTEM_POLICY)], encoding::policy(&Policy::system()));
            txn.open_table(POLICIES)?.insert(SYSTEM_POLICY, system.as_slice())?;
            let mut meta = txn.open_table(META)?;
            meta.insert("format", FORMAT)?;
            meta.insert("id", new_id())?;
            meta.insert("oop_high", FIRST_OOP + 1)?;
            meta.insert("commit_seq", 0)?;
            meta.insert("pending", 0)?;
        }
        txn.commit()?;
        Ok(Repository { db, path })
    }

    /// Opens the repository in folder `dir`.
    pub fn open(dir: &Path) -> Result<Repository, StoreError> {
        let path = dir.join(FILE);
        if !path.is_file() {
            return Err(StoreError::NotFound(format!(
                "{} is not a repository (no {FILE}; `onyx init` makes one)",
                dir.display()
            )));
        }
        let shown = path.display().to_string();
        let not_ours = |why: String| StoreError::NotARepository(format!("{shown} is not an Onyx repository: {why}"));
        let db = open_checked(&path)?;
        let repo = Repository { db, path };
        let format = {
            let txn = repo.db.begin_read()?;
            let meta = txn.open_table(META).map_err(|e| not_ours(e.to_string()))?;
            meta.get("format")?.map(|v| v.value())
        };
        match format {
            Some(FORMAT) => {
                repo.index_object_log()?;
                Ok(repo)
            }
            Some(1) => Err(not_ours(format!(
                "format 1, made before records carried checksums; this version reads format {FORMAT} \
                 (make a new repository with `onyx init` and load your packages into it)"
            ))),
            Some(other) => Err(not_ours(format!("format {other}, this version reads format {FORMAT}"))),
            None => Err(not_ours("no format mark".into())),
        }
    }

    /// Every user, by name.
    pub fn users(&self) -> Result<HashMap<String, User>, StoreError> {
        let txn = self.db.begin_read()?;
        let mut out = HashMap::new();
        for entry in txn.open_table(USERS)?.iter()? {
            let (name, value) = entry?;
            let name = name.value().to_string();
            let data = unseal(&[], value.value(), || format!("the entry of user {name}"))?;
            let user = encoding::decode_user(&data)
                .filter(|u| u.name == name)
                .ok_or_else(|| StoreError::Corrupt(format!("the entry of user {name} does not decode")))?;
            out.insert(name, user);
        }
        Ok(out)
    }

    /// Every object security policy, by id.
    pub fn policies(&self) -> Result<Policies, StoreError> {
        let txn = self.db.begin_read()?;
        let mut out = Policies::new();
        for entry in txn.open_table(POLICIES)?.iter()? {
            let (id, value) = entry?;
            let id = id.value();
            let data = unseal(&[u64::from(id)], value.value(), || format!("policy {id}"))?;
            let policy = encoding::decode_policy(&data)
                .ok_or_else(|| StoreError::Corrupt(format!("policy {id} does not decode")))?;
            out.insert(id, policy);
        }
        Ok(out)
    }

    /// Writes `user` (replacing their entry) and, when given, a new policy, durably in one
    /// transaction.
    pub fn put_user(&self, user: &User, policy: Option<(u32, &Policy)>) -> Result<(), StoreError> {
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        {
            txn.open_table(USERS)?.insert(user.name.as_str(), seal(&[], encoding::user(user)).as_slice())?;
            if let Some((id, p)) = policy {
                txn.open_table(POLICIES)?.insert(id, seal(&[u64::from(id)], encoding::policy(p)).as_slice())?;
            }
        }
        txn.commit()?;
        Ok(())
    }

    /// Writes policy `id` (replacing it), durably.
    pub fn put_policy(&self, id: u32, policy: &Policy) -> Result<(), StoreError> {
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        txn.open_table(POLICIES)?.insert(id, seal(&[u64::from(id)], encoding::policy(policy)).as_slice())?;
        txn.commit()?;
        Ok(())
    }

    /// Appends `entry` to the object log as the entry after the last (its id set), dropping
    /// its user's oldest past [`USER_LOG_LIMIT`] and the oldest of all past [`LOG_LIMIT`],
    /// durably; answers its id.
    pub fn append_log(&self, entry: &mut LogEntry) -> Result<u64, StoreError> {
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        let id = {
            let mut table = txn.open_table(OBJECT_LOG)?;
            let mut users = txn.open_table(OBJECT_LOG_USERS)?;
            let id = table.last()?.map_or(1, |(id, _)| id.value() + 1);
            entry.id = id;
            table.insert(id, seal(&[id], entry.encode()).as_slice())?;
            let user = entry.user.as_str();
            users.insert((user, id), ())?;
            let theirs = users.range((user, 0)..=(user, u64::MAX))?.count() as u64;
            let oldest: Vec<u64> = users
                .range((user, 0)..=(user, u64::MAX))?
                .take(theirs.saturating_sub(USER_LOG_LIMIT) as usize)
                .map(|item| item.map(|(k, _)| k.value().1))
                .collect::<Result<_, _>>()?;
            for old in oldest {
                table.remove(old)?;
                users.remove((user, old))?;
            }
            while table.len()? > LOG_LIMIT {
                let Some((old, stored)) = table.pop_first()? else { break };
                // An entry that does not decode has no user to forget it under.
                if let Ok(e) = log_entry(old.value(), stored.value()) {
                    users.remove((e.user.as_str(), old.value()))?;
                }
            }
            id
        };
        txn.commit()?;
        Ok(id)
    }

    /// `count` entries of the object log from the `from`th newest, newest first, and how many
    /// it holds; only `user`'s when one is given. An entry that fails its checksum or does
    /// not decode is reported.
    pub fn object_log(&self, from: u64, count: u32, user: Option<&str>) -> Result<(Vec<LogEntry>, u64), StoreError> {
        let txn = self.db.begin_read()?;
        let table = match txn.open_table(OBJECT_LOG) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok((Vec::new(), 0)),
            Err(e) => return Err(e.into()),
        };
        if let Some(user) = user {
            let users = match txn.open_table(OBJECT_LOG_USERS) {
                Ok(users) => users,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok((Vec::new(), 0)),
                Err(e) => return Err(e.into()),
            };
            let total = users.range((user, 0)..=(user, u64::MAX))?.count() as u64;
            let mut out = Vec::new();
            for item in users.range((user, 0)..=(user, u64::MAX))?.rev().skip(from as usize).take(count as usize) {
                let id = item?.0.value().1;
                let stored = table.get(id)?.ok_or_else(|| {
                    StoreError::Corrupt(format!("the object log's index names entry {id}, which it does not hold"))
                })?;
                out.push(log_entry(id, stored.value())?);
            }
            return Ok((out, total));
        }
        let (mut out, mut total) = (Vec::new(), 0);
        for item in table.iter()?.rev() {
            let (id, stored) = item?;
            let entry = log_entry(id.value(), stored.value())?;
            if user.is_some_and(|u| u != entry.user) {
                continue;
            }
            if total >= from && out.len() < count as usize {
                out.push(entry);
            }
            total += 1;
        }
        Ok((out, total))
    }

    /// Indexes the object log by user if it has entries and no index (a repository made
    /// before each user's entries were counted apart), durably.
    fn index_object_log(&self) -> Result<(), StoreError> {
        let entries: Vec<(u64, String)> = {
            let txn = self.db.begin_read()?;
            match txn.open_table(OBJECT_LOG_USERS) {
                Ok(_) => return Ok(()),
                Err(redb::TableError::TableDoesNotExist(_)) => {}
                Err(e) => return Err(e.into()),
            }
            let table = match txn.open_table(OBJECT_LOG) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(()),
                Err(e) => return Err(e.into()),
            };
            let mut entries = Vec::new();
            for item in table.iter()? {
                let (id, stored) = item?;
                entries.push((id.value(), log_entry(id.value(), stored.value())?.user));
            }
            entries
        };
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        {
            let mut users = txn.open_table(OBJECT_LOG_USERS)?;
            for (id, user) in &entries {
                users.insert((user.as_str(), *id), ())?;
            }
        }
        txn.commit()?;
        Ok(())
    }

    /// Entry `id` of the object log, if it holds it.
    pub fn object_log_entry(&self, id: u64) -> Result<Option<LogEntry>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = match txn.open_table(OBJECT_LOG) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let stored = table.get(id)?;
        stored.map(|s| log_entry(id, s.value())).transpose()
    }

    /// Whether the transaction log may hold commits the object table has not got on disk.
    pub fn log_pending(&self) -> Result<bool, StoreError> {
        let txn = self.db.begin_read()?;
        let meta = txn.open_table(META)?;
        Ok(meta.get("pending")?.is_some_and(|v| v.value() != 0))
    }

    /// Marks, durably, that the transaction log is about to hold commits past the object
    /// table's last checkpoint.
    pub fn mark_log_pending(&self) -> Result<(), StoreError> {
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        txn.open_table(META)?.insert("pending", 1)?;
        txn.commit()?;
        Ok(())
    }

    /// The repository's identity, which its transaction log carries too (0 for a
    /// repository made before it had one).
    pub fn id(&self) -> Result<u64, StoreError> {
        let txn = self.db.begin_read()?;
        let meta = txn.open_table(META)?;
        Ok(meta.get("id")?.map_or(0, |v| v.value()))
    }

    /// The repository file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The committed state as of now, to read from for as long as it is kept.
    pub fn snapshot(&self) -> Result<Snapshot, StoreError> {
        Ok(Snapshot { txn: self.db.begin_read()? })
    }

    /// The ids of symbols `names`, adding the new ones to the symbol table (durably) first.
    pub fn intern(&self, names: &[Vec<u8>]) -> Result<Vec<u64>, StoreError> {
        {
            let snap = self.snapshot()?;
            let known: Vec<Option<u64>> = names.iter().map(|n| snap.symbol_id(n)).collect::<Result<_, _>>()?;
            if let Some(ids) = known.into_iter().collect::<Option<Vec<u64>>>() {
                return Ok(ids);
            }
        }
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        let mut ids = Vec::with_capacity(names.len());
        {
            let mut by_name = txn.open_table(SYMBOL_IDS)?;
            let mut by_id = txn.open_table(SYMBOL_NAMES)?;
            let mut count = by_id.len()?;
            for name in names {
                let existing = by_name.get(name.as_slice())?.map(|v| v.value());
                let id = match existing {
                    Some(id) => id,
                    None => {
                        count += 1;
                        by_name.insert(name.as_slice(), count)?;
                        by_id.insert(count, name.as_slice())?;
                        count
                    }
                };
                ids.push(id);
            }
        }
        txn.commit()?;
        Ok(ids)
    }

    /// Deletes objects `oops` (and the chunks of those stored in chunks) in one durable
    /// transaction.
    pub fn delete(&self, oops: &[Oop]) -> Result<(), StoreError> {
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        {
            let mut objects = txn.open_table(OBJECTS)?;
            let mut chunks = txn.open_table(CHUNKS)?;
            for &oop in oops {
                let chunked = objects.remove(oop)?.is_some_and(|v| v.value().first() == Some(&CHUNKED));
                if chunked {
                    chunks.retain_in((oop, 0)..=(oop, u32::MAX), |_, _| false)?;
                }
            }
        }
        txn.commit()?;
        Ok(())
    }

    /// Makes every write before it durable, and clears the mark of commits pending in the
    /// transaction log (it holds none the object table has not got on disk now).
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        let mut txn = self.db.begin_write()?;
        txn.set_two_phase_commit(true);
        txn.open_table(META)?.insert("pending", 0)?;
        txn.commit()?;
        Ok(())
    }

    /// Writes `records` (replacing any earlier versions) and `meta` in one transaction.
    pub fn write<'a>(
        &self,
        records: impl IntoIterator<Item = &'a ObjectRecord>,
        meta: Meta,
        durability: Durability,
    ) -> Result<(), WriteError> {
        let refused = |e: StoreError| WriteError::Refused(e);
        let mut txn = self.db.begin_write().map_err(|e| refused(e.into()))?;
        match durability {
            Durability::AtCheckpoint => txn
                .set_durability(redb::Durability::None)
                .map_err(|e| refused(StoreError::Storage(format!("cannot defer a write to the checkpoint: {e}"))))?,
            Durability::Now => txn.set_two_phase_commit(true),
        }
        Repository::fill(&txn, records, meta).map_err(refused)?;
        // A commit that fails may have been applied all the same (redb says so).
        txn.commit().map_err(|e| WriteError::Unsettled(e.into()))
    }

    fn fill<'a>(
        txn: &redb::WriteTransaction,
        records: impl IntoIterator<Item = &'a ObjectRecord>,
        meta: Meta,
    ) -> Result<(), StoreError> {
        let mut objects = txn.open_table(OBJECTS)?;
        let mut chunks = txn.open_table(CHUNKS)?;
        for r in records {
            let old_chunked = objects.get(r.oop)?.is_some_and(|v| v.value().first() == Some(&CHUNKED));
            if old_chunked {
                chunks.retain_in((r.oop, 0)..=(r.oop, u32::MAX), |_, _| false)?;
            }
            let data = r.encode();
            if data.len() <= CHUNK {
                objects.insert(r.oop, seal(&[r.oop], data).as_slice())?;
            } else {
                let (header, contents) = data.split_at(HEADER);
                let mut head = header.to_vec();
                head[0] = CHUNKED;
                objects.insert(r.oop, seal(&[r.oop], head).as_slice())?;
                for (i, piece) in contents.chunks(CHUNK).enumerate() {
                    chunks.insert((r.oop, i as u32), seal(&[r.oop, i as u64], piece.to_vec()).as_slice())?;
                }
            }
        }
        let mut m = txn.open_table(META)?;
        m.insert("oop_high", meta.oop_high)?;
        m.insert("commit_seq", meta.commit_seq)?;
        Ok(())
    }
}

/// Opens a repository file with redb's integrity check (every page's checksum verified, so a
/// damaged file is refused rather than read), as an error of its kind.
fn open_checked(path: &Path) -> Result<Database, StoreError> {
    let shown = path.display();
    let mut builder = Database::builder();
    builder.set_check_integrity_on_open(true);
    // redb promises errors, not panics, for a damaged file opened so; a panic all the same is
    // damage to report, not a reason to stop the process.
    let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder.open(path)));
    match opened {
        Ok(Ok(db)) => Ok(db),
        Ok(Err(redb::DatabaseError::Storage(redb::StorageError::Corrupted(why)))) => {
            Err(StoreError::Corrupt(format!("{shown} fails its integrity check: {why}")))
        }
        Ok(Err(redb::DatabaseError::Storage(redb::StorageError::Io(e))))
            if e.kind() != std::io::ErrorKind::InvalidData =>
        {
            Err(StoreError::Storage(format!("cannot read {shown}: {e}")))
        }
        Ok(Err(e)) => Err(StoreError::NotARepository(format!("{shown} is not an Onyx repository: {e}"))),
        Err(_) => Err(StoreError::Corrupt(format!("{shown} could not be read: its pages are damaged"))),
    }
}

/// Object log entry `id` as stored, checked.
fn log_entry(id: u64, stored: &[u8]) -> Result<LogEntry, StoreError> {
    let what = || format!("object log entry {id}");
    let data = unseal(&[id], stored, what)?;
    LogEntry::decode(&data)
        .filter(|e| e.id == id)
        .ok_or_else(|| StoreError::Corrupt(format!("object log entry {id} does not decode")))
}

/// `data` followed by the CRC-32 of `ids` (the OOP, and a chunk's number) and `data`.
fn seal(ids: &[u64], mut data: Vec<u8>) -> Vec<u8> {
    let mut crc = crc32fast::Hasher::new();
    for id in ids {
        crc.update(&id.to_le_bytes());
    }
    crc.update(&data);
    data.extend_from_slice(&crc.finalize().to_le_bytes());
    data
}

/// What [`seal`] sealed, checked; `what` names it in the error of a failed check.
fn unseal(ids: &[u64], stored: &[u8], what: impl FnOnce() -> String) -> Result<Vec<u8>, StoreError> {
    let (data, sum) = stored.split_at(stored.len().saturating_sub(SEAL));
    let mut crc = crc32fast::Hasher::new();
    for id in ids {
        crc.update(&id.to_le_bytes());
    }
    crc.update(data);
    if sum.len() != SEAL || crc.finalize().to_le_bytes() != sum {
        return Err(StoreError::Corrupt(format!("{} fails its checksum", what())));
    }
    Ok(data.to_vec())
}

/// The fixed part of a chunked object's stored header, and its contents' word and byte counts.
fn chunked_head(oop: Oop, mut stored: Vec<u8>) -> Result<(ObjectRecord, usize, usize), StoreError> {
    if stored.len() != HEADER {
        return Err(StoreError::Corrupt(format!("object {oop}: a chunked header of bad size")));
    }
    stored[0] = VERSION;
    Ok(ObjectRecord::decode_head(oop, &stored)?)
}

/// A transaction log left in a folder where a new repository is made belongs to an older
/// one: it goes.
fn remove_stale_log(dir: &Path) -> Result<(), StoreError> {
    match std::fs::remove_file(dir.join(crate::tranlog::LOG_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(StoreError::Storage(format!("cannot remove the old transaction log in {}: {e}", dir.display())))
        }
        _ => Ok(()),
    }
}

/// A new repository's identity: random enough that two repositories never share one.
fn new_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.write_u32(std::process::id());
    h.finish().max(1)
}

/// A write that failed.
#[derive(Debug)]
pub enum WriteError {
    /// Nothing of it was written.
    Refused(StoreError),
    /// Its transaction failed to commit, and may have been applied or not.
    Unsettled(StoreError),
}

impl From<WriteError> for StoreError {
    fn from(e: WriteError) -> StoreError {
        match e {
            WriteError::Refused(e) | WriteError::Unsettled(e) => e,
        }
    }
}

/// The object table of a snapshot, opened once.
pub struct Objects {
    table: redb::ReadOnlyTable<u64, &'static [u8]>,
}

impl Objects {
    /// Whether object `oop` exists.
    pub fn contains(&self, oop: Oop) -> Result<bool, StoreError> {
        Ok(self.table.get(oop)?.is_some())
    }
}

/// A consistent read-only view of the repository as of one commit.
pub struct Snapshot {
    txn: ReadTransaction,
}

impl Snapshot {
    /// The bookkeeping as of this snapshot.
    pub fn meta(&self) -> Result<Meta, StoreError> {
        let meta = self.txn.open_table(META)?;
        let get = |key: &str| -> Result<u64, StoreError> {
            meta.get(key)?.map(|v| v.value()).ok_or_else(|| StoreError::Corrupt(format!("no {key} mark")))
        };
        Ok(Meta { oop_high: get("oop_high")?, commit_seq: get("commit_seq")? })
    }

    /// Every object's OOP.
    pub fn oops(&self) -> Result<Vec<Oop>, StoreError> {
        let objects = self.txn.open_table(OBJECTS)?;
        let mut out = Vec::new();
        for entry in objects.iter()? {
            out.push(entry?.0.value());
        }
        Ok(out)
    }

    /// Whether object `oop` exists.
    pub fn contains(&self, oop: Oop) -> Result<bool, StoreError> {
        self.objects()?.contains(oop)
    }

    /// The object table, for many existence checks in a row.
    pub fn objects(&self) -> Result<Objects, StoreError> {
        Ok(Objects { table: self.txn.open_table(OBJECTS)? })
    }

    /// Every chunk's object and number, in order.
    pub fn chunk_keys(&self) -> Result<Vec<(Oop, u32)>, StoreError> {
        let chunks = self.txn.open_table(CHUNKS)?;
        let mut out = Vec::new();
        for entry in chunks.iter()? {
            out.push(entry?.0.value());
        }
        Ok(out)
    }

    /// Object `oop`, whole, or `None` if there is no such object.
    pub fn get(&self, oop: Oop) -> Result<Option<ObjectRecord>, StoreError> {
        let Some(mut whole) = self.stored(oop)? else { return Ok(None) };
        if whole.first() != Some(&CHUNKED) {
            return Ok(Some(ObjectRecord::decode(oop, &whole)?));
        }
        whole[0] = VERSION;
        let chunks = self.txn.open_table(CHUNKS)?;
        for (expected, piece) in (0u32..).zip(chunks.range((oop, 0)..=(oop, u32::MAX))?) {
            let (key, v) = piece?;
            let index = key.value().1;
            if index != expected {
                return Err(StoreError::Corrupt(format!("object {oop} has no chunk {expected}")));
            }
            whole.extend(unseal(&[oop, u64::from(index)], v.value(), || format!("chunk {index} of object {oop}"))?);
        }
        Ok(Some(ObjectRecord::decode(oop, &whole)?))
    }

    /// What the object table holds for `oop`: an encoded record, or the header of one
    /// stored in chunks (first byte [`CHUNKED`]).
    fn stored(&self, oop: Oop) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(v) = self.txn.open_table(OBJECTS)?.get(oop)? else { return Ok(None) };
        Ok(Some(unseal(&[oop], v.value(), || format!("the record of object {oop}"))?))
    }

    /// The id of symbol `name`, if it has been interned.
    pub fn symbol_id(&self, name: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(self.txn.open_table(SYMBOL_IDS)?.get(name)?.map(|v| v.value()))
    }

    /// The name of the symbol with id `id`, if there is one.
    pub fn symbol_name(&self, id: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.txn.open_table(SYMBOL_NAMES)?.get(id)?.map(|v| v.value().to_vec()))
    }

    /// Object `oop` as a fetch sends it: whole, or, when it is stored in chunks, only its
    /// header (see [`onyx_record::CHUNKED_HEADER`]).
    pub fn get_for_fetch(&self, oop: Oop) -> Result<Option<ObjectRecord>, StoreError> {
        let Some(stored) = self.stored(oop)? else { return Ok(None) };
        if stored.first() != Some(&CHUNKED) {
            return Ok(Some(ObjectRecord::decode(oop, &stored)?));
        }
        let (mut record, nwords, nbytes) = chunked_head(oop, stored)?;
        record.kind |= CHUNKED_HEADER;
        record.bytes = [(nwords as u64).to_le_bytes(), (nbytes as u64).to_le_bytes()].concat();
        Ok(Some(record))
    }

    /// Object `oop`'s class, kind, hash, named slot count and policy, without its contents.
    pub fn head(&self, oop: Oop) -> Result<Option<ObjectRecord>, StoreError> {
        let Some(stored) = self.stored(oop)? else { return Ok(None) };
        if stored.first() != Some(&CHUNKED) {
            return Ok(Some(ObjectRecord::decode_head(oop, &stored)?.0));
        }
        Ok(Some(chunked_head(oop, stored)?.0))
    }

    /// Chunk `index` of a chunked object's contents (its slot words, 8 bytes each, then its
    /// bytes), or `None` if the object is not chunked or has no such chunk.
    pub fn chunk(&self, oop: Oop, index: u32) -> Result<Option<Vec<u8>>, StoreError> {
        let chunks = self.txn.open_table(CHUNKS)?;
        let Some(v) = chunks.get((oop, index))? else { return Ok(None) };
        Ok(Some(unseal(&[oop, u64::from(index)], v.value(), || format!("chunk {index} of object {oop}"))?))
    }
}
