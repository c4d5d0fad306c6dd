//! A gem's connection to the stone: one session over gRPC, with blocking calls (the VM runs
//! on its own thread and waits for the stone anyway), as the [`StoneLink`] the VM uses. The
//! session is one stream of requests and replies and lasts as long as this value: dropping it
//! closes the stream, which ends the session in the stone. Every failure is the
//! [`StoneError`] of its kind: what the stone said failed, or [`StoneError::Unavailable`] when
//! the stone cannot be reached or went away.

use std::ops::Range;

use onyx_protocol::codec::MAX_MESSAGE;
use onyx_protocol::peer::{Peer, call_error};
use onyx_protocol::records::{self, from_wire, to_wire};
use onyx_protocol::stone::{self as pb, reply::Answer, request::Op, stone_client::StoneClient};
use onyx_protocol::tls;
use onyx_record::{
    About, Breakpoint, CommitOutcome, LockKind, LogEntry, ObjectRecord, Oop, Policy, SessionAct, SessionInfo,
    StoneError, StoneLink, UserInfo, ViewChange,
};
use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

fn gone(message: String) -> StoneError {
    StoneError::Unavailable(message)
}

/// One session with a stone.
pub struct StoneSession {
    runtime: Runtime,
    requests: mpsc::Sender<pb::Request>,
    replies: tonic::Streaming<pb::Reply>,
    session: u64,
    user: UserInfo,
    /// The stone's address, as given.
    addr: String,
}

impl StoneSession {
    /// Connects to the stone at `addr` (`host:port`, or `https://host:port`) and opens a
    /// session as `user` with `password` (refused with [`StoneError::PermissionDenied`]).
    pub fn connect(addr: &str, user: &str, password: &str) -> Result<StoneSession, StoneError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| gone(format!("cannot start the client runtime: {e}")))?;
        let endpoint = tls::endpoint(addr).map_err(|e| StoneError::Invalid(format!("the stone at {addr}: {e}")))?;
        let (requests, outgoing) = mpsc::channel(1);
        let login = pb::Login { user: user.to_string(), password: password.to_string() };
        // The login goes first, and is in the stream before the session is asked for.
        requests
            .try_send(pb::Request { op: Some(Op::Login(login)) })
            .map_err(|_| StoneError::Protocol("cannot send the login".into()))?;
        let (replies, session, user) = runtime.block_on(async {
            let channel = endpoint
                .connect()
                .await
                .map_err(|e| gone(format!("cannot reach the stone at {addr}: {}", onyx_protocol::error_chain(&e))))?;
            let mut client =
                StoneClient::new(channel).max_decoding_message_size(MAX_MESSAGE).max_encoding_message_size(MAX_MESSAGE);
            let mut replies =
                client.session(ReceiverStream::new(outgoing)).await.map_err(|s| refused(addr, &s))?.into_inner();
            match replies.message().await.map_err(|s| refused(addr, &s))? {
                Some(pb::Reply { answer: Some(Answer::Opened(pb::Opened { session, user: Some(user), .. })) }) => {
                    Ok((replies, session, records::user_from_wire(user)))
                }
                _ => Err(StoneError::Protocol(format!("the stone at {addr} did not open a session"))),
            }
        })?;
        Ok(StoneSession { runtime, requests, replies, session, user, addr: addr.to_string() })
    }

    /// Sends one request and waits for its reply.
    fn call(&mut self, op: Op) -> Result<Answer, StoneError> {
        let (requests, replies, addr) = (&self.requests, &mut self.replies, &self.addr);
        self.runtime.block_on(async {
            let ended = || gone(format!("the stone at {addr} ended the session (it stopped, or went away)"));
            requests.send(pb::Request { op: Some(op) }).await.map_err(|_| ended())?;
            let lost = |s: tonic::Status| {
                gone(format!("lost the stone at {addr} (it stopped, or went away): {}", s.message()))
            };
            match replies.message().await.map_err(lost)? {
                Some(pb::Reply { answer: Some(Answer::Failure(f)) }) => Err(records::from_failure(f)),
                Some(pb::Reply { answer: Some(answer) }) => Ok(answer),
                _ => Err(ended()),
            }
        })
    }
}

/// The new view a reply answers.
fn new_view(answer: Answer) -> Result<ViewChange, StoneError> {
    match answer {
        Answer::View(v) => Ok(ViewChange { seq: v.seq, changed: v.changed }),
        other => Err(unexpected(&other)),
    }
}

/// A gem's VM reaches its repository through its session.
impl StoneLink for StoneSession {
    fn allocate(&mut self, count: u64) -> Result<Range<Oop>, StoneError> {
        match self.call(Op::Allocate(pb::AllocateRequest { count }))? {
            Answer::Allocated(r) => Ok(r.start..r.end),
            other => Err(unexpected(&other)),
        }
    }

