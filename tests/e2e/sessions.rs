//! The stone's sessions as the agents of its gems show them: every gem listed with its
//! address, user, host and pid, and the events a listener hears when another gem commits or
//! a gem logs in.

use std::time::Duration;

use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::agent::{GemProcess, client, evaluate, execute, op, printed, repository, runtime};

#[test]
fn every_gem_of_the_stone_is_listed_with_where_it_runs() {
    let (_dir, stone) = repository();
    let (first, second) = (GemProcess::start(&stone), GemProcess::start(&stone));
    runtime().block_on(async {
        let mut a = client(&first).await;
        let _b = client(&second).await;
        let out = execute(&mut a, vec![op(Op::Sessions(pb::Empty {}))]).await;
        let sessions = match &out[0] {
            Outcome::Sessions(s) => s.sessions.clone(),
            other => panic!("{other:?}"),
        };
        let gems: Vec<&pb::GemSession> = sessions.iter().filter(|s| !s.agent.is_empty()).collect();
        assert_eq!(gems.len(), 2, "{sessions:?}");
        assert!(gems.iter().any(|s| s.agent == first.addr && s.this_gem));
        assert!(gems.iter().any(|s| s.agent == second.addr && !s.this_gem));
        assert!(gems.iter().all(|s| s.pid > 0 && !s.host.is_empty() && s.user == "DataCurator"), "{gems:?}");
    });
}

#[test]
fn a_listener_hears_of_other_gems_commits_and_of_gems_logging_in() {
    let (_dir, stone) = repository();
    let (first, second) = (GemProcess::start(&stone), GemProcess::start(&stone));
    runtime().block_on(async {
        let mut events = client(&second).await.events(pb::EventsRequest {}).await.expect("events").into_inner();
        // The first look establishes who is there; give it a moment.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let mut a = client(&first).await;
        let out = execute(&mut a, vec![evaluate("UserGlobals at: #X put: 1. System commitTransaction")]).await;
        assert_eq!(printed(&out[0]), "true");
        let third = GemProcess::start(&stone);
        let (mut stale, mut joined) = (false, false);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        while !(stale && joined) {
            let next = tokio::time::timeout_at(deadline, events.message()).await;
            match next.expect("the events in time").expect("the stream is open").and_then(|e| e.event) {
                Some(Event::Stale(s)) => stale |= s.behind >= 1,
                Some(Event::Sessions(s)) => joined |= !s.logged_in.is_empty(),
                _ => {}
            }
        }
        drop(third);
    });
}

#[test]
fn senders_and_implementors_follow_code_another_gem_commits() {
    let (_dir, stone) = repository();
    let (first, second) = (GemProcess::start(&stone), GemProcess::start(&stone));
    runtime().block_on(async {
        let mut a = client(&first).await;
        let mut b = client(&second).await;
        let senders = || op(Op::Senders(pb::SelectorRef { selector: "zorkWith:".into() }));
        let implementors = || op(Op::Implementors(pb::SelectorRef { selector: "probeZork".into() }));
        let names = |o: &Outcome| match o {
            Outcome::Methods(m) => {
                m.methods.iter().map(|e| format!("{}>>{}", e.class_name, e.selector)).collect::<Vec<_>>()
            }
            other => panic!("{other:?}"),
        };
        let out = execute(&mut b, vec![senders(), implementors()]).await;
        assert!(names(&out[0]).is_empty() && names(&out[1]).is_empty());
        let compile = pb::CompileMethod {
            class: Some(pb::ClassRef { class_name: "Object".into(), meta: false }),
            protocol: "probes".into(),
            source: "probeZork\n\t^ self zorkWith: 3".into(),
        };
        let out = execute(&mut a, vec![op(Op::CompileMethod(compile)), op(Op::CommitTransaction(pb::Empty {}))]).await;
        assert!(matches!(&out[0], Outcome::Compiled(_)), "{:?}", out[0]);
        assert!(matches!(&out[1], Outcome::Committed(c) if c.committed), "{:?}", out[1]);
        let out = execute(&mut b, vec![op(Op::AbortTransaction(pb::Empty {})), senders(), implementors()]).await;
        assert_eq!(names(&out[1]), ["Object>>probeZork"]);
        assert_eq!(names(&out[2]), ["Object>>probeZork"]);
    });
}

