//! Gems the IDE starts on its embedded stone (the Sessions pane's "Start a gem"), as
//! `onyx gem --stone` would from a terminal: each logs in as the IDE's user and serves its
//! agent on 127.0.0.1, for another IDE (`onyx-ide --connect`) or `onyx eval --gem` to work
//! in, and stops with the IDE. The library does not start servers itself; the binary, which
//! embeds the stone, hands it a [`Starter`].

use std::sync::{Arc, Mutex, PoisonError};

use crate::link::Wake;

/// Starts a gem on the embedded stone and answers its agent's address once it listens, or
/// why it could not. It may block for as long as the gem takes to log in.
pub type Starter = Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

/// A gem asked for: starting, serving at an address, or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Started {
    /// Logging in.
    Starting,
    /// Its agent's address.
    Serving(String),
    /// Why it did not start.
    Failed(String),
}

/// The gems started from this IDE; starting one never blocks the window.
#[derive(Clone)]
pub struct Gems {
    start: Starter,
    started: Arc<Mutex<Vec<Started>>>,
}

impl Gems {
    /// Gems started with `start`.
    pub fn new(start: Starter) -> Gems {
        Gems { start, started: Arc::default() }
    }

    /// Starts a gem on a thread of its own; `wake` redraws the window once it serves or
    /// failed.
    pub fn start(&self, wake: Wake) {
        let index = {
            let mut started = self.started.lock().unwrap_or_else(PoisonError::into_inner);
            started.push(Started::Starting);
            started.len() - 1
        };
        let (start, started) = (Arc::clone(&self.start), Arc::clone(&self.started));
        let spawned = std::thread::Builder::new().name("starting a gem".into()).spawn(move || {
            let outcome = match start() {
                Ok(address) => Started::Serving(address),
                Err(e) => Started::Failed(e),
            };
            started.lock().unwrap_or_else(PoisonError::into_inner)[index] = outcome;
            wake();
        });
        if let Err(e) = spawned {
            self.started.lock().unwrap_or_else(PoisonError::into_inner)[index] =
                Started::Failed(format!("cannot make a thread to start it: {e}"));
        }
    }

    /// The gems asked for, the first first.
    pub fn started(&self) -> Vec<Started> {
        self.started.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