    fn fetch(&mut self, oops: &[Oop], nearby: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, StoneError> {
        let request = pb::FetchRequest { oops: oops.to_vec(), nearby: nearby.to_vec(), budget };
        match self.call(Op::Fetch(request))? {
            Answer::Objects(r) => r
                .objects
                .into_iter()
                .map(|o| from_wire(o).map_err(|e| StoneError::Protocol(format!("the stone sent {e}"))))
                .collect(),
            other => Err(unexpected(&other)),
        }
    }

    fn commit(&mut self, records: &[ObjectRecord]) -> Result<CommitOutcome, StoneError> {
        let request = pb::CommitRequest { objects: records.iter().map(to_wire).collect() };
        let outcome = match self.call(Op::Commit(request))? {
            Answer::Committed(r) => r.outcome,
            other => return Err(unexpected(&other)),
        };
        match outcome {
            Some(pb::commit_reply::Outcome::Committed(v)) => {
                Ok(CommitOutcome::Committed(ViewChange { seq: v.seq, changed: v.changed }))
            }
            Some(pb::commit_reply::Outcome::Conflict(c)) => Ok(CommitOutcome::Conflict(c.oops)),
            None => Err(StoneError::Protocol("the stone answered a commit with nothing".into())),
        }
    }

    fn abort(&mut self) -> Result<ViewChange, StoneError> {
        new_view(self.call(Op::Abort(pb::Empty {}))?)
    }

    fn continue_transaction(&mut self) -> Result<ViewChange, StoneError> {
        new_view(self.call(Op::Continue(pb::Empty {}))?)
    }

    fn intern(&mut self, names: &[Vec<u8>]) -> Result<Vec<u64>, StoneError> {
        match self.call(Op::Intern(pb::SymbolNames { names: names.to_vec() }))? {
            Answer::Ids(r) => Ok(r.ids),
            other => Err(unexpected(&other)),
        }
    }

    fn symbol_names(&mut self, ids: &[u64]) -> Result<Vec<Vec<u8>>, StoneError> {
        match self.call(Op::Names(pb::SymbolIds { ids: ids.to_vec() }))? {
            Answer::Names(r) => Ok(r.names),
            other => Err(unexpected(&other)),
        }
    }

    fn session(&self) -> u64 {
        self.session
    }

    fn lock(&mut self, oop: Oop, kind: LockKind) -> Result<(), StoneError> {
        done(self.call(Op::Lock(pb::LockRequest { oop, write: kind == LockKind::Write }))?)
    }

    fn unlock(&mut self, oop: Oop) -> Result<(), StoneError> {
        done(self.call(Op::Unlock(pb::LockRequest { oop, write: false }))?)
    }

    fn unlock_all(&mut self) -> Result<(), StoneError> {
        done(self.call(Op::UnlockAll(pb::Empty {}))?)
    }

    fn collect_garbage(&mut self) -> Result<u64, StoneError> {
        match self.call(Op::CollectGarbage(pb::Empty {}))? {
            Answer::Collected(r) => Ok(r.reclaimed),
            other => Err(unexpected(&other)),
        }
    }

    fn fetch_chunk(&mut self, oop: Oop, index: u32) -> Result<Vec<u8>, StoneError> {
        match self.call(Op::FetchChunk(pb::ChunkRequest { oop, index }))? {
            Answer::Chunk(r) => Ok(r.data),
            other => Err(unexpected(&other)),
        }
    }

    fn describe(&mut self, about: &About) -> Result<(), StoneError> {
        done(self.call(Op::Describe(records::about_to_wire(about)))?)
    }

    fn user(&self) -> &UserInfo {
        &self.user
    }

    fn admit(&mut self, name: &str, password: &str) -> Result<UserInfo, StoneError> {
        let login = pb::Login { user: name.to_string(), password: password.to_string() };
        match self.call(Op::Admit(login))? {
            Answer::User(u) => Ok(records::user_from_wire(u)),
            other => Err(unexpected(&other)),
        }
    }

    fn issue_ticket(&mut self, session: u64) -> Result<String, StoneError> {
        match self.call(Op::IssueTicket(pb::TicketFor { session }))? {
            Answer::Ticket(t) => Ok(t.secret),
            other => Err(unexpected(&other)),
        }
    }

    fn redeem_ticket(&mut self, ticket: &str) -> Result<UserInfo, StoneError> {
        match self.call(Op::RedeemTicket(pb::Ticket { secret: ticket.to_string() }))? {
            Answer::User(u) => Ok(records::user_from_wire(u)),
            other => Err(unexpected(&other)),
        }
    }

    fn add_user(&mut self, name: &str, password: &str, may_change_code: bool) -> Result<(), StoneError> {
        let user = pb::NewUser { name: name.to_string(), password: password.to_string(), may_change_code };
        done(self.call(Op::AddUser(user))?)
    }

    fn set_groups(&mut self, name: &str, groups: &[String]) -> Result<(), StoneError> {
        done(self.call(Op::SetGroups(pb::UserGroups { name: name.to_string(), groups: groups.to_vec() }))?)
    }

    fn policy(&mut self, id: u32) -> Result<Policy, StoneError> {
        match self.call(Op::Policy(pb::PolicyId { id }))? {
            Answer::Policy(p) => records::policy_from_wire(p),
            other => Err(unexpected(&other)),
        }
    }

    fn define_policy(&mut self, id: Option<u32>, policy: &Policy) -> Result<u32, StoneError> {
        let definition = pb::PolicyDefinition { id, policy: Some(records::policy_to_wire(policy)) };
        match self.call(Op::DefinePolicy(definition))? {
            Answer::PolicyId(p) => Ok(p.id),
            other => Err(unexpected(&other)),
        }
    }

    fn sessions(&mut self) -> Result<(Vec<SessionInfo>, u64), StoneError> {
        match self.call(Op::Sessions(pb::Empty {}))? {
            Answer::Sessions(list) => {
                Ok((list.sessions.into_iter().map(records::session_from_wire).collect(), list.latest))
            }
            other => Err(unexpected(&other)),
        }
    }

    fn administer(&mut self, session: u64, act: SessionAct) -> Result<Vec<(Oop, LockKind)>, StoneError> {
        let act = records::act_to_wire(act) as i32;
        match self.call(Op::Administer(pb::AdministerSession { session, act }))? {
            Answer::Locks(list) => Ok(records::locks_from_wire(list)),
            other => Err(unexpected(&other)),
        }
    }

    fn log_failure(&mut self, entry: &LogEntry) -> Result<u64, StoneError> {
        match self.call(Op::LogFailure(records::log_entry_to_wire(entry)))? {
            Answer::Logged(l) => Ok(l.id),
            other => Err(unexpected(&other)),
        }
    }

    fn object_log(&mut self, from: u64, count: u32) -> Result<(Vec<LogEntry>, u64), StoneError> {
        match self.call(Op::ObjectLog(pb::LogRange { from, count }))? {
            Answer::ObjectLog(log) => {
                Ok((log.entries.into_iter().map(records::log_entry_from_wire).collect(), log.total))
            }
            other => Err(unexpected(&other)),
        }
    }

    fn object_log_entry(&mut self, id: u64) -> Result<Option<LogEntry>, StoneError> {
        match self.call(Op::ObjectLogEntry(pb::LogId { id }))? {
            Answer::ObjectLog(log) => Ok(log.entries.into_iter().next().map(records::log_entry_from_wire)),
            other => Err(unexpected(&other)),
        }
    }

    fn breakpoints(&mut self, since: u64) -> Result<Option<(u64, Vec<Breakpoint>)>, StoneError> {
        match self.call(Op::Breakpoints(pb::BreakpointsSince { since }))? {
            Answer::Breakpoints(b) if !b.changed => Ok(None),
            Answer::Breakpoints(b) => {
                let list: Result<Vec<Breakpoint>, _> =
                    b.breakpoints.into_iter().map(records::breakpoint_from_wire).collect();
                Ok(Some((b.generation, list.map_err(|e| StoneError::Protocol(e.to_string()))?)))
            }
            other => Err(unexpected(&other)),
        }
    }

    fn set_breakpoint(&mut self, breakpoint: &Breakpoint) -> Result<Breakpoint, StoneError> {
        match self.call(Op::SetBreakpoint(records::breakpoint_to_wire(breakpoint)))? {
            Answer::Breakpoints(b) => match b.breakpoints.into_iter().next().map(records::breakpoint_from_wire) {
                Some(Ok(b)) => Ok(b),
                Some(Err(e)) => Err(StoneError::Protocol(e.to_string())),
                None => Err(StoneError::Protocol("the stone answered no breakpoint".into())),
            },
            other => Err(unexpected(&other)),
        }
    }

    fn remove_breakpoint(&mut self, id: u64, fired_once: bool) -> Result<bool, StoneError> {
        match self.call(Op::RemoveBreakpoint(pb::RemoveBreakpoint { id, fired_once }))? {
            Answer::Removed(r) => Ok(r.removed),
            other => Err(unexpected(&other)),
        }
    }
}

/// The stone refused to open a session (it is stopping, or its repository failed).
fn refused(addr: &str, status: &tonic::Status) -> StoneError {
    let message = call_error(status, addr, Peer::Stone);
    match status.code() {
        tonic::Code::Unimplemented => StoneError::Protocol(message),
        tonic::Code::InvalidArgument => StoneError::Invalid(message),
        tonic::Code::PermissionDenied | tonic::Code::Unauthenticated => StoneError::PermissionDenied(message),
        tonic::Code::Internal => StoneError::Storage(message),
        _ => gone(message),
    }
}

fn done(answer: Answer) -> Result<(), StoneError> {
    match answer {
        Answer::Done(_) => Ok(()),
        other => Err(unexpected(&other)),
    }
}

/// A reply of the wrong kind: the peer is not a stone of this version.
fn unexpected(answer: &Answer) -> StoneError {
    let shown: String = format!("{answer:?}").chars().take(80).collect();
    StoneError::Protocol(format!("the stone answered out of turn: {shown}"))
}
