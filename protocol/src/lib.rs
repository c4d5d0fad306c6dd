//! Onyx's gRPC protocols and their clients. The services are generated from `proto/` at build
//! time: [`stone`] is the stone's service to gems, [`agent`] the service each gem offers the
//! tools. Around them:
//!
//! - [`client`]: the one client of a gem's agent ([`client::AgentSession`]: endpoint, login,
//!   token), which the command line, the IDE and the benchmarks share;
//! - [`tls`]: the endpoint every client connects through (TLS for `https://` addresses,
//!   trusting the authority `ONYX_TLS_CA` names) and servers' certificates;
//! - [`records`]: the stone protocol's messages to and from what they carry (object records,
//!   sessions, typed errors);
//! - [`serving`]: how a server of these services stops (signals, or its owner's word).
//!
//! ```
//! use onyx_protocol::agent::{self as pb, operation::Op};
//!
//! let batch = onyx_protocol::client::batch(vec![Op::Packages(pb::Empty {})]);
//! assert_eq!(batch.operations.len(), 1);
//! assert!(onyx_protocol::tls::endpoint("not an address").is_err());
//! ```

#![deny(missing_docs)]

pub mod client;
pub mod records;
pub mod serving;
pub mod tls;

/// The stone's service to gems (`proto/stone.proto`).
#[allow(missing_docs)]
pub mod stone {
    tonic::include_proto!("onyx.stone.v1");
}

/// The server agent's service to the IDE and the command line (`proto/agent.proto`).
#[allow(missing_docs)]
pub mod agent {
    tonic::include_proto!("onyx.agent.v1");
}
