//! The server agent of a real gem process, driven over gRPC on 127.0.0.1: batches whose
//! operations answer one by one (a failing one among them), browsing and compiling, the
//! transaction, the transcript as events, and an endless doit interrupted while the gem goes
//! on answering.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, agent_client::AgentClient, operation::Op, result::Outcome};
use tonic::codegen::InterceptedService;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Channel;
use tonic::{Request, Status};

use crate::stone::StoneProcess;

/// A running `onyx gem` with its agent, stopped when dropped.
pub(crate) struct GemProcess {
    child: Child,
    pub(crate) addr: String,
}

impl GemProcess {
    pub(crate) fn start(stone: &StoneProcess) -> GemProcess {
        GemProcess::start_with(stone, &[])
    }

    /// A gem started with further options.
    pub(crate) fn start_with(stone: &StoneProcess, options: &[&str]) -> GemProcess {
        GemProcess::spawn(stone, options, ("DataCurator", "swordfish"))
    }

    /// A gem whose session is `user`'s.
    pub(crate) fn start_as(stone: &StoneProcess, user: &str, password: &str) -> GemProcess {
        GemProcess::spawn(stone, &[], (user, password))
    }

    fn spawn(stone: &StoneProcess, options: &[&str], (user, password): (&str, &str)) -> GemProcess {
        let mut child = Command::new(onyx_tests::onyx())
            .args(["gem", "--stone", &stone.addr, "--listen", "127.0.0.1:0"])
            .args(options)
            .env("ONYX_USER", user)
            .env("ONYX_PASSWORD", password)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("onyx gem starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).expect("the gem reports itself");
        let addr = line.trim().rsplit(' ').next().unwrap_or_default().to_string();
        assert!(line.starts_with("gem session ") && addr.starts_with("127.0.0.1:"), "{line:?}");
        GemProcess { child, addr }
    }

    /// Sends SIGTERM and answers how the gem exited, if it did within `within`.
    /// The most memory the gem's process has held, in bytes (Linux's `VmHWM`).
    pub(crate) fn peak_memory(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().strip_suffix("kB"));
        kb.and_then(|v| v.trim().parse::<u64>().ok()).map_or(0, |kb| kb << 10)
    }

    pub(crate) fn terminate(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for GemProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Looks every 20 ms until `look` finds what it looks for, for at most 5 s: what it found.
pub(crate) async fn within_5s<T>(what: &str, mut look: impl AsyncFnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(found) = look().await {
            return found;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "not within 5 s: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

/// A client of the agent that carries its login token.
pub(crate) type Agent = AgentClient<InterceptedService<Channel, Bearer>>;

#[derive(Clone, Debug)]
pub(crate) struct Bearer(MetadataValue<Ascii>);

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        request.metadata_mut().insert("authorization", self.0.clone());
        Ok(request)
    }
}

pub(crate) async fn channel(gem: &GemProcess) -> Channel {
    channel_to(&gem.addr).await
}

pub(crate) async fn channel_to(addr: &str) -> Channel {
    Channel::from_shared(format!("http://{addr}")).expect("an address").connect().await.expect("the agent answers")
}

pub(crate) async fn login(gem: &GemProcess, user: &str, password: &str) -> Result<Agent, Status> {
    login_at(&gem.addr, user, password).await
}

/// A login to the agent listening at `addr` (`host:port`).
pub(crate) async fn login_at(addr: &str, user: &str, password: &str) -> Result<Agent, Status> {
    let channel = channel_to(addr).await;
    let request = pb::LoginRequest { user: user.into(), password: password.into(), ticket: String::new() };
    let token = AgentClient::new(channel.clone()).login(request).await?.into_inner().token;
    let bearer = format!("Bearer {token}").parse().expect("a token is ASCII");
    // As the tools' clients do, it takes replies up to the limit the servers share (and sends
    // requests past it, for the servers to refuse).
    let limit = onyx_protocol::codec::MAX_MESSAGE;
    Ok(AgentClient::with_interceptor(channel, Bearer(bearer)).max_decoding_message_size(limit))
}

pub(crate) async fn client(gem: &GemProcess) -> Agent {
    login(gem, "DataCurator", "swordfish").await.expect("DataCurator logs in")
}

/// DataCurator (`curator`) adds the user `reader` (password `secret`), who may not change
/// code, and commits.
pub(crate) async fn add_reader(curator: &mut Agent) {
    let add =
        pb::AddUser { user: "reader".into(), password: "secret".into(), may_change_code: false, groups: Vec::new() };
    let out = execute(curator, vec![op(Op::AddUser(add)), op(Op::CommitTransaction(pb::Empty {}))]).await;
    assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
    assert!(matches!(&out[1], Outcome::Committed(c) if c.committed), "{:?}", out[1]);
}

pub(crate) fn op(op: Op) -> pb::Operation {
    pb::Operation { op: Some(op), page: None }
}

pub(crate) fn evaluate(source: &str) -> pb::Operation {
    op(Op::Evaluate(pb::Evaluate { source: source.into(), ..Default::default() }))
}

pub(crate) fn class(name: &str) -> Option<pb::ClassRef> {
    Some(pb::ClassRef { class_name: name.into(), meta: false })
}

pub(crate) async fn execute(client: &mut Agent, ops: Vec<pb::Operation>) -> Vec<Outcome> {
    let reply = client.execute(pb::Batch { operations: ops }).await.expect("the batch is answered").into_inner();
    reply.results.into_iter().map(|r| r.outcome.expect("an outcome")).collect()
}

pub(crate) fn printed(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Evaluated(e) => &e.print_string,
        other => panic!("expected a value, got {other:?}"),
    }
}

pub(crate) fn error(outcome: &Outcome) -> &pb::Error {
    match outcome {
        Outcome::Error(e) => e,
        other => panic!("expected an error, got {other:?}"),
    }
}

pub(crate) fn repository() -> (tempfile::TempDir, StoneProcess) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stone = StoneProcess::start(&dir.path().join("repo"));
    (dir, stone)
}

