//! Fault injection: a repository as a crash left it (commits checkpointed into the object
//! table, and later ones only in the transaction log), damaged in one way per case (a byte
//! flipped or the file cut short, in either file, or the log removed), over many seeds. Each
//! case must end one of three ways: the stone refuses to start with an error, or every
//! acknowledged commit reads back exactly, or reading an object fails with an error that
//! says it is damaged. Never a wrong value, a missing object, or a panic. `onyx verify`'s
//! check must agree: a repository it finds sound reads back exactly.

use std::collections::BTreeMap;
use std::path::Path;

use onyx_record::word::ref_word;
use onyx_record::{CHUNK, CommitOutcome, ObjectRecord, Oop, ROOT};
use onyx_store::{Stone, StoreError, repo, tranlog, verify};

const USER: &str = "tester";
const PASSWORD: &str = "secret";

/// A stone over a new repository in `dir`, with the user the tests log in as.
fn created(dir: &std::path::Path) -> Result<Stone, StoreError> {
    let stone = Stone::create(dir)?;
    stone.add_user(None, USER, PASSWORD, true, None)?;
    Ok(stone)
}

/// Cases per run; each is a fresh copy of the crash image, damaged once.
const CASES: u64 = 240;

fn ok<T>(r: Result<T, StoreError>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn int(n: u64) -> u64 {
    (n << 3) | 1
}

/// The words a committed object holds: its own number and the round that wrote it.
fn slots(oop: Oop, class: Oop, round: u64) -> ObjectRecord {
    let words = (0..16).map(|i| int(oop * 1000 + round * 16 + i)).collect();
    ObjectRecord { oop, class, kind: 0, hash: 1, named: 0, policy: 0, words, bytes: Vec::new() }
}

/// A string large enough to be stored in chunks.
fn text(oop: Oop, class: Oop, round: u64) -> ObjectRecord {
    let bytes = (0..CHUNK * 2 + 100).map(|i| (i as u64 * 7 + round) as u8).collect();
    ObjectRecord { oop, class, kind: 1, hash: 1, named: 0, policy: 0, words: Vec::new(), bytes }
}

/// The image of a crash: 60 objects and 20 rounds of commits checkpointed (a clean stop),
/// then 12 more only in the log, the files copied as they are on disk while the stone still
/// runs (or, not `crash`, as the stone left them when it stopped). Answers what every
/// acknowledged commit left, by object.
fn crash_image(dir: &Path, crash: bool) -> BTreeMap<Oop, ObjectRecord> {
    let mut expected = BTreeMap::new();
    let stone = ok(created(dir));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    let r = ok(stone.allocate(s, 61));
    let class = r.start;
    let objects: Vec<Oop> = (r.start + 1..r.end).collect();
    let mut root = vec![ref_word(class)];
    root.extend(objects.iter().map(|&o| ref_word(o)));
    let mut first = vec![
        ObjectRecord { oop: ROOT, class, kind: 0, hash: 1, named: 0, policy: 0, words: root, bytes: Vec::new() },
        ObjectRecord { oop: class, class, kind: 0, hash: 1, named: 0, policy: 0, words: Vec::new(), bytes: Vec::new() },
    ];
    let version =
        |oop: Oop, round: u64| if oop == objects[0] { text(oop, class, round) } else { slots(oop, class, round) };
    first.extend(objects.iter().map(|&o| version(o, 0)));
    commit(&stone, s, first, &mut expected);
    let mut round = 1;
    // The checkpointed rounds write the first 20 objects, the logged ones the first 5: most
    // objects are only in the object table, and the last versions of a few only in the log.
    let mut go = |stone: &Stone, s: u64, rounds: u64, spread: usize, expected: &mut BTreeMap<Oop, ObjectRecord>| {
        for _ in 0..rounds {
            let oop = objects[(round as usize) % spread];
            commit(stone, s, vec![version(oop, round)], expected);
            round += 1;
        }
    };
    go(&stone, s, 20, 20, &mut expected);
    drop(stone);
    let stone = ok(Stone::open(dir));
    let (s, _) = ok(stone.login(USER, PASSWORD));
    go(&stone, s, 12, 5, &mut expected);
    if !crash {
        return expected;
    }
    // Copied while the stone runs, between commits: what a kill would leave.
    for file in [repo::FILE, tranlog::LOG_FILE] {
        let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join(format!("{file}.image")), bytes).unwrap_or_else(|e| panic!("{e}"));
    }
    drop(stone);
    for file in [repo::FILE, tranlog::LOG_FILE] {
        std::fs::rename(dir.join(format!("{file}.image")), dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
    }
    expected
}

fn commit(stone: &Stone, s: u64, records: Vec<ObjectRecord>, expected: &mut BTreeMap<Oop, ObjectRecord>) {
    let kept = records.clone();
    assert!(matches!(ok(stone.commit(s, records)), CommitOutcome::Committed(_)));
    expected.extend(kept.into_iter().map(|r| (r.oop, r)));
}

/// A small deterministic generator (xorshift), so that a failing seed can be run again.
struct Seeds(u64);

impl Seeds {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The damage one case does.
#[derive(Debug)]
enum Damage {
    Flip { file: &'static str, at: u64, bit: u8 },
    Cut { file: &'static str, len: u64 },
    RemoveLog,
}

impl Damage {
    /// A flip in one of the places where `record` is stored in the repository file (most of
    /// the file is free space and stale pages, where a flip does no harm).
    fn in_record(seeds: &mut Seeds, dir: &Path, record: &ObjectRecord) -> Option<Damage> {
        let bytes = std::fs::read(dir.join(repo::FILE)).ok()?;
        let encoded = record.encode();
        let places: Vec<usize> =
            bytes.windows(encoded.len()).enumerate().filter(|(_, w)| *w == encoded).map(|(i, _)| i).collect();
        let place = *places.get(seeds.below(places.len() as u64) as usize)?;
        let at = (place + seeds.below(encoded.len() as u64) as usize) as u64;
        Some(Damage::Flip { file: repo::FILE, at, bit: 1 << seeds.below(8) })
    }

    fn pick(seeds: &mut Seeds, dir: &Path, expected: &BTreeMap<Oop, ObjectRecord>) -> Damage {
        if seeds.below(4) == 0 {
            let small: Vec<&ObjectRecord> = expected.values().filter(|r| r.encoded_len() < CHUNK).collect();
            let record = small[seeds.below(small.len() as u64) as usize];
            if let Some(damage) = Damage::in_record(seeds, dir, record) {
                return damage;
            }
        }
        let len = |file: &str| std::fs::metadata(dir.join(file)).map_or(0, |m| m.len());
        // The log's records lie near its start; most of it is zeroes past them.
        let log_used = 4096 + 64 * 1024 * 14;
        let file = if seeds.below(2) == 0 { repo::FILE } else { tranlog::LOG_FILE };
        let span = if file == repo::FILE { len(file) } else { log_used.min(len(file)) };
        match seeds.below(10) {
            0..=6 => Damage::Flip { file, at: seeds.below(span), bit: 1 << seeds.below(8) },
            7 | 8 => Damage::Cut { file, len: seeds.below(span) },
            _ => Damage::RemoveLog,
        }
    }

    fn apply(&self, dir: &Path) {
        use std::os::unix::fs::FileExt;
        let open = |file: &str| {
            std::fs::OpenOptions::new().read(true).write(true).open(dir.join(file)).unwrap_or_else(|e| panic!("{e}"))
        };
        match *self {
            Damage::Flip { file, at, bit } => {
                let f = open(file);
                let mut byte = [0u8];
                f.read_exact_at(&mut byte, at).unwrap_or_else(|e| panic!("{e}"));
                f.write_all_at(&[byte[0] ^ bit], at).unwrap_or_else(|e| panic!("{e}"));
            }
            Damage::Cut { file, len } => open(file).set_len(len).unwrap_or_else(|e| panic!("{e}")),
            Damage::RemoveLog => std::fs::remove_file(dir.join(tranlog::LOG_FILE)).unwrap_or_else(|e| panic!("{e}")),
        }
    }
}

/// How a case ended.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// The stone would not start.
    Refused,
    /// Reading an object said it is damaged.
    DetectedOnRead,
    /// Everything acknowledged read back exactly.
    Recovered,
}

/// Opens the damaged copy and reads back everything acknowledged; panics on wrong data.
fn run(dir: &Path, expected: &BTreeMap<Oop, ObjectRecord>, case: &str) -> Outcome {
    let sound = verify::verify(dir).map(|r| r.is_sound()).unwrap_or(false);
    let stone = match Stone::open(dir) {
        Ok(stone) => stone,
        Err(e) => {
            assert!(!sound, "{case}: verify found sound a repository the stone refuses: {e}");
            return Outcome::Refused;
        }
    };
    let (s, _) = ok(stone.login(USER, PASSWORD));
    for (&oop, want) in expected {
        let got = match stone.fetch(s, &[oop], &[], 0) {
            Ok(records) => records.into_iter().next(),
            Err(StoreError::Corrupt(_)) => {
                assert!(!sound, "{case}: verify found sound a repository whose object {oop} is damaged");
                return Outcome::DetectedOnRead;
            }
            Err(e) => panic!("{case}: reading object {oop} failed with {e:?}, not as damage"),
        };
        let Some(got) = got else { panic!("{case}: acknowledged object {oop} is missing, and nothing said so") };
        let got = if got.chunked_sizes().is_some() {
            let mut bytes = Vec::new();
            for i in 0.. {
                match stone.fetch_chunk(s, oop, i) {
                    Ok(piece) => bytes.extend(piece),
                    Err(StoreError::Invalid(_)) => break,
                    Err(StoreError::Corrupt(_)) => return Outcome::DetectedOnRead,
                    Err(e) => panic!("{case}: chunk {i} of object {oop}: {e:?}"),
                }
            }
            ObjectRecord { kind: got.kind & !onyx_record::CHUNKED_HEADER, bytes, ..got }
        } else {
            got
        };
        assert_eq!(&got, want, "{case}: object {oop} reads back wrong");
    }
    Outcome::Recovered
}

#[test]
fn damaged_files_are_refused_or_detected_and_never_read_as_wrong_data() {
    let images = [tempfile::tempdir(), tempfile::tempdir()].map(|d| d.unwrap_or_else(|e| panic!("{e}")));
    let expected = [crash_image(images[0].path(), true), crash_image(images[1].path(), false)];
    // The undamaged images recover every acknowledged commit, including those only logged.
    for (image, expected) in images.iter().zip(&expected) {
        let whole = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        copy(image.path(), whole.path());
        assert!(ok(verify::verify(whole.path())).is_sound());
        assert_eq!(run(whole.path(), expected, "undamaged"), Outcome::Recovered);
    }
    let mut seeds = Seeds(0x9e37_79b9_7f4a_7c15);
    let mut tally: BTreeMap<Outcome, u64> = BTreeMap::new();
    for case in 0..CASES {
        let (image, expected) = (&images[case as usize % 2], &expected[case as usize % 2]);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        copy(image.path(), dir.path());
        let damage = Damage::pick(&mut seeds, dir.path(), expected);
        damage.apply(dir.path());
        let outcome = run(dir.path(), expected, &format!("case {case} ({damage:?})"));
        *tally.entry(outcome).or_default() += 1;
    }
    println!("{CASES} cases: {tally:?}");
    assert!(tally.get(&Outcome::Refused).is_some_and(|&n| n > 0), "no damage was ever refused: {tally:?}");
}

#[test]
fn a_log_cut_at_any_point_after_its_last_record_is_refused_or_loses_nothing() {
    let image = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let expected = crash_image(image.path(), true);
    let log_len = std::fs::metadata(image.path().join(tranlog::LOG_FILE)).map_or(0, |m| m.len());
    for len in [0, 100, 4096, 4100, 70_000, log_len / 2, log_len - 1] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        copy(image.path(), dir.path());
        Damage::Cut { file: tranlog::LOG_FILE, len }.apply(dir.path());
        run(dir.path(), &expected, &format!("log cut to {len} bytes"));
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    copy(image.path(), dir.path());
    Damage::RemoveLog.apply(dir.path());
    let refused = Stone::open(dir.path()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(refused.contains("is missing") && refused.contains("--recover-truncating"), "{refused}");
    // Asked to, the stone goes on without the logged commits, and says what it gave up.
    let stone = ok(Stone::open_with(dir.path(), tranlog::Recovery::Truncate));
    assert!(stone.recovery_loss().is_some_and(|l| l.contains("lost")));
}

fn copy(from: &Path, to: &Path) {
    for file in [repo::FILE, tranlog::LOG_FILE] {
        std::fs::copy(from.join(file), to.join(file)).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn verify_refuses_the_log_headers_the_stone_refuses() {
    let image = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    crash_image(image.path(), false);
    // The magic, the format and the repository's id, each a byte flipped.
    for at in [0, 8, 12, 17, 23] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        copy(image.path(), dir.path());
        Damage::Flip { file: tranlog::LOG_FILE, at, bit: 1 }.apply(dir.path());
        let report = ok(verify::verify(dir.path()));
        assert!(!report.is_sound(), "byte {at}: verify found the log sound");
        assert!(Stone::open(dir.path()).is_err(), "byte {at}: the stone started");
    }
}
