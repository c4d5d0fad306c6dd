//! `onyx init` and `onyx stone` as real processes, driven by gem sessions over gRPC on
//! 127.0.0.1: commits and conflicts across sessions, the write-set union on abort, locks
//! (and their release when a gem goes away), bad requests, and a clean stop on SIGTERM.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use onyx_record::word::ref_word;
use onyx_record::{CommitOutcome, LockKind, ObjectRecord, Oop, ROOT, StoneError, StoneLink as _};
use onyx_server_agent::stone_client::StoneSession;

/// A running `onyx stone`, stopped with SIGTERM when dropped.
pub struct StoneProcess {
    child: Child,
    pub addr: String,
}

impl StoneProcess {
    /// Creates a repository in `dir` and serves it on a free port.
    pub fn start(dir: &Path) -> StoneProcess {
        let init = Command::new(onyx_tests::onyx()).arg("init").arg(dir).output().expect("onyx init runs");
        assert!(init.status.success(), "onyx init: {}", String::from_utf8_lossy(&init.stderr));
        StoneProcess::serve(dir)
    }

    /// Serves the repository in `dir` on a free port.
    pub fn serve(dir: &Path) -> StoneProcess {
        StoneProcess::serve_at(dir, "127.0.0.1:0")
    }

    /// Serves the repository in `dir` at `addr` (a stone started again where it was).
    pub fn serve_at(dir: &Path, addr: &str) -> StoneProcess {
        let mut child = Command::new(onyx_tests::onyx())
            .args(["stone", &dir.display().to_string(), "--listen", addr])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("onyx stone starts");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout is piped");
        BufReader::new(stdout).read_line(&mut line).expect("the stone prints its address");
        let addr = line.trim().rsplit(' ').next().unwrap_or_default().to_string();
        assert!(addr.starts_with("127.0.0.1:"), "unexpected first line: {line:?}");
        StoneProcess { child, addr }
    }

    /// The stone's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the stone with SIGKILL (no chance to finish anything) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM and waits; answers whether the stone exited successfully in time.
    pub fn stop(mut self) -> bool {
        terminate(&self.child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

fn terminate(child: &Child) {
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
}

impl Drop for StoneProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A session of the stone at `addr` as DataCurator (who may change code).
pub(crate) fn connect(addr: &str) -> Result<StoneSession, StoneError> {
    StoneSession::connect(addr, "DataCurator", "swordfish")
}

pub(crate) fn int(n: u64) -> u64 {
    (n << 3) | 1
}

pub(crate) fn record(oop: Oop, class: Oop, words: Vec<u64>) -> ObjectRecord {
    ObjectRecord { oop, class, kind: 0, hash: 7, named: 0, policy: 0, words, bytes: Vec::new() }
}

/// Commits a root holding a counter; answers (class, counter).
pub(crate) fn seed(stone: &StoneProcess) -> (Oop, Oop) {
    let mut s = connect(&stone.addr).expect("a session");
    let r = s.allocate(2).expect("OOPs");
    let (class, counter) = (r.start, r.start + 1);
    let records = [
        record(ROOT, class, vec![ref_word(counter)]),
        record(class, class, vec![]),
        record(counter, class, vec![int(0)]),
    ];
    assert!(matches!(s.commit(&records), Ok(CommitOutcome::Committed(_))));
    (class, counter)
}

fn counter_value(s: &mut StoneSession, counter: Oop) -> u64 {
    s.fetch(&[counter], &[], 0).expect("fetch")[0].words[0] >> 3
}

#[test]
fn gems_commit_conflict_and_see_each_others_work_through_the_stone() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    let (class, counter) = seed(&stone);
    let mut a = connect(&stone.addr).expect("session a");
    let mut b = connect(&stone.addr).expect("session b");
    assert_ne!(a.session(), b.session());
    assert!(matches!(a.commit(&[record(counter, class, vec![int(1)])]), Ok(CommitOutcome::Committed(_))));
    let second = b.commit(&[record(counter, class, vec![int(2)])]).expect("an answer");
    assert_eq!(second, CommitOutcome::Conflict(vec![counter]));
    let view = b.abort().expect("abort");
    assert_eq!(view.changed, vec![counter]);
    assert_eq!(counter_value(&mut b, counter), 1);
    assert!(matches!(b.commit(&[record(counter, class, vec![int(2)])]), Ok(CommitOutcome::Committed(_))));
    assert!(stone.stop(), "the stone stops cleanly on SIGTERM");
}

#[test]
fn locks_hold_across_sessions_until_the_holder_aborts_or_goes_away() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    let (_class, counter) = seed(&stone);
    let mut a = connect(&stone.addr).expect("session a");
    let mut b = connect(&stone.addr).expect("session b");
    a.lock(counter, LockKind::Write).expect("a locks");
    let denied = b.lock(counter, LockKind::Write).expect_err("b is denied");
    assert!(matches!(denied, StoneError::LockDenied { .. }), "{denied:?}");
    assert!(denied.to_string().contains("denied"), "{denied}");
    a.abort().expect("abort");
    b.lock(counter, LockKind::Write).expect("released at abort");
    drop(b);
    // The stone ends a session whose gem went away, and with it its locks.
    let deadline = Instant::now() + Duration::from_secs(5);
    while a.lock(counter, LockKind::Write).is_err() {
        assert!(Instant::now() < deadline, "the lock of a dropped session was never released");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn bad_requests_get_clear_errors_and_the_stone_stays_up() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    let (class, counter) = seed(&stone);
    let mut s = connect(&stone.addr).expect("a session");
    let unknown = s.commit(&[record(123_456_789, class, vec![])]).expect_err("unknown OOP");
    assert!(matches!(unknown, StoneError::Invalid(_)), "{unknown:?}");
    assert!(unknown.to_string().contains("123456789"), "{unknown}");
    let malformed = ObjectRecord { named: 5, ..record(counter, class, vec![]) };
    let err = s.commit(&[malformed]).expect_err("more named slots than slots");
    assert!(matches!(err, StoneError::Invalid(_)), "{err:?}");
    let missing = s.fetch(&[987_654_321], &[], 0).expect("an answer");
    assert!(missing.is_empty(), "no such object, no record");
    assert_eq!(counter_value(&mut s, counter), 0, "nothing changed");
    // Object log reports past their bounds are refused, and nothing is written.
    use onyx_record::log::{MAX_LOG_FRAMES, MAX_LOG_TEXT};
    use onyx_record::{LogEntry, LogFrame};
    let long = LogEntry { error: "e".repeat(MAX_LOG_TEXT + 1), ..LogEntry::default() };
    let deep = LogEntry { frames: vec![LogFrame::default(); MAX_LOG_FRAMES + 1], ..LogEntry::default() };
    for bad in [long, deep] {
        let err = s.log_failure(&bad).expect_err("past the bounds");
        assert!(matches!(err, StoneError::Invalid(_)), "{err:?}");
    }
    assert_eq!(s.object_log(0, u32::MAX).expect("the log").1, 0, "nothing written");
    assert_eq!(s.object_log_entry(u64::MAX).expect("an answer"), None);
    assert!(connect(&stone.addr).is_ok(), "the stone still serves");
}

#[test]
fn a_stone_refuses_what_is_not_a_repository() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = Command::new(onyx_tests::onyx()).args(["stone", &dir.path().display().to_string()]).output();
    let out = out.expect("onyx stone runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a repository"));
    let again = Command::new(onyx_tests::onyx()).arg("init").arg(dir.path()).output().expect("init runs");
    assert!(again.status.success());
    let twice = Command::new(onyx_tests::onyx()).arg("init").arg(dir.path()).output().expect("init runs");
    assert!(!twice.status.success(), "init does not overwrite a repository");
}