#[test]
fn a_batch_answers_each_operation_and_one_that_fails_leaves_the_others() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let reply = agent
            .execute(pb::Batch {
                operations: vec![
                    evaluate("3 + 4"),
                    evaluate("1 / 0"),
                    op(Op::Packages(pb::Empty {})),
                    evaluate("3 +"),
                    op(Op::FindClass(pb::Fragment { fragment: "dictionary".into() })),
                    op(Op::MethodSource(pb::MethodRef { class: class("NoSuchClass"), selector: "foo".into() })),
                ],
            })
            .await
            .expect("an answer")
            .into_inner();
        assert!(reply.server_micros > 0);
        let outcomes: Vec<Outcome> = reply.results.into_iter().filter_map(|r| r.outcome).collect();
        assert_eq!(outcomes.len(), 6);
        assert_eq!(printed(&outcomes[0]), "7");
        let zero = error(&outcomes[1]);
        assert_eq!(zero.code, pb::Code::SmalltalkError as i32);
        assert!(zero.message.contains("ZeroDivide") && !zero.stack.is_empty(), "{zero:?}");
        match &outcomes[2] {
            Outcome::Names(n) => assert!(n.names.iter().any(|p| p == "Kernel-Numbers"), "{:?}", n.names),
            other => panic!("{other:?}"),
        }
        let syntax = error(&outcomes[3]);
        assert_eq!(syntax.code, pb::Code::CompileError as i32);
        assert!(syntax.start > 0, "{syntax:?}");
        match &outcomes[4] {
            Outcome::Classes(c) => {
                assert!(c.classes.iter().any(|e| e.name == "Dictionary" && !e.superclass.is_empty()), "{c:?}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(error(&outcomes[5]).code, pb::Code::NotFound as i32);
    });
}

