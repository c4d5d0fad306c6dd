//! A gem whose stone went away (it restarted, or cannot be reached): the VM thread notices
//! within a second (`Watch::look`), answers what was under way and what comes meanwhile with
//! an unavailable error that says so, and logs in again every second until the stone takes
//! it. The new session is a new VM: the old transaction is aborted (nothing uncommitted
//! survives, as after any abort), every handle is gone, and the tools hear `Relogged`.

use std::time::{Duration, Instant};

use onyx_record::StoneError;
use onyx_vm::Vm;

use crate::ops::request::{ErrorKind, Failure};

/// How a gem logs in to its stone (again).
pub type Login = Box<dyn FnMut() -> Result<Vm, StoneError> + Send>;

/// How often a gem that lost its stone tries to log in again.
const RETRY: Duration = Duration::from_secs(1);

/// Whether the gem has lost its stone, and how it logs in again.
pub struct Relogin {
    login: Login,
    /// Since when the stone is lost, and when a login was last tried.
    lost: Option<(Instant, Option<Instant>)>,
}

impl Relogin {
    /// Logs in again with `login` when the stone is lost.
    pub fn new(login: Login) -> Relogin {
        Relogin { login, lost: None }
    }

    /// Whether the stone is lost (and the gem not logged in again yet).
    pub(super) fn is_lost(&self) -> bool {
        self.lost.is_some()
    }

    /// The stone is lost.
    pub(super) fn lose(&mut self) {
        if self.lost.is_none() {
            self.lost = Some((Instant::now(), None));
        }
    }

    /// What an operation of a gem that lost its stone answers.
    pub(super) fn failure(&self) -> Failure {
        let since = self.lost.map_or(Duration::ZERO, |(since, _)| since.elapsed());
        Failure::new(
            ErrorKind::Unavailable,
            format!(
                "the gem lost its stone {} s ago (it restarted, or cannot be reached): the transaction was \
                 aborted, and the gem logs in again as soon as the stone takes it",
                since.as_secs()
            ),
        )
    }

    /// Tries to log in again, if a second has passed since the last try: a new VM.
    pub(super) fn try_login(&mut self) -> Option<Vm> {
        let (since, tried) = self.lost?;
        if tried.is_some_and(|t| t.elapsed() < RETRY) {
            return None;
        }
        match (self.login)() {
            Ok(vm) => {
                self.lost = None;
                Some(vm)
            }
            Err(_) => {
                self.lost = Some((since, Some(Instant::now())));
                None
            }
        }
    }
}
