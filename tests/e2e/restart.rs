//! A gem outlives its stone: when the stone restarts, the gem's clients are told (each
//! operation meanwhile answers an unavailable error that says what happened), the gem logs in
//! again as a new session, its old transaction is aborted and its handles are gone, and what
//! was committed is all there.

use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::agent::{GemProcess, client, error, evaluate, execute, op, printed, runtime};
use crate::stone::StoneProcess;

#[test]
fn a_gem_logs_in_again_when_its_stone_restarts() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let mut stone = StoneProcess::start(&repo);
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let mut events = client(&gem).await.events(pb::EventsRequest {}).await.expect("events").into_inner();
        let committed = "UserGlobals at: #Kept put: 42. System commitTransaction";
        assert_eq!(printed(&execute(&mut agent, vec![evaluate(committed)]).await[0]), "true");
        let out = execute(&mut agent, vec![evaluate("UserGlobals at: #Lost put: 7. Object new")]).await;
        let Outcome::Evaluated(held) = &out[0] else { panic!("expected a value, got {:?}", out[0]) };
        let held = held.handle;

        stone.kill();
        let mut stone = StoneProcess::serve_at(&repo, &stone.addr.clone());

        // Meanwhile, operations say what happened; then the gem is back.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            assert!(Instant::now() < deadline, "the gem never logged in again");
            let out = execute(&mut agent, vec![evaluate("UserGlobals at: #Kept")]).await;
            match &out[0] {
                Outcome::Evaluated(e) if e.print_string == "42" => break,
                Outcome::Error(e) if e.code == pb::Code::Unavailable as i32 => {
                    assert!(e.message.contains("stone"), "{e:?}");
                }
                other => panic!("unexpected while the stone restarts: {other:?}"),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let relogged = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match events.message().await.expect("the stream is open").and_then(|e| e.event) {
                    Some(Event::Relogged(r)) => return r.session,
                    Some(_) => continue,
                    None => panic!("the events ended"),
                }
            }
        })
        .await
        .expect("the listeners hear that the gem logged in again");
        assert_ne!(relogged, 0);

        // The uncommitted change was aborted, the old handle is gone, and the gem commits again.
        let out = execute(
            &mut agent,
            vec![
                evaluate("UserGlobals at: #Lost ifAbsent: [#aborted]"),
                op(Op::Inspect(pb::Inspect { handle: held, ..Default::default() })),
                evaluate("UserGlobals at: #After put: 1. System commitTransaction"),
            ],
        )
        .await;
        assert_eq!(printed(&out[0]), "#aborted");
        assert_eq!(error(&out[1]).code, pb::Code::NotFound as i32, "{:?}", out[1]);
        assert_eq!(printed(&out[2]), "true");
        stone.kill();
    });
}
