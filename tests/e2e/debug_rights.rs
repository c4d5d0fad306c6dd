//! A right to debug never acts as another user. Bob's gem keeps his secret, a half-done
//! transaction, a process halted on the secret and a loop through `Payroll>>pay:`. Eve, who
//! may debug others' gems, attaches to his halted process: evaluating in its frame or
//! returning a value from it is refused (that code would commit with Bob's rights). Dave, who
//! may change code, sets a log point and a conditional breakpoint on `Payroll>>pay:` for every
//! gem: their expressions run only in Dave's own gems, so Bob's transcript never shows his
//! secret and nothing is committed with it.

use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, event::Event, operation::Op, result::Outcome};

use crate::agent::{
    Agent, GemProcess, client, error, evaluate, execute, login, login_at, op, printed, repository, runtime,
};

async fn add(curator: &mut Agent, user: &str, may_change_code: bool, groups: &[&str]) {
    let groups = groups.iter().map(|g| g.to_string()).collect();
    let add = pb::AddUser { user: user.into(), password: crate::profiles::password(user), may_change_code, groups };
    let out = execute(curator, vec![op(Op::AddUser(add))]).await;
    assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
}

/// Whether the curator sees `name` in `Published` (after a fresh view).
async fn published(curator: &mut Agent, name: &str) -> String {
    let look = format!("Published at: #{name} ifAbsent: [#none]");
    let out = execute(curator, vec![op(Op::AbortTransaction(pb::Empty {})), evaluate(&look)]).await;
    printed(&out[1]).to_string()
}

#[test]
fn debuggers_and_breakpoints_of_other_users_run_no_code_with_the_gems_rights() {
    let (_dir, stone) = repository();
    let curators = GemProcess::start(&stone);
    let rt = runtime();
    let mut curator = rt.block_on(client(&curators));
    rt.block_on(async {
        add(&mut curator, "bob", false, &[]).await;
        add(&mut curator, "eve", false, &["Debuggers"]).await;
        add(&mut curator, "dave", true, &[]).await;
        let payroll =
            "Object subclass: #Payroll instanceVariableNames: '' classVariableNames: '' package: 'Tests-Rights'.
            Payroll compile: 'pay: n
	^ n + 1'.
            System commitTransaction";
        assert_eq!(printed(&execute(&mut curator, vec![evaluate(payroll)]).await[0]), "true");
    });
    let bobs = GemProcess::start_as(&stone, "bob", "bob");
    let daves = GemProcess::start_as(&stone, "dave", "evad");
    rt.block_on(async {
        let mut bob = login(&bobs, "bob", "bob").await.expect("bob logs in");
        let work = "UserGlobals at: #Secret put: 'bob-secret'. System commitTransaction.
            UserGlobals at: #Draft put: 'unsaved'.
            [| s | s := UserGlobals at: #Secret. self halt. s size] fork.
            [[true] whileTrue: [Payroll new pay: 1. (Delay forMilliseconds: 10) wait]]
                forkAt: Processor userBackgroundPriority.
            nil";
        assert_eq!(printed(&execute(&mut bob, vec![evaluate(work)]).await[0]), "nil");
        let mut transcript = bob.events(pb::EventsRequest {}).await.expect("bob's events").into_inner();

        // Eve attaches to the halted process: she runs no code in it.
        let mut eve = login_at(&bobs.addr, "eve", "eve").await.expect("eve attaches as a debugger");
        let halted = crate::agent::within_5s("bob's process halts", async || {
            let out = execute(&mut eve, vec![op(Op::Processes(pb::Empty {}))]).await;
            let Outcome::Processes(list) = &out[0] else { panic!("processes: {out:?}") };
            list.processes.iter().find(|p| p.status == "suspended" && p.kept).map(|p| p.process)
        })
        .await;
        let leak = "Published at: #Leak put: s. System commitTransaction".to_string();
        let frame = |source: String| pb::FrameSource { process: halted, frame: 0, source };
        for attempt in [Op::EvaluateInFrame(frame(leak.clone())), Op::ReturnValue(frame(leak))] {
            let out = execute(&mut eve, vec![op(attempt)]).await;
            assert_eq!(error(&out[0]).code, pb::Code::PermissionDenied as i32, "{:?}", out[0]);
        }
        assert_eq!(published(&mut curator, "Leak").await, "#none");

        // Dave's log point and condition apply in his own gem, not in Bob's.
        let mut dave = login(&daves, "dave", "evad").await.expect("dave logs in");
        let spy =
            "Published at: #Spied put: (UserGlobals at: #Secret ifAbsent: [nil]). System commitTransaction. false";
        for (condition, log) in [(spy, ""), ("", "(UserGlobals at: #Secret ifAbsent: ['none']) , ' seen'")] {
            let set = pb::SetBreakpoint {
                method: Some(pb::MethodRef { class: crate::agent::class("Payroll"), selector: "pay:".into() }),
                at: Some(pb::set_breakpoint::At::Line(2)),
                condition: condition.into(),
                log: log.into(),
                enabled: true,
                scope: pb::BreakpointScope::EveryGem as i32,
                ..Default::default()
            };
            let out = execute(&mut dave, vec![op(Op::SetBreakpoint(set))]).await;
            assert!(matches!(out[0], Outcome::Breakpoints(_)), "{:?}", out[0]);
        }
        // Bob's gem knows both (its list is the stone's), and places neither.
        let listed = crate::agent::within_5s("bob's gem lists dave's breakpoints", async || {
            let out = execute(&mut bob, vec![op(Op::Breakpoints(pb::Empty {}))]).await;
            let Outcome::Breakpoints(l) = &out[0] else { panic!("breakpoints: {out:?}") };
            (l.breakpoints.len() == 2).then(|| l.breakpoints.clone())
        })
        .await;
        assert!(listed.iter().all(|b| b.owner == "dave" && !b.placed), "{listed:?}");
        // A second of Bob's loop: his transcript shows nothing of his secret.
        let until = Instant::now() + Duration::from_millis(1500);
        let mut heard = String::new();
        while let Ok(Ok(Some(event))) =
            tokio::time::timeout(until.saturating_duration_since(Instant::now()), transcript.message()).await
        {
            if let Some(Event::Transcript(text)) = event.event {
                heard.push_str(&text);
            }
        }
        assert!(!heard.contains("bob-secret"), "bob's transcript: {heard}");
        assert_eq!(published(&mut curator, "Spied").await, "#none");
        // Bob's half-done work is his, uncommitted still.
        let out = execute(&mut bob, vec![evaluate("UserGlobals at: #Draft ifAbsent: [#gone]")]).await;
        assert_eq!(printed(&out[0]), "'unsaved'");
        // In Dave's own gem both are placed: there they run with his rights.
        let out = execute(&mut dave, vec![op(Op::Breakpoints(pb::Empty {}))]).await;
        let Outcome::Breakpoints(l) = &out[0] else { panic!("breakpoints: {out:?}") };
        assert!(l.breakpoints.len() == 2 && l.breakpoints.iter().all(|b| b.placed), "{l:?}");
    });
}
