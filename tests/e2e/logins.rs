//! Logins to a gem's agent and what they may do: a user who may not change code cannot
//! raise their rights, neither in the repository nor in the gem's own view; handles belong
//! to the login that made them and end with it (logout or idle); a printString that never
//! returns costs the tool an error, not the gem; `onyx add-user` adds users from the command
//! line.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{GemProcess, client, error, evaluate, execute, login, op, printed, repository, runtime};

#[test]
fn a_user_who_may_not_change_code_cannot_raise_their_rights() {
    let (_dir, stone) = repository();
    let curators_gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut curator = client(&curators_gem).await;
        crate::agent::add_reader(&mut curator).await;
    });
    let readers_gem = GemProcess::start_as(&stone, "reader", "secret");
    runtime().block_on(async {
        let mut curator = client(&curators_gem).await;
        let mut reader = login(&readers_gem, "reader", "secret").await.expect("reader logs in");
        // Ordinary data commits.
        let out =
            execute(&mut reader, vec![evaluate("UserGlobals at: #Note put: 'hi'. System commitTransaction")]).await;
        assert_eq!(printed(&out[0]), "true");
        // A gem is one user's session: nobody else logs in to it, so a change the reader makes
        // in its memory never reaches anyone else's work or commit.
        let refused = login(&readers_gem, "DataCurator", "swordfish").await.expect_err("the reader's gem");
        assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
        assert!(refused.message().contains("reader's"), "{refused:?}");
        let wrong = login(&readers_gem, "reader", "guess").await.expect_err("a wrong password");
        assert_eq!(wrong.code(), tonic::Code::Unauthenticated, "{wrong:?}");
        // Code, the system dictionary and its bindings cannot be committed.
        let attempts = [
            "Smalltalk at: #Sneaky put: 3",
            "(Smalltalk associationAt: #Transcript) value: nil",
            "Smalltalk removeKey: #Transcript",
            "UserGlobals at: #Made put: MethodDictionary new",
        ];
        for attempt in attempts {
            let out = execute(
                &mut reader,
                vec![
                    evaluate(&format!("{attempt}. System commitTransaction")),
                    op(Op::CommitTransaction(pb::Empty {})),
                ],
            )
            .await;
            // Refused by the gem when the change is made or when it is committed; the commit
            // of a change that was made anyway is refused.
            let said = error(&out[0]).message.clone();
            assert!(said.contains("permission denied"), "{attempt}: {said}");
            if let Outcome::Error(e) = &out[1] {
                assert!(e.message.contains("permission denied"), "{attempt}: {:?}", out[1]);
            }
            let out = execute(&mut reader, vec![op(Op::AbortTransaction(pb::Empty {}))]).await;
            assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
        }
        let out = execute(&mut reader, vec![evaluate("Object compile: 'sneaky ^ 1'")]).await;
        assert!(error(&out[0]).message.contains("permission denied"), "{:?}", out[0]);
        // Nor can the reader add users, or give themself rights.
        let add =
            pb::AddUser { user: "reader".into(), password: "x".into(), may_change_code: true, groups: Vec::new() };
        let out = execute(&mut reader, vec![op(Op::AddUser(add))]).await;
        assert!(error(&out[0]).message.contains("only an administrator may"), "{:?}", out[0]);
        // The repository is as it was.
        let out = execute(
            &mut curator,
            vec![op(Op::AbortTransaction(pb::Empty {})), evaluate("Smalltalk includesKey: #Sneaky")],
        )
        .await;
        assert_eq!(printed(&out[1]), "false");
    });
}