#[test]
fn an_oversized_request_is_refused_and_the_gem_goes_on() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        // Past the message limit both sides share.
        let huge = format!("'{}' size", "x".repeat(onyx_protocol::codec::MAX_MESSAGE));
        let refused = agent.execute(pb::Batch { operations: vec![evaluate(&huge)] }).await;
        let status = refused.expect_err("a request over the limit");
        assert!(status.message().contains("length") || status.message().contains("large"), "{status:?}");
        let out = execute(&mut agent, vec![evaluate("3 + 4")]).await;
        assert_eq!(printed(&out[0]), "7");
    });
    // An answer of megabytes, under the limit, comes back to the gem's own client.
    let out = std::process::Command::new(onyx_tests::onyx())
        .args(["eval", "--gem", &gem.addr, "String new: 5000000 withAll: $a"])
        .output()
        .expect("onyx eval runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim().len(), 5_000_002, "the printString, quoted");
}

#[test]
fn a_print_string_longer_than_a_message_comes_back_in_parts() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    // 2^26 + 1 characters, the last not ASCII: more than a message holds.
    let long = "| s | s := 'a'. 26 timesRepeat: [s := s , s]. s , (String with: (Character value: 233))";
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let out = execute(&mut agent, vec![evaluate(long)]).await;
        let Outcome::Evaluated(e) = &out[0] else { panic!("expected a value, got {:?}", out[0]) };
        assert_eq!(e.print_size, 67_108_867);
        assert_eq!(e.print_string.chars().count(), 1 << 20, "the first part");
        assert_ne!(e.rest, 0, "a handle on the rest");
        let read = |from: u64, handle: u64| pb::Operation {
            op: Some(Op::ReadText(pb::TextRef { handle })),
            page: Some(pb::Page { from, size: 10 }),
        };
        let parts = execute(
            &mut agent,
            vec![read(67_108_860, e.rest), read(80_000_000, e.rest), read(0, e.handle), read(0, 999_999)],
        )
        .await;
        let text = |o: &Outcome| match o {
            Outcome::Text(t) => (t.text.clone(), t.paged.map(|p| (p.total, p.next))),
            other => panic!("expected text, got {other:?}"),
        };
        assert_eq!(text(&parts[0]), ("aaaaa\u{e9}'".to_string(), Some((67_108_867, 0))));
        assert_eq!(text(&parts[1]), (String::new(), Some((67_108_867, 0))), "past the end: nothing");
        assert_eq!(text(&parts[2]), ("a".repeat(10), Some((67_108_865, 10))), "the String itself, unquoted");
        assert_eq!(crate::agent::error(&parts[3]).code, pb::Code::NotFound as i32);
        // A handle on what is no String has no text to read.
        let out = execute(&mut agent, vec![evaluate("Object new")]).await;
        let Outcome::Evaluated(object) = &out[0] else { panic!("expected a value, got {:?}", out[0]) };
        let refused = execute(&mut agent, vec![read(0, object.handle)]).await;
        assert_eq!(crate::agent::error(&refused[0]).code, pb::Code::Invalid as i32, "{:?}", refused[0]);
    });
    // The command line reads every part and prints the whole.
    let out = std::process::Command::new(onyx_tests::onyx())
        .args(["eval", "--gem", &gem.addr, long])
        .output()
        .expect("onyx eval runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(printed.trim_end().chars().count(), 67_108_867);
    assert!(printed.starts_with("'aaa") && printed.trim_end().ends_with("a\u{e9}'"), "{}", &printed[..20]);
}

