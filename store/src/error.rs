//! What can go wrong in the stone, as one error type that says what happened in words a
//! user can act on.

use onyx_record::{DecodeError, LockKind, Oop, StoneError};

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
        /// The lock it holds.
        kind: LockKind,
    },
    /// The stone is shutting down.
    #[error("the stone is shutting down")]
    ShuttingDown,
    /// The session's user may not do this (or the login's user or password is not known).
    #[error("{0}")]
    PermissionDenied(String),
}

impl From<DecodeError> for StoreError {
    fn from(e: DecodeError) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

/// What a gem's session hears of a store error: its kind, and the same sentence.
impl From<StoreError> for StoneError {
    fn from(e: StoreError) -> StoneError {
        let message = e.to_string();
        match e {
            StoreError::LockDenied { oop, holder, kind } => StoneError::LockDenied { oop, holder, kind },
            StoreError::Invalid(_) => StoneError::Invalid(message),
            StoreError::PermissionDenied(_) => StoneError::PermissionDenied(message),
            StoreError::NoSession(_) | StoreError::ShuttingDown => StoneError::Unavailable(message),
            StoreError::Corrupt(_) | StoreError::NotARepository(_) => StoneError::Damaged(message),
            StoreError::NotFound(_) | StoreError::Storage(_) => StoneError::Storage(message),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gem_hears_each_store_error_as_the_stone_error_of_its_kind_with_the_same_words() {
        let denied = StoreError::LockDenied { oop: 40, holder: 2, kind: LockKind::Write };
        let said = denied.to_string();
        assert_eq!(StoneError::from(denied), StoneError::LockDenied { oop: 40, holder: 2, kind: LockKind::Write });
        assert_eq!(said, StoneError::LockDenied { oop: 40, holder: 2, kind: LockKind::Write }.to_string());
        let cases = [
            (StoreError::Invalid("no object 7".into()), "invalid"),
            (StoreError::NoSession(3), "unavailable"),
            (StoreError::ShuttingDown, "unavailable"),
            (StoreError::Corrupt("object 9: truncated header".into()), "damaged"),
            (StoreError::NotARepository("not one".into()), "damaged"),
            (StoreError::Storage("disk full".into()), "storage"),
            (StoreError::NotFound("no folder".into()), "storage"),
        ];
        for (store, kind) in cases {
            let words = store.to_string();
            let stone = StoneError::from(store);
            let heard = match &stone {
                StoneError::Invalid(_) => "invalid",
                StoneError::Unavailable(_) => "unavailable",
                StoneError::Damaged(_) => "damaged",
                StoneError::Storage(_) => "storage",
                other => panic!("{other:?}"),
            };
            assert_eq!((heard, stone.to_string()), (kind, words));
        }
    }
}