#[test]
fn classes_and_methods_are_browsed_compiled_and_committed_through_the_agent() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let define = "Object subclass: #Probe instanceVariableNames: 'x' classVariableNames: '' package: 'Probes'. Probe comment: 'A probe.'. #done";
        let compile = |source: &str| {
            op(Op::CompileMethod(pb::CompileMethod {
                class: class("Probe"),
                protocol: "accessing".into(),
                source: source.into(),
            }))
        };
        let out = execute(
            &mut agent,
            vec![
                evaluate(define),
                compile("answer\n\t^ x ifNil: [42]"),
                compile("broken\n\t^ 1 +"),
                evaluate("Probe new answer"),
                // The classes of the package Probe is in (Ctrl+B on a name).
                op(Op::Classes(pb::PackageRef { of_class: "Probe".into(), ..Default::default() })),
                op(Op::Protocols(pb::ClassRef { class_name: "Probe".into(), meta: false })),
                op(Op::Methods(pb::ProtocolRef { class: class("Probe"), protocol: "accessing".into() })),
                op(Op::MethodSource(pb::MethodRef { class: class("Probe"), selector: "answer".into() })),
                op(Op::ClassDefinition(pb::ClassRef { class_name: "Probe".into(), meta: false })),
                op(Op::Implementors(pb::SelectorRef { selector: "answer".into() })),
                op(Op::CommitTransaction(pb::Empty {})),
                // Recompiled with no protocol given, the method stays in its own.
                op(Op::CompileMethod(pb::CompileMethod {
                    class: class("Probe"),
                    protocol: String::new(),
                    source: "answer\n\t^ x ifNil: [42]".into(),
                })),
                op(Op::MethodSource(pb::MethodRef { class: class("Probe"), selector: "answer".into() })),
                // The package of a class that does not exist: a clear error.
                op(Op::Classes(pb::PackageRef { of_class: "NoSuchClass".into(), ..Default::default() })),
            ],
        )
        .await;
        assert_eq!(error(&out[13]).code, pb::Code::NotFound as i32, "{:?}", out[13]);
        assert!(matches!(&out[12], Outcome::MethodSource(m) if m.protocol == "accessing"), "{:?}", out[12]);
        assert_eq!(printed(&out[0]), "#done");
        assert!(matches!(&out[1], Outcome::Compiled(c) if c.selector == "answer"), "{:?}", out[1]);
        let broken = error(&out[2]);
        assert_eq!(broken.code, pb::Code::CompileError as i32);
        assert!(broken.start as usize >= "broken\n\t^ 1".len(), "the error is at its position: {broken:?}");
        assert_eq!(printed(&out[3]), "42");
        assert!(matches!(&out[4], Outcome::Classes(c) if c.classes.len() == 1 && c.classes[0].superclass == "Object"));
        assert!(matches!(&out[5], Outcome::Names(n) if n.names == ["accessing"]), "{:?}", out[5]);
        assert!(matches!(&out[6], Outcome::Names(n) if n.names == ["answer"]), "{:?}", out[6]);
        match &out[7] {
            Outcome::MethodSource(m) => {
                assert!(m.source.starts_with("answer") && m.protocol == "accessing", "{m:?}");
                assert!(!m.step_points.is_empty() && m.step_points.iter().all(|s| s.end as usize <= m.source.len()));
            }
            other => panic!("{other:?}"),
        }
        match &out[8] {
            Outcome::ClassDefinition(d) => {
                assert!(d.definition.contains("Probe") && d.comment == "A probe." && d.package == "Probes", "{d:?}")
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&out[9], Outcome::Methods(m) if m.methods.iter().any(|e| e.class_name == "Probe" && e.selector == "answer")),
            "{:?}",
            out[9]
        );
        assert!(matches!(&out[10], Outcome::Committed(c) if c.committed), "{:?}", out[10]);
    });
    // The committed class and method are in the repository: a new gem runs them.
    let other = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&other).await;
        let out = execute(&mut agent, vec![evaluate("Probe new answer")]).await;
        assert_eq!(printed(&out[0]), "42");
    });
}

