//! `onyx stone`: serves a repository to gems over gRPC until SIGTERM or SIGINT, then stops
//! taking requests, lets the committer finish what it holds, and exits.

mod service;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use onyx_protocol::stone::stone_server::StoneServer;
use onyx_store::Stone;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::shutdown::Until;

/// Serves the repository in `dir` on `listen` (port 0 picks one) until SIGTERM or SIGINT;
/// prints the address it listens on as the first line of standard output.
pub fn serve(dir: &Path, listen: SocketAddr, gc_interval: u64, tls: &crate::tls::ServerFiles) -> Result<ExitCode> {
    let listening = |addr| {
        println!("stone listening on {addr}");
        std::io::stdout().flush()
    };
    serve_until(dir, listen, gc_interval, tls, listening, Until::Signalled)?;
    Ok(ExitCode::SUCCESS)
}

/// Serves the repository in `dir` on `listen` until `until`; `listening` is told the address
/// once connections are taken.
pub fn serve_until(
    dir: &Path,
    listen: SocketAddr,
    gc_interval: u64,
    tls: &crate::tls::ServerFiles,
    listening: impl FnOnce(SocketAddr) -> std::io::Result<()>,
    until: Until,
) -> Result<()> {
    let tls = tls.config()?;
    let stone = Arc::new(Stone::open(dir)?);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
        let addr = listener.local_addr()?;
        let until = until.arm()?;
        listening(addr)?;
        if gc_interval > 0 {
            tokio::spawn(collect_periodically(Arc::clone(&stone), std::time::Duration::from_secs(gc_interval)));
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
        let service = StoneServer::new(service).max_decoding_message_size(1 << 30);
        let mut builder = Server::builder();
        if let Some(tls) = tls {
            builder = builder.tls_config(tls)?;
        }
        // On a signal every session stream ends and the stone stops taking requests; requests
        // under way finish.
        let server =
            builder.add_service(service).serve_with_incoming_shutdown(incoming, crate::shutdown::closed(closed));
        crate::shutdown::serve_until(server, until, &closing).await?;
        anyhow::Ok(())
    })?;
    drop(runtime);
    // The committer finishes the batch it holds before the stone goes.
    drop(stone);
    Ok(())
}

/// Collects the repository's garbage every `every`, when something was committed since the
/// last collection.
async fn collect_periodically(stone: Arc<Stone>, every: std::time::Duration) {
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

/// How long a connection may be quiet before the kernel probes it.
const KEEPALIVE: std::time::Duration = std::time::Duration::from_secs(20);
