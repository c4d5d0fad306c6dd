//! Compiles the protocol's .proto files to Rust without a system protoc.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["proto/stone.proto", "proto/agent.proto"];
    for p in protos {
        println!("cargo:rerun-if-changed={p}");
    }
    let fds = protox::compile(protos, ["proto"])?;
    tonic_prost_build::configure().codec_path("crate::codec::Codec").compile_fds(fds)?;
    Ok(())
}