#[test]
fn an_endless_doit_is_interrupted_while_the_gem_goes_on_answering() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut events = client(&gem).await.events(pb::EventsRequest {}).await.expect("events").into_inner();
        let mut looping = client(&gem).await;
        // The same login, for its interrupt.
        let mut same_login = looping.clone();
        let looping_source = "Transcript show: 'looping'. [true] whileTrue. 1";
        let tagged = pb::Evaluate { source: looping_source.into(), tag: 1, ..Default::default() };
        let endless = tokio::spawn(async move { execute(&mut looping, vec![op(Op::Evaluate(tagged))]).await });
        // The transcript output reaches a listener while the loop runs.
        let event = tokio::time::timeout(Duration::from_secs(10), events.message()).await.expect("an event in time");
        match event.expect("the stream is open").and_then(|e| e.event) {
            Some(pb::event::Event::Transcript(text)) => assert!(text.contains("looping"), "{text:?}"),
            other => panic!("{other:?}"),
        }
        let mut agent = client(&gem).await;
        let started = Instant::now();
        let out =
            execute(&mut agent, vec![evaluate("3 + 4"), op(Op::FindClass(pb::Fragment { fragment: "Probe".into() }))])
                .await;
        assert_eq!(printed(&out[0]), "7");
        assert!(started.elapsed() < Duration::from_secs(2), "answered while the loop runs");
        // Another endless doit, tagged 2 in another login. A tag names an evaluation of the
        // login that interrupts: tag 1 from a third login stops nothing, from the first login
        // it stops the first doit alone.
        let mut other = client(&gem).await;
        let tagged = pb::Evaluate { source: "[true] whileTrue".into(), tag: 2, ..Default::default() };
        let mut second = tokio::spawn(async move { execute(&mut other, vec![op(Op::Evaluate(tagged))]).await });
        let mut endless = endless;
        execute(&mut agent, vec![op(Op::Interrupt(pb::Interrupt { tag: 1, process: 0 }))]).await;
        assert!(
            tokio::time::timeout(Duration::from_millis(500), &mut endless).await.is_err(),
            "another login's tag 1 is not this one"
        );
        let out = execute(&mut same_login, vec![op(Op::Interrupt(pb::Interrupt { tag: 1, process: 0 }))]).await;
        assert!(matches!(out[0], Outcome::Done(_)));
        let stopped = tokio::time::timeout(Duration::from_secs(10), endless).await.expect("stopped in time");
        assert!(
            tokio::time::timeout(Duration::from_millis(500), &mut second).await.is_err(),
            "the doit tagged 2 runs on"
        );
        execute(&mut agent, vec![op(Op::Interrupt(pb::Interrupt { tag: 0, process: 0 }))]).await;
        let second = tokio::time::timeout(Duration::from_secs(10), second).await.expect("every doit stopped");
        assert_eq!(error(&second.expect("the task ran")[0]).code, pb::Code::Interrupted as i32);
        let stopped = stopped.expect("the task ran");
        let interrupted = error(&stopped[0]);
        assert_eq!(interrupted.code, pb::Code::Interrupted as i32);
        assert!(!interrupted.stack.is_empty(), "{interrupted:?}");
        // A time limit stops a doit by itself.
        let limited = pb::Evaluate {
            source: "[true] whileTrue".into(),
            time_limit_ms: 200,
            receiver: 0,
            inspect: false,
            forget: false,
            tag: 0,
        };
        let out = execute(&mut agent, vec![op(Op::Evaluate(limited)), op(Op::Transcript(pb::Empty {}))]).await;
        assert_eq!(error(&out[0]).code, pb::Code::Interrupted as i32);
        assert!(matches!(&out[1], Outcome::Text(t) if t.text.contains("looping")), "{:?}", out[1]);
    });
}

fn inspection(outcome: &Outcome) -> &pb::Inspection {
    match outcome {
        Outcome::Inspection(i) => i,
        other => panic!("expected an inspection, got {other:?}"),
    }
}

#[test]
fn objects_are_inspected_by_handle_paged_drilled_into_and_evaluated_against() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let source = "| a | a := Array new: 250. 1 to: 250 do: [:i | a at: i put: i * i]. a at: 7 put: 3 @ 4. UserGlobals at: #Squares put: a. System commitTransaction. a";
        let out = execute(&mut agent, vec![evaluate(source)]).await;
        let handle = match &out[0] {
            Outcome::Evaluated(e) => e.handle,
            other => panic!("{other:?}"),
        };
        assert_ne!(handle, 0);
        let page = |from: u64| op(Op::Inspect(pb::Inspect { handle, from, page_size: 0 }));
        let out = execute(&mut agent, vec![page(0), page(201)]).await;
        let first = inspection(&out[0]);
        assert_eq!((first.class_name.as_str(), first.indexed_size, first.indexed.len()), ("Array", 250, 100));
        assert_eq!((first.indexed[1].name.as_str(), first.indexed[1].print_string.as_str()), ("2", "4"));
        assert_eq!(first.next, 101);
        let last = inspection(&out[1]);
        assert_eq!((last.indexed.len(), last.next), (50, 0));
        assert_eq!(last.indexed[49].print_string, "62500");
        // Drill into the Point at 7, and evaluate with self bound to it.
        let point = first.indexed[6].handle;
        assert_ne!(point, 0);
        let against = pb::Evaluate { source: "self x + self y".into(), time_limit_ms: 0, receiver: point, inspect: false, forget: false, tag: 0 };
        let out = execute(
            &mut agent,
            vec![
                op(Op::Inspect(pb::Inspect { handle: point, from: 0, page_size: 0 })),
                op(Op::Evaluate(against)),
                op(Op::AbortTransaction(pb::Empty {})),
                op(Op::Inspect(pb::Inspect { handle, from: 7, page_size: 1 })),
            ],
        )
        .await;
        let p = inspection(&out[0]);
        assert_eq!(p.class_name, "Point");
        assert_eq!(p.named.iter().map(|f| (f.name.as_str(), f.print_string.as_str())).collect::<Vec<_>>(), [("x", "3"), ("y", "4")]);
        assert_eq!(printed(&out[1]), "7");
        let after_abort = inspection(&out[3]);
        assert_eq!(after_abort.indexed[0].print_string, "(3@4)", "a handle survives an abort");
        // A released handle is gone.
        let out = execute(
            &mut agent,
            vec![op(Op::Release(pb::Handles { handles: vec![point] })), op(Op::Inspect(pb::Inspect { handle: point, from: 0, page_size: 0 }))],
        )
        .await;
        assert!(matches!(out[0], Outcome::Done(_)));
        assert_eq!(error(&out[1]).code, pb::Code::NotFound as i32);
    });
}

