//! What a gem and its stone share, and nothing else: the identity of persistent objects, how
//! an object travels and is stored, and the session a gem holds with its stone. The VM
//! (`onyx-vm`) and the store (`onyx-store`) both build on it, so the VM needs no database
//! and the store no Smalltalk.
//!
//! - [`word`]: the tags of a 64-bit word (references, SmallIntegers, Characters, nil, true,
//!   false, and in records Symbols by id), the VM's and the records' alike.
//! - [`record`]: [`ObjectRecord`], one object as stored and sent, with its encoding; the
//!   reserved OOPs and the chunk size of large objects.
//! - [`shape`]: the kinds of body a record may have and what each holds, checked by the
//!   stone at every commit.
//! - [`link`]: [`StoneLink`], the calls a gem makes of its stone, and what they answer.
//! - [`policy`]: object security policies, what a user may do with the objects of each.
//! - [`log`]: the object log's post-mortem reports ([`LogEntry`]), kept by the stone.
//! - [`breakpoint`]: breakpoints ([`Breakpoint`]), kept by the stone for every gem.
//! - [`kernel`]: what a stone knows of the kernel: where the root names the classes of
//!   code, and the slot of a profile that names its user.
//! - [`fields`]: little-endian fields of the stone's own tables, read without trusting a length.
//! - [`error`]: [`StoneError`], why such a call failed, by kind.
//!
//! ```
//! use onyx_record::{ObjectRecord, word};
//!
//! let record = ObjectRecord {
//!     oop: 100,
//!     class: 17,
//!     kind: 0,
//!     hash: 1,
//!     named: 1,
//!     policy: 0,
//!     words: vec![word::ref_word(101)],
//!     bytes: Vec::new(),
//! };
//! let stored = record.encode();
//! assert_eq!(ObjectRecord::decode(100, &stored), Ok(record.clone()));
//! assert_eq!(record.references().collect::<Vec<_>>(), vec![17, 101]);
//! ```

#![deny(missing_docs)]

pub mod breakpoint;
pub mod error;
pub mod fields;
pub mod kernel;
pub mod link;
pub mod log;
pub mod policy;
pub mod record;
pub mod shape;
pub mod word;

pub use breakpoint::{Breakpoint, Hits, Scope};
pub use error::StoneError;
pub use link::{
    About, CommitOutcome, LockKind, NO_POLICY, SYSTEM_POLICY, SessionAct, SessionInfo, StoneLink, Suspended, UserInfo,
    ViewChange,
};
pub use log::{LogEntry, LogFrame, LogVariable};
pub use policy::{Access, Policy};
pub use record::{CHUNK, CHUNKED_HEADER, DecodeError, FIRST_OOP, ObjectRecord, Oop, ROOT};
