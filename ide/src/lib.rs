//! The Onyx IDE: an egui desktop client of a gem's server agent. `link` is the connection
//! (batches off the UI thread, the event stream); `app` the window (transaction and status
//! bars, panes as dockable tabs); `panes` the kinds of pane and the small ones (transcript,
//! sessions, method lists); `browser`, `workspace` and `inspector` the large ones; `editor`
//! the Smalltalk code editor they share.

pub mod app;
mod browser;
mod editor;
mod inspector;
pub mod link;
mod panes;
mod workspace;

pub use app::{Ide, Show};
pub use link::Link;
