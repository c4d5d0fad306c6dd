//! The `onyx` command line (see `onyx --help` and the `cli` module).

use std::process::ExitCode;

use clap::Parser as _;
use onyx_server_agent::cli;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("onyx: {e:#}");
            ExitCode::from(2)
        }
    }
}
