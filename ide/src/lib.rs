//! The Onyx IDE: an egui desktop client of a gem's server agent, speaking only the agent's
//! protocol (`onyx-protocol`). `link` is the connection (batches off the UI thread, the event
//! stream); `app` the window (menus, tools, transaction and status bars), `tabs` the panes as
//! dockable tabs, `find` quick-open; `panes` the [`panes::View`] every pane implements, and
//! the small panes (transcript, method lists), `sessions` the stone's gems and the processes
//! they keep suspended, `gems` the gems the sessions pane
//! starts on an embedded stone; `browser`, `workspace`,
//! `inspector`, `debugger`, `processes` and `runner` (the test runner) the large ones;
//! `remote` the panes on other gems of the stone (a debugger attached there); `breakpoints`
//! the stone's breakpoints as each gem has them, and their browser; `tools` the
//! kinds of pane the menus open;
//! `help` and `settings`; `editor` the Smalltalk code editor they share (`gutter` its breakpoint margin); `ask` the questions
//! asked before acting; `layout` what is kept across restarts; `transaction` the transaction
//! bar and the question asked on closing over uncommitted changes; `show` what
//! `onyx-ide --show` opens.
//!
//! **Architecture Invariant:** this library uses no other crate of the workspace than the
//! protocol: it reaches a gem as any remote client does (the binary alone embeds a server).

#![deny(missing_docs)]

pub mod app;
mod ask;
mod breakpoints;
mod browser;
mod changes;
pub mod ctx;
mod debugger;
mod editor;
mod find;
pub mod gems;
mod gutter;
mod help;
mod inspector;
pub mod layout;
pub mod link;
mod merging;
pub mod panes;
mod processes;
mod remote;
mod runner;
mod sessions;
mod settings;
mod show;
mod tabs;
mod tools;
mod transaction;
mod versions;
mod workspace;

pub use app::Ide;
pub use link::Link;
pub use show::Show;
