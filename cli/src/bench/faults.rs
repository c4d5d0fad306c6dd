//! `onyx bench faults`: how fast a gem faults in a persistent structure it walks. One session
//! commits a linked list of N small objects; a fresh gem, whose login brings in only what
//! lies near the root, walks it; the time and the round trips to the stone are reported.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Result, anyhow};
use onyx_server_agent::Setup;
use onyx_vm::{Vm, VmConfig};

use crate::local::login;

fn run_doit(vm: &mut Vm, code: &str) -> Result<String> {
    let v = vm.evaluate(code).map_err(|e| anyhow!("{e}"))?;
    vm.print_string(v).map_err(|e| anyhow!("{e}"))
}

/// Runs the fault benchmark.
pub fn run(setup: &Setup, addr: &str, objects: u64) -> Result<ExitCode> {
    let key = format!("FaultBench{}", std::process::id());
    let mut maker = login(setup.config, addr)?;
    let made = run_doit(
        &mut maker,
        &format!(
            "| list | list := nil. 1 to: {objects} do: [:i | list := Array with: i with: list]. \
             UserGlobals at: #{key} put: list. System commitTransaction"
        ),
    )?;
    if made != "true" {
        return Err(anyhow!("the list could not be committed"));
    }
    drop(maker);
    // A gem that brings in only what lies near the root at login.
    let config = VmConfig { login_budget: 64 << 10, ..setup.config };
    let mut walker = login(config, addr)?;
    let before = walker.store_stats().unwrap_or_default();
    let start = Instant::now();
    let count = run_doit(
        &mut walker,
        &format!(
            "| n node | n := 0. node := UserGlobals at: #{key}. [node notNil] whileTrue: [n := n + 1. node := node at: 2]. n"
        ),
    )?;
    let elapsed = start.elapsed().as_secs_f64();
    let after = walker.store_stats().unwrap_or_default();
    let trips = after.fetches - before.fetches;
    let loaded = after.objects_loaded - before.objects_loaded;
    println!(
        "faults: walked {count} objects in {:.0} ms ({:.0} objects/s); {trips} round trips, {:.0} objects per round trip",
        elapsed * 1000.0,
        objects as f64 / elapsed,
        loaded as f64 / trips.max(1) as f64
    );
    run_doit(
        &mut walker,
        &format!("System abortTransaction. UserGlobals removeKey: #{key}. System commitTransaction"),
    )?;
    Ok(ExitCode::SUCCESS)
}
