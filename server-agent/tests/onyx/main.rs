//! The command-line tests: one binary, one module per area.
//!
//! - `agent`: a gem's server agent, driven over gRPC.
//! - `cli`: the `onyx` contract, run as a real process.
//! - `stone`: `onyx init` and `onyx stone` served to gem sessions over gRPC.
//! - `gems`: gem processes sharing a repository through a stone.
//! - `crash`: a stone killed during a commit storm keeps every acknowledged commit.
//! - `logins`: what a login to an agent may do, and how long its token and handles last.
//! - `sessions`: the stone's sessions as the agents show them, and their events.
//! - `tidy`: repository hygiene.
//! - `tls`: a stone and a gem serving over TLS.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

mod agent;
mod cli;
mod crash;
mod gems;
mod logins;
mod sessions;
mod stone;
mod tidy;
mod tls;
