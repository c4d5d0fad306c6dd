//! The end-to-end tests: real `onyx` stone and gem processes on 127.0.0.1, driven over
//! gRPC and through the command line. One binary, one module per area (try not to add more
//! binaries); `onyx_tests` (`util.rs`) finds the `onyx` binary.
//!
//! - `agent`: a gem's server agent, driven over gRPC.
//! - `stone`: `onyx init` and `onyx stone` served to gem sessions over gRPC.
//! - `gems`: gem processes sharing a repository through a stone.
//! - `debugger`: suspended processes, stepping and the other debugger operations, over gRPC.
//! - `breakpoints`: breakpoints set through one gem (or `onyx break`) stopping processes of
//!   another.
//! - `attach`: another user's debugger attached to a gem's process stopped at a breakpoint,
//!   or paused; a debugger cut off.
//! - `dap`: `onyx dap` driven by a scripted Debug Adapter Protocol client, as VS Code drives
//!   it.
//! - `errors`: the stone's failures, told apart by kind through a gem's session and its agent.
//! - `crash`: a stone killed during a commit storm keeps every acknowledged commit.
//! - `integrity`: hostile records, and damaged files, refused or found, never read as data.
//! - `limits`: evaluations' time limits, and clients that go away.
//! - `malformed`: messages that do not decode, answered INVALID_ARGUMENT.
//! - `packages`: packages loaded into a gem all or nothing (`onyx load`), and saved from it
//!   (`onyx save`) as Tonel, FileTree and Monticello.
//! - `logins`: what a login to an agent may do, and how long its token and handles last.
//! - `sessions`: the stone's sessions as the agents show them, and their events.
//! - `restart`: a gem whose stone restarts logs in again.
//! - `security`: what one user cannot do to another, whatever client they use (a raw stone
//!   session where the tools would not send such a request).
//! - `tidy`: repository hygiene.
//! - `tls`: a stone and a gem serving over TLS.
//! - `wrong_server`: commands pointed at the wrong kind of server or at a gem whose stone is
//!   gone, and an embedded stone pinned to its address.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

mod agent;
mod attach;
mod breakpoints;
mod crash;
mod dap;
mod debug_rights;
mod debugger;
mod errors;
mod gems;
mod integrity;
mod limits;
mod logins;
mod malformed;
mod object_log;
mod packages;
mod profiles;
mod restart;
mod security;
mod sessions;
mod stone;
mod tickets;
mod tidy;
mod tls;
mod versions;
mod wrong_server;
