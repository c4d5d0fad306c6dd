//! The gem runtime and the `onyx` command line: the subcommands ([`cli`]), the stone server
//! ([`stone`]), a gem's connection to it ([`stone_client`]), the gem commands (`gem`:
//! `onyx init`, `onyx eval --stone`) and the server agent a gem serves (`agent`: `onyx gem`).

mod agent;
mod bench;
pub mod cli;
mod commit_bench;
mod fault_bench;
mod gem;
pub mod stone;
pub mod stone_client;
mod wire;
