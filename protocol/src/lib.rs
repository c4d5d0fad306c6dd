//! Onyx's gRPC protocols, generated from `proto/` at build time: [`stone`] is the stone's
//! service to gems.

#![allow(missing_docs)]

/// The stone's service to gems (`proto/stone.proto`).
pub mod stone {
    tonic::include_proto!("onyx.stone.v1");
}
