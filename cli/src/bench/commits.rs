//! `onyx bench commits`: commit throughput of a running stone, measured beside the raw
//! speed of the disk in the same run (fdatasync/s of 4 KiB appends, sequential write
//! bandwidth), so that the figures can be read as ratios.
//!
//! Each gem is a session on its own connection and thread; it commits changes to its own
//! objects (so no commit conflicts) as fast as the stone acknowledges them.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use onyx_record::{CommitOutcome, ObjectRecord, ROOT, StoneLink as _};
use onyx_server_agent::stone_client::StoneSession;

/// What `onyx bench commits` measures.
pub struct CommitBench<'a> {
    pub stone: &'a str,
    pub gems: usize,
    pub objects: usize,
    /// Slot words per object (8 bytes each).
    pub words: usize,
    pub seconds: f64,
    /// Where the disk is measured (the filesystem of the repository).
    pub disk: &'a Path,
}

/// Runs the commit benchmark.
pub fn run(b: &CommitBench) -> Result<ExitCode> {
    let syncs = fdatasync_rate(b.disk, Duration::from_secs_f64(b.seconds.min(2.0)))?;
    let bandwidth = write_bandwidth(b.disk)?;
    let (commits, bytes) = commit_rate(b)?;
    println!(
        "commits: {} gems x {} objects of {} bytes: {commits:.0} commits/s, {:.1} MB/s of objects",
        b.gems,
        b.objects,
        8 * b.words + 26,
        bytes / 1e6
    );
    println!("disk: {syncs:.0} fdatasync/s (4 KiB appends), {:.0} MB/s sequential writes", bandwidth / 1e6);
    println!(
        "ratio: {:.2}x the raw fdatasync rate; objects at {:.0}% of the write bandwidth",
        commits / syncs,
        100.0 * bytes / bandwidth
    );
    Ok(ExitCode::SUCCESS)
}

/// Commits per second and object bytes per second over all gems.
fn commit_rate(b: &CommitBench) -> Result<(f64, f64)> {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let mut gems = Vec::new();
    for _ in 0..b.gems {
        let (user, password) = crate::client::credentials();
        let mut s = StoneSession::connect(b.stone, &user, &password)?;
        let class =
            s.fetch(&[ROOT], &[], 0)?.first().map(|r| r.class).ok_or_else(|| anyhow!("the repository has no root"))?;
        let oops = s.allocate(b.objects as u64)?;
        // In the user's policy, as a gem's new objects are: the stone checks it at every commit.
        let policy = s.user().default_policy;
        let mut records: Vec<ObjectRecord> = oops
            .map(|oop| ObjectRecord {
                oop,
                class,
                kind: 0,
                hash: 1,
                named: 0,
                policy,
                words: vec![1; b.words],
                bytes: Vec::new(),
            })
            .collect();
        expect_committed(s.commit(&records)?)?;
        let (stop, done) = (Arc::clone(&stop), Arc::clone(&done));
        gems.push(std::thread::spawn(move || -> Result<()> {
            let mut k = 0u64;
            while !stop.load(Ordering::Relaxed) {
                k += 1;
                for r in &mut records {
                    r.words[0] = (k << 3) | 1;
                }
                expect_committed(s.commit(&records)?)?;
                done.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        }));
    }
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(b.seconds));
    stop.store(true, Ordering::Relaxed);
    let committed = done.load(Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    for g in gems {
        g.join().map_err(|_| anyhow!("a gem thread failed"))??;
    }
    let per_commit = (b.objects * (8 * b.words + 26)) as f64;
    let rate = committed as f64 / elapsed;
    Ok((rate, rate * per_commit))
}

fn expect_committed(outcome: CommitOutcome) -> Result<()> {
    match outcome {
        CommitOutcome::Committed(_) => Ok(()),
        CommitOutcome::Conflict(oops) => Err(anyhow!("unexpected conflict on {oops:?}")),
    }
}

/// 4 KiB appends, each followed by fdatasync, per second.
fn fdatasync_rate(dir: &Path, for_how_long: Duration) -> Result<f64> {
    let path = dir.join(format!(".onyx-bench-sync-{}", std::process::id()));
    let mut f = OpenOptions::new().create(true).append(true).open(&path)?;
    let block = [0x5au8; 4096];
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < for_how_long {
        f.write_all(&block)?;
        f.sync_data()?;
        n += 1;
    }
    let rate = n as f64 / start.elapsed().as_secs_f64();
    drop(f);
    let _ = std::fs::remove_file(&path);
    Ok(rate)
}

/// Sequential write bandwidth: 64 MiB in 1 MiB writes, made durable.
fn write_bandwidth(dir: &Path) -> Result<f64> {
    let path = dir.join(format!(".onyx-bench-seq-{}", std::process::id()));
    let mut f = OpenOptions::new().create(true).write(true).truncate(true).open(&path)?;
    let block = vec![0xa5u8; 1 << 20];
    let start = Instant::now();
    for _ in 0..64 {
        f.write_all(&block)?;
    }
    f.sync_data()?;
    let rate = (64 << 20) as f64 / start.elapsed().as_secs_f64();
    drop(f);
    let _ = std::fs::remove_file(&path);
    Ok(rate)
}
