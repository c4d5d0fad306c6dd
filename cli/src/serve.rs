//! The subcommands that make a repository, serve it and check it: `onyx init`, `onyx stone`
//! and `onyx gem` (each a call of the servers' libraries that says on its first line of
//! standard output where it listens), and `onyx verify`.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use onyx_protocol::serving::Until;
use onyx_protocol::tls::ServerFiles;
use onyx_server_agent::gem::GemOptions;
use onyx_server_agent::repository::{self, Passwords};
use onyx_server_agent::{Setup, users};
use onyx_stone::StoneOptions;
use onyx_store::tranlog::Recovery;
use onyx_vm::VmConfig;

/// `onyx init DIR`: a repository holding the kernel and the users SystemUser and DataCurator.
pub fn init(setup: &Setup, dir: &Path, passwords: &Passwords) -> Result<ExitCode> {
    let defaulted = repository::create(setup, dir, passwords)?;
    println!("created a repository in {}", dir.display());
    if !defaulted.is_empty() {
        let has = if defaulted.len() == 1 { "has" } else { "each have" };
        println!(
            "{} {has} the password '{}': set another with onyx init's password options",
            defaulted.join(" and "),
            users::DEFAULT_PASSWORD
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `onyx stone DIR`: serves the repository until SIGTERM or SIGINT.
pub fn stone(
    dir: &Path,
    listen: SocketAddr,
    gc_interval: u64,
    tls: &ServerFiles,
    recover_truncating: bool,
) -> Result<ExitCode> {
    let listening = |addr| {
        println!("stone listening on {addr}");
        std::io::stdout().flush()
    };
    let gc_interval = (gc_interval > 0).then(|| Duration::from_secs(gc_interval));
    let recovery = if recover_truncating { Recovery::Truncate } else { Recovery::Strict };
    let options = StoneOptions { dir, listen, gc_interval, tls, recovery };
    onyx_stone::serve_until(options, listening, Until::Signalled)?;
    Ok(ExitCode::SUCCESS)
}

/// `onyx verify DIR`: checks the whole repository and says what is wrong; fails if anything is.
pub fn verify(dir: &Path) -> Result<ExitCode> {
    let report = onyx_store::verify::verify(dir)?;
    println!(
        "{}: {} objects, {} chunks, commit {}{}",
        dir.display(),
        report.objects,
        report.chunks,
        report.commit,
        match report.logged {
            0 => String::new(),
            n => format!(" and {n} more in the transaction log (applied when the stone starts)"),
        }
    );
    if report.is_sound() {
        println!("the repository is sound");
        return Ok(ExitCode::SUCCESS);
    }
    for problem in &report.problems {
        println!("damaged: {problem}");
    }
    if report.unlisted > 0 {
        println!("and {} more problems", report.unlisted);
    }
    Ok(ExitCode::FAILURE)
}

/// `onyx gem --stone ADDR`: a session with the stone, and the agent served until SIGTERM or
/// SIGINT.
pub fn gem(
    config: VmConfig,
    stone: &str,
    listen: SocketAddr,
    tls: &ServerFiles,
    idle_logout: Duration,
    eval_limit: Duration,
) -> Result<ExitCode> {
    let listening = |session, addr| {
        println!("gem session {session} on {stone}, agent listening on {addr}");
        std::io::stdout().flush()
    };
    let (user, password) = crate::client::credentials();
    let options = GemOptions { config, stone, user: &user, password: &password, listen, tls, idle_logout, eval_limit };
    onyx_server_agent::gem::serve_until(options, listening, Until::Signalled)?;
    Ok(ExitCode::SUCCESS)
}
