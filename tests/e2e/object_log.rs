//! The object log over real processes: a forked process that fails in one gem goes to the
//! stone's object log (a doit's error, which a tool sees, does not); another gem lists and
//! opens it after the first gem is gone, with a handle on the persistent object it held;
//! a gem of another user reads none of it.

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};

use crate::agent::{Agent, GemProcess, client, evaluate, execute, op, printed, repository, runtime};

async fn one(agent: &mut Agent, o: Op) -> Outcome {
    execute(agent, vec![op(o)]).await.remove(0)
}

#[test]
fn a_failure_no_tool_saw_is_in_the_object_log_for_any_gem_after_its_own_is_gone() {
    let (_dir, stone) = repository();
    runtime().block_on(async {
        let failed = {
            let gem = GemProcess::start(&stone);
            let mut agent = client(&gem).await;
            let mut events = agent.events(pb::EventsRequest {}).await.expect("events").into_inner();
            let out = execute(
                &mut agent,
                vec![
                    evaluate("UserGlobals at: #Logged put: (Array with: 42). System commitTransaction"),
                    evaluate("nil fooSeenByATool"),
                    evaluate("[(UserGlobals at: #Logged) zork: 7] fork. nil"),
                ],
            )
            .await;
            assert_eq!(printed(&out[0]), "true");
            assert!(matches!(&out[1], Outcome::Error(_)));
            crate::debugger::failed(&mut events).await
        };
        // Its gem is gone; another reads the log.
        let gem = GemProcess::start(&stone);
        let mut agent = client(&gem).await;
        let Outcome::ObjectLog(log) = one(&mut agent, Op::ObjectLog(pb::Empty {})).await else { panic!("a log") };
        assert_eq!(log.paged.map(|p| p.total), Some(1), "only the failure no tool saw: {log:?}");
        let entry = &log.entries[0];
        assert!(entry.error.contains("zork:"), "{entry:?}");
        assert_eq!((entry.user.as_str(), entry.process), ("DataCurator", failed));
        assert!(entry.gem.contains("pid") && entry.depth >= 1 && entry.frames.is_empty(), "{entry:?}");
        let opened = one(&mut agent, Op::ObjectLogEntry(pb::LogEntryRef { id: entry.id })).await;
        let Outcome::LoggedFailure(whole) = opened else { panic!("an entry: {opened:?}") };
        assert_eq!(whole.frames.len() as u32, entry.depth);
        assert!(whole.frames.iter().any(|f| f.step.contains("zork: 7")), "{:?}", whole.frames);
        let held = whole
            .frames
            .iter()
            .flat_map(|f| &f.variables)
            .find(|v| v.name == "self" && v.handle != 0)
            .expect("the persistent Array, a handle away");
        let inspected = one(&mut agent, Op::Inspect(pb::Inspect { handle: held.handle, from: 1, page_size: 10 })).await;
        let Outcome::Inspection(i) = inspected else { panic!("{inspected:?}") };
        assert_eq!((i.class_name.as_str(), i.print_string.as_str()), ("Array", held.print_string.as_str()));
        let missing = one(&mut agent, Op::ObjectLogEntry(pb::LogEntryRef { id: 999 })).await;
        assert!(matches!(missing, Outcome::Error(e) if e.code == pb::Code::NotFound as i32));
        // A gem of a user who may not change code reads only that user's reports.
        let out = execute(
            &mut agent,
            vec![op(Op::AddUser(pb::AddUser {
                user: "bob".into(),
                password: "pw".into(),
                may_change_code: false,
                groups: Vec::new(),
            }))],
        )
        .await;
        assert!(matches!(out[0], Outcome::Done(_)), "{out:?}");
        let bobs = GemProcess::start_as(&stone, "bob", "pw");
        let mut bob = crate::agent::login(&bobs, "bob", "pw").await.expect("bob logs in");
        let Outcome::ObjectLog(log) = one(&mut bob, Op::ObjectLog(pb::Empty {})).await else { panic!("a log") };
        assert_eq!(log.paged.map(|p| p.total), Some(0));
        let refused = one(&mut bob, Op::ObjectLogEntry(pb::LogEntryRef { id: entry.id })).await;
        assert!(matches!(refused, Outcome::Error(_)), "{refused:?}");
    });
}
