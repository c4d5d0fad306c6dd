//! How Onyx's servers (the stone, a gem's agent) stop: on SIGTERM or SIGINT, or their owner's
//! word when embedded in another program, they end their streams, let requests under way
//! finish for a short grace period, and exit cleanly. The handlers are installed before a
//! server says that it listens, so a signal sent as soon as it has said so is never the
//! default, fatal one.

use std::future::Future;
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::{oneshot, watch};

/// How long a stopping server waits for its clients' requests and connections.
const GRACE: Duration = Duration::from_secs(2);

/// What stops a server: SIGTERM or SIGINT (a server run by `onyx`), or its owner's word (a
/// server embedded in another program, such as the IDE).
pub enum Until {
    /// The first SIGTERM or SIGINT.
    Signalled,
    /// A word on this channel (or its sender dropped).
    Told(oneshot::Receiver<()>),
}

/// An [`Until`] made ready: signal handlers installed, from the moment this is made.
pub struct Armed(Trigger);

enum Trigger {
    Signals { term: Signal, int: Signal },
    Told(oneshot::Receiver<()>),
}

impl Until {
    /// Installs the signal handlers, if signals stop the server (within a tokio runtime).
    pub fn arm(self) -> std::io::Result<Armed> {
        Ok(Armed(match self {
            Until::Signalled => {
                Trigger::Signals { term: signal(SignalKind::terminate())?, int: signal(SignalKind::interrupt())? }
            }
            Until::Told(told) => Trigger::Told(told),
        }))
    }
}

impl Armed {
    /// Completes at the first SIGTERM or SIGINT, or when told (or when the owner is gone).
    async fn reached(self) {
        match self.0 {
            Trigger::Signals { mut term, mut int } => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            Trigger::Told(told) => {
                let _ = told.await;
            }
        }
    }
}

/// Runs `server` until it ends or `until` is reached; then tells the server's streams to end
/// through `closing` and gives requests under way [`GRACE`] to finish. A server built with
/// `serve_with_incoming_shutdown` should stop taking connections when `closing` turns true.
pub async fn serve_until<E>(
    server: impl Future<Output = Result<(), E>>,
    until: Armed,
    closing: &watch::Sender<bool>,
) -> Result<(), E> {
    tokio::pin!(server);
    tokio::select! {
        served = &mut server => served,
        () = until.reached() => {
            let _ = closing.send(true);
            // A client that holds its connection open does not hold the server up for longer.
            tokio::time::timeout(GRACE, &mut server).await.unwrap_or(Ok(()))
        }
    }
}

/// Completes when `closing` turns true (or its sender is gone).
pub async fn closed(mut closing: watch::Receiver<bool>) {
    let _ = closing.wait_for(|&c| c).await;
}
