//! The agent's gRPC service: each batch goes to the VM thread, and its reply comes back
//! through a channel; events come from a broadcast the VM thread feeds.

use std::pin::Pin;
use std::sync::mpsc::Sender;
use std::time::Instant;

use onyx_protocol::agent::{self as pb, agent_server};
use tokio::sync::{broadcast, oneshot};
use tokio_stream::{Stream, StreamExt as _, wrappers::BroadcastStream};
use tonic::{Request, Response, Status};

use super::worker::Job;

pub struct AgentService {
    jobs: Sender<Job>,
    events: broadcast::Sender<pb::Event>,
}

impl AgentService {
    pub fn new(jobs: Sender<Job>, events: broadcast::Sender<pb::Event>) -> AgentService {
        AgentService { jobs, events }
    }
}

fn stopped() -> Status {
    Status::unavailable("the gem's VM has stopped")
}

#[tonic::async_trait]
impl agent_server::Agent for AgentService {
    async fn execute(&self, request: Request<pb::Batch>) -> Result<Response<pb::BatchResult>, Status> {
        let (reply, answer) = oneshot::channel();
        let job = Job { batch: request.into_inner(), reply, arrived: Instant::now() };
        self.jobs.send(job).map_err(|_| stopped())?;
        Ok(Response::new(answer.await.map_err(|_| stopped())?))
    }

    type EventsStream = Pin<Box<dyn Stream<Item = Result<pb::Event, Status>> + Send>>;

    async fn events(&self, _request: Request<pb::EventsRequest>) -> Result<Response<Self::EventsStream>, Status> {
        // A listener too slow to keep up misses events rather than holding the gem up.
        let events = BroadcastStream::new(self.events.subscribe()).filter_map(|e| e.ok().map(Ok));
        Ok(Response::new(Box::pin(events)))
    }
}
