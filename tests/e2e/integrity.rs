//! What a stone trusts of what it reads: records that are no object refused at commit (and
//! harmless to a gem when they are on disk already); a transaction log with a flipped byte,
//! cut short or missing refused at start with a message (and `--recover-truncating` to go
//! on); flipped bytes in the repository file found by `onyx verify` and by the stone.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use onyx_record::shape::{FLOAT, METHOD};
use onyx_record::{CHUNKED_HEADER, CommitOutcome, ObjectRecord, StoneError, StoneLink as _};
use onyx_store::repo::{Durability, Repository};
use onyx_store::tranlog::LOG_FILE;

use crate::stone::{StoneProcess, int, record, seed};

fn onyx() -> Command {
    let mut c = Command::new(onyx_tests::onyx());
    c.env_remove("ONYX_KERNEL");
    c
}

/// Runs `onyx ARGS`; answers whether it succeeded, its standard output and its standard error.
fn run(args: &[&str]) -> (bool, String, String) {
    let out = onyx().args(args).output().expect("onyx runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// `onyx stone DIR`, which must refuse to start: answers what it said on standard error.
fn refused_to_serve(dir: &Path) -> String {
    let mut child = onyx()
        .args(["stone", &dir.display().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onyx stone starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            let output = child.wait_with_output().expect("the stone ended");
            assert!(!output.status.success(), "the stone stopped, but successfully");
            return String::from_utf8_lossy(&output.stderr).to_string();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the stone served a damaged repository");
}

fn eval(stone: &StoneProcess, code: &str) -> (bool, String, String) {
    run(&["eval", "--stone", &stone.addr, code])
}

#[test]
fn records_that_are_no_object_are_refused_at_commit_and_the_stone_goes_on() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    let (class, counter) = seed(&stone);
    let mut s = crate::stone::connect(&stone.addr).expect("a session");
    let shaped = |kind: u8, words: Vec<u64>, bytes: Vec<u8>| ObjectRecord {
        kind,
        words,
        bytes,
        ..record(counter, class, vec![])
    };
    let hostile = [
        shaped(CHUNKED_HEADER, vec![], [(1u64 << 40).to_le_bytes(), 0u64.to_le_bytes()].concat()),
        shaped(FLOAT, vec![], vec![1, 2, 3]),
        shaped(12, vec![], vec![]),
        shaped(5, vec![int(1)], vec![]),
        shaped(METHOD, vec![int(1)], vec![]),
        shaped(0, vec![0b110], vec![]),
    ];
    for r in hostile {
        let refused = s.commit(std::slice::from_ref(&r)).expect_err("refused");
        assert!(matches!(&refused, StoneError::Invalid(m) if m.contains("malformed")), "{r:?}: {refused:?}");
    }
    assert!(matches!(s.commit(&[record(counter, class, vec![int(3)])]), Ok(CommitOutcome::Committed(_))));
    let mut other = crate::stone::connect(&stone.addr).expect("the stone still serves");
    assert_eq!(other.fetch(&[counter], &[], 0).expect("fetched")[0].words, vec![int(3)]);
}

#[test]
fn a_record_a_gem_cannot_use_already_on_disk_is_named_when_touched_and_harms_nothing_else() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let stone = StoneProcess::start(&repo);
    let (ok, _, err) = eval(&stone, "Smalltalk at: #Fragile put: 1.0e300. System commitTransaction");
    assert!(ok, "{err}");
    assert!(stone.stop());
    // The Float's record (a boxed one: its exponent is too large for an immediate float),
    // made three bytes long behind the stone's back.
    let r = Repository::open(&repo).expect("opens");
    let snap = r.snapshot().expect("a snapshot");
    let float = snap
        .oops()
        .expect("objects")
        .into_iter()
        .filter_map(|oop| snap.get(oop).ok().flatten())
        .find(|o| o.kind == FLOAT && o.bytes == 1.0e300f64.to_le_bytes())
        .expect("the Float");
    let meta = snap.meta().expect("meta");
    drop(snap);
    r.write([&ObjectRecord { bytes: vec![1, 2, 3], ..float.clone() }], meta, Durability::Now).expect("written");
    drop(r);
    let stone = StoneProcess::serve(&repo);
    let (ok, out, err) = eval(&stone, "3 + 4");
    assert!(ok && out.trim() == "7", "the gem logs in: {err}");
    let (ok, _, err) = eval(&stone, "(Smalltalk at: #Fragile) + 1");
    assert!(!ok && err.contains(&format!("object {}", float.oop)), "{err}");
}

/// A repository as a kill left it: commits in the transaction log the object table has not
/// got on disk.
fn killed_with_commits_in_the_log(repo: &Path) {
    let mut stone = StoneProcess::start(repo);
    let (class, counter) = seed(&stone);
    let mut s = crate::stone::connect(&stone.addr).expect("a session");
    for k in 1..=5 {
        assert!(matches!(s.commit(&[record(counter, class, vec![int(k)])]), Ok(CommitOutcome::Committed(_))));
    }
    stone.kill();
    assert!(Repository::open(repo).and_then(|r| r.log_pending()).expect("opens"), "commits are pending in the log");
}

#[test]
fn a_damaged_cut_or_missing_log_is_refused_with_a_message_and_truncating_is_explicit() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    killed_with_commits_in_the_log(&repo);
    let log = repo.join(LOG_FILE);
    let intact = std::fs::read(&log).expect("the log");
    // One byte of the first record flipped.
    let mut flipped = intact.clone();
    flipped[4096 + 40] ^= 0x04;
    std::fs::write(&log, &flipped).expect("written");
    let said = refused_to_serve(&repo);
    assert!(said.contains("byte 4096") && said.contains("--recover-truncating"), "{said}");
    // Cut short, and gone.
    std::fs::write(&log, &intact[..4096 + 20]).expect("written");
    assert!(refused_to_serve(&repo).contains("damaged"));
    std::fs::remove_file(&log).expect("removed");
    let said = refused_to_serve(&repo);
    assert!(said.contains("is missing"), "{said}");
    // Asked to, the stone goes on without what the log held.
    std::fs::write(&log, &flipped).expect("written");
    let mut child = onyx()
        .args(["stone", &repo.display().to_string(), "--recover-truncating"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onyx stone starts");
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().expect("piped")), &mut line)
        .expect("reads");
    let _ = child.kill();
    let output = child.wait_with_output().expect("ends");
    assert!(line.starts_with("stone listening on"), "{line}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("the log was cut there"));
}

#[test]
fn flipped_bytes_in_the_repository_file_are_found_by_verify_and_never_read_as_data() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let stone = StoneProcess::start(&repo);
    let text = "the quick brown fox jumps over the lazy dog, twice over";
    let (ok, _, err) = eval(&stone, &format!("Smalltalk at: #Text put: '{text}'. System commitTransaction"));
    assert!(ok, "{err}");
    assert!(stone.stop());
    let shown = repo.display().to_string();
    // What is not a repository is said so.
    let (ok, _, err) = run(&["verify", &dir.path().join("nothing").display().to_string()]);
    assert!(!ok && err.contains("not a repository"), "{err}");
    let (ok, out, _) = run(&["verify", &shown]);
    assert!(ok && out.contains("sound"), "{out}");
    // Every stored copy of the string gets one byte flipped (the live one among them).
    let file = repo.join(onyx_store::repo::FILE);
    let mut bytes = std::fs::read(&file).expect("the repository");
    let places: Vec<usize> =
        bytes.windows(text.len()).enumerate().filter(|(_, w)| *w == text.as_bytes()).map(|(i, _)| i).collect();
    assert!(!places.is_empty());
    for at in places {
        bytes[at + 4] ^= 0x20;
    }
    std::fs::write(&file, &bytes).expect("written");
    let (ok, out, err) = run(&["verify", &shown]);
    assert!(!ok && (out.contains("damaged") || err.contains("damaged") || err.contains("integrity")), "{out}{err}");
    let said = refused_to_serve(&repo);
    assert!(said.contains("integrity") || said.contains("checksum"), "{said}");
}

#[test]
fn verify_says_damaged_and_exits_1_for_every_log_header_the_stone_refuses() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let stone = StoneProcess::start(&repo);
    assert!(stone.stop());
    let log = repo.join(onyx_store::tranlog::LOG_FILE);
    let whole = std::fs::read(&log).expect("the log");
    for at in [0, 8, 17] {
        let mut bytes = whole.clone();
        bytes[at] ^= 1;
        std::fs::write(&log, &bytes).expect("written");
        let out = std::process::Command::new(onyx_tests::onyx())
            .args(["verify", &repo.display().to_string()])
            .output()
            .expect("onyx verify runs");
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "byte {at}: {said}{}", String::from_utf8_lossy(&out.stderr));
        assert!(said.contains("damaged") && said.contains("transaction log"), "byte {at}: {said}");
        let refused = refused_to_serve(&repo);
        assert!(refused.contains("transaction log"), "byte {at}: {refused}");
    }
    std::fs::write(&log, &whole).expect("written");
    assert!(StoneProcess::serve(&repo).stop(), "the whole log serves again");
}
