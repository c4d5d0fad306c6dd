//! The gem runtime and the `onyx` command line: the subcommands ([`cli`]), the stone server
//! ([`stone`]), a gem's connection to it ([`stone_client`]), the gem commands (`gem`:
//! `onyx init`, `onyx eval --stone`), the server agent a gem serves (`agent`: `onyx gem`)
//! and the command line as the agent's client (`client`: `onyx eval --gem`, `onyx source`, ...);
//! `users` keeps the repository's users and their passwords; [`tls`] the services' TLS;
//! [`embedded`] runs a stone and a gem inside another program (the IDE).

mod agent;
mod agent_bench;
mod bench;
pub mod cli;
mod client;
mod commit_bench;
pub mod embedded;
mod fault_bench;
mod gem;
mod shutdown;
pub mod stone;
pub mod stone_client;
pub mod tls;
mod users;
mod wire;
