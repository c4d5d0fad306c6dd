//! The gem runtime and the `onyx` command line: the subcommands ([`cli`]), the stone server
//! ([`stone`]) and a gem's connection to it ([`stone_client`]).

mod bench;
pub mod cli;
pub mod stone;
pub mod stone_client;
mod wire;
