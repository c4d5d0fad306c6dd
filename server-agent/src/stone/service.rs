//! The stone's gRPC service: each call runs the [`Stone`] operation on the blocking pool and
//! maps its errors to gRPC statuses. A session lives as long as the stream its login opened.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use onyx_protocol::stone::{self as pb, stone_server};
use onyx_store::{CommitOutcome, LockKind, Stone, StoreError};
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::WatchStream;
use tonic::{Request, Response, Status};

use crate::wire::{from_wire, to_wire};

/// The service over one stone.
pub struct StoneService {
    stone: Arc<Stone>,
    /// Turns true when the stone stops: every session stream ends then.
    closing: watch::Receiver<bool>,
}

impl StoneService {
    pub fn new(stone: Arc<Stone>, closing: watch::Receiver<bool>) -> StoneService {
        StoneService { stone, closing }
    }

    /// Runs `f` on the stone off the async threads (commits wait for the disk).
    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Stone) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, Status> {
        let stone = Arc::clone(&self.stone);
        match tokio::task::spawn_blocking(move || f(&stone)).await {
            Ok(r) => r.map_err(status),
            Err(e) => Err(Status::internal(format!("the stone failed: {e}"))),
        }
    }

    /// Runs `f`, which answers nothing, on the stone (see [`StoneService::call`]).
    async fn done(&self, f: impl FnOnce(&Stone) + Send + 'static) -> Result<Response<pb::Empty>, Status> {
        self.call(move |s| {
            f(s);
            Ok(())
        })
        .await?;
        Ok(Response::new(pb::Empty {}))
    }
}

/// The gRPC status for a store error.
fn status(e: StoreError) -> Status {
    let message = e.to_string();
    match e {
        StoreError::Invalid(_) => Status::invalid_argument(message),
        StoreError::NoSession(_) => Status::not_found(message),
        StoreError::LockDenied { .. } => Status::failed_precondition(message),
        StoreError::ShuttingDown => Status::unavailable(message),
        StoreError::NotFound(_) | StoreError::NotARepository(_) | StoreError::Corrupt(_) | StoreError::Storage(_) => {
            Status::internal(message)
        }
    }
}

fn view(v: onyx_store::ViewChange) -> pb::View {
    pb::View { seq: v.seq, changed: v.changed }
}

/// A session's event stream: ends the session when the gem drops it, and ends itself when
/// the stone stops.
pub struct SessionStream {
    events: mpsc::Receiver<Result<pb::SessionEvent, Status>>,
    closing: WatchStream<bool>,
    /// Kept so that the stream stays open until the gem drops it.
    _sender: mpsc::Sender<Result<pb::SessionEvent, Status>>,
    stone: Arc<Stone>,
    session: u64,
}

impl tokio_stream::Stream for SessionStream {
    type Item = Result<pb::SessionEvent, Status>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        while let Poll::Ready(closing) = Pin::new(&mut self.closing).poll_next(cx) {
            if closing != Some(false) {
                return Poll::Ready(None);
            }
        }
        self.events.poll_recv(cx)
    }
}

impl Drop for SessionStream {
    fn drop(&mut self) {
        self.stone.logout(self.session);
    }
}

#[tonic::async_trait]
impl stone_server::Stone for StoneService {
    type LoginStream = SessionStream;

    async fn login(&self, _request: Request<pb::LoginRequest>) -> Result<Response<SessionStream>, Status> {
        let (session, view) = self.call(|s| s.login()).await?;
        let (sender, events) = mpsc::channel(4);
        let opened = pb::SessionEvent { event: Some(pb::session_event::Event::Opened(pb::Opened { session, view })) };
        // The channel is empty: the first event always fits.
        let _ = sender.try_send(Ok(opened));
        let closing = WatchStream::new(self.closing.clone());
        Ok(Response::new(SessionStream { events, closing, _sender: sender, stone: Arc::clone(&self.stone), session }))
    }

    async fn logout(&self, request: Request<pb::Session>) -> Result<Response<pb::Empty>, Status> {
        let session = request.into_inner().session;
        self.done(move |s| s.logout(session)).await
    }

