//! The stone's gRPC service: a session is one stream of requests and replies. Each session
//! runs as a task that answers its requests in order, on the blocking pool (they take the
//! stone's lock, which a commit's checks hold, or read the repository), and commits through
//! the committer; the session ends when its stream does. A request that fails answers a
//! [`pb::Failure`] that says what kind of failure it is, and the session goes on.

use std::sync::Arc;

use onyx_protocol::records::{self, from_wire, to_wire};
use onyx_protocol::stone::{self as pb, reply::Answer, request::Op, stone_server};
use onyx_record::{CommitOutcome, LockKind, StoneError, ViewChange};
use onyx_store::{Stone, StoreError};
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

/// The service over one stone.
pub struct StoneService {
    stone: Arc<Stone>,
    /// Turns true when the stone stops: every session ends then.
    closing: watch::Receiver<bool>,
}

impl StoneService {
    /// The service over `stone`, whose sessions end when `closing` turns true.
    pub fn new(stone: Arc<Stone>, closing: watch::Receiver<bool>) -> StoneService {
        StoneService { stone, closing }
    }
}

/// Ends the session when its task does, however it ends (and when the login's caller went
/// away before the session was handed to it).
struct LoggedIn {
    stone: Arc<Stone>,
    session: u64,
}

impl Drop for LoggedIn {
    fn drop(&mut self) {
        let (stone, session) = (Arc::clone(&self.stone), self.session);
        // Logging out waits for the stone's lock: not on an async thread if there is a
        // blocking pool to do it.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || stone.logout(session))),
            Err(_) => stone.logout(session),
        }
    }
}

#[tonic::async_trait]
impl stone_server::Stone for StoneService {
    type SessionStream = ReceiverStream<Result<pb::Reply, Status>>;

