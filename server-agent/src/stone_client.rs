//! A gem's connection to the stone: one session over gRPC, with blocking calls (the VM runs
//! on its own thread and waits for the stone anyway). The session is one stream of requests
//! and replies and lasts as long as this value: dropping it closes the stream, which ends
//! the session in the stone.

use std::fmt;
use std::ops::Range;

use onyx_protocol::stone::{self as pb, reply::Answer, request::Op, stone_client::StoneClient};
use onyx_store::{About, CommitOutcome, LockKind, ObjectRecord, Oop, SessionInfo, ViewChange};
use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::wire::{from_wire, to_wire};

/// A failed call: what the stone (or the connection) said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoneError {
    /// The gRPC status code (e.g. `FailedPrecondition` for a denied lock).
    pub code: tonic::Code,
    pub message: String,
}

impl fmt::Display for StoneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoneError {}

impl From<tonic::Status> for StoneError {
    fn from(s: tonic::Status) -> StoneError {
        StoneError { code: s.code(), message: s.message().to_string() }
    }
}

fn broken(message: String) -> StoneError {
    StoneError { code: tonic::Code::Unavailable, message }
}

/// One session with a stone.
pub struct StoneSession {
    runtime: Runtime,
    requests: mpsc::Sender<pb::Request>,
    replies: tonic::Streaming<pb::Reply>,
    session: u64,
    view: u64,
}