#[test]
fn the_stone_itself_refuses_what_a_user_may_not_do_whatever_client_asks() {
    let (_dir, stone) = repository();
    let curators_gem = GemProcess::start(&stone);
    runtime().block_on(async {
        crate::agent::add_reader(&mut client(&curators_gem).await).await;
    });
    // No password, no session: the stone checks every client.
    for (user, password) in [("reader", "guess"), ("mallory", "guess"), ("", "")] {
        let refused = onyx_server_agent::stone_client::StoneSession::connect(&stone.addr, user, password);
        assert!(matches!(refused, Err(onyx_record::StoneError::PermissionDenied(_))), "{user}: {:?}", refused.err());
    }
    // A raw session of the reader (no gem to check anything) changing the kernel's root, or
    // adding a user who may change code, is refused by the stone.
    let mut raw = onyx_server_agent::stone_client::StoneSession::connect(&stone.addr, "reader", "secret")
        .expect("the reader's own session");
    use onyx_record::StoneLink as _;
    assert!(!raw.user().may_change_code);
    let root = raw.fetch(&[onyx_record::ROOT], &[], 0).expect("the kernel is readable").remove(0);
    let mut changed = root.clone();
    changed.words.reverse();
    let denied = raw.commit(&[changed.clone()]).expect_err("the root is the kernel's");
    assert!(matches!(&denied, onyx_record::StoneError::PermissionDenied(m) if m.contains("reader")), "{denied:?}");
    let moved = onyx_record::ObjectRecord { policy: raw.user().default_policy, ..changed };
    let denied = raw.commit(&[moved]).expect_err("nor moved into the reader's policy");
    assert!(matches!(denied, onyx_record::StoneError::PermissionDenied(_)), "{denied:?}");
    let denied = raw.add_user("reader", "secret", true).expect_err("no rights of one's own making");
    assert!(matches!(denied, onyx_record::StoneError::PermissionDenied(_)), "{denied:?}");
    // `onyx eval --stone` as the reader: the same.
    let out = Command::new(onyx_tests::onyx())
        .args([
            "eval",
            "--stone",
            &stone.addr,
            "UserGlobals at: #M put: MethodDictionary new. System commitTransaction",
        ])
        .env("ONYX_USER", "reader")
        .env("ONYX_PASSWORD", "secret")
        .output()
        .expect("onyx eval runs");
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("permission denied"));
    // Password guessing waits after a few tries.
    let mut last = String::new();
    for _ in 0..7 {
        let refused = onyx_server_agent::stone_client::StoneSession::connect(&stone.addr, "reader", "guess");
        last = refused.err().map(|e| e.to_string()).unwrap_or_default();
    }
    assert!(last.contains("too many failed logins"), "{last}");
}

#[test]
fn handles_belong_to_their_login_and_end_with_it() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start_with(&stone, &["--idle-logout", "2"]);
    runtime().block_on(async {
        let (mut a, mut b) = (client(&gem).await, client(&gem).await);
        let out = execute(&mut a, vec![evaluate("Array with: 1 with: 2")]).await;
        let handle = match &out[0] {
            Outcome::Evaluated(e) => e.handle,
            other => panic!("{other:?}"),
        };
        let inspect = || op(Op::Inspect(pb::Inspect { handle, from: 1, page_size: 10 }));
        assert!(matches!(execute(&mut a, vec![inspect()]).await[0], Outcome::Inspection(_)));
        let theirs = execute(&mut b, vec![inspect(), op(Op::Release(pb::Handles { handles: vec![handle] }))]).await;
        assert_eq!(error(&theirs[0]).code, pb::Code::NotFound as i32);
        assert!(matches!(execute(&mut a, vec![inspect()]).await[0], Outcome::Inspection(_)), "b released nothing");
        // A logout ends the token.
        a.logout(pb::Empty {}).await.expect("a logs out");
        let ended = a.execute(pb::Batch { operations: vec![inspect()] }).await.expect_err("the token ended");
        assert_eq!(ended.code(), tonic::Code::Unauthenticated);
        // A token unused for longer than the idle limit ends; one in use does not.
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(3) {
            execute(&mut b, vec![evaluate("1")]).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let mut idle = client(&gem).await;
        tokio::time::sleep(Duration::from_millis(3500)).await;
        let ended = idle.execute(pb::Batch { operations: vec![evaluate("1")] }).await.expect_err("idle too long");
        assert_eq!(ended.code(), tonic::Code::Unauthenticated);
    });
}

