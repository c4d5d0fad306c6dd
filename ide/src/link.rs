//! The IDE's connection to a gem's agent: a login, batches sent off the UI thread (each
//! gesture sends one, and its reply comes back through a channel the UI reads every frame),
//! and the agent's event stream. The UI never waits on the network: it asks, and draws what
//! has come back. The login is the protocol's one agent client ([`AgentSession`]), so the IDE
//! reaches a gem as the command line does, over TLS too (`https://`, trusting the authority
//! `ONYX_TLS_CA` names).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_protocol::client::{AgentSession, LoginError};

use crate::breakpoints::Book;
use crate::gems::Gems;

/// Why a link could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The link's own runtime could not start.
    #[error("cannot start the connection's runtime: {0}")]
    Runtime(std::io::Error),
    /// The gem could not be reached, or refused the login.
    #[error(transparent)]
    Login(#[from] LoginError),
    /// A link made with a ticket logs in again only with a new one, from the IDE's own gem.
    #[error("the gem at {0} was attached to with a ticket: attach to it again from the sessions list")]
    Attached(String),
}

impl From<std::io::Error> for ConnectError {
    fn from(e: std::io::Error) -> ConnectError {
        ConnectError::Runtime(e)
    }
}

/// What the UI is handed back.
pub enum Incoming {
    /// The reply to a batch.
    Reply(Box<Reply>),
    /// Something the tools react to.
    Event(pb::event::Event),
    /// The event stream ended (the gem went away).
    EventsEnded(String),
}

/// The reply to one batch: its outcomes (or why there are none), and its timing.
pub struct Reply {
    /// The batch's ticket.
    pub ticket: Ticket,
    /// Its operations' outcomes, or why the call failed.
    pub result: Result<Vec<Outcome>, String>,
    /// Time from sending to the reply.
    pub wall: Duration,
    /// Time the agent spent on it.
    pub server: Duration,
    /// With auto-commit on: the outcome of the commit that followed the batch.
    pub auto_commit: Option<Outcome>,
    /// The transaction's state once the batch was done.
    pub transaction: Option<pb::TransactionStatus>,
}

/// Names a batch sent, so that its reply finds the pane that asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket(pub u64);

/// A link being made off the UI thread: it comes through the receiver, or why not.
pub type Linking = mpsc::Receiver<Result<Link, ConnectError>>;

/// Called when something has come back, so that the UI draws again.
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// Tickets are unique across links, so that a reply never finds a pane that asked another.
static NEXT_TICKET: AtomicU64 = AtomicU64::new(1);

/// A logged-in connection to a gem's agent.
pub struct Link {
    runtime: tokio::runtime::Runtime,
    session: AgentSession,
    incoming: mpsc::Receiver<Incoming>,
    outgoing: mpsc::Sender<Incoming>,
    wake: Wake,
    /// The password the user gave for this gem (none for a gem attached to with a ticket).
    password: Option<String>,
    /// Batches sent since the link was made: one per gesture that needs the server.
    sent: Arc<AtomicU64>,
    /// Of those, the batches panes sent to read again what they show (not gestures).
    refreshes: u64,
    /// The gem's address.
    pub address: String,
    /// The user logged in.
    pub user: String,
    /// Whether the user may change code.
    pub may_change_code: bool,
    /// The address of the gem's stone, as the gem says (where another gem joins it).
    pub stone: String,
    /// The gems this IDE may start on its stone (an embedded one).
    gems: Option<Gems>,
    /// What the gem has of the stone's breakpoints.
    pub breakpoints: Book,
}

impl Link {
    /// Logs in as `user` to the agent at `address` (`host:port`, or `https://host:port`),
    /// and listens to its events.
    pub fn connect(address: &str, user: &str, password: &str, wake: Wake) -> Result<Link, ConnectError> {
        let runtime = link_runtime()?;
        let session = runtime.block_on(AgentSession::login(address, user, password))?;
        Ok(Link::over(runtime, session, user, Some(password.to_string()), wake))
    }

    /// Logs in to the agent at `address` of session `session`'s gem as `home`'s user, with a
    /// ticket the stone issues through `home` (see [`AgentSession::attach`]).
    fn attached(
        home: &AgentSession,
        session: u64,
        address: &str,
        user: &str,
        wake: Wake,
    ) -> Result<Link, ConnectError> {
        let runtime = link_runtime()?;
        let session = runtime.block_on(home.attach(session, address))?;
        Ok(Link::over(runtime, session, user, None, wake))
    }

    /// The link of a login made, listening to its events.
    fn over(
        runtime: tokio::runtime::Runtime,
        session: AgentSession,
        user: &str,
        password: Option<String>,
        wake: Wake,
    ) -> Link {
        let (may_change_code, stone) = (session.may_change_code(), session.stone().to_string());
        let address = session.address().to_string();
        let (outgoing, incoming) = mpsc::channel();
        let link = Link {
            runtime,
            session,
            incoming,
            outgoing,
            wake,
            password,
            sent: Arc::default(),
            refreshes: 0,
            address,
            user: user.to_string(),
            may_change_code,
            stone,
            gems: None,
            breakpoints: Book::default(),
        };
        link.listen();
        link
    }

    /// The link, able to start gems on its stone with `gems` (the stone is embedded).
    pub fn with_gems(mut self, gems: Gems) -> Link {
        self.gems = Some(gems);
        self
    }

    /// The gems this IDE starts on its stone, if it may start any.
    pub fn gems(&self) -> Option<&Gems> {
        self.gems.as_ref()
    }

    /// Starts another gem on the stone, if this IDE may; the window is redrawn once it
    /// serves.
    pub fn start_gem(&self) {
        if let Some(gems) = &self.gems {
            gems.start(Arc::clone(&self.wake));
        }
    }

