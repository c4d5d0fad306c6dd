//! Crash safety: a stone killed with `kill -9` during a commit storm from eight gem
//! processes restarts holding every acknowledged commit and no partial one, ten times over.
//!
//! Each storm gem (this test binary run again as a child, see [`storm_gem`]) owns two
//! objects and commits them together with the same counter, printing each acknowledged
//! count. After the kill and a restart both objects must hold the same count (no partial
//! commit), at least the last one acknowledged (no lost commit).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::Duration;

use onyx_record::{CommitOutcome, ObjectRecord, ROOT, StoneLink as _};

use crate::stone::StoneProcess;

const GEMS: usize = 8;
const ROUNDS: usize = 10;

fn pair(oop: u64, class: u64, k: u64) -> ObjectRecord {
    ObjectRecord { oop, class, kind: 0, hash: 1, named: 0, policy: 0, words: vec![(k << 3) | 1], bytes: Vec::new() }
}

/// The storm gem: runs only as the child the crash test starts (its environment names the
/// stone); elsewhere it passes at once.
#[test]
fn storm_gem() {
    let Ok(addr) = std::env::var("ONYX_STORM_STONE") else { return };
    let Ok(mut s) = crate::stone::connect(&addr) else { return };
    let Ok(oops) = s.allocate(2) else { return };
    let class = s.fetch(&[ROOT], &[], 0).ok().and_then(|r| r.first().map(|r| r.class)).unwrap_or(ROOT);
    let (a, b) = (oops.start, oops.start + 1);
    let mut out = std::io::stdout();
    let _ = writeln!(out, "objects {a} {b}");
    let _ = out.flush();
    for k in 0u64.. {
        match s.commit(&[pair(a, class, k), pair(b, class, k)]) {
            Ok(CommitOutcome::Committed(_)) => {
                let _ = writeln!(out, "ack {k}");
                let _ = out.flush();
            }
            _ => return,
        }
    }
}

struct Gem {
    objects: Option<(u64, u64)>,
    acked: Option<u64>,
}

#[test]
fn a_stone_killed_during_a_commit_storm_keeps_every_acknowledged_commit() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let mut stone = StoneProcess::start(&repo);
    for round in 0..ROUNDS {
        let children: Vec<_> = (0..GEMS)
            .map(|_| {
                Command::new(std::env::current_exe().expect("the test binary"))
                    .args(["crash::storm_gem", "--exact", "--nocapture", "--test-threads=1"])
                    .env("ONYX_STORM_STONE", &stone.addr)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("a storm gem starts")
            })
            .collect();
        let readers: Vec<_> = children
            .into_iter()
            .map(|mut child| {
                let stdout = child.stdout.take().expect("piped");
                std::thread::spawn(move || {
                    let mut gem = Gem { objects: None, acked: None };
                    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                        // The test harness may print on the same line first.
                        let words: Vec<&str> = line.split_whitespace().collect();
                        match words.iter().position(|w| *w == "objects" || *w == "ack").map(|i| &words[i..]) {
                            Some(["objects", a, b, ..]) => gem.objects = a.parse().ok().zip(b.parse().ok()),
                            Some(["ack", k, ..]) => gem.acked = k.parse().ok(),
                            _ => {}
                        }
                    }
                    let _ = child.wait();
                    gem
                })
            })
            .collect();
        // Let the storm run, then kill the stone in the middle of it.
        std::thread::sleep(Duration::from_millis(400 + 97 * round as u64));
        stone.kill();
        let gems: Vec<Gem> = readers.into_iter().map(|r| r.join().expect("a reader")).collect();
        assert!(gems.iter().any(|g| g.acked.is_some()), "round {round}: no commit was acknowledged");
        stone = StoneProcess::serve(&repo);
        let mut s = crate::stone::connect(&stone.addr).expect("the restarted stone serves");
        let mut seen: HashMap<u64, u64> = HashMap::new();
        for gem in gems.iter().filter(|g| g.objects.is_some()) {
            let (a, b) = gem.objects.unwrap_or_default();
            let Some(acked) = gem.acked else { continue };
            let records = s.fetch(&[a, b], &[], 0).expect("both objects of an acknowledged commit exist");
            let value = |oop: u64| records.iter().find(|r| r.oop == oop).map(|r| r.words[0] >> 3);
            let (va, vb) = (value(a), value(b));
            assert_eq!(va, vb, "round {round}: a partial commit ({a}: {va:?}, {b}: {vb:?})");
            let v = va.unwrap_or_default();
            assert!(v >= acked, "round {round}: acknowledged commit {acked} lost (found {v})");
            seen.insert(a, v);
        }
        assert!(!seen.is_empty());
    }
    assert!(stone.stop(), "the stone stops cleanly after the last round");
}
