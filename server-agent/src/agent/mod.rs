//! The server agent: the service a gem offers the IDE and the command line. `onyx gem` logs a
//! VM in to the stone on its own thread (`worker.rs`) and serves the agent's gRPC service
//! (`service.rs`) on the listen address; the service hands each batch to the VM thread and
//! answers when the VM thread has run it (`ops.rs` holds the operations, `inspect.rs`
//! handles and the inspector).

mod inspect;
mod ops;
mod search;
mod service;
mod watch;
mod worker;

use std::io::Write as _;
use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::{Context as _, Result, anyhow};
use onyx_protocol::agent::agent_server::AgentServer;
use onyx_vm::persist::About;
use onyx_vm::{Vm, VmConfig};
use tokio::sync::broadcast;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::shutdown::Until;
use crate::stone_client::StoneSession;

/// How a gem serves its agent.
pub struct GemOptions<'a> {
    pub config: VmConfig,
    /// The stone's address.
    pub stone: &'a str,
    /// Where the agent listens (port 0 picks one).
    pub listen: SocketAddr,
    pub tls: &'a crate::tls::ServerFiles,
    /// How long a login's token may go unused.
    pub idle_logout: std::time::Duration,
}

/// Runs a gem: a session with the stone, and the agent served until SIGTERM or SIGINT. The
/// first line of standard output names both.
pub fn serve(options: GemOptions) -> Result<ExitCode> {
    let stone = options.stone.to_string();
    let listening = |session, addr| {
        println!("gem session {session} on {stone}, agent listening on {addr}");
        std::io::stdout().flush()
    };
    serve_until(options, listening, Until::Signalled)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs a gem until `until`; `listening` is told its session and the agent's address once
/// the agent takes connections.
pub fn serve_until(
    options: GemOptions,
    listening: impl FnOnce(u64, SocketAddr) -> std::io::Result<()>,
    until: Until,
) -> Result<()> {
    let GemOptions { config, stone, listen, tls, idle_logout } = options;
    let tls = tls.config()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(listen))
        .with_context(|| format!("cannot listen on {listen}"))?;
    let addr = listener.local_addr()?;
    let (work, work_queue) = std::sync::mpsc::channel();
    let (events, _) = broadcast::channel(256);
    let (ready, logged_in) = std::sync::mpsc::channel();
    let stone_addr = stone.to_string();
    let advertised = advertised(addr, tls.is_some());
    let vm_events = events.clone();
    let vm_thread = std::thread::Builder::new().name("vm".into()).spawn(move || {
        let vm = StoneSession::connect(&stone_addr)
            .map_err(|e| e.to_string())
            .and_then(|session| Vm::login(Box::new(session), config));
        match vm {
            Ok(mut vm) => {
                let _ = ready.send(Ok(vm.session_id().unwrap_or_default()));
                let about =
                    About { user: String::new(), host: watch::host_name(), pid: std::process::id(), agent: advertised };
                let watch = watch::Watch::new(&mut vm, about);
                worker::run(&mut vm, &work_queue, &vm_events, watch);
            }
            Err(e) => {
                let _ = ready.send(Err(e));
            }
        }
    })?;
    let session = logged_in
        .recv()
        .map_err(|_| anyhow!("the gem's VM thread stopped"))?
        .map_err(|e| anyhow!("cannot log in to the stone at {stone}: {e}"))?;
    runtime.block_on(async {
        let until = until.arm()?;
        listening(session, addr)?;
        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
        let (closing, closed) = tokio::sync::watch::channel(false);
        let service = AgentServer::new(service::AgentService::new(work, events, closed.clone(), idle_logout));
        let mut builder = Server::builder();
        if let Some(tls) = tls {
            builder = builder.tls_config(tls)?;
        }
        // On a signal, event streams end and the agent stops taking requests; batches under
        // way get a short grace (an endless evaluation does not hold the gem up).
        let server =
            builder.add_service(service).serve_with_incoming_shutdown(incoming, crate::shutdown::closed(closed));
        crate::shutdown::serve_until(server, until, &closing).await?;
        anyhow::Ok(())
    })?;
    // The service (and with it the VM thread's queue) is gone: the VM thread ends its session.
    drop(runtime);
    vm_thread.join().map_err(|_| anyhow!("the gem's VM thread failed"))?;
    Ok(())
}

/// The agent's address as other tools should use it: with `https://` under TLS, and this
/// host's name in place of an unspecified address (listening on every interface).
fn advertised(addr: SocketAddr, tls: bool) -> String {
    let host = if addr.ip().is_unspecified() { watch::host_name() } else { addr.ip().to_string() };
    let host = if host.contains(':') { format!("[{host}]") } else { host };
    let scheme = if tls { "https://" } else { "" };
    format!("{scheme}{host}:{}", addr.port())
}
