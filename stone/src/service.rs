//! The stone's gRPC service: a session is one stream of requests and replies. Each session
//! runs as a task that answers its requests in order, on the blocking pool (they take the
//! stone's lock, which a commit's checks hold, or read the repository), and commits through
//! the committer; the session ends when its stream does. A request that fails answers a
//! [`pb::Failure`] that says what kind of failure it is, and the session goes on.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use onyx_protocol::records::{self, from_wire, to_wire};
use onyx_protocol::stone::{self as pb, reply::Answer, request::Op, stone_server};
use onyx_record::{CommitOutcome, LockKind, SessionAct, StoneError, ViewChange};
use onyx_store::{Stone, StoreError};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

use crate::throttle::Throttle;

/// The service over one stone.
pub struct StoneService {
    stone: Arc<Stone>,
    /// Turns true when the stone stops: every session ends then.
    closing: watch::Receiver<bool>,
    /// Failed logins (and password checks), per user and address.
    throttle: Arc<Throttle>,
    /// Leave to check a password now (see [`crate::throttle::CHECKS_AT_ONCE`]).
    checks: Arc<Semaphore>,
    /// How each session's task is told that an administrator stopped it.
    stoppers: Stoppers,
}

/// Each session's word that it was stopped (by whom), by session.
type Stoppers = Arc<std::sync::Mutex<HashMap<u64, watch::Sender<Option<String>>>>>;

impl StoneService {
    /// The service over `stone`, whose sessions end when `closing` turns true.
    pub fn new(stone: Arc<Stone>, closing: watch::Receiver<bool>) -> StoneService {
        StoneService {
            stone,
            closing,
            throttle: Arc::default(),
            checks: Arc::new(Semaphore::new(crate::throttle::CHECKS_AT_ONCE)),
            stoppers: Stoppers::default(),
        }
    }
}

/// How long a new session may take to send its login.
const LOGIN_WAIT: Duration = Duration::from_secs(10);