#[test]
fn a_process_keeps_the_privilege_of_the_user_who_started_it() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async { crate::agent::add_reader(&mut client(&gem).await).await });
    let readers_gem = GemProcess::start_as(&stone, "reader", "secret");
    runtime().block_on(async {
        let mut curator = client(&gem).await;
        let mut reader = crate::agent::login(&readers_gem, "reader", "secret").await.expect("reader logs in");
        // The reader's process compiles later, while another evaluation is running.
        let forked = "[(Delay forMilliseconds: 200) wait. [Object compile: 'forked ^ 1'] on: Error do: [:e | UserGlobals at: #ForkResult put: e messageText]] fork. #forked";
        assert_eq!(printed(&execute(&mut reader, vec![evaluate(forked)]).await[0]), "#forked");
        // Nor may the reader change a method dictionary or the system dictionary directly.
        let sneaks = [
            "[Object methodDict at: #sneak put: (Object compiledMethodAt: #printString). #done] on: Error do: [:e | #refused]",
            "[Object methodDict removeKey: #printString. #done] on: Error do: [:e | #refused]",
            "[Smalltalk at: #Sneaky put: 3. #done] on: Error do: [:e | #refused]",
        ];
        let out = execute(&mut reader, sneaks.iter().map(|s| evaluate(s)).collect()).await;
        for (sneak, outcome) in sneaks.iter().zip(&out) {
            assert_eq!(printed(outcome), "#refused", "{sneak}");
        }
        let out = execute(
            &mut reader,
            vec![
                evaluate("(Delay forMilliseconds: 600) wait. 3"),
                evaluate("Object includesSelector: #forked"),
                evaluate("UserGlobals at: #ForkResult ifAbsent: ['not run']"),
            ],
        )
        .await;
        assert_eq!(printed(&out[1]), "false", "the reader's process did not change code");
        assert!(printed(&out[2]).contains("permission denied"), "{:?}", out[2]);
        // The curator's processes may.
        let out = execute(
            &mut curator,
            vec![
                evaluate("nil"),
                evaluate("nil"),
                evaluate("nil"),
                op(Op::BeginTransaction(pb::Empty {})),
                op(Op::CompileMethod(pb::CompileMethod {
                    class: Some(pb::ClassRef { class_name: "Object".into(), meta: false }),
                    protocol: "probes".into(),
                    source: "probeRemoved ^ 1".into(),
                })),
                op(Op::RemoveMethod(pb::MethodRef {
                    class: Some(pb::ClassRef { class_name: "Object".into(), meta: false }),
                    selector: "probeRemoved".into(),
                })),
                evaluate("Object includesSelector: #probeRemoved"),
            ],
        )
        .await;
        assert!(matches!(out[3], Outcome::Done(_)) && matches!(out[5], Outcome::Done(_)), "{out:?}");
        assert_eq!(printed(&out[6]), "false");
    });
}

#[test]
fn sigterm_stops_a_gem_with_a_listener_and_an_endless_doit() {
    let (_dir, stone) = repository();
    let mut gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut events = client(&gem).await.events(pb::EventsRequest {}).await.expect("events").into_inner();
        let mut looping = client(&gem).await;
        let endless =
            tokio::spawn(
                async move { looping.execute(pb::Batch { operations: vec![evaluate("[true] whileTrue")] }).await },
            );
        tokio::time::sleep(Duration::from_millis(300)).await;
        let status = gem.terminate(Duration::from_secs(8));
        assert!(status.is_some_and(|s| s.success()), "the gem stops cleanly: {status:?}");
        let ended = tokio::time::timeout(Duration::from_secs(2), events.message()).await.expect("the stream ends");
        assert!(!matches!(ended, Ok(Some(_))), "{ended:?}");
        let answered = tokio::time::timeout(Duration::from_secs(2), endless).await.expect("the call ends");
        assert!(answered.expect("the task ran").is_err(), "the endless doit was cut off");
    });
}
