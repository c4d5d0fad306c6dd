//! A gem: a VM logged in to a stone on its own thread (`vm_thread`), and the server agent's
//! gRPC service (`agent`) on the listen address, until SIGTERM or SIGINT (or its owner's
//! word, embedded). The service hands each batch to the VM thread and answers when the VM
//! thread has run it. `onyx gem` is a call of [`serve_until`].

use std::net::SocketAddr;
use std::time::Duration;

use onyx_protocol::agent::agent_server::AgentServer;
use onyx_protocol::codec::MAX_MESSAGE;
use onyx_protocol::serving::{self, Until};
use onyx_protocol::tls::ServerFiles;
use onyx_record::About;
use onyx_vm::{Vm, VmConfig};
use tokio::sync::broadcast;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::GemError;
use crate::agent::AgentService;
use crate::stone_client::StoneSession;
use crate::vm_thread::{self, Login, Relogin, Watch};

/// How a gem serves its agent.
pub struct GemOptions<'a> {
    /// The VM's settings.
    pub config: VmConfig,
    /// The stone's address.
    pub stone: &'a str,
    /// The user the gem's session is.
    pub user: &'a str,
    /// Their password.
    pub password: &'a str,
    /// Where the agent listens (port 0 picks one).
    pub listen: SocketAddr,
    /// The certificate and key to serve TLS with (none: plain TCP).
    pub tls: &'a ServerFiles,
    /// How long a login's token may go unused.
    pub idle_logout: Duration,
    /// The longest any evaluation runs, whatever its client asks.
    pub eval_limit: Duration,
}

/// Runs a gem until `until`; `listening` is told its session and the agent's address once
/// the agent takes connections.
pub fn serve_until(
    options: GemOptions,
    listening: impl FnOnce(u64, SocketAddr) -> std::io::Result<()>,
    until: Until,
) -> Result<(), GemError> {
    let GemOptions { config, stone, user, password, listen, tls, idle_logout, eval_limit } = options;
    let tls = tls.config()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(listen))
        .map_err(|cause| GemError::Listen { address: listen, cause })?;
    let addr = listener.local_addr()?;
    let (work, work_queue) = std::sync::mpsc::channel();
    let (events, _) = broadcast::channel(256);
    let (ready, logged_in) = std::sync::mpsc::channel();
    let (stone_addr, user, password) = (stone.to_string(), user.to_string(), password.to_string());
    let advertised = advertised(addr, tls.is_some());
    let vm_events = events.clone();
    let vm_thread = std::thread::Builder::new().name("vm".into()).spawn(move || {
        // The gem logs in again with the same user should it lose its stone.
        let mut login: Login = Box::new(move || {
            StoneSession::connect(&stone_addr, &user, &password)
                .and_then(|session| Vm::login(Box::new(session), config))
        });
        match login() {
            Ok(mut vm) => {
                let owner = vm.session_user().cloned().unwrap_or_default();
                let _ = ready.send(Ok((vm.session_id().unwrap_or_default(), owner)));
                let about = About {
                    user: String::new(),
                    host: vm_thread::host_name(),
                    pid: std::process::id(),
                    agent: advertised,
                    suspended: Vec::new(),
                    hits: Vec::new(),
                };
                let watch = Watch::new(&mut vm, about);
                vm_thread::run(&mut vm, &work_queue, &vm_events, watch, eval_limit, Relogin::new(login));
            }
            Err(e) => {
                let _ = ready.send(Err(e));
            }
        }
    })?;
    let (session, owner) = logged_in
        .recv()
        .map_err(|_| GemError::VmThread)?
        .map_err(|cause| GemError::Login { stone: stone.to_string(), cause })?;
    runtime.block_on(async {
        let until = until.arm()?;
        listening(session, addr)?;
        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
        let (closing, closed) = tokio::sync::watch::channel(false);
        let service =
            AgentServer::new(AgentService::new(owner, stone.to_string(), work, events, closed.clone(), idle_logout))
                .max_decoding_message_size(MAX_MESSAGE)
                .max_encoding_message_size(MAX_MESSAGE);
        let mut builder = Server::builder();
        if let Some(tls) = tls {
            builder = builder.tls_config(tls)?;
        }
        // On a signal, event streams end and the agent stops taking requests; batches under
        // way get a short grace (an endless evaluation does not hold the gem up).
        let server = builder.add_service(service).serve_with_incoming_shutdown(incoming, serving::closed(closed));
        serving::serve_until(server, until, &closing).await?;
        Ok::<(), GemError>(())
    })?;
    // The service (and with it the VM thread's queue) is gone: the VM thread ends its session.
    drop(runtime);
    vm_thread.join().map_err(|_| GemError::VmThread)?;
    Ok(())
}

/// The agent's address as other tools should use it: with `https://` under TLS, and this
/// host's name in place of an unspecified address (listening on every interface).
fn advertised(addr: SocketAddr, tls: bool) -> String {
    let host = if addr.ip().is_unspecified() { vm_thread::host_name() } else { addr.ip().to_string() };
    let host = if host.contains(':') { format!("[{host}]") } else { host };
    let scheme = if tls { "https://" } else { "" };
    format!("{scheme}{host}:{}", addr.port())
}
