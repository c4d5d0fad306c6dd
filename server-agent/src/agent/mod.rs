//! The agent's gRPC service, a thin layer over the VM thread: a login has the stone check the
//! user and password, or redeem a ticket it issued for this gem (through the VM thread's
//! session), and answers a token. The gem's own user
//! may do everything; a user who may debug others' gems logs in as a debugger, who may only
//! debug, inspect and list (`debugger_may`). Each batch of a token's user is validated into the
//! gem's own terms (`convert.rs`) and goes to the VM thread, with the room its reply has
//! (a gRPC message is at most 64 MiB), and its answer comes back through a channel; events
//! come from a broadcast the VM thread feeds.

mod convert;

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use onyx_protocol::agent::{self as pb, agent_server};
use onyx_record::{StoneError, UserInfo};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_stream::{Stream, wrappers::ReceiverStream};
use tonic::{Request, Response, Status};

use crate::ops::breakpoints::BreakpointRequest;
use crate::ops::debugger::DebugRequest;
use crate::ops::request::{self as ops, ErrorKind, Event, Failure, Operation, Password, Proof};
use crate::users;
use crate::vm_thread::{Job, OPERATION_ROOM, Room, Work};

/// The most operations one batch holds: the reply holds an answer of each, were it only the
/// refusal of one not run.
const MAX_OPERATIONS: usize = 1 << 16;

/// What a reply holds besides the answers the room counts: the refusals of operations not
/// run, the answer of an auto-commit after the batch, and the transaction's state.
const ENVELOPE: usize = 8 << 20;

/// What a reply holds of its operations' answers.
const ANSWERS_ROOM: usize = onyx_protocol::codec::MAX_MESSAGE - ENVELOPE;
const _: () = assert!(ANSWERS_ROOM > 4 * OPERATION_ROOM, "room for a few operations at the least");

/// A login: the user's right to change code, whether they are a debugger (another user than
/// the gem's), the handles it holds (by its id, on the VM thread) and when its token was last
/// used.
#[derive(Clone, Copy)]
struct Login {
    id: u64,
    may_change_code: bool,
    debugger: bool,
    used: Instant,
}

/// The agent's service over one VM thread.
pub struct AgentService {
    work: Sender<Work>,
    events: broadcast::Sender<Event>,
    tokens: Arc<Mutex<HashMap<String, Login>>>,
    /// The user whose session the gem is, as the stone knows them.
    owner: UserInfo,
    logins: AtomicU64,
    /// How long a token may go unused.
    idle_logout: Duration,
    /// Turns true when the gem stops: event streams end.
    closing: watch::Receiver<bool>,
    /// The address of the gem's stone, as the gem was given it.
    stone: String,
}

impl AgentService {
    /// The service of the session of `owner` on the stone at `stone`, handing its work to
    /// `work`, its events from `events`; its event streams end when `closing` turns true, and
    /// tokens unused for `idle_logout` end.
    pub fn new(
        owner: UserInfo,
        stone: String,
        work: Sender<Work>,
        events: broadcast::Sender<Event>,
        closing: watch::Receiver<bool>,
        idle_logout: Duration,
    ) -> AgentService {
        let logins = AtomicU64::new(1);
        AgentService { work, events, tokens: Arc::default(), owner, logins, idle_logout, closing, stone }
    }

    /// The login whose token the request carries (its token counts as used); tokens unused
    /// for longer than the idle limit end here.
    fn login_of<T>(&self, request: &Request<T>) -> Result<(String, Login), Status> {
        let token = request
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or_else(|| Status::unauthenticated("log in first: no token"))?;
        let now = Instant::now();
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        let idle = self.idle_logout;
        tokens.retain(|_, login| {
            let live = now.duration_since(login.used) <= idle;
            if !live {
                // The VM thread releases what the login held; a stopped one holds nothing.
                let _ = self.work.send(Work::LoggedOut(login.id));
            }
            live
        });
        let login = tokens.get_mut(token).ok_or_else(|| Status::unauthenticated("an unknown token: log in again"))?;
        login.used = now;
        Ok((token.to_string(), *login))
    }
}

/// The operation, if the login may do it: a debugger (another user than the gem's) may only
/// debug the gem's processes, inspect what they show, read methods and the transcript, list
/// sessions and breakpoints, and set breakpoints; the rest is the gem's own user's. Whatever
/// runs in the gem runs with the rights of the gem's session, its user's: so a debugger runs
/// no code of their own there (no evaluation in a frame, no value returned from one, no
/// breakpoint with a condition or log expression), which would act as that user.
fn debugger_may(login: &Login, op: Operation) -> Result<Operation, Failure> {
    if !login.debugger {
        return Ok(op);
    }
    let as_owner = || {
        Failure::new(
            ErrorKind::PermissionDenied,
            "a debugger of another user's gem runs no code there: an evaluation, a returned value, a breakpoint's \
             condition or log expression would run with the rights of the gem's user",
        )
    };
    match &op.request {
        ops::Request::Debug(DebugRequest::Evaluate { .. } | DebugRequest::Return { .. }) => Err(as_owner()),
        ops::Request::Breakpoint(BreakpointRequest::Set(set)) if !set.condition.is_empty() || !set.log.is_empty() => {
            Err(as_owner())
        }
        ops::Request::Debug(_)
        | ops::Request::Inspect(_)
        | ops::Request::Release(_)
        | ops::Request::Interrupt { process: 1.., .. }
        | ops::Request::MethodSource(_)
        | ops::Request::Transcript
        | ops::Request::Sessions
        | ops::Request::Breakpoint(_)
        | ops::Request::TransactionStatus => Ok(op),
        _ => Err(Failure::new(
            ErrorKind::PermissionDenied,
            "a debugger of another user's gem may only debug, inspect, and read methods and breakpoints",
        )),
    }
}