#[test]
fn a_print_string_that_never_returns_costs_an_error_not_the_gem() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let out = execute(
            &mut agent,
            vec![
                evaluate("Object subclass: #Stubborn instanceVariableNames: '' classVariableNames: '' package: 'X'"),
                evaluate("Stubborn compile: 'printOn: aStream [true] whileTrue'"),
            ],
        )
        .await;
        assert!(matches!(out[1], Outcome::Evaluated(_)), "{:?}", out[1]);
        let started = Instant::now();
        let out = execute(&mut agent, vec![evaluate("Stubborn new"), evaluate("3 + 4")]).await;
        // The value is there all the same, to inspect.
        assert!(
            matches!(&out[0], Outcome::Evaluated(e) if e.print_string.contains("printString failed") && e.handle != 0),
            "{:?}",
            out[0]
        );
        assert_eq!(printed(&out[1]), "7");
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    });
}

#[test]
fn the_command_line_adds_users_who_then_work_within_their_rights() {
    let (_dir, stone) = repository();
    let curators_gem = GemProcess::start(&stone);
    let readers_gem = std::cell::OnceCell::new();
    let onyx = |args: &[&str], user: &str, password: &str, input: &str| {
        // The reader's gem starts once the reader exists: its session is theirs.
        let gem = if user == "reader" {
            readers_gem.get_or_init(|| GemProcess::start_as(&stone, "reader", "secret"))
        } else {
            &curators_gem
        };
        let mut child = Command::new(onyx_tests::onyx())
            .args(args)
            .args(["--gem", &gem.addr])
            .env("ONYX_USER", user)
            .env("ONYX_PASSWORD", password)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("onyx runs");
        // A command that reads no password may have gone already.
        let _ = child.stdin.take().expect("piped").write_all(input.as_bytes());
        let out = child.wait_with_output().expect("onyx ends");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, out, err) = onyx(&["add-user", "reader", "--group", "Payroll"], "DataCurator", "swordfish", "secret\n");
    assert!(ok && out.trim() == "committed", "{out} {err}");
    let (ok, out, _) = onyx(&["eval", "3 + 4"], "reader", "secret", "");
    assert!(ok && out.trim() == "7", "{out}");
    let (ok, _, err) = onyx(&["eval", "Object compile: 'sneaky ^ 1'"], "reader", "secret", "");
    assert!(!ok && err.contains("permission denied"), "{err}");
    // Only an administrator adds users; no password is no user.
    let (ok, _, err) = onyx(&["add-user", "other", "--may-change-code"], "reader", "secret", "pw\n");
    assert!(!ok && err.contains("only an administrator"), "{err}");
    let (ok, _, err) = onyx(&["add-user", "other"], "DataCurator", "swordfish", "");
    assert!(!ok && err.contains("password"), "{err}");
    // Into another user's gem comes only a user who may debug others' gems, and only debugs.
    for (user, rights) in [("helper", &["--may-debug-others"][..]), ("plain", &[][..])] {
        let args = [&["add-user", user][..], rights].concat();
        let (ok, out, err) = onyx(&args, "DataCurator", "swordfish", "pw\n");
        assert!(ok && out.trim() == "committed", "{out} {err}");
    }
    let (ok, out, err) = onyx(&["breakpoints"], "helper", "pw", "");
    assert!(ok, "{out} {err}");
    let (ok, _, err) = onyx(&["eval", "3 + 4"], "helper", "pw", "");
    assert!(!ok && err.contains("may only debug"), "{err}");
    let (ok, _, err) = onyx(&["breakpoints"], "plain", "pw", "");
    assert!(!ok && err.contains("Debuggers"), "{err}");
}