/// Runs `onyx ARGS --gem ADDR`: (exit success, stdout, stderr).
fn onyx_client(gem: &GemProcess, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(onyx_tests::onyx()).args(args).args(["--gem", &gem.addr]).output().expect("onyx runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn the_command_line_scripts_a_gem_as_topaz_does() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    assert_eq!(onyx_client(&gem, &["eval", "UserGlobals at: #Answer put: 6 * 7"]).1.trim(), "42");
    assert_eq!(onyx_client(&gem, &["commit"]).1.trim(), "committed");
    let (ok, out, _) = onyx_client(
        &gem,
        &["eval", "UserGlobals at: #Answer put: 0. System abortTransaction. UserGlobals at: #Answer"],
    );
    assert!(ok && out.trim() == "42", "{out}");
    assert_eq!(onyx_client(&gem, &["abort"]).1.trim(), "aborted");
    let (ok, out, _) = onyx_client(&gem, &["classes", "Kernel-Numbers"]);
    assert!(ok && out.lines().any(|l| l == "Integer (Number)"), "{out}");
    let (ok, out, _) = onyx_client(&gem, &["classes"]);
    assert!(ok && out.lines().any(|l| l == "Kernel-Collections"), "{out}");
    let (ok, out, _) = onyx_client(&gem, &["source", "Object>>printString"]);
    assert!(ok && out.starts_with("printString"), "{out}");
    let (ok, out, _) = onyx_client(&gem, &["implementors", "printOn:"]);
    assert!(ok && out.lines().any(|l| l == "Object>>printOn:") && out.lines().count() > 5, "{out}");
    let (ok, out, _) = onyx_client(&gem, &["senders", "printOn:"]);
    assert!(ok && out.lines().any(|l| l == "Object>>printString"), "{out}");
    // Errors: a message on standard error and exit status 1.
    let (ok, _, err) = onyx_client(&gem, &["eval", "1/0"]);
    assert!(!ok && err.contains("ZeroDivide"), "{err}");
    let (ok, _, err) = onyx_client(&gem, &["source", "NoSuchClass>>foo"]);
    assert!(!ok && err.contains("NoSuchClass"), "{err}");
    let (ok, _, err) = onyx_client(&gem, &["source", "printString"]);
    assert!(!ok && err.contains("Class>>selector"), "{err}");
}

#[test]
fn only_logged_in_users_are_served_and_only_some_may_change_code() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        // No token, a wrong password, an unknown user.
        let mut anonymous = AgentClient::new(channel(&gem).await);
        let refused = anonymous.execute(pb::Batch { operations: vec![evaluate("3 + 4")] }).await;
        assert_eq!(refused.expect_err("no token").code(), tonic::Code::Unauthenticated);
        assert_eq!(
            login(&gem, "DataCurator", "sword").await.err().map(|s| s.code()),
            Some(tonic::Code::Unauthenticated)
        );
        // The gem's session is one user's: no one else logs in to it.
        assert_eq!(
            login(&gem, "Nobody", "swordfish").await.err().map(|s| s.code()),
            Some(tonic::Code::PermissionDenied)
        );
        // DataCurator adds a user who may not change code.
        let mut curator = client(&gem).await;
        add_reader(&mut curator).await;
        let readers_gem = GemProcess::start_as(&stone, "reader", "secret");
        let mut reader = login(&readers_gem, "reader", "secret").await.expect("reader logs in");
        let compile =
            pb::CompileMethod { class: class("Object"), protocol: String::new(), source: "sneaky ^ 1".into() };
        let add = pb::AddUser { user: "other".into(), password: "x".into(), may_change_code: true, groups: Vec::new() };
        let out = execute(
            &mut reader,
            vec![
                evaluate("3 + 4"),
                op(Op::CompileMethod(compile)),
                evaluate("Object compile: 'sneaky ^ 2'"),
                evaluate("Object subclass: #Sneaky instanceVariableNames: '' classVariableNames: '' package: 'X'"),
                op(Op::RemoveMethod(pb::MethodRef { class: class("Object"), selector: "printString".into() })),
                evaluate("Object removeSelector: #printString"),
                op(Op::AddUser(add)),
            ],
        )
        .await;
        assert_eq!(printed(&out[0]), "7");
        assert_eq!(error(&out[1]).code, pb::Code::PermissionDenied as i32);
        for (i, outcome) in out.iter().enumerate().skip(2).take(4) {
            let e = error(outcome);
            assert!(e.message.contains("permission denied"), "operation {i}: {e:?}");
        }
        assert_eq!(error(&out[6]).code, pb::Code::PermissionDenied as i32);
        // Nothing changed; the curator still may.
        let out = execute(
            &mut curator,
            vec![
                evaluate("(Object includesSelector: #sneaky) | (Smalltalk includesKey: #Sneaky)"),
                evaluate("Object includesSelector: #printString"),
                evaluate("Object compile: 'sneaky ^ 3'. Object new sneaky"),
            ],
        )
        .await;
        assert_eq!((printed(&out[0]), printed(&out[1]), printed(&out[2])), ("false", "true", "3"));
    });
}

