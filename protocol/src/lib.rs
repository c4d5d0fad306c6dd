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
//! - [`serving`]: how a server of these services stops (signals, or its owner's word);
//! - [`peer`]: what a failed call says to a user (naming the wrong kind of server);
//! - [`describe`]: the agent's answers in words, as the tools show them;
//! - [`codec`]: the messages' codec (a malformed one is `INVALID_ARGUMENT`) and their size,
//!   [`codec::MAX_MESSAGE`], the same for every server and client.
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
pub mod codec;
pub mod describe;
pub mod peer;
pub mod records;
pub mod serving;
pub mod tls;

/// An error and its causes in one line (`transport error: tcp connect error: Connection
/// refused`): the errors of the transport say little without their causes. Onyx's own errors
/// carry such a line in their message and expose no further cause, so that a message is
/// whole when shown alone and nothing is said twice when causes are followed.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    text
}

/// The stone's service to gems (`proto/stone.proto`).
#[allow(missing_docs)]
pub mod stone {
    tonic::include_proto!("onyx.stone.v1");
}

/// The server agent's service to the IDE and the command line (`proto/agent.proto`).
// A `Result` carries one outcome at a time; what a debugger shows is the largest of them.
#[allow(missing_docs, clippy::large_enum_variant)]
pub mod agent {
    tonic::include_proto!("onyx.agent.v1");
}
