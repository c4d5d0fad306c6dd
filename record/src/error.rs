//! [`StoneError`]: why a call of a gem's session with its stone failed, by kind, so that a
//! caller can tell a denied lock from a stone that is gone or a request the stone refused.

use crate::link::LockKind;
use crate::record::Oop;

/// A call of a [`crate::StoneLink`] that failed. None of them leaves the repository
/// half-changed; each kind calls for something else of the caller. Each message is a whole
/// sentence for the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoneError {
    /// A lock another session holds stands in the way (try again later, or give up).
    #[error("lock on object {oop} denied: session {holder} holds a {kind} lock on it")]
    LockDenied {
        /// The object.
        oop: Oop,
        /// A session holding a conflicting lock.
        holder: u64,
        /// The lock it holds.
        kind: LockKind,
    },
    /// The stone cannot be reached, is stopping, or ended the session (log in again once it
    /// is back).
    #[error("{0}")]
    Unavailable(String),
    /// A request that does not make sense (an unknown OOP, a dangling reference, a malformed
    /// record, an object that cannot be locked): the caller's mistake, nothing changed.
    #[error("{0}")]
    Invalid(String),
    /// The user may not make this change (code, or the users' directory, for a user who may
    /// not change code): nothing was committed.
    #[error("{0}")]
    PermissionDenied(String),
    /// The repository's data is damaged (restore it from a backup; nothing was absorbed).
    #[error("{0}")]
    Damaged(String),
    /// The stone's storage failed (an I/O error, a full disk): the request did not happen.
    #[error("{0}")]
    Storage(String),
    /// The peer answered what a stone of this version would not (another program, or another
    /// version of Onyx).
    #[error("{0}")]
    Protocol(String),
}

impl StoneError {
    /// The same error, its message opening with `what` (a denied lock says its own).
    pub fn context(self, what: &str) -> StoneError {
        let with = |m: String| format!("{what}: {m}");
        match self {
            StoneError::Unavailable(m) => StoneError::Unavailable(with(m)),
            StoneError::Invalid(m) => StoneError::Invalid(with(m)),
            StoneError::PermissionDenied(m) => StoneError::PermissionDenied(with(m)),
            StoneError::Damaged(m) => StoneError::Damaged(with(m)),
            StoneError::Storage(m) => StoneError::Storage(with(m)),
            StoneError::Protocol(m) => StoneError::Protocol(with(m)),
            denied @ StoneError::LockDenied { .. } => denied,
        }
    }
}