#[test]
fn onyx_init_takes_the_users_passwords() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let init = Command::new(onyx_tests::onyx())
        .arg("init")
        .arg(&repo)
        .env("ONYX_DATACURATOR_PASSWORD", "tuna")
        .args(["--system-user-password", "marlin"])
        .output()
        .expect("onyx init runs");
    assert!(init.status.success());
    assert!(!String::from_utf8_lossy(&init.stdout).contains("swordfish"));
    let stone = StoneProcess::serve(&repo);
    let (gem, other) =
        (GemProcess::start_as(&stone, "DataCurator", "tuna"), GemProcess::start_as(&stone, "SystemUser", "marlin"));
    runtime().block_on(async {
        assert!(login(&gem, "DataCurator", "tuna").await.is_ok());
        assert!(login(&other, "SystemUser", "marlin").await.is_ok());
        assert!(login(&gem, "DataCurator", "swordfish").await.is_err());
    });
    // A gem whose user's password is wrong does not start.
    let refused = Command::new(onyx_tests::onyx())
        .args(["gem", "--stone", &stone.addr])
        .env("ONYX_USER", "DataCurator")
        .env("ONYX_PASSWORD", "swordfish")
        .output()
        .expect("onyx gem runs");
    assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("not known"));
}

fn method_names(outcome: &Outcome) -> Vec<String> {
    match outcome {
        Outcome::Methods(m) => m.methods.iter().map(|e| format!("{}>>{}", e.class_name, e.selector)).collect(),
        other => panic!("expected methods, got {other:?}"),
    }
}

