//! The stone's transaction semantics, in one process: views, commits, conflicts, the
//! write-set union handed out on abort, locks, validation of commits, group commit, large
//! objects, and reopening a repository.

use std::sync::Arc;

use onyx_record::word::{ref_word, symbol_word};
use onyx_record::{CHUNK, CommitOutcome, LockKind, ObjectRecord, Oop, ROOT};
use onyx_store::repo::{Meta, Repository};
use onyx_store::tranlog::{Recovery, TranLog};
use onyx_store::{Stone, StoreError};

const USER: &str = "tester";
const PASSWORD: &str = "secret";

/// A stone over a new repository in `dir`, with the user the tests log in as.
fn created(dir: &std::path::Path) -> Result<Stone, StoreError> {
    let stone = Stone::create(dir)?;
    stone.add_user(None, USER, PASSWORD, true, None)?;
    Ok(stone)
}

const SMALL_INT: u64 = 0b001;

fn int(n: u64) -> u64 {
    (n << 3) | SMALL_INT
}

fn record(oop: Oop, class: Oop, words: Vec<u64>) -> ObjectRecord {
    ObjectRecord { oop, class, kind: 0, hash: oop as u32, named: 0, policy: 0, words, bytes: Vec::new() }
}

/// A repository whose root holds one counter object (answered with its class's OOP).
fn repository() -> (tempfile::TempDir, Stone, Oop, Oop) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stone = created(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let (s, _) = stone.login(USER, PASSWORD).unwrap_or_else(|e| panic!("{e}"));
    let r = stone.allocate(s, 2).unwrap_or_else(|e| panic!("{e}"));
    let (class, counter) = (r.start, r.start + 1);
    let records = vec![
        record(ROOT, class, vec![ref_word(counter)]),
        record(class, class, vec![]),
        record(counter, class, vec![int(0)]),
    ];
    assert!(matches!(stone.commit(s, records), Ok(CommitOutcome::Committed(_))));
    stone.logout(s);
    (dir, stone, class, counter)
}

