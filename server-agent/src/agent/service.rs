//! The agent's gRPC service: a login checks the password against the user's profile (read
//! by the VM thread, checked here) and answers a token; each batch of a token's user goes to
//! the VM thread, and its reply comes back through a channel; events come from a broadcast
//! the VM thread feeds.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use onyx_protocol::agent::{self as pb, agent_server};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_stream::{Stream, wrappers::ReceiverStream};
use tonic::{Request, Response, Status};

use super::worker::{Job, Work};
use crate::users;

/// A logged-in user, by token.
#[derive(Clone)]
struct User {
    may_change_code: bool,
}

pub struct AgentService {
    work: Sender<Work>,
    events: broadcast::Sender<pb::Event>,
    tokens: Arc<Mutex<HashMap<String, User>>>,
    /// Turns true when the gem stops: event streams end.
    closing: watch::Receiver<bool>,
}

impl AgentService {
    pub fn new(
        work: Sender<Work>,
        events: broadcast::Sender<pb::Event>,
        closing: watch::Receiver<bool>,
    ) -> AgentService {
        AgentService { work, events, tokens: Arc::default(), closing }
    }

    /// The user whose token the request carries.
    fn user<T>(&self, request: &Request<T>) -> Result<User, Status> {
        let token = request
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or_else(|| Status::unauthenticated("log in first: no token"))?;
        let tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.get(token).cloned().ok_or_else(|| Status::unauthenticated("an unknown token: log in again"))
    }
}

fn stopped() -> Status {
    Status::unavailable("the gem's VM has stopped")
}

#[tonic::async_trait]
impl agent_server::Agent for AgentService {
    async fn login(&self, request: Request<pb::LoginRequest>) -> Result<Response<pb::LoginReply>, Status> {
        let r = request.into_inner();
        let (reply, answer) = oneshot::channel();
        self.work.send(Work::Profile { user: r.user.clone(), reply }).map_err(|_| stopped())?;
        let profile = answer.await.map_err(|_| stopped())?.map_err(Status::internal)?;
        let refused = || Status::unauthenticated(format!("user {} or its password is not known", r.user));
        let profile = profile.ok_or_else(refused)?;
        // Checking a password takes tens of milliseconds on purpose: off the async threads.
        let matches = tokio::task::spawn_blocking(move || users::verify(&r.password, &profile.password_hash))
            .await
            .map_err(|_| Status::internal("the password check failed"))?;
        if !matches {
            return Err(refused());
        }
        // The stone's list of sessions names the gem's users; a gem going away is no matter.
        let _ = self.work.send(Work::LoggedIn(r.user.clone()));
        let token = users::new_token();
        let user = User { may_change_code: profile.may_change_code };
        self.tokens.lock().unwrap_or_else(|e| e.into_inner()).insert(token.clone(), user);
        Ok(Response::new(pb::LoginReply { token, may_change_code: profile.may_change_code }))
    }

    async fn execute(&self, request: Request<pb::Batch>) -> Result<Response<pb::BatchResult>, Status> {
        let user = self.user(&request)?;
        let (reply, answer) = oneshot::channel();
        let job =
            Job { batch: request.into_inner(), reply, arrived: Instant::now(), may_change_code: user.may_change_code };
        self.work.send(Work::Batch(job)).map_err(|_| stopped())?;
        Ok(Response::new(answer.await.map_err(|_| stopped())?))
    }

    type EventsStream = Pin<Box<dyn Stream<Item = Result<pb::Event, Status>> + Send>>;

    async fn events(&self, request: Request<pb::EventsRequest>) -> Result<Response<Self::EventsStream>, Status> {
        self.user(&request)?;
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
                    Ok(event) => {
                        if listener.send(Ok(event)).await.is_err() {
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
