//! The Onyx IDE: an egui desktop client of a gem's server agent, speaking only the agent's
//! protocol (`onyx-protocol`). `link` is the connection (batches off the UI thread, the event
//! stream); `app` the window (transaction and status bars, panes as dockable tabs); `panes`
//! the [`panes::View`] every pane implements, and the small panes (transcript, sessions,
//! method lists); `browser`, `workspace` and `inspector` the large ones; `editor` the
//! Smalltalk code editor they share; `layout` what is kept across restarts; `transaction` the
//! transaction bar and the question asked on closing over uncommitted changes.
//!
//! **Architecture Invariant:** this library uses no other crate of the workspace than the
//! protocol: it reaches a gem as any remote client does (the binary alone embeds a server).

#![deny(missing_docs)]

pub mod app;
mod browser;
mod debugger;
mod editor;
mod inspector;
pub mod layout;
pub mod link;
pub mod panes;
mod processes;
mod transaction;
mod workspace;

pub use app::{Ide, Show};
pub use link::Link;
