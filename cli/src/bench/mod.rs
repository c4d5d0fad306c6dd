//! `onyx bench`: the user-facing benchmarks. The VM's own are here, one line per figure (the
//! same measurements as the peer script the comparison in BENCHMARKS.md runs on Squeak, so the
//! two can be set side by side); `agent.rs`, `debugger.rs`, `commits.rs` and `faults.rs`
//! measure a running gem's agent, its debugger's operations, a stone's commits and a gem's
//! faults; `logins.rs`, how long a refused login
//! takes for a user and for a name that is none; `breakpoints.rs`, what a breakpoint costs the
//! method it is in; `spread.rs`, how long a breakpoint set through one gem takes to stop
//! another's process.

pub mod agent;
pub mod breakpoints;
pub mod commits;
pub mod debugger;
pub mod faults;
pub mod logins;
pub mod spread;

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use onyx_server_agent::Setup;

/// Each benchmark as a doit answering the line to print.
const BENCHMARKS: &[&str] = &[
    "'tinyBenchmarks: ', 0 tinyBenchmarks",
    "| t r | t := Time millisecondsToRun: [r := 30 benchFib]. \
     '30 benchFib: ', r printString, ' calls in ', t printString, ' ms => ', (r * 1000 // (t max: 1)) printString, ' sends/sec'",
    "| t r | t := Time microsecondsToRun: [r := 1000 factorial printString size]. \
     '1000 factorial printString: ', r printString, ' digits in ', (t / 1000.0) printString, ' ms'",
    "| n s1 s2 done t | n := 1000000. s1 := Semaphore new. s2 := Semaphore new. done := Semaphore new. \
     t := Time millisecondsToRun: [ \
        [1 to: n do: [:i | s1 wait. s2 signal]] fork. \
        [1 to: n do: [:i | s1 signal. s2 wait]. done signal] fork. \
        done wait]. \
     'semaphore ping-pong: ', n printString, ' round trips in ', t printString, ' ms => ', (2 * n * 1000 // (t max: 1)) printString, ' switches/sec'",
];

/// Runs each VM benchmark `runs` times.
pub fn run(setup: &Setup, runs: usize) -> Result<ExitCode> {
    let mut vm = setup.boot().context("the kernel did not load")?;
    for code in BENCHMARKS {
        for _ in 0..runs.max(1) {
            let line = vm.evaluate(code).map(|v| vm.string_of(v).unwrap_or_default());
            match line {
                Ok(text) => println!("{text}"),
                Err(e) => {
                    eprintln!("{e}");
                    return Ok(ExitCode::FAILURE);
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
