//! Onyx's gRPC protocols, generated from `proto/` at build time: [`stone`] is the stone's
//! service to gems, [`agent`] the service each gem offers the tools.

#![allow(missing_docs)]

/// The stone's service to gems (`proto/stone.proto`).
pub mod stone {
    tonic::include_proto!("onyx.stone.v1");
}

/// The server agent's service to the IDE and the command line (`proto/agent.proto`).
pub mod agent {
    tonic::include_proto!("onyx.agent.v1");
}
