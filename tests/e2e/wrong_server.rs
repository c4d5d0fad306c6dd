//! Commands pointed at the wrong kind of server, or at a gem whose stone is gone, say so in
//! words (not an empty message, not "h2 protocol error"); and an embedded stone pinned to an
//! address (`onyx-ide --stone-listen`) is found there at every start by gems started from a
//! terminal.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use onyx_server_agent::Setup;
use onyx_server_agent::embedded::{Embedded, Serving};

use crate::agent::GemProcess;
use crate::stone::StoneProcess;

fn onyx(args: &[&str]) -> Output {
    Command::new(onyx_tests::onyx()).args(args).output().expect("onyx runs")
}

fn failed_saying(out: &Output, words: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "it failed: {stderr}");
    assert!(stderr.contains(words), "{words:?} in {stderr:?}");
}

#[test]
fn a_command_pointed_at_the_wrong_kind_of_server_says_which_it_is() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    let gem = GemProcess::start(&stone);
    failed_saying(&onyx(&["eval", "--stone", &gem.addr, "3 + 4"]), "is it a gem's agent?");
    failed_saying(&onyx(&["eval", "--gem", &stone.addr, "3 + 4"]), "is it a stone?");
    failed_saying(&onyx(&["classes", "--gem", &stone.addr]), "is it a stone?");
    // A gem started on a gem's agent instead of a stone says so, and stops.
    failed_saying(&onyx(&["gem", "--stone", &gem.addr]), "is it a gem's agent?");
}

#[test]
fn a_gem_whose_stone_is_gone_says_so() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut stone = StoneProcess::start(&dir.path().join("repo"));
    let gem = GemProcess::start(&stone);
    let out = onyx(&["eval", "--gem", &gem.addr, "3 + 4"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    stone.kill();
    // At once, and after the gem has noticed: each answer says the stone is lost.
    for _ in 0..2 {
        let out = onyx(&["eval", "--gem", &gem.addr, "Object new printString"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains("lost") && stderr.contains("stone"), "{stderr:?}");
        assert!(!stderr.contains(&format!("the gem at {}: h2", gem.addr)), "{stderr:?}");
        std::thread::sleep(Duration::from_millis(1500));
    }
}

/// Starts `onyx gem --stone stone` and answers once it says it logged in (its session).
fn gem_joins(stone: &str) -> String {
    let mut child = Command::new(onyx_tests::onyx())
        .args(["gem", "--stone", stone, "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onyx gem starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).expect("the gem says where it is");
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.starts_with("gem session "), "the gem joined the stone at {stone}: {line:?}");
    line
}

#[test]
fn an_embedded_stone_pinned_to_an_address_is_there_at_every_start() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("bound");
    let serving = || Serving { stone: Some(free), ..Serving::default() };
    let start = || Embedded::start_with(dir.path(), Setup::default(), serving(), "DataCurator", "swordfish");
    let first = start().expect("the embedded servers start");
    assert_eq!(first.stone, free.to_string());
    gem_joins(&first.stone);
    first.stop().expect("stops");
    // Started again, at the same address: the same command joins it again.
    let deadline = Instant::now() + Duration::from_secs(10);
    let again = loop {
        match start() {
            Ok(again) => break again,
            Err(e) => assert!(Instant::now() < deadline, "the address is taken: {e}"),
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(again.stone, free.to_string());
    gem_joins(&again.stone);
}