fn ok<T>(r: Result<T, StoreError>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn value_of(stone: &Stone, s: u64, oop: Oop) -> u64 {
    ok(stone.fetch(s, &[oop], &[], 0))[0].words[0] >> 3
}

#[test]
fn a_commit_is_seen_by_views_taken_after_it_and_not_before() {
    let (_dir, stone, class, counter) = repository();
    let (a, _) = ok(stone.login(USER, PASSWORD));
    let (b, _) = ok(stone.login(USER, PASSWORD));
    let outcome = ok(stone.commit(a, vec![record(counter, class, vec![int(5)])]));
    assert!(matches!(outcome, CommitOutcome::Committed(_)));
    assert_eq!(value_of(&stone, a, counter), 5, "the committer's new view shows its commit");
    assert_eq!(value_of(&stone, b, counter), 0, "an older view does not");
    let change = ok(stone.abort(b));
    assert_eq!(change.changed, vec![counter], "abort hands out what others changed");
    assert_eq!(value_of(&stone, b, counter), 5);
}

#[test]
fn the_second_of_two_commits_to_one_object_conflicts_until_it_aborts() {
    let (_dir, stone, class, counter) = repository();
    let (a, _) = ok(stone.login(USER, PASSWORD));
    let (b, _) = ok(stone.login(USER, PASSWORD));
    assert!(matches!(ok(stone.commit(a, vec![record(counter, class, vec![int(1)])])), CommitOutcome::Committed(_)));
    let outcome = ok(stone.commit(b, vec![record(counter, class, vec![int(2)])]));
    assert_eq!(outcome, CommitOutcome::Conflict(vec![counter]));
    assert_eq!(value_of(&stone, a, counter), 1, "the conflicting commit changed nothing");
    ok(stone.abort(b));
    assert!(matches!(ok(stone.commit(b, vec![record(counter, class, vec![int(2)])])), CommitOutcome::Committed(_)));
}

#[test]
fn concurrent_sessions_incrementing_with_retry_lose_no_update() {
    let (_dir, stone, class, counter) = repository();
    let stone = Arc::new(stone);
    let (sessions, increments) = (8, 25);
    let threads: Vec<_> = (0..sessions)
        .map(|_| {
            let stone = Arc::clone(&stone);
            std::thread::spawn(move || {
                let (s, _) = ok(stone.login(USER, PASSWORD));
                let mut conflicts = 0;
                for _ in 0..increments {
                    loop {
                        let v = value_of(&stone, s, counter);
                        match ok(stone.commit(s, vec![record(counter, class, vec![int(v + 1)])])) {
                            CommitOutcome::Committed(_) => break,
                            CommitOutcome::Conflict(_) => {
                                conflicts += 1;
                                ok(stone.abort(s));
                            }
                        }
                    }
                }
                stone.logout(s);
                conflicts
            })
        })
        .collect();
    for t in threads {
        assert!(t.join().is_ok());
    }
    let (s, _) = ok(stone.login(USER, PASSWORD));
    assert_eq!(value_of(&stone, s, counter), sessions * increments);
}

#[test]
fn commits_that_name_unknown_or_dangling_objects_are_refused_and_change_nothing() {
    let (_dir, stone, class, counter) = repository();
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let before = ok(stone.last_commit());
    let unknown = stone.commit(s, vec![record(1_000_000, class, vec![])]);
    assert!(matches!(unknown, Err(StoreError::Invalid(ref m)) if m.contains("does not exist")), "{unknown:?}");
    let dangling = stone.commit(s, vec![record(counter, class, vec![ref_word(999_999)])]);
    assert!(matches!(dangling, Err(StoreError::Invalid(m)) if m.contains("refers to")));
    let twice = stone.commit(s, vec![record(counter, class, vec![]), record(counter, class, vec![])]);
    assert!(matches!(twice, Err(StoreError::Invalid(_))));
    assert!(matches!(stone.commit(12345, vec![]), Err(StoreError::NoSession(12345))));
    assert_eq!(ok(stone.last_commit()), before);
    assert_eq!(value_of(&stone, s, counter), 0);
    assert!(ok(stone.fetch(s, &[987_654], &[], 0)).is_empty(), "no such object, no record");
}

#[test]
fn records_that_are_no_object_are_refused_at_commit_and_change_nothing() {
    let (_dir, stone, class, counter) = repository();
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let before = ok(stone.last_commit());
    let shaped = |kind: u8, words: Vec<u64>, bytes: Vec<u8>| ObjectRecord {
        kind,
        words,
        bytes,
        ..record(counter, class, vec![])
    };
    let huge = [(1u64 << 40).to_le_bytes(), 0u64.to_le_bytes()].concat();
    let hostile = [
        ("a chunked header claiming 2^40 slots", shaped(0x80, vec![], huge)),
        ("a 3-byte Float", shaped(2, vec![], vec![1, 2, 3])),
        ("an unknown kind", shaped(9, vec![], vec![])),
        ("an odd-length dictionary", shaped(5, vec![int(1)], vec![])),
        ("a method without its three words", shaped(4, vec![int(1)], b"foo ^1".to_vec())),
        ("a method whose source is not UTF-8", shaped(4, vec![ref_word(class), int(1), int(2)], vec![0xff])),
        ("a slot word that is no value", shaped(0, vec![0b111], vec![])),
        ("more named slots than slots", ObjectRecord { named: 4, ..record(counter, class, vec![int(1)]) }),
    ];
    for (what, r) in hostile {
        let refused = stone.commit(s, vec![r]);
        assert!(matches!(&refused, Err(StoreError::Invalid(m)) if m.contains("malformed")), "{what}: {refused:?}");
    }
    assert_eq!(ok(stone.last_commit()), before);
    assert_eq!(value_of(&stone, s, counter), 0);
}

#[test]
fn locks_are_per_session_and_released_at_commit_and_abort() {
    let (_dir, stone, class, counter) = repository();
    let (a, _) = ok(stone.login(USER, PASSWORD));
    let (b, _) = ok(stone.login(USER, PASSWORD));
    ok(stone.lock(a, counter, LockKind::Write));
    assert!(
        matches!(stone.lock(b, counter, LockKind::Write), Err(StoreError::LockDenied { holder, .. }) if holder == a)
    );
    assert!(matches!(stone.lock(b, counter, LockKind::Read), Err(StoreError::LockDenied { .. })));
    ok(stone.abort(a));
    ok(stone.lock(b, counter, LockKind::Read));
    // A read lock keeps others from committing changes to the object.
    let outcome = ok(stone.commit(a, vec![record(counter, class, vec![int(7)])]));
    assert_eq!(outcome, CommitOutcome::Conflict(vec![counter]));
    assert!(matches!(ok(stone.commit(b, vec![])), CommitOutcome::Committed(_)));
    ok(stone.abort(a));
    assert!(matches!(ok(stone.commit(a, vec![record(counter, class, vec![int(7)])])), CommitOutcome::Committed(_)));
}

#[test]
fn traversals_follow_references_up_to_their_budget() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stone = ok(created(dir.path()));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let n = 1000u64;
    let r = ok(stone.allocate(s, n + 1));
    let class = r.start;
    // A linked list: root -> 1 -> 2 -> ... -> n.
    let node = |i: u64| r.start + i;
    let mut records = vec![record(ROOT, class, vec![ref_word(node(1))]), record(class, class, vec![])];
    for i in 1..=n {
        let next = if i < n { ref_word(node(i + 1)) } else { 0b011 };
        records.push(record(node(i), class, vec![int(i), next]));
    }
    assert!(matches!(ok(stone.commit(s, records)), CommitOutcome::Committed(_)));
    let all = ok(stone.fetch(s, &[ROOT], &[], usize::MAX));
    assert_eq!(all.len() as u64, n + 1, "the root and every node (classes are not followed)");
    let some = ok(stone.fetch(s, &[ROOT], &[], 1000));
    assert!(some.len() > 2 && (some.len() as u64) < n, "{} records for a 1000-byte budget", some.len());
    assert_eq!(ok(stone.fetch(s, &[node(500)], &[], 0)).len(), 1, "what was asked for comes even past the budget");
    // Objects nearby come after what the asked-for objects refer to, within the budget.
    let near = ok(stone.fetch(s, &[node(10)], &[node(700), node(900)], 100));
    let oops: Vec<Oop> = near.iter().map(|r| r.oop).collect();
    assert_eq!(oops[..3], [node(10), node(11), node(700)], "{oops:?}");
    assert!(!oops.contains(&node(900)), "past the budget: {oops:?}");
}

