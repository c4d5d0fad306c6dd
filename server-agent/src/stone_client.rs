//! A gem's connection to the stone: one session over gRPC, with blocking calls (the VM runs
//! on its own thread and waits for the stone anyway). The session lasts as long as this
//! value: dropping it closes the login stream, which ends the session in the stone.

use std::fmt;
use std::ops::Range;

use onyx_protocol::stone::{self as pb, stone_client::StoneClient};
use onyx_store::{CommitOutcome, LockKind, ObjectRecord, Oop, ViewChange};
use tokio::runtime::Runtime;
use tonic::transport::Channel;

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
    client: StoneClient<Channel>,
    session: u64,
    view: u64,
    /// The login stream: the session lives while it is open.
    _events: tonic::Streaming<pb::SessionEvent>,
}

impl StoneSession {
    /// Connects to the stone at `addr` (`host:port`) and logs in.
    pub fn connect(addr: &str) -> Result<StoneSession, StoneError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| broken(format!("cannot start the client runtime: {e}")))?;
        let url = if addr.contains("://") { addr.to_string() } else { format!("http://{addr}") };
        let (client, events, session, view) = runtime.block_on(async {
            let channel = Channel::from_shared(url.clone())
                .map_err(|e| broken(format!("bad stone address {addr}: {e}")))?
                .tcp_nodelay(true)
                .connect()
                .await
                .map_err(|e| broken(format!("cannot reach the stone at {addr}: {e}")))?;
            let mut client = StoneClient::new(channel).max_decoding_message_size(1 << 30);
            let client_name = format!("gem pid {}", std::process::id());
            let mut events = client.login(pb::LoginRequest { client: client_name }).await?.into_inner();
            match events.message().await? {
                Some(pb::SessionEvent { event: Some(pb::session_event::Event::Opened(o)) }) => {
                    Ok((client, events, o.session, o.view))
                }
                _ => Err(broken("the stone did not open a session".into())),
            }
        })?;
        Ok(StoneSession { runtime, client, session, view, _events: events })
    }

    /// The session's id in the stone.
    pub fn id(&self) -> u64 {
        self.session
    }

    /// The commit the session's view shows.
    pub fn view(&self) -> u64 {
        self.view
    }

    /// Fresh OOPs for new objects.
    pub fn allocate(&mut self, count: u64) -> Result<Range<Oop>, StoneError> {
        let request = pb::AllocateRequest { session: self.session, count };
        let r = self.runtime.block_on(self.client.allocate(request))?.into_inner();
        Ok(r.start..r.end)
    }

    /// `oops` and what they reference, up to `budget` bytes of records.
    pub fn fetch(&mut self, oops: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, StoneError> {
        let request = pb::FetchRequest { session: self.session, oops: oops.to_vec(), budget };
        let r = self.runtime.block_on(self.client.fetch(request))?.into_inner();
        r.objects.into_iter().map(|o| from_wire(o).map_err(broken)).collect()
    }

    /// Commits changed and new objects.
    pub fn commit(&mut self, records: &[ObjectRecord]) -> Result<CommitOutcome, StoneError> {
        let request = pb::CommitRequest { session: self.session, objects: records.iter().map(to_wire).collect() };
        let r = self.runtime.block_on(self.client.commit(request))?.into_inner();
        match r.outcome {
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
        let v = self.runtime.block_on(self.client.abort(pb::Session { session: self.session }))?.into_inner();
        self.view = v.seq;
        Ok(ViewChange { seq: v.seq, changed: v.changed })
    }

    /// A view of the latest commit, keeping the transaction's locks.
    pub fn continue_transaction(&mut self) -> Result<ViewChange, StoneError> {
        let v = self.runtime.block_on(self.client.r#continue(pb::Session { session: self.session }))?.into_inner();
        self.view = v.seq;
        Ok(ViewChange { seq: v.seq, changed: v.changed })
    }

    /// Locks `oop` for this session; denied with code `FailedPrecondition`.
    pub fn lock(&mut self, oop: Oop, kind: LockKind) -> Result<(), StoneError> {
        let request = pb::LockRequest { session: self.session, oop, write: kind == LockKind::Write };
        self.runtime.block_on(self.client.lock(request))?;
        Ok(())
    }

    /// Releases this session's lock on `oop`.
    pub fn unlock(&mut self, oop: Oop) -> Result<(), StoneError> {
        let request = pb::LockRequest { session: self.session, oop, write: false };
        self.runtime.block_on(self.client.unlock(request))?;
        Ok(())
    }

    /// The ids of symbols `names`, interning new ones.
    pub fn intern(&mut self, names: &[Vec<u8>]) -> Result<Vec<u64>, StoneError> {
        let request = pb::SymbolNames { names: names.to_vec() };
        Ok(self.runtime.block_on(self.client.intern(request))?.into_inner().ids)
    }

    /// The names of the symbols with ids `ids`.
    pub fn symbol_names(&mut self, ids: &[u64]) -> Result<Vec<Vec<u8>>, StoneError> {
        let request = pb::SymbolIds { ids: ids.to_vec() };
        Ok(self.runtime.block_on(self.client.names(request))?.into_inner().names)
    }

    /// Chunk `index` of large object `oop`.
    pub fn fetch_chunk(&mut self, oop: Oop, index: u32) -> Result<Vec<u8>, StoneError> {
        let request = pb::ChunkRequest { session: self.session, oop, index };
        Ok(self.runtime.block_on(self.client.fetch_chunk(request))?.into_inner().data)
    }

    /// Has the stone delete the objects no live view can reach; answers how many it deleted.
    pub fn collect_garbage(&mut self) -> Result<u64, StoneError> {
        Ok(self.runtime.block_on(self.client.collect_garbage(pb::Empty {}))?.into_inner().reclaimed)
    }

    /// Releases every lock of this session.
    pub fn unlock_all(&mut self) -> Result<(), StoneError> {
        self.runtime.block_on(self.client.unlock_all(pb::Session { session: self.session }))?;
        Ok(())
    }
}

/// A gem's VM reaches its repository through its session.
impl onyx_vm::persist::StoneLink for StoneSession {
    fn fetch(&mut self, oops: &[Oop], budget: u64) -> Result<Vec<ObjectRecord>, String> {
        StoneSession::fetch(self, oops, budget).map_err(|e| e.to_string())
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
}
