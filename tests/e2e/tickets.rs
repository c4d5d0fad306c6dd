//! Tools never send a password to an agent address they were only told about: the sessions
//! list is what each session says of itself, and a raw session of the reader advertises an
//! agent of its own (which records what it is sent) under DataCurator's name, with a stopped
//! process that is not there. DataCurator's `onyx dap` attaches there with a one-time ticket
//! the stone issued, never the password, and shows no such thread; the list names the
//! session's real user. A ticket logs in once, at the gem of the session it names alone, as
//! the user it was issued to, who must be the gem's own or a debugger; a debugger's login
//! gets no tickets.

use std::pin::Pin;
use std::sync::{Arc, Mutex};

use onyx_protocol::agent::{self as pb, agent_server, operation::Op, result::Outcome};
use onyx_protocol::client::{AgentSession, LoginError};
use onyx_record::{About, StoneLink as _, Suspended};
use onyx_server_agent::stone_client::StoneSession;
use serde_json::json;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::agent::{GemProcess, add_reader, client, execute, op, repository, runtime, within_5s};

/// An agent that is none: it keeps every login request it is sent, and refuses them.
#[derive(Clone, Default)]
struct Recorder {
    logins: Arc<Mutex<Vec<pb::LoginRequest>>>,
}

#[tonic::async_trait]
impl agent_server::Agent for Recorder {
    async fn login(&self, request: Request<pb::LoginRequest>) -> Result<Response<pb::LoginReply>, Status> {
        self.logins.lock().expect("the list").push(request.into_inner());
        Err(Status::unauthenticated("no one logs in here"))
    }

    async fn logout(&self, _: Request<pb::Empty>) -> Result<Response<pb::Empty>, Status> {
        Err(Status::unauthenticated("no login"))
    }

    async fn execute(&self, _: Request<pb::Batch>) -> Result<Response<pb::BatchResult>, Status> {
        Err(Status::unauthenticated("no login"))
    }

    type EventsStream = Pin<Box<dyn Stream<Item = Result<pb::Event, Status>> + Send>>;

    async fn events(&self, _: Request<pb::EventsRequest>) -> Result<Response<Self::EventsStream>, Status> {
        Err(Status::unauthenticated("no login"))
    }
}

/// Serves a [`Recorder`] on a port of 127.0.0.1 of its own: its address.
fn serve(recorder: &Recorder, runtime: &tokio::runtime::Runtime) -> String {
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("a port");
    let addr = listener.local_addr().expect("its address").to_string();
    let service = agent_server::AgentServer::new(recorder.clone());
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
    runtime.spawn(tonic::transport::Server::builder().add_service(service).serve_with_incoming(incoming));
    addr
}

/// The stone's sessions, as the gem of `agent` lists them.
async fn listed(agent: &mut crate::agent::Agent) -> Vec<pb::GemSession> {
    match execute(agent, vec![op(Op::Sessions(pb::Empty {}))]).await.remove(0) {
        Outcome::Sessions(s) => s.sessions,
        other => panic!("sessions: {other:?}"),
    }
}