#[test]
fn large_objects_are_stored_in_chunks_readable_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stone = ok(created(dir.path()));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let r = ok(stone.allocate(s, 2));
    let (class, big) = (r.start, r.start + 1);
    let words: Vec<u64> = (0..1_000_000).map(int).collect();
    let records =
        vec![record(ROOT, class, vec![ref_word(big)]), record(class, class, vec![]), record(big, class, words.clone())];
    assert!(matches!(ok(stone.commit(s, records)), CommitOutcome::Committed(_)));
    drop(stone);
    let repo = ok(Repository::open(dir.path()));
    let snap = ok(repo.snapshot());
    let whole = ok(snap.get(big)).unwrap_or_else(|| panic!("no big object"));
    assert_eq!(whole.words, words);
    // Element 500,000 lives in chunk 500,000 * 8 / CHUNK, which alone holds it.
    let i = 500_000usize;
    let chunk = ok(snap.chunk(big, (i * 8 / CHUNK) as u32)).unwrap_or_else(|| panic!("no chunk"));
    let at = i * 8 % CHUNK;
    let word = u64::from_le_bytes(chunk[at..at + 8].try_into().unwrap_or_default());
    assert_eq!(word, int(i as u64));
    assert!(chunk.len() <= CHUNK);
}

#[test]
fn a_reopened_repository_holds_every_commit_and_hands_out_fresh_oops() {
    let (dir, stone, class, counter) = repository();
    let (s, _) = ok(stone.login(USER, PASSWORD));
    assert!(matches!(ok(stone.commit(s, vec![record(counter, class, vec![int(42)])])), CommitOutcome::Committed(_)));
    drop(stone);
    let stone = ok(Stone::open(dir.path()));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    assert_eq!(value_of(&stone, s, counter), 42);
    let fresh = ok(stone.allocate(s, 10));
    assert!(fresh.start > counter, "fresh OOPs never collide with committed objects");
}

