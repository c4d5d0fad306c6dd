//! `onyx bench logins`: how long the stone takes to refuse a login with a wrong password, for
//! a user it knows and for a name it does not, alternately over many tries in one run, so
//! that the two can be compared (they should take the same time, or a caller could tell
//! which names are users). The stone's own check, on a new repository in a temporary folder,
//! without the network or its throttle of repeated failures in the way.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use onyx_store::Stone;

/// Runs the login benchmark with `runs` tries of each kind.
pub fn run(runs: usize) -> Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("onyx-bench-logins-{}", std::process::id()));
    let result = measure(&dir, runs.max(1));
    let _ = std::fs::remove_dir_all(&dir);
    let (known, unknown) = result?;
    println!("refused login, known user:   median {:.2} ms", ms(known));
    println!("refused login, unknown name: median {:.2} ms", ms(unknown));
    println!("ratio: {:.2}x (unknown / known)", ms(unknown) / ms(known));
    Ok(ExitCode::SUCCESS)
}

fn measure(dir: &std::path::Path, runs: usize) -> Result<(Duration, Duration)> {
    let stone = Stone::create(dir)?;
    stone.add_user(None, "alice", "the right password", false, None)?;
    let (mut known, mut unknown) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for i in 0..runs {
        let time = |name: &str| {
            let started = Instant::now();
            let refused = stone.login(name, "a wrong password").is_err();
            (started.elapsed(), refused)
        };
        let (k, refused_k) = time("alice");
        let (u, refused_u) = time(&format!("nobody{i}"));
        anyhow::ensure!(refused_k && refused_u, "a wrong password was taken");
        known.push(k);
        unknown.push(u);
    }
    Ok((median(known), median(unknown)))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