#[test]
fn the_debug_adapter_sends_no_password_to_an_agent_a_session_advertises() {
    let (_dir, stone) = repository();
    let gem = GemProcess::start(&stone);
    let rt = runtime();
    let recorder = Recorder::default();
    let fake = serve(&recorder, &rt);
    let mut curator = rt.block_on(client(&gem));
    rt.block_on(add_reader(&mut curator));
    // The reader's raw session says it is DataCurator's, with an agent and a stopped process.
    let mut reader = StoneSession::connect(&stone.addr, "reader", "secret").expect("the reader logs in");
    let stopped = Suspended {
        process: 7,
        kind: "breakpoint".into(),
        reason: "breakpoint 1 at line 3".into(),
        method: "Payroll>>pay".into(),
        since_micros: 1,
    };
    let about = About { user: "DataCurator".into(), agent: fake.clone(), suspended: vec![stopped], ..About::default() };
    reader.describe(&about).expect("described");
    let theirs = rt.block_on(within_5s("the reader's session is listed", async || {
        listed(&mut curator).await.into_iter().find(|s| s.agent == fake)
    }));
    assert_eq!(theirs.user, "reader", "the list names the user the stone let in, not what the session says");

    let mut dap = crate::dap::Adapter::start();
    dap.ok("initialize", json!({"adapterID": "onyx"}));
    dap.ok("attach", json!({"gem": gem.addr}));
    let threads = dap.ok("threads", json!({}));
    let shown = threads["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .any(|t| t["name"].as_str().is_some_and(|n| n.contains(&fake)));
    assert!(!shown, "a process only the session claims is no thread: {threads}");
    let logins = recorder.logins.lock().expect("the list").clone();
    assert!(!logins.is_empty(), "the adapter tried the advertised agent");
    for login in &logins {
        assert!(login.password.is_empty() && login.user.is_empty(), "a password went to {fake}: {login:?}");
        assert_eq!(login.ticket.len(), 64, "a ticket instead: {login:?}");
    }
    // What the fake agent was handed logs in nowhere: not at the gem, not as the reader.
    let ticket = logins[0].ticket.clone();
    rt.block_on(async {
        let request = pb::LoginRequest { ticket: ticket.clone(), ..Default::default() };
        let mut raw = pb::agent_client::AgentClient::new(crate::agent::channel(&gem).await);
        let refused = raw.login(request).await.expect_err("the ticket is for the reader's session's gem");
        assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{refused:?}");
    });
    let refused = reader.redeem_ticket(&ticket).expect_err("spent");
    assert!(matches!(refused, onyx_record::StoneError::PermissionDenied(_)), "{refused:?}");
}

#[test]
fn a_ticket_logs_in_once_at_the_gem_it_names_as_the_user_it_was_issued_to() {
    let (_dir, stone) = repository();
    let curators = GemProcess::start(&stone);
    let rt = runtime();
    let mut curator = rt.block_on(client(&curators));
    rt.block_on(add_reader(&mut curator));
    rt.block_on(crate::attach::add_alice(&mut curator));
    let readers = GemProcess::start_as(&stone, "reader", "secret");
    let alices = GemProcess::start_as(&stone, "alice", "wonder");
    rt.block_on(async {
        let session_of = async |agent: &mut crate::agent::Agent, addr: &str| {
            within_5s("the gem is listed", async || listed(agent).await.into_iter().find(|s| s.agent == addr))
                .await
                .session
        };
        let reader_session = session_of(&mut curator, &readers.addr).await;
        let curator_session = session_of(&mut curator, &curators.addr).await;

        // Alice, who may debug others' gems, attaches to the reader's from her own.
        let alice = AgentSession::login(&alices.addr, "alice", "wonder").await.expect("alice logs in");
        let mut there = alice.attach(reader_session, &readers.addr).await.expect("alice attaches with a ticket");
        let ops = onyx_protocol::client::batch(vec![
            Op::Processes(pb::Empty {}),
            Op::Evaluate(pb::Evaluate { source: "3 + 4".into(), ..Default::default() }),
            Op::IssueTicket(pb::TicketFor { session: curator_session }),
        ]);
        let out = there.execute(ops).await.expect("answered").results;
        let outcome = |i: usize| out[i].outcome.clone().expect("an outcome");
        assert!(matches!(outcome(0), Outcome::Processes(_)), "a debugger debugs: {:?}", outcome(0));
        for (i, what) in [(1, "evaluates"), (2, "gets tickets")] {
            match outcome(i) {
                Outcome::Error(e) => assert_eq!(e.code, pb::Code::PermissionDenied as i32, "{what}: {e:?}"),
                other => panic!("a debugger of another's gem {what}: {other:?}"),
            }
        }

        // A ticket to the reader's gem, taken to the curator's: refused, and spent.
        let issue = onyx_protocol::client::batch(vec![Op::IssueTicket(pb::TicketFor { session: reader_session })]);
        let mut home = alice.clone();
        let Some(Outcome::Ticket(t)) = home.execute(issue).await.expect("answered").results.remove(0).outcome else {
            panic!("no ticket");
        };
        for (addr, why) in [(&curators.addr, "another gem"), (&readers.addr, "spent")] {
            let request = pb::LoginRequest { ticket: t.secret.clone(), ..Default::default() };
            let mut raw = pb::agent_client::AgentClient::new(crate::agent::channel_to(addr).await);
            let refused = raw.login(request).await.expect_err(why);
            assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{why}: {refused:?}");
        }

        // The reader may not debug the curator's gem, ticket or not; nor is a guess a ticket.
        let reader = AgentSession::login(&readers.addr, "reader", "secret").await.expect("the reader logs in");
        match reader.attach(curator_session, &curators.addr).await {
            Err(LoginError::Refused { status, .. }) => {
                assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");
                assert!(status.message().contains("Debuggers"), "{status:?}");
            }
            Err(other) => panic!("refused otherwise: {other}"),
            Ok(_) => panic!("the reader attached to the curator's gem"),
        }
        let request = pb::LoginRequest { ticket: "0".repeat(64), ..Default::default() };
        let mut raw = pb::agent_client::AgentClient::new(crate::agent::channel(&curators).await);
        assert!(raw.login(request).await.is_err(), "a guessed ticket");
        // A session that is gone gets no ticket to it.
        match alice.attach(999_999, &readers.addr).await {
            Err(LoginError::NoTicket { reason, .. }) => assert!(reason.contains("not logged in"), "{reason}"),
            other => panic!("a ticket to no session: {:?}", other.err()),
        }
    });
}
