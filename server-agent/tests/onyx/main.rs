//! The command-line tests: one binary, one module per area.
//!
//! - `cli`: the `onyx` contract, run as a real process.
//! - `tidy`: repository hygiene.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests fail loudly

mod cli;
mod tidy;