    async fn session(&self, request: Request<Streaming<pb::Request>>) -> Result<Response<Self::SessionStream>, Status> {
        let mut requests = request.into_inner();
        let stone = Arc::clone(&self.stone);
        let (session, view) =
            blocking(&self.stone, move |s| s.login().map(|(session, view)| (LoggedIn { stone, session }, view)))
                .await
                .map_err(|e| status(&StoneError::from(e)))?;
        let (replies, stream) = mpsc::channel(4);
        let opened = Answer::Opened(pb::Opened { session: session.session, view });
        // The channel is empty: the first reply always fits.
        let _ = replies.try_send(Ok(pb::Reply { answer: Some(opened) }));
        let mut closing = self.closing.clone();
        tokio::spawn(async move {
            loop {
                let request = tokio::select! {
                    r = requests.message() => r,
                    _ = closing.wait_for(|&c| c) => break,
                };
                let Ok(Some(request)) = request else { break };
                let answer = answer(&session, request).await.unwrap_or_else(|e| Answer::Failure(records::failure(&e)));
                if replies.send(Ok(pb::Reply { answer: Some(answer) })).await.is_err() {
                    break;
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(stream)))
    }
}

/// Runs `f` on the stone off the async threads (it may wait for the disk).
async fn blocking<T: Send + 'static>(
    stone: &Arc<Stone>,
    f: impl FnOnce(&Stone) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let stone = Arc::clone(stone);
    tokio::task::spawn_blocking(move || f(&stone))
        .await
        .unwrap_or_else(|e| Err(StoreError::Storage(format!("the stone failed: {e}"))))
}

/// Answers one request of a session.
async fn answer(logged_in: &LoggedIn, request: pb::Request) -> Result<Answer, StoneError> {
    let (stone, session) = (&logged_in.stone, logged_in.session);
    let op = request.op.ok_or_else(|| StoneError::Invalid("an empty request".into()))?;
    let done = |()| Answer::Done(pb::Empty {});
    let answer = match op {
        Op::Allocate(r) => blocking(stone, move |s| s.allocate(session, r.count))
            .await
            .map(|r| Answer::Allocated(pb::OopRange { start: r.start, end: r.end })),
        Op::Fetch(r) => {
            let budget = usize::try_from(r.budget).unwrap_or(usize::MAX);
            blocking(stone, move |s| s.fetch(session, &r.oops, &r.nearby, budget))
                .await
                .map(|records| Answer::Objects(pb::Objects { objects: records.iter().map(to_wire).collect() }))
        }
        // An empty commit answers at once (see `Stone::commit_then`), but takes the stone's lock.
        Op::Commit(r) if r.objects.is_empty() => {
            blocking(stone, move |s| s.commit(session, Vec::new())).await.map(outcome_answer)
        }
        Op::Commit(r) => return commit(stone, session, r).await,
        Op::Abort(_) => blocking(stone, move |s| s.abort(session)).await.map(view),
        Op::Continue(_) => blocking(stone, move |s| s.continue_transaction(session)).await.map(view),
        Op::Lock(r) => {
            let kind = if r.write { LockKind::Write } else { LockKind::Read };
            blocking(stone, move |s| s.lock(session, r.oop, kind)).await.map(done)
        }
        Op::Unlock(r) => blocking(stone, move |s| {
            s.unlock(session, r.oop);
            Ok(())
        })
        .await
        .map(done),
        Op::UnlockAll(_) => blocking(stone, move |s| {
            s.unlock_all(session);
            Ok(())
        })
        .await
        .map(done),
        Op::Intern(r) => {
            blocking(stone, move |s| s.intern(&r.names)).await.map(|ids| Answer::Ids(pb::SymbolIds { ids }))
        }
        Op::Names(r) => {
            blocking(stone, move |s| s.symbol_names(&r.ids)).await.map(|names| Answer::Names(pb::SymbolNames { names }))
        }
        Op::FetchChunk(r) => blocking(stone, move |s| s.fetch_chunk(session, r.oop, r.index))
            .await
            .map(|data| Answer::Chunk(pb::Chunk { data })),
        Op::Describe(a) => {
            let about = records::about_from_wire(a);
            blocking(stone, move |s| s.describe(session, about)).await.map(done)
        }
        Op::Sessions(_) => blocking(stone, |s| Ok(s.sessions())).await.map(|(list, latest)| {
            let sessions = list.into_iter().map(records::session_to_wire).collect();
            Answer::Sessions(pb::SessionList { sessions, latest })
        }),
        Op::CollectGarbage(_) => blocking(stone, |s| s.collect_garbage())
            .await
            .map(|r| Answer::Collected(pb::GcReport { live: r.live, reclaimed: r.reclaimed })),
    };
    answer.map_err(StoneError::from)
}

/// A commit, answered by the committer through a channel: no thread waits for the disk.
async fn commit(stone: &Stone, session: u64, r: pb::CommitRequest) -> Result<Answer, StoneError> {
    let records = r
        .objects
        .into_iter()
        .map(from_wire)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| StoneError::Invalid(e.to_string()))?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    stone.commit_then(
        session,
        records,
        Box::new(move |outcome| {
            let _ = tx.send(outcome);
        }),
    );
    let outcome = rx.await.map_err(|_| StoneError::Unavailable("the stone stopped".into()))??;
    Ok(outcome_answer(outcome))
}

fn outcome_answer(outcome: CommitOutcome) -> Answer {
    let outcome = match outcome {
        CommitOutcome::Committed(v) => {
            pb::commit_reply::Outcome::Committed(pb::View { seq: v.seq, changed: v.changed })
        }
        CommitOutcome::Conflict(oops) => pb::commit_reply::Outcome::Conflict(pb::Conflict { oops }),
    };
    Answer::Committed(pb::CommitReply { outcome: Some(outcome) })
}

fn view(v: ViewChange) -> Answer {
    Answer::View(pb::View { seq: v.seq, changed: v.changed })
}

/// The gRPC status for a session that could not be opened.
fn status(e: &StoneError) -> Status {
    Status::new(records::code(e), e.to_string())
}