#[test]
fn commits_the_log_holds_beyond_the_last_checkpoint_are_replayed_at_open() {
    let (dir, stone, class, counter) = repository();
    drop(stone);
    // A crash right after a commit's log sync: the log holds it, the object table does not.
    let repo = ok(Repository::open(dir.path()));
    let (durable, id) = (ok(repo.snapshot().and_then(|s| s.meta())), ok(repo.id()));
    assert!(!ok(repo.log_pending()), "a stone that stopped cleanly leaves nothing to replay");
    // As the committer does before the first record after a checkpoint.
    ok(repo.mark_log_pending());
    drop(repo);
    let (mut log, recovered) = ok(TranLog::open(dir.path(), id, durable.commit_seq, true, Recovery::Strict));
    assert!(recovered.batches.is_empty());
    let meta = Meta { oop_high: durable.oop_high + 5, commit_seq: durable.commit_seq + 1 };
    let logged = ok(log.append(durable.commit_seq, meta, &[record(counter, class, vec![int(17)])]));
    assert!(logged.is_some());
    drop(log);
    let stone = ok(Stone::open(dir.path()));
    let (s, view) = ok(stone.login(USER, PASSWORD));
    assert_eq!(view, durable.commit_seq + 1);
    assert_eq!(value_of(&stone, s, counter), 17);
    assert!(ok(stone.allocate(s, 1)).start >= meta.oop_high, "the logged high-water mark is kept");
    // Replayed once: reopened again, nothing is applied twice and later commits go on.
    assert!(matches!(ok(stone.commit(s, vec![record(counter, class, vec![int(18)])])), CommitOutcome::Committed(_)));
    drop(stone);
    let stone = ok(Stone::open(dir.path()));
    let (s, view) = ok(stone.login(USER, PASSWORD));
    assert_eq!((view, value_of(&stone, s, counter)), (durable.commit_seq + 2, 18));
}

#[test]
fn a_log_is_only_replayed_into_its_own_repository() {
    let (dir, stone, class, counter) = repository();
    let (s, _) = ok(stone.login(USER, PASSWORD));
    assert!(matches!(ok(stone.commit(s, vec![record(counter, class, vec![int(5)])])), CommitOutcome::Committed(_)));
    drop(stone);
    let log = dir.path().join(onyx_store::tranlog::LOG_FILE);
    let kept = std::fs::read(&log).unwrap_or_else(|e| panic!("{e}"));
    // A new repository made where the old one was drops the old log instead of replaying it.
    std::fs::remove_file(dir.path().join(onyx_store::repo::FILE)).unwrap_or_else(|e| panic!("{e}"));
    drop(repository_in(dir.path()));
    let stone = ok(Stone::open(dir.path()));
    let (s, view) = ok(stone.login(USER, PASSWORD));
    assert_eq!(view, 1, "only the new repository's own commit");
    assert!(ok(stone.fetch(s, &[counter], &[], 0)).is_empty());
    drop(stone);
    // Another repository's log beside it is refused, not replayed.
    std::fs::write(&log, kept).unwrap_or_else(|e| panic!("{e}"));
    let refused = Stone::open(dir.path());
    assert!(
        matches!(&refused, Err(StoreError::NotARepository(m)) if m.contains("another repository")),
        "{:?}",
        refused.err()
    );
}

