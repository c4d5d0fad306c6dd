//! The stone's store: a repository of persistent objects on redb, shared by many sessions
//! with GemStone's transaction semantics.
//!
//! - [`repo`]: the repository file (object table, chunks for large objects, bookkeeping),
//!   snapshots and durable writes.
//! - [`record`]: one object as stored and as gems send it.
//! - [`stone`]: sessions, views, OOP allocation, traversals, abort, locks.
//! - `commit`: the committer thread (commit token, conflict checks, group commit,
//!   checkpoints).
//! - [`tranlog`]: the transaction log, where commits become durable.
//! - [`locks`]: object locks.
//! - [`gc`]: the repository's garbage collector.
//!
//! The store knows nothing of RPC or of the VM: the server wraps a [`Stone`] for remote
//! gems, and a gem turns records into objects.

mod commit;
pub mod gc;

pub use commit::Reply;
pub mod error;
pub mod locks;
pub mod record;
pub mod repo;
pub mod stone;
pub mod tranlog;

pub use error::StoreError;
pub use gc::GcReport;
pub use locks::LockKind;
pub use record::{FIRST_OOP, ObjectRecord, Oop, ROOT};
pub use stone::{About, CommitOutcome, SessionInfo, Stone, ViewChange};