#[test]
fn a_request_the_stone_cannot_read_fails_alone_and_the_session_goes_on() {
    use onyx_protocol::stone::{self as pb, reply::Answer, request::Op, stone_client::StoneClient};
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    let (_, counter) = seed(&stone);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let mut client = StoneClient::connect(format!("http://{}", stone.addr)).await.expect("a connection");
        let (requests, outgoing) = tokio::sync::mpsc::channel(4);
        let login = pb::Login { user: "DataCurator".into(), password: "swordfish".into() };
        requests.send(pb::Request { op: Some(Op::Login(login)) }).await.expect("the login is sent");
        let mut replies = client
            .session(tokio_stream::wrappers::ReceiverStream::new(outgoing))
            .await
            .expect("a session")
            .into_inner();
        let mut next = async || replies.message().await.expect("a reply").and_then(|r| r.answer).expect("an answer");
        assert!(matches!(next().await, Answer::Opened(_)));
        // A request with nothing in it, then requests sent before any reply is read: each gets
        // its own answer, in order.
        for op in [
            None,
            Some(Op::Allocate(pb::AllocateRequest { count: 0 })),
            Some(Op::Fetch(pb::FetchRequest { oops: vec![counter], nearby: vec![], budget: 0 })),
        ] {
            requests.send(pb::Request { op }).await.expect("the stream is open");
        }
        match next().await {
            Answer::Failure(f) => {
                assert_eq!(tonic::Code::from(f.code), tonic::Code::InvalidArgument);
                assert!(f.message.contains("empty request"), "{}", f.message);
            }
            other => panic!("expected a failure, got {other:?}"),
        }
        assert!(matches!(next().await, Answer::Failure(f) if f.message.contains("allocate")));
        assert!(matches!(next().await, Answer::Objects(o) if o.objects.len() == 1 && o.objects[0].oop == counter));
    });
    assert!(connect(&stone.addr).is_ok(), "the stone still serves");
}
