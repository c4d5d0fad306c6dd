//! Limits that hold: every evaluation has a time limit (the command line's default, the gem's
//! own past whatever a client asks), a client that goes away stops what it started, and a
//! gem's objects stay under its memory limit.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, operation::Op};

use crate::agent::{GemProcess, client, error, evaluate, execute, op, printed, repository, runtime};

fn onyx() -> Command {
    let mut c = Command::new(onyx_tests::onyx());
    c.env_remove("ONYX_KERNEL").env("ONYX_USER", "DataCurator").env("ONYX_PASSWORD", "swordfish");
    c
}

#[test]
fn an_endless_doit_stops_when_its_client_goes_away() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let looping =
        "UserGlobals at: #Ticks put: 0. [true] whileTrue: [UserGlobals at: #Ticks put: (UserGlobals at: #Ticks) + 1]";
    let mut doit = onyx()
        .args(["eval", "--gem", &gem.addr, "--time-limit", "600", looping])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("onyx eval starts");
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let mut ticks = async || {
            let out = execute(&mut agent, vec![evaluate("UserGlobals at: #Ticks ifAbsent: [0]")]).await;
            printed(&out[0]).parse::<u64>().unwrap_or(0)
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while ticks().await == 0 {
            assert!(Instant::now() < deadline, "the doit never ran");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // The client dies without a word.
        let _ = doit.kill();
        let _ = doit.wait();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let before = ticks().await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(ticks().await, before, "the doit of a client that went away still runs");
    });
}

#[test]
fn every_evaluation_has_a_time_limit() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start_with(&stone, &["--eval-limit", "1"]);
    // The command line's, through a gem, in a session of the stone, and in a fresh VM.
    for args in [
        vec!["eval", "--gem", &gem.addr, "--time-limit", "1", "[true] whileTrue"],
        vec!["eval", "--stone", &stone.addr, "--time-limit", "1", "[true] whileTrue"],
        vec!["eval", "--time-limit", "1", "[true] whileTrue"],
    ] {
        let started = Instant::now();
        let out = onyx().args(&args).output().expect("onyx eval runs");
        let said = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(!out.status.success() && said.contains("interrupt"), "{args:?}: {said}");
        assert!(started.elapsed() < Duration::from_secs(30), "{args:?}: {:?}", started.elapsed());
    }
    // The gem's own, for a client that asks for none or for more.
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        for time_limit_ms in [0, 3_600_000] {
            let endless = pb::Evaluate { source: "[true] whileTrue".into(), time_limit_ms, ..Default::default() };
            let out = execute(&mut agent, vec![op(Op::Evaluate(endless))]).await;
            assert_eq!(error(&out[0]).code, pb::Code::Interrupted as i32, "{:?}", out[0]);
        }
    });
}

#[test]
fn a_gem_refuses_allocations_past_its_memory_limit_and_goes_on() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start_with(&stone, &["--memory-limit", "256"]);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let started = Instant::now();
        let out = execute(&mut agent, vec![evaluate("Array new: 1000000000")]).await;
        let refused = error(&out[0]);
        assert!(refused.message.contains("OutOfMemory"), "{refused:?}");
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        // Objects that grow little by little meet the same limit.
        let grow = "| all | all := OrderedCollection new. [all add: (String new: 1000)] repeat";
        let out = execute(&mut agent, vec![evaluate(grow)]).await;
        assert!(error(&out[0]).message.contains("OutOfMemory"), "{:?}", out[0]);
        let out = execute(&mut agent, vec![evaluate("(Array new: 1000000) size")]).await;
        assert_eq!(printed(&out[0]), "1000000", "the gem goes on");
    });
    let peak = gem.peak_memory();
    assert!(peak > 0 && peak < 768 << 20, "the gem took {} MB at its peak", peak >> 20);
}

#[test]
fn long_arithmetic_keeps_its_time_limit_and_lets_other_requests_in() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let make = "UserGlobals at: #X put: (3 raisedTo: 660000) + 1; at: #Y put: (7 raisedTo: 370000) + 3. nil";
        let made = execute(&mut agent, vec![evaluate(make)]).await;
        assert_eq!(printed(&made[0]), "nil", "{:?}", made[0]);
        // A gcd of two million-bit integers takes seconds: a limit of one second holds.
        let gcd = pb::Evaluate {
            source: "(UserGlobals at: #X) gcd: (UserGlobals at: #Y)".into(),
            time_limit_ms: 1000,
            ..Default::default()
        };
        let mut other = client(&gem).await;
        let started = Instant::now();
        let long = execute(&mut agent, vec![op(Op::Evaluate(gcd))]);
        let quick = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let asked = Instant::now();
            let out = execute(&mut other, vec![evaluate("3 + 4")]).await;
            (printed(&out[0]).to_string(), asked.elapsed())
        };
        let (long, (seven, waited)) = tokio::join!(long, quick);
        assert_eq!(error(&long[0]).code, pb::Code::Interrupted as i32, "{:?}", long[0]);
        assert!(started.elapsed() < Duration::from_millis(2500), "the limit held {:?}", started.elapsed());
        assert_eq!(seven, "7");
        assert!(waited < Duration::from_millis(500), "another request waited {waited:?}");
    });
}