    /// Streams the agent's events into the incoming channel.
    fn listen(&self) {
        let (mut session, out, wake) = (self.session.clone(), self.outgoing.clone(), Arc::clone(&self.wake));
        self.runtime.spawn(async move {
            let ended = match session.events().await {
                Ok(mut stream) => loop {
                    match stream.message().await {
                        Ok(Some(pb::Event { event: Some(event) })) => {
                            if out.send(Incoming::Event(event)).is_err() {
                                return;
                            }
                            wake();
                        }
                        Ok(Some(_)) => {}
                        Ok(None) => break "the gem ended its events".to_string(),
                        Err(status) => break status.message().to_string(),
                    }
                },
                Err(status) => status.message().to_string(),
            };
            let _ = out.send(Incoming::EventsEnded(ended));
            wake();
        });
    }

    /// Sends `ops` as one batch; the reply comes back as [`Incoming::Reply`] with the ticket
    /// answered here.
    pub fn execute(&mut self, ops: Vec<Op>) -> Ticket {
        let ticket = Ticket(NEXT_TICKET.fetch_add(1, Ordering::Relaxed));
        self.sent.fetch_add(1, Ordering::Relaxed);
        self.send(ticket, onyx_protocol::client::batch(ops));
        ticket
    }

    /// Sends `ops` as one batch, the last asking for one page of its list.
    pub fn execute_page(&mut self, ops: Vec<Op>, page: pb::Page) -> Ticket {
        let ticket = Ticket(NEXT_TICKET.fetch_add(1, Ordering::Relaxed));
        self.sent.fetch_add(1, Ordering::Relaxed);
        let last = ops.len().saturating_sub(1);
        let operations = ops
            .into_iter()
            .enumerate()
            .map(|(i, op)| pb::Operation { op: Some(op), page: (i == last).then_some(page) })
            .collect();
        self.send(ticket, pb::Batch { operations });
        ticket
    }

    fn send(&self, ticket: Ticket, batch: pb::Batch) {
        let (mut session, out, wake) = (self.session.clone(), self.outgoing.clone(), Arc::clone(&self.wake));
        self.runtime.spawn(async move {
            let started = Instant::now();
            let answer = session.execute(batch).await;
            let wall = started.elapsed();
            let (result, server, auto_commit, transaction) = match answer {
                Ok(reply) => {
                    let server = Duration::from_micros(reply.server_micros);
                    let outcomes = reply.results.into_iter().map(|r| r.outcome.unwrap_or_else(no_outcome)).collect();
                    (Ok(outcomes), server, reply.auto_commit.and_then(|r| r.outcome), reply.transaction)
                }
                Err(status) => (Err(failure(&status)), Duration::ZERO, None, None),
            };
            let reply = Reply { ticket, result, wall, server, auto_commit, transaction };
            let _ = out.send(Incoming::Reply(Box::new(reply)));
            wake();
        });
    }

    /// Logs in again, as the same user at the same address, on a thread of its own: the
    /// answer comes through the receiver (the window goes on meanwhile).
    pub fn reconnect(&self) -> Linking {
        let (tx, rx) = mpsc::channel();
        let (address, user, wake) = (self.address.clone(), self.user.clone(), Arc::clone(&self.wake));
        let Some(password) = self.password.clone() else {
            let _ = tx.send(Err(ConnectError::Attached(address)));
            return rx;
        };
        std::thread::spawn(move || {
            let _ = tx.send(Link::connect(&address, &user, &password, Arc::clone(&wake)));
            wake();
        });
        rx
    }

    /// Logs in to the agent at `address` of session `session`'s gem (another gem of the
    /// stone) as the same user, on a thread of its own: the answer comes through the
    /// receiver. The login takes a one-time ticket the stone issues through this link's gem,
    /// never the password: the address is only what that session says of itself. The stone
    /// lets the user in if the gem is theirs, or if they may debug others' gems.
    pub fn attach_to(&self, address: &str, session: u64) -> Linking {
        let (tx, rx) = mpsc::channel();
        let (home, address, user, wake) =
            (self.session.clone(), address.to_string(), self.user.clone(), Arc::clone(&self.wake));
        std::thread::spawn(move || {
            let _ = tx.send(Link::attached(&home, session, &address, &user, Arc::clone(&wake)));
            wake();
        });
        rx
    }

    /// Logs out (the gem lets go of the objects the login held), on a thread of its own.
    pub fn logout(self) {
        std::thread::spawn(move || {
            let Link { runtime, session, .. } = self;
            let _ = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(5), session.logout()).await });
        });
    }

    /// What has come back since the last call.
    pub fn take(&self) -> Vec<Incoming> {
        self.incoming.try_iter().collect()
    }

    /// Batches sent since the link was made.
    pub fn batches_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// Of the batches sent, those that read again what a pane shows (after an event, a
    /// commit or a doit), not gestures of the user's.
    pub fn refreshes_sent(&self) -> u64 {
        self.refreshes
    }

    /// Counts a batch just sent as a refresh.
    pub(crate) fn count_refresh(&mut self) {
        self.refreshes += 1;
    }
}

fn no_outcome() -> Outcome {
    Outcome::Error(pb::Error { message: "the gem answered nothing".into(), ..Default::default() })
}

/// A failed call, as the status bar shows it.
fn failure(status: &tonic::Status) -> String {
    match status.code() {
        tonic::Code::Unavailable => format!("the gem cannot be reached: {}", status.message()),
        tonic::Code::Unauthenticated => format!("logged out: {}", status.message()),
        _ => status.message().to_string(),
    }
}

/// The runtime of one link's calls and events.
fn link_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()
}
