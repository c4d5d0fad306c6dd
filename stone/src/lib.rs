//! The stone's server: serves a repository ([`onyx_store::Stone`]) to gems over gRPC, one
//! stream per session (`service.rs`), on a two-thread runtime, with the stone's own garbage
//! collection every so often, until SIGTERM or SIGINT (or its owner's word, embedded); then
//! it stops taking requests, lets the committer finish what it holds, and returns. `onyx
//! stone` is a call of [`serve_until`].
//!
//! **Architecture Invariant:** the store under this server knows nothing of RPC; this crate
//! is where the stone's requests become calls of [`onyx_store::Stone`], and its errors the
//! typed failures gems see.

#![deny(missing_docs)]

mod service;
mod throttle;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use onyx_protocol::codec::MAX_MESSAGE;
use onyx_protocol::serving::{self, Until};
use onyx_protocol::stone::stone_server::StoneServer;
use onyx_protocol::tls::{ServerFiles, TlsError};
use onyx_store::tranlog::Recovery;
use onyx_store::{Stone, StoreError};
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

/// How long a connection may be quiet before the kernel probes it.
const KEEPALIVE: Duration = Duration::from_secs(20);

/// Why the stone could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The repository cannot be opened.
    #[error(transparent)]
    Repository(#[from] StoreError),
    /// The TLS files cannot be used.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The address cannot be listened on.
    #[error("cannot listen on {address}: {cause}")]
    Listen {
        /// The address.
        address: SocketAddr,
        /// Why.
        cause: std::io::Error,
    },
    /// The runtime, the signal handlers, or telling the owner failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// The server failed.
    #[error("the stone's server failed: {0}")]
    Transport(String),
}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> ServeError {
        ServeError::Io(e)
    }
}

impl From<tonic::transport::Error> for ServeError {
    fn from(e: tonic::transport::Error) -> ServeError {
        ServeError::Transport(onyx_protocol::error_chain(&e))
    }
}

/// How a stone serves.
pub struct StoneOptions<'a> {
    /// The repository folder.
    pub dir: &'a Path,
    /// Where it listens (port 0 picks one).
    pub listen: SocketAddr,
    /// How often the stone collects its garbage on its own (when something was committed
    /// since the last collection); `None` never.
    pub gc_interval: Option<Duration>,
    /// The certificate and key to serve TLS with (none: plain TCP).
    pub tls: &'a ServerFiles,
    /// What to do with a damaged or missing transaction log.
    pub recovery: Recovery,
}

/// Serves the repository until `until`; `listening` is told the address once connections
/// are taken.
pub fn serve_until(
    options: StoneOptions,
    listening: impl FnOnce(SocketAddr) -> std::io::Result<()>,
    until: Until,
) -> Result<(), ServeError> {
    let StoneOptions { dir, listen, gc_interval, tls, recovery } = options;
    let tls = tls.config()?;
    let stone = Arc::new(Stone::open_with(dir, recovery)?);
    if let Some(loss) = stone.recovery_loss() {
        eprintln!("onyx stone: {loss}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|cause| ServeError::Listen { address: listen, cause })?;
        let addr = listener.local_addr()?;
        let until = until.arm()?;
        listening(addr)?;
        if let Some(every) = gc_interval {
            tokio::spawn(collect_periodically(Arc::clone(&stone), every));
        }
        // TCP keepalive: a gem whose host vanished (no close, no reset) is noticed by the
        // kernel, even while the gem itself is idle, and its session ends.
        let incoming = TcpIncoming::from(listener)
            .with_nodelay(Some(true))
            .with_keepalive(Some(KEEPALIVE))
            .with_keepalive_interval(Some(KEEPALIVE / 4))
            .with_keepalive_retries(Some(4));
        let (closing, closed) = tokio::sync::watch::channel(false);
        let service = service::StoneService::new(Arc::clone(&stone), closed.clone());
        let service =
            StoneServer::new(service).max_decoding_message_size(MAX_MESSAGE).max_encoding_message_size(MAX_MESSAGE);
        let mut builder = Server::builder();
        if let Some(tls) = tls {
            builder = builder.tls_config(tls)?;
        }
        // On a signal every session stream ends and the stone stops taking requests; requests
        // under way finish.
        let server = builder.add_service(service).serve_with_incoming_shutdown(incoming, serving::closed(closed));
        serving::serve_until(server, until, &closing).await?;
        Ok::<(), ServeError>(())
    })?;
    drop(runtime);
    // The committer finishes the batch it holds before the stone goes.
    drop(stone);
    Ok(())
}

/// Collects the repository's garbage every `every`, when something was committed since the
/// last collection.
async fn collect_periodically(stone: Arc<Stone>, every: Duration) {
    let mut collected_at = None;
    let mut ticks = tokio::time::interval(every);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let s = Arc::clone(&stone);
        let last = match tokio::task::spawn_blocking(move || s.last_commit()).await {
            Ok(Ok(seq)) => seq,
            _ => continue,
        };
        if collected_at == Some(last) {
            continue;
        }
        let s = Arc::clone(&stone);
        if let Ok(Ok(_)) = tokio::task::spawn_blocking(move || s.collect_garbage()).await {
            collected_at = Some(last);
        }
    }
}
