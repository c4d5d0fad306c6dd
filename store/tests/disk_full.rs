//! A full disk: when the repository file cannot grow, a commit fails with a clear error, the
//! stone goes on serving, and the repository keeps every commit before it and nothing of it.

use std::fs::OpenOptions;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use onyx_record::word::ref_word;
use onyx_record::{CommitOutcome, ObjectRecord, ROOT};
use onyx_store::repo::{FILE, Repository};
use onyx_store::{Stone, StoreError};
use redb::StorageBackend;
use redb::backends::FileBackend;

/// A file that cannot grow past `limit` bytes, as on a full disk.
#[derive(Debug)]
struct LimitedFile {
    inner: FileBackend,
    limit: Arc<AtomicU64>,
}

fn no_space() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device")
}

impl StorageBackend for LimitedFile {
    fn len(&self) -> Result<u64, std::io::Error> {
        self.inner.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), std::io::Error> {
        self.inner.read(offset, out)
    }
    fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
        if len > self.limit.load(Ordering::SeqCst) {
            return Err(no_space());
        }
        self.inner.set_len(len)
    }
    fn sync_data(&self) -> Result<(), std::io::Error> {
        self.inner.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
        if offset + data.len() as u64 > self.limit.load(Ordering::SeqCst) {
            return Err(no_space());
        }
        self.inner.write(offset, data)
    }
}

fn record(oop: u64, class: u64, words: Vec<u64>) -> ObjectRecord {
    ObjectRecord { oop, class, kind: 0, hash: 1, named: 0, policy: 0, words, bytes: Vec::new() }
}

#[test]
fn a_commit_on_a_full_disk_fails_clearly_and_loses_nothing_committed_before() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join(FILE);
    let file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path);
    let inner = FileBackend::new(file.unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"));
    let limit = Arc::new(AtomicU64::new(u64::MAX));
    let backend = LimitedFile { inner, limit: Arc::clone(&limit) };
    let repo = Repository::create_with_backend(&path, backend).unwrap_or_else(|e| panic!("{e}"));
    let stone = Stone::serve(repo, onyx_store::tranlog::Recovery::Strict).unwrap_or_else(|e| panic!("{e}"));
    stone.add_user(None, "tester", "secret", true, None).unwrap_or_else(|e| panic!("{e}"));
    let (s, _) = stone.login("tester", "secret").unwrap_or_else(|e| panic!("{e}"));
    let r = stone.allocate(s, 3).unwrap_or_else(|e| panic!("{e}"));
    let (class, counter, big) = (r.start, r.start + 1, r.start + 2);
    let seed = vec![
        record(ROOT, class, vec![ref_word(counter)]),
        record(class, class, vec![]),
        record(counter, class, vec![9]),
    ];
    assert!(matches!(stone.commit(s, seed), Ok(CommitOutcome::Committed(_))));

    // The disk is full: the file may not grow by a byte.
    limit.store(std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), Ordering::SeqCst);
    let huge = record(big, class, vec![1; 4 << 20]);
    let failed = stone.commit(s, vec![huge, record(counter, class, vec![17])]);
    match &failed {
        Err(StoreError::Storage(message)) => assert!(message.contains("space"), "{message}"),
        other => panic!("expected a storage error, got {other:?}"),
    }
    // The stone goes on: sessions log in, read, abort; nothing panicked.
    let (t, _) = stone.login("tester", "secret").unwrap_or_else(|e| panic!("{e}"));
    let counter_now = stone.fetch(t, &[counter], &[], 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counter_now[0].words, vec![9], "the failed commit is not visible");
    assert!(stone.abort(s).is_ok());
    let later = stone.commit(s, vec![record(counter, class, vec![25])]);
    assert!(later.is_ok() || matches!(later, Err(StoreError::Storage(_))), "{later:?}");
    drop(stone);

    // Reopened (space freed), the repository holds what was committed before the disk filled.
    let stone = Stone::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let (u, _) = stone.login("tester", "secret").unwrap_or_else(|e| panic!("{e}"));
    let value = stone.fetch(u, &[counter], &[], 0).unwrap_or_else(|e| panic!("{e}"))[0].words.clone();
    assert!(value == vec![9] || value == vec![25], "{value:?}");
    assert!(
        stone.fetch(u, &[big], &[], 0).unwrap_or_else(|e| panic!("{e}")).is_empty(),
        "nothing of the failed commit was kept"
    );
    assert!(matches!(stone.commit(u, vec![record(counter, class, vec![33])]), Ok(CommitOutcome::Committed(_))));
}