#[test]
fn classes_are_defined_redefined_searched_and_removed() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let define = |d: &str| op(Op::DefineClass(pb::Definition { definition: d.into() }));
        let compile = |class_name: &str, source: &str| {
            op(Op::CompileMethod(pb::CompileMethod {
                class: class(class_name),
                protocol: "x".into(),
                source: source.into(),
            }))
        };
        let shape = "Object subclass: #Shape instanceVariableNames: 'width' classVariableNames: '' package: 'Shapes'";
        let out = execute(
            &mut agent,
            vec![
                define(shape),
                define("Shape subclass: #Square instanceVariableNames: '' classVariableNames: '' package: 'Shapes'"),
                compile("Shape", "width\n\t^ width"),
                compile("Shape", "width: w\n\twidth := w"),
                compile("Shape", "area\n\t^ self width * width"),
                compile("Square", "asShape\n\t^ Shape new width: width"),
                evaluate("UserGlobals at: #S put: (Square new width: 3). (UserGlobals at: #S) area"),
                compile("Shape", "isWide\n\t^ width notNil and: [width > 10]"),
                compile("Shape", "vague\n\t^ zork"),
            ],
        )
        .await;
        match &out[8] {
            Outcome::Compiled(c) => {
                let w = &c.warnings[..];
                assert!(w.len() == 1 && w[0].message.contains("zork") && (w[0].start, w[0].line) == (9, 2), "{w:?}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&out[0], Outcome::ClassDefinition(d) if d.package == "Shapes"), "{:?}", out[0]);
        assert_eq!(printed(&out[6]), "9");
        // Redefined with another variable: the instance keeps its width.
        let wider =
            "Object subclass: #Shape instanceVariableNames: 'width height' classVariableNames: '' package: 'Shapes'";
        let twice =
            "Object subclass: #Shape instanceVariableNames: 'width width' classVariableNames: '' package: 'Shapes'";
        let ivar = |name: &str| pb::InstVarRef { class: class("Shape"), name: name.into() };
        let out = execute(
            &mut agent,
            vec![
                define(wider),
                evaluate("(UserGlobals at: #S) area"),
                define(twice),
                op(Op::ClassDefinition(pb::ClassRef { class_name: "Shape".into(), meta: false })),
                op(Op::Readers(ivar("width"))),
                op(Op::Writers(ivar("width"))),
                op(Op::Readers(ivar("depth"))),
                op(Op::References(pb::Global { name: "Shape".into() })),
                op(Op::Senders(pb::SelectorRef { selector: "width:".into() })),
                op(Op::Hierarchy(pb::ClassRef { class_name: "Shape".into(), meta: false })),
                op(Op::Senders(pb::SelectorRef { selector: "*".into() })),
                op(Op::Senders(pb::SelectorRef { selector: "and:".into() })),
            ],
        )
        .await;
        assert!(method_names(&out[10]).contains(&"Shape>>area".to_string()), "{:?}", method_names(&out[10]));
        // An inlined control structure is a message sent all the same.
        assert!(method_names(&out[11]).contains(&"Shape>>isWide".to_string()), "{:?}", method_names(&out[11]));
        assert!(matches!(&out[0], Outcome::ClassDefinition(d) if d.definition.contains("height")), "{:?}", out[0]);
        assert_eq!(printed(&out[1]), "9", "the instance migrated");
        assert_eq!(error(&out[2]).code, pb::Code::SmalltalkError as i32);
        assert!(
            matches!(&out[3], Outcome::ClassDefinition(d) if d.definition.contains("width height")),
            "{:?}",
            out[3]
        );
        assert_eq!(method_names(&out[4]), ["Shape>>area", "Shape>>isWide", "Shape>>width", "Square>>asShape"]);
        assert_eq!(method_names(&out[5]), ["Shape>>width:"]);
        assert_eq!(error(&out[6]).code, pb::Code::NotFound as i32);
        assert_eq!(method_names(&out[7]), ["Square>>asShape"]);
        assert!(method_names(&out[8]).contains(&"Square>>asShape".to_string()));
        match &out[9] {
            Outcome::Classes(c) => {
                let names: Vec<&str> = c.classes.iter().map(|e| e.name.as_str()).collect();
                let at = |n: &str| names.iter().position(|x| *x == n).unwrap_or(usize::MAX);
                assert!(
                    at("Object") < at("Shape") && at("Shape") < at("Square") && at("Square") < names.len(),
                    "{names:?}"
                );
                assert!(c.classes.iter().any(|e| e.name == "Square" && e.superclass == "Shape"));
            }
            other => panic!("{other:?}"),
        }
        let out = execute(
            &mut agent,
            vec![
                op(Op::RemoveClass(pb::ClassRef { class_name: "Square".into(), meta: false })),
                op(Op::FindClass(pb::Fragment { fragment: "Square".into() })),
                op(Op::RemoveClass(pb::ClassRef { class_name: "Square".into(), meta: false })),
            ],
        )
        .await;
        assert!(matches!(out[0], Outcome::Done(_)), "{:?}", out[0]);
        assert!(matches!(&out[1], Outcome::Classes(c) if c.classes.is_empty()), "{:?}", out[1]);
        assert_eq!(error(&out[2]).code, pb::Code::NotFound as i32);
    });
}

#[test]
fn long_lists_come_in_pages_that_say_where_they_stand() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let implementors = || Op::Implementors(pb::SelectorRef { selector: "printOn:".into() });
        let paged =
            |from: u64, size: u32| pb::Operation { op: Some(implementors()), page: Some(pb::Page { from, size }) };
        let out = execute(&mut agent, vec![op(implementors()), paged(0, 3), paged(3, 3), paged(100_000, 3)]).await;
        let list = |o: &Outcome| match o {
            Outcome::Methods(m) => (method_names(o), m.paged.expect("paged")),
            other => panic!("{other:?}"),
        };
        let (whole, all) = list(&out[0]);
        assert!(whole.len() > 6 && all.total as usize == whole.len() && all.next == 0, "{all:?}");
        let (first, p1) = list(&out[1]);
        let (second, p2) = list(&out[2]);
        assert_eq!((p1.total, p1.next, p2.next), (all.total, 3, 6));
        assert_eq!([first, second].concat(), whole[..6]);
        let (past, p3) = list(&out[3]);
        assert!(past.is_empty() && p3.next == 0 && p3.total == all.total);
    });
}

