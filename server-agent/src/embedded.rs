//! A stone and a gem inside the calling process, the IDE's default: the same servers as
//! `onyx stone` and `onyx gem`, on 127.0.0.1 with ports the system picks, reached through the
//! same gRPC as remote ones, and stopped when the [`Embedded`] is.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Result, anyhow};
use tokio::sync::oneshot;

use crate::agent::GemOptions;
use crate::cli::Setup;
use crate::gem::Passwords;
use crate::shutdown::Until;
use crate::tls::ServerFiles;

/// A running stone and gem; [`Embedded::gem`] is the agent's address.
pub struct Embedded {
    pub gem: String,
    /// The stone's address.
    pub stone: String,
    setup: Setup,
    /// The gem first, then the stone: the order they stop in.
    servers: Vec<(oneshot::Sender<()>, JoinHandle<Result<()>>)>,
}

impl Embedded {
    /// Serves the repository in `dir`, created with the kernel (and the users SystemUser and
    /// DataCurator, password `swordfish`) if `dir` holds none yet.
    pub fn start(dir: &Path, setup: Setup) -> Result<Embedded> {
        if !dir.join(onyx_store::repo::FILE).exists() {
            crate::gem::create(&setup, dir, &Passwords { system_user: None, data_curator: None })?;
        }
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let (stop_stone, until) = oneshot::channel();
        let (told, listening) = mpsc::channel();
        let stone_dir = dir.to_path_buf();
        let stone = std::thread::Builder::new().name("stone".into()).spawn(move || {
            let ready = |addr: SocketAddr| told.send(addr).map_err(|_| std::io::ErrorKind::BrokenPipe.into());
            crate::stone::serve_until(&stone_dir, loopback, 60, &ServerFiles::default(), ready, Until::Told(until))
        })?;
        let mut embedded =
            Embedded { gem: String::new(), stone: String::new(), setup, servers: vec![(stop_stone, stone)] };
        embedded.stone = embedded.wait(&listening)?.to_string();
        embedded.gem = embedded.add_gem()?;
        Ok(embedded)
    }

    /// Starts another gem on the stone (another session, for another user or another
    /// transaction); answers its agent's address. It stops with the others.
    pub fn add_gem(&mut self) -> Result<String> {
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let (stone_addr, config) = (self.stone.clone(), self.setup.config);
        let (stop_gem, until) = oneshot::channel();
        let (told, listening) = mpsc::channel();
        let gem = std::thread::Builder::new().name("gem".into()).spawn(move || {
            let ready = |_, addr: SocketAddr| told.send(addr).map_err(|_| std::io::ErrorKind::BrokenPipe.into());
            let options = GemOptions {
                config,
                stone: &stone_addr,
                listen: loopback,
                tls: &ServerFiles::default(),
                idle_logout: Duration::from_secs(8 * 3600),
            };
            crate::agent::serve_until(options, ready, Until::Told(until))
        })?;
        self.servers.insert(0, (stop_gem, gem));
        Ok(self.wait(&listening)?.to_string())
    }

    /// The address a server said it listens on; its error if it stopped first.
    fn wait(&mut self, listening: &mpsc::Receiver<SocketAddr>) -> Result<SocketAddr> {
        match listening.recv() {
            Ok(addr) => Ok(addr),
            Err(_) => {
                let (_, thread) = self.servers.remove(0);
                Err(thread
                    .join()
                    .map_err(|_| anyhow!("a server failed"))?
                    .err()
                    .unwrap_or_else(|| anyhow!("a server stopped")))
            }
        }
    }

    /// Stops the gem, then the stone (which makes what it holds durable).
    pub fn stop(mut self) -> Result<()> {
        self.stop_all()
    }

    fn stop_all(&mut self) -> Result<()> {
        let mut first_error = None;
        for (stop, thread) in self.servers.drain(..) {
            let _ = stop.send(());
            let outcome = thread.join().map_err(|_| anyhow!("a server failed")).and_then(|r| r);
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
