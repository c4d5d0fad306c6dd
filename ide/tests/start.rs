//! Starting `onyx-ide` with what cannot work: each is a clear error on the terminal before any
//! window opens (these run with no display), and an embedded repository is left as it was.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

use std::process::{Command, Output, Stdio};

/// Runs `onyx-ide` with `args`, no display and the password `password`.
fn ide(args: &[&str], password: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onyx-ide"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("ONYX_REPOSITORY")
        .env("ONYX_PASSWORD", password)
        .stdin(Stdio::null())
        .output()
        .expect("onyx-ide runs")
}

fn failed_saying(out: &Output, words: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "it failed");
    assert!(stderr.contains(words), "{words:?} in {stderr:?}");
}

#[test]
fn an_unknown_pane_to_show_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repository = dir.path().join("repository");
    let repository = repository.to_str().expect("a path");
    let out = ide(&["--repository", repository, "--show", "debugger"], "swordfish");
    failed_saying(&out, "is not a pane");
    assert!(!dir.path().join("repository").exists(), "no repository was made");
    failed_saying(&ide(&["--repository", repository, "--show", "browser:"], "swordfish"), "needs a class");
}

#[test]
fn a_gem_that_cannot_be_reached_is_an_error_not_an_empty_window() {
    let unused = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = unused.local_addr().expect("bound").to_string();
    drop(unused);
    let out = ide(&["--connect", &address, "--user", "DataCurator"], "swordfish");
    failed_saying(&out, &format!("cannot reach the gem at {address}"));
    failed_saying(&ide(&["--connect", "not an address"], "swordfish"), "is not an address");
}

#[test]
fn a_refused_login_to_the_embedded_repository_is_an_error_and_leaves_it_whole() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repository = dir.path().join("repository");
    let repository = repository.to_str().expect("a path");
    let out = ide(&["--repository", repository], "not the password");
    failed_saying(&out, "DataCurator or its password is not known");
    // The repository it made is whole: the next start gets as far as the login again.
    let out = ide(&["--repository", repository, "--user", "Nobody"], "swordfish");
    failed_saying(&out, "Nobody or its password is not known");
}

#[test]
fn a_repository_folder_that_cannot_be_made_is_an_error() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").expect("written");
    let inside = file.join("repository");
    let out = ide(&["--repository", inside.to_str().expect("a path")], "swordfish");
    failed_saying(&out, "cannot make");
}

#[test]
fn a_stone_address_already_taken_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repository = dir.path().join("repository");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("bound").to_string();
    let out = ide(&["--repository", repository.to_str().expect("a path"), "--stone-listen", &address], "swordfish");
    failed_saying(&out, &format!("cannot listen on {address}"));
    failed_saying(&ide(&["--stone-listen", "not an address"], "swordfish"), "invalid socket address");
}
