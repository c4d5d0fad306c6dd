//! What can go wrong in the stone, as one error type that says what happened in words a
//! user can act on.

use crate::record::Oop;

/// A stone operation that failed. None of them leaves the repository half-changed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The repository folder or file is missing.
    #[error("{0}")]
    NotFound(String),
    /// The file is not an Onyx repository, or one written by an incompatible version.
    #[error("{0}")]
    NotARepository(String),
    /// Stored data does not decode (a damaged or foreign file).
    #[error("the repository is damaged: {0}")]
    Corrupt(String),
    /// The underlying storage failed (I/O error, full disk, ...).
    #[error("storage error: {0}")]
    Storage(String),
    /// The session does not exist (never logged in, or logged out).
    #[error("no session {0}")]
    NoSession(u64),
    /// A request that does not make sense (an unknown OOP, a dangling reference, ...).
    #[error("{0}")]
    Invalid(String),
    /// A lock another session holds.
    #[error("lock on object {oop} denied: session {holder} holds a {kind} lock on it")]
    LockDenied {
        /// The object.
        oop: Oop,
        /// A session holding a conflicting lock.
        holder: u64,
        /// "read" or "write".
        kind: &'static str,
    },
    /// The stone is shutting down.
    #[error("the stone is shutting down")]
    ShuttingDown,
}

macro_rules! from_redb {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> StoreError {
                StoreError::Storage(e.to_string())
            }
        }
    )*};
}

from_redb!(
    redb::Error,
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);
