//! A stone and gems inside the calling process, the IDE's default: the same servers as
//! `onyx stone` and `onyx gem`, on 127.0.0.1 with ports the system picks (the stone's may be
//! pinned, so that gems started elsewhere find it again), reached through the same gRPC as
//! remote ones, and stopped when the [`Embedded`] is.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use onyx_protocol::serving::Until;
use onyx_protocol::tls::ServerFiles;
use onyx_stone::StoneOptions;
use tokio::sync::oneshot;

use crate::gem::GemOptions;
use crate::repository::{self, Passwords};
use crate::{GemError, Setup};

/// Where and how the embedded servers serve.
#[derive(Clone, Debug, Default)]
pub struct Serving {
    /// What the gems' agents serve TLS with (none: plain TCP; their clients trust the
    /// authority `ONYX_TLS_CA` names).
    pub tls: ServerFiles,
    /// Where the stone listens (none: 127.0.0.1, on a port the system picks).
    pub stone: Option<SocketAddr>,
}

/// A server thread, and the word that stops it.
type Server = (oneshot::Sender<()>, JoinHandle<Result<(), GemError>>);

/// A running stone and its gems; [`Embedded::gem`] is the first gem's agent's address.
pub struct Embedded {
    /// The first gem's agent (`https://` when its agents serve TLS).
    pub gem: String,
    /// The stone's address.
    pub stone: String,
    setup: Setup,
    /// The user the gems' sessions are, unless told otherwise, and their password.
    user: (String, String),
    /// What the gems' agents serve TLS with (none: plain TCP).
    tls: ServerFiles,
    /// The gems first, then the stone: the order they stop in.
    servers: Vec<Server>,
}

impl Embedded {
    /// Serves the repository in `dir`, created with the kernel (and the users SystemUser and
    /// DataCurator, password `swordfish`) if `dir` holds none yet, with a first gem whose
    /// session is `user`'s (`password` theirs).
    pub fn start(dir: &Path, setup: Setup, user: &str, password: &str) -> Result<Embedded, GemError> {
        Embedded::start_with(dir, setup, Serving::default(), user, password)
    }

    /// As [`Embedded::start`], serving as `serving` says.
    pub fn start_with(
        dir: &Path,
        setup: Setup,
        serving: Serving,
        user: &str,
        password: &str,
    ) -> Result<Embedded, GemError> {
        let Serving { tls, stone: listen } = serving;
        tls.config()?;
        if !dir.join(onyx_store::repo::FILE).exists() {
            repository::create(&setup, dir, &Passwords::default())?;
        }
        let listen = listen.unwrap_or(SocketAddr::from(([127, 0, 0, 1], 0)));
        let (stop_stone, until) = oneshot::channel();
        let (told, listening) = mpsc::channel();
        let stone_dir = dir.to_path_buf();
        let stone = std::thread::Builder::new().name("stone".into()).spawn(move || {
            let ready = |addr: SocketAddr| told.send(addr).map_err(|_| std::io::ErrorKind::BrokenPipe.into());
            let options = StoneOptions {
                dir: &stone_dir,
                listen,
                gc_interval: Some(Duration::from_secs(60)),
                tls: &ServerFiles::default(),
                recovery: onyx_store::tranlog::Recovery::Strict,
            };
            Ok(onyx_stone::serve_until(options, ready, Until::Told(until))?)
        })?;
        let user = (user.to_string(), password.to_string());
        let servers = vec![(stop_stone, stone)];
        let mut embedded = Embedded { gem: String::new(), stone: String::new(), setup, user, tls, servers };
        embedded.stone = embedded.wait(&listening)?.to_string();
        embedded.gem = embedded.add_gem()?;
        Ok(embedded)
    }

    /// Starts another gem on the stone (another session of the first gem's user, for another
    /// transaction); answers its agent's address. It stops with the others.
    pub fn add_gem(&mut self) -> Result<String, GemError> {
        let (user, password) = self.user.clone();
        self.add_gem_as(&user, &password)
    }

    /// Starts another gem on the stone whose session is `user`'s; answers its agent's
    /// address. It stops with the others.
    pub fn add_gem_as(&mut self, user: &str, password: &str) -> Result<String, GemError> {
        let (user, password) = (user.to_string(), password.to_string());
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let (stone_addr, config, tls) = (self.stone.clone(), self.setup.config, self.tls.clone());
        let (stop_gem, until) = oneshot::channel();
        let (told, listening) = mpsc::channel();
        let gem = std::thread::Builder::new().name("gem".into()).spawn(move || {
            let ready = |_, addr: SocketAddr| told.send(addr).map_err(|_| std::io::ErrorKind::BrokenPipe.into());
            let options = GemOptions {
                config,
                stone: &stone_addr,
                user: &user,
                password: &password,
                listen: loopback,
                tls: &tls,
                idle_logout: Duration::from_secs(8 * 3600),
                eval_limit: Duration::from_secs(3600),
            };
            crate::gem::serve_until(options, ready, Until::Told(until))
        })?;
        self.servers.insert(0, (stop_gem, gem));
        let addr = self.wait(&listening)?;
        let scheme = if self.tls.cert.is_some() { "https://" } else { "" };
        Ok(format!("{scheme}{addr}"))
    }

    /// The address a server said it listens on; its error if it stopped first.
    fn wait(&mut self, listening: &mpsc::Receiver<SocketAddr>) -> Result<SocketAddr, GemError> {
        match listening.recv() {
            Ok(addr) => Ok(addr),
            Err(_) => {
                let (_, thread) = self.servers.remove(0);
                Err(thread.join().map_err(|_| GemError::ServerStopped)?.err().unwrap_or(GemError::ServerStopped))
            }
        }
    }

    /// Stops the gems, then the stone (which makes what it holds durable).
    pub fn stop(mut self) -> Result<(), GemError> {
        self.stop_all()
    }

    fn stop_all(&mut self) -> Result<(), GemError> {
        let mut first_error = None;
        for (stop, thread) in self.servers.drain(..) {
            let _ = stop.send(());
            let outcome = thread.join().map_err(|_| GemError::ServerStopped).and_then(|r| r);
            if let Err(e) = outcome {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Embedded {
    fn drop(&mut self) {
        // Stopping is best effort here; `stop` reports what went wrong.
        let _ = self.stop_all();
    }
}