#[test]
fn a_log_whose_making_was_cut_short_is_made_again() {
    let (dir, stone, _, counter) = repository();
    drop(stone);
    let log = dir.path().join(onyx_store::tranlog::LOG_FILE);
    std::fs::write(&log, vec![0u8; 100]).unwrap_or_else(|e| panic!("{e}"));
    let stone = ok(Stone::open(dir.path()));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    assert_eq!(value_of(&stone, s, counter), 0);
}

#[test]
fn opening_what_is_not_a_repository_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(Stone::open(dir.path()), Err(StoreError::NotFound(_))));
    std::fs::write(dir.path().join(onyx_store::repo::FILE), b"not a database at all, just some bytes")
        .unwrap_or_else(|e| panic!("{e}"));
    let foreign = Stone::open(dir.path());
    assert!(matches!(foreign, Err(StoreError::NotARepository(_))), "{:?}", foreign.err());
    // A truncated repository.
    let good = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    drop(repository_in(good.path()));
    let file = good.path().join(onyx_store::repo::FILE);
    let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&file, &bytes[..bytes.len() / 3]).unwrap_or_else(|e| panic!("{e}"));
    let truncated = Stone::open(good.path());
    assert!(truncated.is_err(), "a truncated file opened");
}

fn repository_in(dir: &std::path::Path) -> Stone {
    let stone = ok(created(dir));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let r = ok(stone.allocate(s, 1));
    let records = vec![record(ROOT, r.start, vec![]), record(r.start, r.start, vec![])];
    assert!(matches!(ok(stone.commit(s, records)), CommitOutcome::Committed(_)));
    stone
}

#[test]
fn the_stone_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Stone>();
}

#[test]
fn symbols_are_interned_once_by_name_and_commits_may_only_name_known_ones() {
    let (dir, stone, class, counter) = repository();
    let names: Vec<Vec<u8>> = vec![b"foo".to_vec(), b"bar:baz:".to_vec()];
    let ids = ok(stone.intern(&names));
    assert_eq!(ok(stone.intern(&[b"bar:baz:".to_vec(), b"foo".to_vec()])), vec![ids[1], ids[0]]);
    let stone = Arc::new(stone);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let stone = Arc::clone(&stone);
            std::thread::spawn(move || ok(stone.intern(&[b"shared".to_vec()]))[0])
        })
        .collect();
    let shared: Vec<u64> = threads.into_iter().map(|t| t.join().unwrap_or_default()).collect();
    assert!(shared.iter().all(|&id| id == shared[0] && id != 0), "{shared:?}");
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let named = record(counter, class, vec![symbol_word(ids[0])]);
    assert!(matches!(ok(stone.commit(s, vec![named])), CommitOutcome::Committed(_)));
    let bogus = record(counter, class, vec![symbol_word(9999)]);
    assert!(matches!(stone.commit(s, vec![bogus]), Err(StoreError::Invalid(_))));
    drop(stone);
    let stone = ok(Stone::open(dir.path()));
    assert_eq!(ok(stone.symbol_names(&ids)), names);
    assert_eq!(ok(stone.intern(&[b"foo".to_vec()])), vec![ids[0]]);
}

