//! `onyx bench breakpoints`: what a breakpoint costs the code it is in. A method is called a
//! million times in a loop with no breakpoint, with a disabled one, with one whose condition
//! is false (so every call evaluates the condition in the frame and goes on), and with a log
//! point taken every 1000th hit; each figure is the median of the runs, in calls per second,
//! beside the loop without a breakpoint in the same run.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow};
use onyx_server_agent::Setup;
use onyx_vm::{BreakpointSpec, Hits, Position, Vm};

/// Calls per measurement.
const CALLS: u64 = 1_000_000;

/// The method the loop calls; its breakpoint is at line 2.
const METHOD: &str = "tick: i\n\t^ i + 1";

/// Runs each measurement `runs` times and prints their medians.
pub fn run(setup: &Setup, runs: usize) -> Result<ExitCode> {
    let mut vm = setup.boot().context("the kernel did not load")?;
    vm.evaluate("Object subclass: #BreakpointBench instanceVariableNames: '' classVariableNames: '' package: 'Bench'")
        .map_err(|e| anyhow!("{e}"))?;
    vm.evaluate(&format!("BreakpointBench compile: '{METHOD}'")).map_err(|e| anyhow!("{e}"))?;
    let class = vm.global("BreakpointBench").ok_or_else(|| anyhow!("no BreakpointBench"))?;
    let selector = vm.intern("tick:");
    let spec = |condition: Option<&str>, log: Option<&str>, hits, enabled| BreakpointSpec {
        id: 1,
        class,
        selector,
        at: Position::Line(2),
        condition: condition.map(str::to_string),
        log: log.map(str::to_string),
        hits,
        once: false,
        enabled,
        process: None,
    };
    let cases: [(&str, Option<BreakpointSpec>); 4] = [
        ("no breakpoint", None),
        ("a disabled breakpoint", Some(spec(None, None, Hits::All, false))),
        ("a breakpoint whose condition is false", Some(spec(Some("i < 0"), None, Hits::All, true))),
        ("a log point taken every 1000th hit", Some(spec(None, Some("i"), Hits::Every(1000), true))),
    ];
    // Once first, so every case finds the loop's code warm (compiled to native code).
    time_loop(&mut vm)?;
    let mut plain = None;
    for (name, spec) in cases {
        match spec {
            Some(spec) => {
                vm.set_breakpoint(spec).map_err(|e| anyhow!("{e}"))?;
            }
            None => {
                vm.remove_breakpoint(1);
            }
        }
        let times: Result<Vec<Duration>> = (0..runs.max(1)).map(|_| time_loop(&mut vm)).collect();
        let t = median(times?);
        vm.take_transcript();
        let rate = CALLS as f64 / t.as_secs_f64();
        let base = *plain.get_or_insert(rate);
        println!(
            "{name}: {CALLS} calls in {:.1} ms => {:.0} calls/sec ({:.3} of the loop without one)",
            t.as_secs_f64() * 1e3,
            rate,
            rate / base
        );
    }
    vm.remove_breakpoint(1);
    Ok(ExitCode::SUCCESS)
}

/// One run of the loop, timed.
fn time_loop(vm: &mut Vm) -> Result<Duration> {
    let code = format!("| b | b := BreakpointBench new. 1 to: {CALLS} do: [:i | b tick: i]. nil");
    let started = Instant::now();
    vm.evaluate(&code).map_err(|e| anyhow!("{e}"))?;
    Ok(started.elapsed())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}
