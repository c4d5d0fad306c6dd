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
        let huge = format!("'{}' size", "x".repeat(8 << 20));
        let refused = agent.execute(pb::Batch { operations: vec![evaluate(&huge)] }).await;
        let status = refused.expect_err("a request over the limit");
        assert!(status.message().contains("length") || status.message().contains("large"), "{status:?}");
        let out = execute(&mut agent, vec![evaluate("3 + 4")]).await;
        assert_eq!(printed(&out[0]), "7");
    });
}