    async fn allocate(&self, request: Request<pb::AllocateRequest>) -> Result<Response<pb::OopRange>, Status> {
        let r = request.into_inner();
        let range = self.call(move |s| s.allocate(r.session, r.count)).await?;
        Ok(Response::new(pb::OopRange { start: range.start, end: range.end }))
    }

    async fn fetch(&self, request: Request<pb::FetchRequest>) -> Result<Response<pb::Objects>, Status> {
        let r = request.into_inner();
        let budget = usize::try_from(r.budget).unwrap_or(usize::MAX);
        let records = self.call(move |s| s.fetch(r.session, &r.oops, budget)).await?;
        Ok(Response::new(pb::Objects { objects: records.iter().map(to_wire).collect() }))
    }

    async fn commit(&self, request: Request<pb::CommitRequest>) -> Result<Response<pb::CommitReply>, Status> {
        let r = request.into_inner();
        let records =
            r.objects.into_iter().map(from_wire).collect::<Result<Vec<_>, _>>().map_err(Status::invalid_argument)?;
        // The committer answers through a channel: no thread waits for the disk.
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.stone.commit_then(
            r.session,
            records,
            Box::new(move |outcome| {
                let _ = tx.send(outcome);
            }),
        );
        let outcome = rx.await.map_err(|_| Status::unavailable("the stone stopped"))?.map_err(status)?;
        let outcome = match outcome {
            CommitOutcome::Committed(v) => pb::commit_reply::Outcome::Committed(view(v)),
            CommitOutcome::Conflict(oops) => pb::commit_reply::Outcome::Conflict(pb::Conflict { oops }),
        };
        Ok(Response::new(pb::CommitReply { outcome: Some(outcome) }))
    }

    async fn abort(&self, request: Request<pb::Session>) -> Result<Response<pb::View>, Status> {
        let session = request.into_inner().session;
        let v = self.call(move |s| s.abort(session)).await?;
        Ok(Response::new(view(v)))
    }

    async fn r#continue(&self, request: Request<pb::Session>) -> Result<Response<pb::View>, Status> {
        let session = request.into_inner().session;
        let v = self.call(move |s| s.continue_transaction(session)).await?;
        Ok(Response::new(view(v)))
    }

    async fn lock(&self, request: Request<pb::LockRequest>) -> Result<Response<pb::Empty>, Status> {
        let r = request.into_inner();
        let kind = if r.write { LockKind::Write } else { LockKind::Read };
        self.call(move |s| s.lock(r.session, r.oop, kind)).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn unlock(&self, request: Request<pb::LockRequest>) -> Result<Response<pb::Empty>, Status> {
        let r = request.into_inner();
        self.done(move |s| s.unlock(r.session, r.oop)).await
    }

    async fn intern(&self, request: Request<pb::SymbolNames>) -> Result<Response<pb::SymbolIds>, Status> {
        let names = request.into_inner().names;
        let ids = self.call(move |s| s.intern(&names)).await?;
        Ok(Response::new(pb::SymbolIds { ids }))
    }

    async fn names(&self, request: Request<pb::SymbolIds>) -> Result<Response<pb::SymbolNames>, Status> {
        let ids = request.into_inner().ids;
        let names = self.call(move |s| s.symbol_names(&ids)).await?;
        Ok(Response::new(pb::SymbolNames { names }))
    }

    async fn fetch_chunk(&self, request: Request<pb::ChunkRequest>) -> Result<Response<pb::Chunk>, Status> {
        let r = request.into_inner();
        let data = self.call(move |s| s.fetch_chunk(r.session, r.oop, r.index)).await?;
        Ok(Response::new(pb::Chunk { data }))
    }

    async fn collect_garbage(&self, _request: Request<pb::Empty>) -> Result<Response<pb::GcReport>, Status> {
        let report = self.call(|s| s.collect_garbage()).await?;
        Ok(Response::new(pb::GcReport { live: report.live, reclaimed: report.reclaimed }))
    }

    async fn unlock_all(&self, request: Request<pb::Session>) -> Result<Response<pb::Empty>, Status> {
        let session = request.into_inner().session;
        self.done(move |s| s.unlock_all(session)).await
    }
}
