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
