//! The gem: a Smalltalk VM logged in to a stone, serving the tools through its server agent.
//!
//! - [`gem`]: a gem process's life (`onyx gem`): the stone session, the VM thread, the agent
//!   served until a signal or its owner's word.
//! - `vm_thread`: the thread that owns the VM and runs the work the front ends queue, in the
//!   gem's own terms (evaluations in time slices, everything else between them).
//! - `ops`: the agent's operations against the VM (browse, search, inspect, transactions),
//!   taking and answering the gem's own types.
//! - `agent`: the gRPC service, a thin layer that validates messages into those types and
//!   answers theirs.
//! - [`packages`]: packages as the agent protocol carries them (`onyx load`, `onyx save`).
//! - [`stone_client`]: the gem's session with its stone over gRPC, as the VM's `StoneLink`.
//! - [`users`]: the agent's login tokens (users and passwords are the stone's).
//! - [`repository`]: a new repository holding the kernel (`onyx init`).
//! - [`embedded`]: a stone and gems inside another program (the IDE's default).
//!
//! **Architecture Invariant:** nothing below `agent` knows protobuf: the VM thread's queue and
//! the operations speak `ops::request`'s types, so a debugger service, a debug adapter or
//! HTTP can hand the VM thread the same work.

#![deny(missing_docs)]

mod agent;
pub mod embedded;
pub mod gem;
mod ops;
pub mod packages;
pub mod repository;
pub mod stone_client;
pub mod users;
mod vm_thread;

use std::net::SocketAddr;

use onyx_protocol::tls::TlsError;
use onyx_record::StoneError;
use onyx_vm::{BootError, KernelSource, Vm, VmConfig};

/// What a gem (or any VM of the command line) boots: the kernel's source and the VM's
/// settings.
pub struct Setup {
    /// The kernel's Tonel packages.
    pub kernel: KernelSource,
    /// The VM's settings.
    pub config: VmConfig,
}

impl Default for Setup {
    /// The kernel built into the binary, and the VM's default settings.
    fn default() -> Setup {
        Setup { kernel: KernelSource::embedded(), config: VmConfig::default() }
    }
}

impl Setup {
    /// A VM on the kernel without its test packages.
    pub fn boot(&self) -> Result<Vm, BootError> {
        Vm::boot_with(&self.kernel.without_tests(), self.config)
    }
}

impl From<BootError> for GemError {
    fn from(e: BootError) -> GemError {
        GemError::Boot(e)
    }
}

impl From<std::io::Error> for GemError {
    fn from(e: std::io::Error) -> GemError {
        GemError::Io(e)
    }
}

impl From<tonic::transport::Error> for GemError {
    fn from(e: tonic::transport::Error) -> GemError {
        GemError::Transport(onyx_protocol::error_chain(&e))
    }
}

/// Why a gem could not start or serve, or a repository could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GemError {
    /// The kernel did not load.
    #[error("the kernel did not load: {0}")]
    Boot(BootError),
    /// The stone (or the store, in process) refused or failed.
    #[error(transparent)]
    Stone(#[from] StoneError),
    /// The repository could not be made or opened.
    #[error(transparent)]
    Store(#[from] onyx_store::StoreError),
    /// The gem could not log in to its stone.
    #[error("cannot log in to the stone at {stone}: {cause}")]
    Login {
        /// The stone's address.
        stone: String,
        /// Why.
        cause: StoneError,
    },
    /// The TLS files cannot be used.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The address cannot be listened on.
    #[error("cannot listen on {address}: {cause}")]
    Listen {
        /// The address.
        address: SocketAddr,
        /// Why.
        cause: std::io::Error,
    },
    /// The VM thread stopped before it could say so.
    #[error("the gem's VM thread stopped")]
    VmThread,
    /// A server embedded in this program stopped, or failed, before it said it listens.
    #[error("an embedded server stopped")]
    ServerStopped,
    /// A server failed.
    #[error("the server failed: {0}")]
    Transport(String),
    /// The runtime, the signal handlers, or telling the owner failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// The embedded stone failed.
    #[error(transparent)]
    Serve(#[from] onyx_stone::ServeError),
}
