//! The gem runtime and the `onyx` command line: the subcommands ([`cli`]), the stone server
//! ([`stone`]), a gem's connection to it ([`stone_client`]) and the gem commands (`gem`:
//! `onyx init`, `onyx eval --stone`, `onyx gem`).

mod bench;
pub mod cli;
mod commit_bench;
mod fault_bench;
mod gem;
pub mod stone;
pub mod stone_client;
mod wire;
