//! How the stone and the gem stop: on SIGTERM or SIGINT they end their streams, let requests
//! under way finish for a short grace period, and exit cleanly. The handlers are installed
//! before a server prints that it listens, so a signal sent as soon as it has said so is never
//! the default, fatal one.

use std::future::Future;
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::watch;

/// How long a stopping server waits for its clients' requests and connections.
const GRACE: Duration = Duration::from_secs(2);

/// SIGTERM and SIGINT, caught from the moment this is made.
pub(crate) struct Signals {
    term: Signal,
    int: Signal,
}

impl Signals {
    /// Installs the handlers (within a tokio runtime).
    pub(crate) fn install() -> std::io::Result<Signals> {
        Ok(Signals { term: signal(SignalKind::terminate())?, int: signal(SignalKind::interrupt())? })
    }

    /// Completes at the first SIGTERM or SIGINT.
    async fn received(mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

/// Runs `server` until it ends or a signal comes; then tells the server's streams to end
/// through `closing` and gives requests under way [`GRACE`] to finish. A server built with
/// `serve_with_incoming_shutdown` should stop taking connections when `closing` turns true.
pub(crate) async fn serve_until_signalled<E>(
    server: impl Future<Output = Result<(), E>>,
    signals: Signals,
    closing: &watch::Sender<bool>,
) -> Result<(), E> {
    tokio::pin!(server);
    tokio::select! {
        served = &mut server => served,
        () = signals.received() => {
            let _ = closing.send(true);
            // A client that holds its connection open does not hold the server up for longer.
            tokio::time::timeout(GRACE, &mut server).await.unwrap_or(Ok(()))
        }
    }
}

/// Completes when `closing` turns true (or its sender is gone).
pub(crate) async fn closed(mut closing: watch::Receiver<bool>) {
    let _ = closing.wait_for(|&c| c).await;
}