impl StoneSession {
    /// Connects to the stone at `addr` (`host:port`) and opens a session.
    pub fn connect(addr: &str) -> Result<StoneSession, StoneError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| broken(format!("cannot start the client runtime: {e}")))?;
        let endpoint = crate::tls::endpoint(addr).map_err(|e| broken(format!("the stone at {addr}: {e:#}")))?;
        let (requests, outgoing) = mpsc::channel(1);
        let (replies, session, view) = runtime.block_on(async {
            let channel = endpoint
                .tcp_nodelay(true)
                .connect()
                .await
                .map_err(|e| broken(format!("cannot reach the stone at {addr}: {e}")))?;
            let mut client = StoneClient::new(channel).max_decoding_message_size(1 << 30);
            let mut replies = client.session(ReceiverStream::new(outgoing)).await?.into_inner();
            match replies.message().await? {
                Some(pb::Reply { answer: Some(Answer::Opened(o)) }) => Ok((replies, o.session, o.view)),
                _ => Err(broken("the stone did not open a session".into())),
            }
        })?;
        Ok(StoneSession { runtime, requests, replies, session, view })
    }

    /// The session's id in the stone.
    pub fn id(&self) -> u64 {
        self.session
    }

    /// The commit the session's view shows.
    pub fn view(&self) -> u64 {
        self.view
    }

    /// Sends one request and waits for its reply.
    fn call(&mut self, op: Op) -> Result<Answer, StoneError> {
        let (requests, replies) = (&self.requests, &mut self.replies);
        self.runtime.block_on(async {
            let gone = || broken("the stone ended the session".into());
            requests.send(pb::Request { op: Some(op) }).await.map_err(|_| gone())?;
            match replies.message().await? {
                Some(pb::Reply { answer: Some(Answer::Failure(f)) }) => {
                    Err(StoneError { code: tonic::Code::from(f.code), message: f.message })
                }
                Some(pb::Reply { answer: Some(answer) }) => Ok(answer),
                _ => Err(gone()),
            }
        })
    }

    /// Fresh OOPs for new objects.
    pub fn allocate(&mut self, count: u64) -> Result<Range<Oop>, StoneError> {
        match self.call(Op::Allocate(pb::AllocateRequest { count }))? {
            Answer::Allocated(r) => Ok(r.start..r.end),
            other => Err(unexpected(&other)),
        }
    }

    /// `oops`, then what they reference and `nearby`, up to `budget` bytes of records.
    pub fn fetch(&mut self, oops: &[Oop], nearby: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, StoneError> {
        let request = pb::FetchRequest { oops: oops.to_vec(), nearby: nearby.to_vec(), budget };
        match self.call(Op::Fetch(request))? {
            Answer::Objects(r) => r.objects.into_iter().map(|o| from_wire(o).map_err(broken)).collect(),
            other => Err(unexpected(&other)),
        }
    }

    /// Commits changed and new objects.
    pub fn commit(&mut self, records: &[ObjectRecord]) -> Result<CommitOutcome, StoneError> {
        let request = pb::CommitRequest { objects: records.iter().map(to_wire).collect() };
        let outcome = match self.call(Op::Commit(request))? {
            Answer::Committed(r) => r.outcome,
            other => return Err(unexpected(&other)),
        };
        match outcome {
            Some(pb::commit_reply::Outcome::Committed(v)) => {
                self.view = v.seq;
                Ok(CommitOutcome::Committed(ViewChange { seq: v.seq, changed: v.changed }))
            }
            Some(pb::commit_reply::Outcome::Conflict(c)) => Ok(CommitOutcome::Conflict(c.oops)),
            None => Err(broken("the stone answered a commit with nothing".into())),
        }
    }

    /// A view of the latest commit (and the session's locks released).
    pub fn abort(&mut self) -> Result<ViewChange, StoneError> {
        let answer = self.call(Op::Abort(pb::Empty {}))?;
        self.new_view(answer)
    }

    /// A view of the latest commit, keeping the transaction's locks.
    pub fn continue_transaction(&mut self) -> Result<ViewChange, StoneError> {
        let answer = self.call(Op::Continue(pb::Empty {}))?;
        self.new_view(answer)
    }

    fn new_view(&mut self, answer: Answer) -> Result<ViewChange, StoneError> {
        match answer {
            Answer::View(v) => {
                self.view = v.seq;
                Ok(ViewChange { seq: v.seq, changed: v.changed })
            }
            other => Err(unexpected(&other)),
        }
    }

    /// Locks `oop` for this session; denied with code `FailedPrecondition`.
    pub fn lock(&mut self, oop: Oop, kind: LockKind) -> Result<(), StoneError> {
        done(self.call(Op::Lock(pb::LockRequest { oop, write: kind == LockKind::Write }))?)
    }

    /// Releases this session's lock on `oop`.
    pub fn unlock(&mut self, oop: Oop) -> Result<(), StoneError> {
        done(self.call(Op::Unlock(pb::LockRequest { oop, write: false }))?)
    }

    /// Releases every lock of this session.
    pub fn unlock_all(&mut self) -> Result<(), StoneError> {
        done(self.call(Op::UnlockAll(pb::Empty {}))?)
    }

    /// The ids of symbols `names`, interning new ones.
    pub fn intern(&mut self, names: &[Vec<u8>]) -> Result<Vec<u64>, StoneError> {
        match self.call(Op::Intern(pb::SymbolNames { names: names.to_vec() }))? {
            Answer::Ids(r) => Ok(r.ids),
            other => Err(unexpected(&other)),
        }
    }

    /// The names of the symbols with ids `ids`.
    pub fn symbol_names(&mut self, ids: &[u64]) -> Result<Vec<Vec<u8>>, StoneError> {
        match self.call(Op::Names(pb::SymbolIds { ids: ids.to_vec() }))? {
            Answer::Names(r) => Ok(r.names),
            other => Err(unexpected(&other)),
        }
    }

    /// Chunk `index` of large object `oop`.
    pub fn fetch_chunk(&mut self, oop: Oop, index: u32) -> Result<Vec<u8>, StoneError> {
        match self.call(Op::FetchChunk(pb::ChunkRequest { oop, index }))? {
            Answer::Chunk(r) => Ok(r.data),
            other => Err(unexpected(&other)),
        }
    }

    /// Says what the gem is, for lists of the stone's sessions.
    pub fn describe(&mut self, about: &About) -> Result<(), StoneError> {
        let about = pb::About {
            user: about.user.clone(),
            host: about.host.clone(),
            pid: about.pid,
            agent: about.agent.clone(),
        };
        done(self.call(Op::Describe(about))?)
    }

    /// Every session of the stone, and the number of the latest commit.
    pub fn sessions(&mut self) -> Result<(Vec<SessionInfo>, u64), StoneError> {
        match self.call(Op::Sessions(pb::Empty {}))? {
            Answer::Sessions(list) => {
                let sessions = list
                    .sessions
                    .into_iter()
                    .map(|s| {
                        let a = s.about.unwrap_or_default();
                        SessionInfo {
                            session: s.session,
                            about: About { user: a.user, host: a.host, pid: a.pid, agent: a.agent },
                            view: s.view,
                            behind: s.behind,
                            locks: s.locks,
                        }
                    })
                    .collect();
                Ok((sessions, list.latest))
            }
            other => Err(unexpected(&other)),
        }
    }

    /// Has the stone delete the objects no live view can reach; answers how many it deleted.
    pub fn collect_garbage(&mut self) -> Result<u64, StoneError> {
        match self.call(Op::CollectGarbage(pb::Empty {}))? {
            Answer::Collected(r) => Ok(r.reclaimed),
            other => Err(unexpected(&other)),
        }
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
    StoneError { code: tonic::Code::Internal, message: format!("the stone answered out of turn: {shown}") }
}

/// A gem's VM reaches its repository through its session.
impl onyx_vm::persist::StoneLink for StoneSession {
    fn fetch(&mut self, oops: &[Oop], nearby: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, String> {
        StoneSession::fetch(self, oops, nearby, budget).map_err(|e| e.to_string())
    }

    fn allocate(&mut self, count: u64) -> Result<Range<Oop>, String> {
        StoneSession::allocate(self, count).map_err(|e| e.to_string())
    }

    fn commit(&mut self, records: &[ObjectRecord]) -> Result<CommitOutcome, String> {
        StoneSession::commit(self, records).map_err(|e| e.to_string())
    }

    fn abort(&mut self) -> Result<ViewChange, String> {
        StoneSession::abort(self).map_err(|e| e.to_string())
    }

    fn continue_transaction(&mut self) -> Result<ViewChange, String> {
        StoneSession::continue_transaction(self).map_err(|e| e.to_string())
    }

    fn intern(&mut self, names: &[Vec<u8>]) -> Result<Vec<u64>, String> {
        StoneSession::intern(self, names).map_err(|e| e.to_string())
    }

    fn symbol_names(&mut self, ids: &[u64]) -> Result<Vec<Vec<u8>>, String> {
        StoneSession::symbol_names(self, ids).map_err(|e| e.to_string())
    }

    fn session(&self) -> u64 {
        self.id()
    }

    fn lock(&mut self, oop: Oop, write: bool) -> Result<(), String> {
        let kind = if write { LockKind::Write } else { LockKind::Read };
        StoneSession::lock(self, oop, kind).map_err(|e| e.to_string())
    }

    fn unlock(&mut self, oop: Oop) -> Result<(), String> {
        StoneSession::unlock(self, oop).map_err(|e| e.to_string())
    }

    fn unlock_all(&mut self) -> Result<(), String> {
        StoneSession::unlock_all(self).map_err(|e| e.to_string())
    }

    fn collect_garbage(&mut self) -> Result<u64, String> {
        StoneSession::collect_garbage(self).map_err(|e| e.to_string())
    }

    fn fetch_chunk(&mut self, oop: Oop, index: u32) -> Result<Vec<u8>, String> {
        StoneSession::fetch_chunk(self, oop, index).map_err(|e| e.to_string())
    }

    fn describe(&mut self, about: &About) -> Result<(), String> {
        StoneSession::describe(self, about).map_err(|e| e.to_string())
    }

    fn sessions(&mut self) -> Result<(Vec<SessionInfo>, u64), String> {
        StoneSession::sessions(self).map_err(|e| e.to_string())
    }
}
