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

/// Serves the repository in `dir` on `listen` (port 0 picks one); prints the address it
/// listens on as the first line of standard output.
pub fn serve(dir: &Path, listen: SocketAddr, gc_interval: u64, tls: &crate::tls::ServerFiles) -> Result<ExitCode> {
    let tls = tls.config()?;
    let stone = Arc::new(Stone::open(dir)?);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
        let addr = listener.local_addr()?;
        println!("stone listening on {addr}");
        std::io::stdout().flush()?;
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
        let mut closed_for_server = closed;
        let service = StoneServer::new(service).max_decoding_message_size(1 << 30);
        let mut builder = Server::builder();
        if let Some(tls) = tls {
            builder = builder.tls_config(tls)?;
        }
        let server = builder.add_service(service).serve_with_incoming_shutdown(incoming, async move {
            let _ = closed_for_server.wait_for(|&c| c).await;
        });
        tokio::pin!(server);
        tokio::select! {
            served = &mut server => served?,
            () = shutdown_signal() => {
                // Ends every session stream and stops taking requests; requests under way
                // finish, but a gem that does not close its connection does not hold the
                // stone up for longer than the grace period.
                let _ = closing.send(true);
                if let Ok(served) = tokio::time::timeout(GRACE, &mut server).await {
                    served?;
                }
            }
        }
        anyhow::Ok(())
    })?;
    drop(runtime);
    // The committer finishes the batch it holds before the stone goes.
    drop(stone);
    Ok(ExitCode::SUCCESS)
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

/// How long a stopping stone waits for gems to close their connections.
const GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Completes on SIGTERM or SIGINT.
pub(crate) async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}