#[test]
fn garbage_no_view_can_reach_is_reclaimed_and_churn_stops_growing_the_repository() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stone = ok(created(dir.path()));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let class = ok(stone.allocate(s, 1)).start;
    assert!(matches!(
        ok(stone.commit(s, vec![record(ROOT, class, vec![]), record(class, class, vec![])])),
        CommitOutcome::Committed(_)
    ));
    // Each round replaces the root's contents with 300 new objects of 400 bytes.
    let round = |stone: &Stone| -> Vec<Oop> {
        let r = ok(stone.allocate(s, 300));
        let mut records: Vec<ObjectRecord> = r.clone().map(|oop| record(oop, class, vec![int(oop); 50])).collect();
        records.push(record(ROOT, class, r.clone().map(ref_word).collect()));
        assert!(matches!(ok(stone.commit(s, records)), CommitOutcome::Committed(_)));
        r.collect()
    };
    let first = round(&stone);
    // A session whose view still reaches the first round keeps it alive.
    let (old, _) = ok(stone.login(USER, PASSWORD));
    round(&stone);
    let report = ok(stone.collect_garbage());
    assert_eq!(report.reclaimed, 0, "the old view still reaches the first round");
    assert!(ok(stone.fetch(old, &[first[0]], &[], 0)).len() == 1);
    stone.logout(old);
    let report = ok(stone.collect_garbage());
    assert_eq!(report.reclaimed, 300, "{report:?}");
    ok(stone.abort(s));
    assert!(ok(stone.fetch(s, &[first[0]], &[], 0)).is_empty(), "a reclaimed object is gone from new views");
    let size = || std::fs::metadata(dir.path().join(onyx_store::repo::FILE)).map(|m| m.len()).unwrap_or(0);
    let mut sizes = Vec::new();
    for i in 0..60 {
        let live = round(&stone);
        if i % 5 == 4 {
            ok(stone.collect_garbage());
            assert_eq!(ok(stone.fetch(s, &[live[299]], &[], 0)).len(), 1, "live objects stay");
            sizes.push(size());
        }
    }
    let (early, late) = (sizes[3], sizes[sizes.len() - 1]);
    assert!(late <= early + early / 4, "the repository kept growing under churn: {sizes:?}");
}

#[test]
fn what_an_object_kept_by_an_old_view_refers_to_now_is_kept_too() {
    // root -> P -> G; a session keeps view 1; another makes G refer to a new K and drops P's
    // reference to G. G lives on through the old view, and may be committed again as it is
    // now: K must survive the collection.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stone = ok(created(dir.path()));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let r = ok(stone.allocate(s, 4));
    let (class, p, g, k) = (r.start, r.start + 1, r.start + 2, r.start + 3);
    let first = vec![
        record(ROOT, class, vec![ref_word(p)]),
        record(class, class, vec![]),
        record(p, class, vec![ref_word(g)]),
        record(g, class, vec![int(0)]),
    ];
    assert!(matches!(ok(stone.commit(s, first)), CommitOutcome::Committed(_)));
    let (old, _) = ok(stone.login(USER, PASSWORD));
    let second = vec![record(g, class, vec![ref_word(k)]), record(k, class, vec![]), record(p, class, vec![0b011])];
    assert!(matches!(ok(stone.commit(s, second)), CommitOutcome::Committed(_)));
    ok(stone.collect_garbage());
    assert_eq!(ok(stone.fetch(s, &[k], &[], 0)).len(), 1, "K, which G refers to now, was kept");
    stone.logout(old);
    let report = ok(stone.collect_garbage());
    assert_eq!(report.reclaimed, 2, "once no view reaches G, G and K go");
}

#[test]
fn bad_chunk_and_symbol_requests_are_clear_errors() {
    let (_dir, stone, _class, counter) = repository();
    let (s, _) = ok(stone.login(USER, PASSWORD));
    assert!(matches!(stone.fetch_chunk(s, counter, 0), Err(StoreError::Invalid(_))), "not a chunked object");
    assert!(matches!(stone.fetch_chunk(s, 999_999, 3), Err(StoreError::Invalid(_))));
    assert!(matches!(stone.fetch_chunk(777, counter, 0), Err(StoreError::NoSession(777))));
    assert!(matches!(stone.intern(&[vec![b'x'; 100_000]]), Err(StoreError::Invalid(_))));
    assert!(matches!(stone.symbol_names(&[424_242]), Err(StoreError::Invalid(_))));
    assert!(matches!(stone.allocate(s, 0), Err(StoreError::Invalid(_))));
    assert!(matches!(stone.allocate(s, u64::MAX), Err(StoreError::Invalid(_))));
}
