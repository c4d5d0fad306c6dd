//! The one client of a gem's agent: an endpoint (TLS included, see [`crate::tls`]), a login,
//! and the token every later call carries. The command line, the IDE and the benchmarks all
//! talk to a gem through an [`AgentSession`].

use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Channel;

use crate::agent::{self as pb, agent_client::AgentClient, operation::Op, result::Outcome};
use crate::tls::{self, TlsError};

/// Why a login could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoginError {
    /// The address, or its TLS, cannot work.
    #[error(transparent)]
    Address(#[from] TlsError),
    /// Nothing answers at the address.
    #[error("cannot reach the gem at {address}: {reason}")]
    Unreachable {
        /// The gem's address.
        address: String,
        /// What the connection said.
        reason: String,
    },
    /// The gem refused the login (an unknown user or password, a gem that is another
    /// user's session), or what answered is no gem's agent.
    #[error("{}", crate::peer::call_error(.status, .address, crate::peer::Peer::Gem))]
    Refused {
        /// The gem's address.
        address: String,
        /// The gem's answer.
        status: tonic::Status,
    },
    /// The gem logged in to would not issue a ticket to another session's gem (the session
    /// is gone, or the login is a debugger's, who acts for no one there).
    #[error("no ticket to the gem of session {session}: {reason}")]
    NoTicket {
        /// The session attached to.
        session: u64,
        /// Why not.
        reason: String,
    },
    /// The gem answered a token that cannot be sent back.
    #[error("the gem at {address} answered a malformed token")]
    MalformedToken {
        /// The gem's address.
        address: String,
    },
}

/// A login to a gem's agent. Clones share the connection and the token, so that calls can run
/// concurrently; the login ends with [`AgentSession::logout`] or the gem's idle limit.
#[derive(Clone)]
pub struct AgentSession {
    agent: AgentClient<Channel>,
    bearer: MetadataValue<Ascii>,
    address: String,
    may_change_code: bool,
    /// The address of the gem's stone, as the gem says.
    stone: String,
}

impl AgentSession {
    /// Connects to the agent at `address` (`host:port`, or `https://host:port`) and logs in as
    /// `user`.
    pub async fn login(address: &str, user: &str, password: &str) -> Result<AgentSession, LoginError> {
        let request = pb::LoginRequest { user: user.into(), password: password.into(), ticket: String::new() };
        AgentSession::login_with(address, request).await
    }

    /// Logs in to the agent at `address` of session `session`'s gem (another gem of this
    /// login's stone) as this login's user, with a one-time ticket the stone issues through
    /// this gem: no password goes to an address the sessions list only advertises, and a
    /// ticket is good at that session's gem alone. The stone lets the user in if the gem is
    /// theirs, or if they may debug others' gems.
    pub async fn attach(&self, session: u64, address: &str) -> Result<AgentSession, LoginError> {
        let refused = |reason: String| LoginError::NoTicket { session, reason };
        let ask = batch(vec![Op::IssueTicket(pb::TicketFor { session })]);
        let answer = self.clone().execute(ask).await.map_err(|s| refused(s.message().to_string()))?;
        let secret = match answer.results.into_iter().next().and_then(|r| r.outcome) {
            Some(Outcome::Ticket(t)) if t.session == session => t.secret,
            Some(Outcome::Error(e)) => return Err(refused(e.message)),
            _ => return Err(refused("the gem answered something else".into())),
        };
        let request = pb::LoginRequest { user: String::new(), password: String::new(), ticket: secret };
        AgentSession::login_with(address, request).await
    }

    async fn login_with(address: &str, request: pb::LoginRequest) -> Result<AgentSession, LoginError> {
        let endpoint = tls::endpoint(address)?;
        let channel = endpoint
            .connect()
            .await
            .map_err(|e| LoginError::Unreachable { address: address.to_string(), reason: crate::error_chain(&e) })?;
        let mut agent = AgentClient::new(channel)
            .max_decoding_message_size(crate::codec::MAX_MESSAGE)
            .max_encoding_message_size(crate::codec::MAX_MESSAGE);
        let reply = agent
            .login(request)
            .await
            .map_err(|status| LoginError::Refused { address: address.to_string(), status })?
            .into_inner();
        let bearer = format!("Bearer {}", reply.token)
            .parse()
            .map_err(|_| LoginError::MalformedToken { address: address.to_string() })?;
        let address = address.to_string();
        Ok(AgentSession { agent, bearer, address, may_change_code: reply.may_change_code, stone: reply.stone })
    }

    /// The address of the gem's stone, as the gem says (where another gem joins it).
    pub fn stone(&self) -> &str {
        &self.stone
    }

    /// The gem's address, as given.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Whether the logged-in user may change code (compile, define and remove classes, add
    /// users).
    pub fn may_change_code(&self) -> bool {
        self.may_change_code
    }

    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request.metadata_mut().insert("authorization", self.bearer.clone());
        request
    }

    /// Runs a batch: every operation, in order, answered at once.
    pub async fn execute(&mut self, batch: pb::Batch) -> Result<pb::BatchResult, tonic::Status> {
        let request = self.request(batch);
        Ok(self.agent.execute(request).await?.into_inner())
    }

    /// The agent's events (transcript output, others' commits, sessions coming and going), as
    /// they come.
    pub async fn events(&mut self) -> Result<tonic::Streaming<pb::Event>, tonic::Status> {
        let request = self.request(pb::EventsRequest {});
        Ok(self.agent.events(request).await?.into_inner())
    }

    /// Ends the login: the gem releases what it held for it.
    pub async fn logout(mut self) -> Result<(), tonic::Status> {
        let request = self.request(pb::Empty {});
        self.agent.logout(request).await?;
        Ok(())
    }
}

/// A batch of `ops`, each answering its whole list.
pub fn batch(ops: Vec<Op>) -> pb::Batch {
    pb::Batch { operations: ops.into_iter().map(|op| pb::Operation { op: Some(op), page: None }).collect() }
}
