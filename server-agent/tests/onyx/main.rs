//! The command-line tests: one binary, one module per area.
//!
//! - `agent`: a gem's server agent, driven over gRPC.
//! - `cli`: the `onyx` contract, run as a real process.
//! - `stone`: `onyx init` and `onyx stone` served to gem sessions over gRPC.
//! - `gems`: gem processes sharing a repository through a stone.
//! - `crash`: a stone killed during a commit storm keeps every acknowledged commit.
//! - `tidy`: repository hygiene.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

mod agent;
mod cli;
mod crash;
mod gems;
mod stone;
mod tidy;