fn stopped() -> Status {
    Status::unavailable("the gem's VM has stopped")
}

#[tonic::async_trait]
impl agent_server::Agent for AgentService {
    async fn login(&self, request: Request<pb::LoginRequest>) -> Result<Response<pb::LoginReply>, Status> {
        let r = request.into_inner();
        // A gem is one session of the stone, and a session is one user's, as in GemStone; another
        // user comes in only as a debugger, with the right to debug others' gems.
        let (reply, answer) = oneshot::channel();
        let by_ticket = !r.ticket.is_empty();
        let proof = if !by_ticket {
            Proof::Password(r.user.clone(), Password(r.password))
        } else {
            Proof::Ticket(Password(r.ticket))
        };
        self.work.send(Work::Authenticate { proof, reply }).map_err(|_| stopped())?;
        let user = match answer.await.map_err(|_| stopped())? {
            Ok(user) => user,
            Err(StoneError::PermissionDenied(why)) if r.user == self.owner.name || by_ticket => {
                return Err(Status::unauthenticated(why));
            }
            Err(StoneError::PermissionDenied(why)) => {
                return Err(Status::permission_denied(format!(
                    "this gem's session is {}'s, and {why}",
                    self.owner.name
                )));
            }
            Err(e) => return Err(Status::unavailable(e.to_string())),
        };
        let debugger = user.name != self.owner.name;
        // A debugger changes code in the gem's transaction: both must have the right.
        let may_change_code = user.may_change_code && (!debugger || self.owner.may_change_code);
        // The stone's list of sessions names the gem's users by the time the login is answered
        // (so a tool that lists sessions next sees this one); a gem going away is no matter.
        let (done, described) = oneshot::channel();
        if self.work.send(Work::LoggedIn { user: user.name.clone(), done }).is_ok() {
            let _ = described.await;
        }
        let token = users::new_token();
        let id = self.logins.fetch_add(1, Ordering::Relaxed);
        let login = Login { id, may_change_code, debugger, used: Instant::now() };
        self.tokens.lock().unwrap_or_else(|e| e.into_inner()).insert(token.clone(), login);
        Ok(Response::new(pb::LoginReply { token, may_change_code, stone: self.stone.clone() }))
    }

    async fn logout(&self, request: Request<pb::Empty>) -> Result<Response<pb::Empty>, Status> {
        let (token, login) = self.login_of(&request)?;
        self.tokens.lock().unwrap_or_else(|e| e.into_inner()).remove(&token);
        let _ = self.work.send(Work::LoggedOut(login.id));
        Ok(Response::new(pb::Empty {}))
    }

    async fn execute(&self, request: Request<pb::Batch>) -> Result<Response<pb::BatchResult>, Status> {
        let (_, login) = self.login_of(&request)?;
        let arrived = Instant::now();
        let count = request.get_ref().operations.len();
        if count > MAX_OPERATIONS {
            let why = format!("a batch of {count} operations: one holds at most {MAX_OPERATIONS}, none ran");
            return Err(Status::invalid_argument(why));
        }
        let operations: Vec<_> = request
            .into_inner()
            .operations
            .into_iter()
            .map(|op| convert::operation(op).and_then(|op| debugger_may(&login, op)))
            .collect();
        let (reply, answer) = oneshot::channel();
        let room = Room::new(ANSWERS_ROOM, convert::encoded_len);
        let job = Job { operations, reply, arrived, login: login.id, may_change_code: login.may_change_code, room };
        self.work.send(Work::Batch(job)).map_err(|_| stopped())?;
        Ok(Response::new(convert::batch_result(answer.await.map_err(|_| stopped())?)))
    }

    type EventsStream = Pin<Box<dyn Stream<Item = Result<pb::Event, Status>> + Send>>;

    async fn events(&self, request: Request<pb::EventsRequest>) -> Result<Response<Self::EventsStream>, Status> {
        let me = self.login_of(&request)?.1.id;
        let mut events = self.events.subscribe();
        let mut closing = self.closing.clone();
        let (listener, stream) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    e = events.recv() => e,
                    _ = closing.wait_for(|&c| c) => break,
                    () = listener.closed() => break,
                };
                match event {
                    // Another login's progress is not this one's to hear.
                    Ok(Event::Progress { login, .. }) if login != me => {}
                    Ok(event) => {
                        if listener.send(Ok(convert::event(event))).await.is_err() {
                            break;
                        }
                    }
                    // A listener too slow to keep up misses events rather than holding the gem up.
                    Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => break,
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(stream))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::inspect::FIELD_PRINT;
    use crate::ops::request::{Answer, Committed, Done, Field};
    use crate::ops::transaction::CONFLICTS_SHOWN;

    #[test]
    fn the_envelope_holds_a_refusal_of_every_operation_and_an_auto_commit() {
        let refusal = Room::new(0, convert::encoded_len).refusal().expect("no room");
        let refused = Done { outcome: Err(refusal), server_time: Duration::MAX };
        // The longest printString a field shows, of the widest characters.
        let field = Field { name: String::new(), print_string: "𝄞".repeat(FIELD_PRINT + 1), handle: u64::MAX };
        let conflicts = vec![field; CONFLICTS_SHOWN];
        let committed = Committed { committed: false, conflicts, conflict_count: u64::MAX };
        let commit = Done { outcome: Ok(Answer::Committed(committed)), server_time: Duration::MAX };
        let transaction = 1 << 10;
        let needed = MAX_OPERATIONS * convert::encoded_len(&refused) + convert::encoded_len(&commit) + transaction;
        assert!(needed <= ENVELOPE, "{needed} bytes");
    }
}