#[test]
fn auto_commit_follows_each_batch_and_a_conflict_names_inspectable_objects() {
    let (_dir, stone) = repository();
    let (first, second) = (GemProcess::start(&stone), GemProcess::start(&stone));
    runtime().block_on(async {
        let mut a = client(&first).await;
        let mut b = client(&second).await;
        // b reads before a commits: its view is older than a's commit.
        assert_eq!(printed(&execute(&mut b, vec![evaluate("UserGlobals at: #Counter ifAbsent: [0]")]).await[0]), "0");
        let on = op(Op::AutoCommit(pb::AutoCommit { on: true }));
        let out = execute(&mut a, vec![on, op(Op::TransactionStatus(pb::Empty {}))]).await;
        assert!(matches!(&out[1], Outcome::Transaction(t) if t.auto_commit && t.in_transaction), "{:?}", out[1]);
        let reply = a
            .execute(pb::Batch { operations: vec![evaluate("UserGlobals at: #Counter put: 1")] })
            .await
            .expect("an answer")
            .into_inner();
        match reply.auto_commit.and_then(|r| r.outcome) {
            Some(Outcome::Committed(c)) => assert!(c.committed, "{c:?}"),
            other => panic!("expected the batch to be committed, got {other:?}"),
        }
        // b changes the same dictionary from its older view: its commit conflicts.
        let out =
            execute(&mut b, vec![evaluate("UserGlobals at: #Counter put: 2"), op(Op::CommitTransaction(pb::Empty {}))])
                .await;
        let conflicts = match &out[1] {
            Outcome::Committed(c) if !c.committed => c.conflicts.clone(),
            other => panic!("expected a conflict, got {other:?}"),
        };
        assert!(!conflicts.is_empty() && conflicts.iter().all(|c| c.handle != 0), "{conflicts:?}");
        let handle = conflicts[0].handle;
        let out = execute(&mut b, vec![op(Op::Inspect(pb::Inspect { handle, from: 0, page_size: 0 }))]).await;
        assert!(matches!(&out[0], Outcome::Inspection(i) if !i.class_name.is_empty()), "{:?}", out[0]);
        let out = execute(
            &mut b,
            vec![
                op(Op::AbortTransaction(pb::Empty {})),
                evaluate("UserGlobals at: #Counter"),
                op(Op::TransactionStatus(pb::Empty {})),
            ],
        )
        .await;
        assert_eq!(printed(&out[1]), "1");
        assert!(matches!(&out[2], Outcome::Transaction(t) if !t.auto_commit), "{:?}", out[2]);
    });
}

#[test]
fn immediate_and_boxed_floats_print_and_inspect_as_any_float() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    runtime().block_on(async {
        let mut agent = client(&gem).await;
        let out =
            execute(&mut agent, vec![evaluate("0.1 + 0.2"), evaluate("{1.5. 1.0e300. -0.0. 0.1. 3 / 4.0}")]).await;
        assert_eq!(printed(&out[0]), "0.30000000000000004");
        let handle = match &out[1] {
            Outcome::Evaluated(e) => e.handle,
            other => panic!("{other:?}"),
        };
        let out = execute(&mut agent, vec![op(Op::Inspect(pb::Inspect { handle, from: 0, page_size: 0 }))]).await;
        let fields = &inspection(&out[0]).indexed;
        let printed: Vec<&str> = fields.iter().map(|f| f.print_string.as_str()).collect();
        assert_eq!(printed, ["1.5", "1.0e300", "-0.0", "0.1", "0.75"]);
        // An immediate float is a value, as a SmallInteger is; a boxed one is an object to drill into.
        let handles: Vec<bool> = fields.iter().map(|f| f.handle != 0).collect();
        assert_eq!(handles, [false, true, false, false, false]);
        let boxed = fields[1].handle;
        let out =
            execute(&mut agent, vec![op(Op::Inspect(pb::Inspect { handle: boxed, from: 0, page_size: 0 }))]).await;
        let float = inspection(&out[0]);
        assert_eq!((float.class_name.as_str(), float.print_string.as_str()), ("Float", "1.0e300"));
    });
}
