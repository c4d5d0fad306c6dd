//! Limits that hold: every evaluation has a time limit (the command line's default, the gem's
//! own past whatever a client asks), a client that goes away stops what it started, a
//! gem's objects stay under its memory limit, and a batch's reply is never too large to send.

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

#[test]
fn a_batch_stops_before_its_reply_is_full_and_keeps_every_answer_of_what_ran() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        // A commit, then doits of a mebibyte each: more than one reply holds.
        let commit = "UserGlobals at: #Ran put: 0. System commitTransaction";
        let big = "UserGlobals at: #Ran put: (UserGlobals at: #Ran) + 1. String new: 1048576 withAll: $a";
        let mut batch = vec![evaluate(commit)];
        batch.extend((0..80).map(|_| evaluate(big)));
        let out = execute(&mut agent, batch).await;
        assert_eq!(out.len(), 81, "an answer for every operation");
        assert_eq!(printed(&out[0]), "true", "the commit's answer is kept");
        let ran = out[1..].iter().take_while(|o| matches!(o, pb::result::Outcome::Evaluated(_))).count();
        assert!((40..80).contains(&ran), "{ran} of 80 ran");
        for refused in &out[1 + ran..] {
            assert_eq!(error(refused).code, pb::Code::TooLarge as i32, "{refused:?}");
        }
        let counted = execute(&mut agent, vec![evaluate("UserGlobals at: #Ran")]).await;
        assert_eq!(printed(&counted[0]), ran.to_string(), "what was refused never ran");
        // A batch of more operations than a reply can answer runs none of them.
        let many = (0..70_000).map(|_| evaluate("UserGlobals at: #Ran put: -1")).collect();
        let refused = agent.execute(pb::Batch { operations: many }).await.expect_err("too many operations");
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains("at most 65536"), "{refused:?}");
        let counted = execute(&mut agent, vec![evaluate("UserGlobals at: #Ran")]).await;
        assert_eq!(printed(&counted[0]), ran.to_string());
        // An error's description longer than a message is cut, not lost.
        let out = execute(&mut agent, vec![evaluate("Error signal: (String new: 70000000 withAll: $x)")]).await;
        let failed = error(&out[0]);
        assert!(failed.message.ends_with(" more characters)"), "{}", &failed.message[failed.message.len() - 40..]);
        assert!(failed.message.len() < 1 << 20 && !failed.stack.is_empty(), "{}", failed.message.len());
    });
}

#[test]
fn a_commit_names_its_first_thousand_conflicts_and_counts_them_all() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let other = GemProcess::start(&stone);
    runtime().block_on(async {
        let (mut a, mut b) = (client(&gem).await, client(&other).await);
        let made = "UserGlobals at: #Cells put: ((1 to: 1500) collect: [:i | Array new: 1]). System commitTransaction";
        assert_eq!(printed(&execute(&mut a, vec![evaluate(made)]).await[0]), "true");
        let abort = op(Op::AbortTransaction(pb::Empty {}));
        execute(&mut b, vec![abort]).await;
        let change = |n: u32| evaluate(&format!("(UserGlobals at: #Cells) do: [:c | c at: 1 put: {n}]"));
        let commit = || op(Op::CommitTransaction(pb::Empty {}));
        let out = execute(&mut a, vec![change(1), commit()]).await;
        assert!(matches!(&out[1], pb::result::Outcome::Committed(c) if c.committed), "{:?}", out[1]);
        let out = execute(&mut b, vec![change(2), commit()]).await;
        let pb::result::Outcome::Committed(c) = &out[1] else { panic!("{:?}", out[1]) };
        assert!(!c.committed);
        assert_eq!((c.conflicts.len(), c.conflict_count), (1000, 1500));
    });
}