/// A user and password checked by `check` (a login, or a session's password check), unless
/// the user has failed too often of late from this address; counted either way. Checks wait
/// their turn ([`crate::throttle::CHECKS_AT_ONCE`] at a time), at most [`LOGIN_WAIT`].
async fn checked<T: Send + 'static>(
    stone: &Arc<Stone>,
    (throttle, checks): (&Throttle, &Semaphore),
    user: &str,
    from: Option<IpAddr>,
    check: impl FnOnce(&Stone) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoneError> {
    if let Some(wait) = throttle.wait(user, from) {
        return Err(StoneError::PermissionDenied(format!(
            "too many failed logins for user {user} from this address: try again in {} s",
            wait.as_secs().max(1)
        )));
    }
    let Ok(Ok(_turn)) = tokio::time::timeout(LOGIN_WAIT, checks.acquire()).await else {
        return Err(StoneError::Unavailable("the stone is busy checking other logins: try again".into()));
    };
    match blocking(stone, check).await {
        Ok(t) => {
            throttle.succeeded(user, from);
            Ok(t)
        }
        Err(e @ StoreError::PermissionDenied(_)) => {
            throttle.failed(user, from);
            Err(e.into())
        }
        Err(e) => Err(e.into()),
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
        let from = request.remote_addr().map(|a| a.ip());
        let mut requests = request.into_inner();
        let first = tokio::time::timeout(LOGIN_WAIT, requests.message())
            .await
            .map_err(|_| Status::unauthenticated("log in first: no login came"))?
            .map_err(|s| Status::invalid_argument(format!("a request the stone cannot read: {}", s.message())))?;
        let Some(pb::Request { op: Some(Op::Login(login)) }) = first else {
            return Err(Status::unauthenticated("the first request of a session must be its login"));
        };
        let stone = Arc::clone(&self.stone);
        let pb::Login { user, password } = login;
        let guards = (self.throttle.as_ref(), self.checks.as_ref());
        let opened = checked(&self.stone, guards, &user.clone(), from, move |s| {
            let (session, view) = s.login(&user, &password)?;
            let session = LoggedIn { stone, session };
            let user = s.user_of(session.session)?;
            Ok((session, view, user))
        })
        .await;
        let (session, view, user) = opened.map_err(|e| match e {
            StoneError::PermissionDenied(m) => Status::unauthenticated(m),
            e => status(&e),
        })?;
        let (stop, mut stopped) = watch::channel(None);
        self.stoppers.lock().unwrap_or_else(|e| e.into_inner()).insert(session.session, stop);
        let session = Session {
            logged_in: session,
            from,
            throttle: Arc::clone(&self.throttle),
            checks: Arc::clone(&self.checks),
            stoppers: Arc::clone(&self.stoppers),
        };
        let (replies, stream) = mpsc::channel(4);
        let user = Some(records::user_to_wire(&user));
        let opened = Answer::Opened(pb::Opened { session: session.logged_in.session, view, user });
        // The channel is empty: the first reply always fits.
        let _ = replies.try_send(Ok(pb::Reply { answer: Some(opened) }));
        let mut closing = self.closing.clone();
        tokio::spawn(async move {
            loop {
                let request = tokio::select! {
                    r = requests.message() => Ok(r),
                    _ = closing.wait_for(|&c| c) => break,
                    by = stopped.wait_for(Option::is_some) => Err(by.ok().and_then(|b| b.clone()).unwrap_or_default()),
                };
                let request = match request {
                    Ok(r) => r,
                    Err(by) => {
                        let id = session.logged_in.session;
                        let why = format!("session {id} was stopped by the administrator {by}");
                        let _ = replies.send(Err(Status::aborted(why))).await;
                        break;
                    }
                };
                let request = match request {
                    Ok(Some(request)) => request,
                    Ok(None) => break,
                    // A message that does not decode ends the session with its error, not OK.
                    Err(status) => {
                        let _ = replies.send(Err(Status::new(status.code(), status.message().to_string()))).await;
                        break;
                    }
                };
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

/// A session as its task holds it.
struct Session {
    logged_in: LoggedIn,
    /// Where its gem is.
    from: Option<IpAddr>,
    throttle: Arc<Throttle>,
    checks: Arc<Semaphore>,
    stoppers: Stoppers,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stoppers.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.logged_in.session);
    }
}

/// Answers one request of a session.
async fn answer(s: &Session, request: pb::Request) -> Result<Answer, StoneError> {
    let (stone, session) = (&s.logged_in.stone, s.logged_in.session);
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
        Op::Login(_) => Err(StoreError::Invalid("the session has logged in already".into())),
        Op::Admit(l) => {
            let name = l.user.clone();
            let check = move |st: &Stone| st.admit(session, &l.user, &l.password);
            return checked(stone, (&s.throttle, &s.checks), &name, s.from, check)
                .await
                .map(|u| Answer::User(records::user_to_wire(&u)));
        }
        Op::AddUser(u) => {
            blocking(stone, move |s| s.add_user(Some(session), &u.name, &u.password, u.may_change_code, None))
                .await
                .map(done)
        }
        Op::Administer(a) => {
            let act = records::act_from_wire(a.act)?;
            let by = stone.user_of(session).map(|u| u.name).unwrap_or_default();
            let locks = blocking(stone, move |s| s.administer(session, a.session, act)).await?;
            if act == SessionAct::Stop {
                let stoppers = s.stoppers.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(stop) = stoppers.get(&a.session) {
                    stop.send_replace(Some(by));
                }
            }
            Ok(Answer::Locks(records::locks_to_wire(a.session, &locks)))
        }
        Op::IssueTicket(t) => blocking(stone, move |s| s.issue_ticket(session, t.session))
            .await
            .map(|secret| Answer::Ticket(pb::Ticket { secret })),
        Op::RedeemTicket(t) => blocking(stone, move |s| s.redeem_ticket(session, &t.secret))
            .await
            .map(|u| Answer::User(records::user_to_wire(&u))),
        Op::SetGroups(g) => blocking(stone, move |s| s.set_groups(Some(session), &g.name, &g.groups)).await.map(done),
        Op::Policy(p) => {
            blocking(stone, move |s| s.policy(session, p.id)).await.map(|p| Answer::Policy(records::policy_to_wire(&p)))
        }
        Op::DefinePolicy(d) => {
            let policy = records::policy_from_wire(d.policy.unwrap_or_default())?;
            blocking(stone, move |s| s.define_policy(session, d.id, policy))
                .await
                .map(|id| Answer::PolicyId(pb::PolicyId { id }))
        }
        Op::LogFailure(e) => {
            let entry = records::log_entry_from_wire(e);
            blocking(stone, move |s| s.log_failure(session, entry)).await.map(|id| Answer::Logged(pb::LogId { id }))
        }
        Op::ObjectLog(r) => {
            blocking(stone, move |s| s.object_log(session, r.from, r.count)).await.map(|(entries, total)| {
                Answer::ObjectLog(pb::ObjectLog {
                    entries: entries.iter().map(records::log_entry_to_wire).collect(),
                    total,
                })
            })
        }
        Op::ObjectLogEntry(r) => blocking(stone, move |s| s.object_log_entry(session, r.id)).await.map(|entry| {
            let entries = entry.iter().map(records::log_entry_to_wire).collect();
            Answer::ObjectLog(pb::ObjectLog { entries, total: 0 })
        }),
        Op::Breakpoints(r) => stone.breakpoints(session, r.since).map(|answer| {
            Answer::Breakpoints(match answer {
                Some((generation, list)) => pb::Breakpoints {
                    generation,
                    changed: true,
                    breakpoints: list.iter().map(records::breakpoint_to_wire).collect(),
                },
                None => pb::Breakpoints { generation: r.since, changed: false, breakpoints: Vec::new() },
            })
        }),
        Op::SetBreakpoint(b) => {
            let breakpoint = records::breakpoint_from_wire(b).map_err(|e| StoneError::Invalid(e.to_string()))?;
            stone.set_breakpoint(session, breakpoint).map(|b| {
                Answer::Breakpoints(pb::Breakpoints {
                    generation: 0,
                    changed: true,
                    breakpoints: vec![records::breakpoint_to_wire(&b)],
                })
            })
        }
        Op::RemoveBreakpoint(r) => {
            stone.remove_breakpoint(session, r.id, r.fired_once).map(|removed| Answer::Removed(pb::Removed { removed }))
        }
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
