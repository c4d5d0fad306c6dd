//! The stone's store: a repository of persistent objects on redb, shared by many sessions
//! with GemStone's transaction semantics.
//!
//! - [`repo`]: the repository file (object table, chunks for large objects, bookkeeping),
//!   snapshots and durable writes.
//! - [`stone`]: sessions, views, OOP allocation, traversals, abort, locks.
//! - `commit`: the committer thread (commit token, conflict checks, group commit,
//!   checkpoints).
//! - [`tranlog`]: the transaction log, where commits become durable.
//! - [`locks`]: object locks.
//! - [`breakpoints`]: the stone's breakpoints, which every gem applies.
//! - [`users`]: users, their passwords, and object security policies.
//! - [`tickets`]: one-time tickets a tool attaches to another gem with, instead of a password.
//! - [`gc`]: the repository's garbage collector.
//! - [`verify`]: the offline check of a whole repository (`onyx verify`).
//! - [`local`]: a session of a stone in the same process, as the VM's `StoneLink`.
//!
//! Records, OOPs and the session's vocabulary are `onyx-record`'s, shared with the VM. The
//! store knows nothing of RPC or of Smalltalk: `onyx-stone` serves a [`Stone`] to remote
//! gems, and a gem turns records into objects.

mod accounts;
pub mod breakpoints;
mod commit;
pub mod error;
pub mod gc;
pub mod local;
pub mod locks;
pub mod repo;
mod rules;
pub mod stone;
pub mod tickets;
pub mod tranlog;
pub mod users;
pub mod verify;

pub use commit::Reply;
pub use error::StoreError;
pub use gc::GcReport;
pub use local::LocalLink;
pub use stone::Stone;
