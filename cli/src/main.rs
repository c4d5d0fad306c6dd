//! `onyx`, the command line: it parses the arguments (`args.rs`) and runs a subcommand. Each
//! is a thin call of the libraries: `local.rs` runs Smalltalk in a VM of its own or in a
//! new session of a stone (`eval`, `run`, `check`, `test`), `serve.rs` makes a repository and
//! serves stones and gems (`init`, `stone`, `gem`), `client.rs` talks to a gem's agent
//! (`eval --gem`, `commit`, `classes`, ...), `dap/` serves the Debug Adapter Protocol, and `bench/` holds the user-facing benchmarks
//! (`onyx bench ...`). Nothing imports this crate; it is the one place that uses `anyhow`,
//! and errors become exit codes here: 0 done, 1 the Smalltalk or the gem said no, 2 the
//! command could not run.

mod args;
mod bench;
mod client;
mod dap;
mod local;
mod packages;
mod serve;
mod sessions;
mod versions;

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser as _;
use onyx_server_agent::Setup;
use onyx_vm::{JitConfig, KernelSource, VmConfig};

use crate::args::{Args, BenchKind, Command, Side};
use crate::client::Request;
use onyx_protocol::agent::administer_session::Act;

/// The VM allocates and frees small objects all the time; mimalloc's size-segregated free
/// lists serve that pattern several times faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // SAFETY: first thing in `main`, before any other thread exists.
    unsafe { onyx_vm::keep_freed_pages() };
    match run(Args::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("onyx: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> Result<ExitCode> {
    let kernel = match &args.kernel {
        Some(dir) => KernelSource::from_dir(dir).map_err(|e| anyhow::anyhow!("{e}"))?,
        None => KernelSource::embedded(),
    };
    let jit = if args.no_jit { JitConfig::Off } else { JitConfig::default() };
    let memory_budget = args.memory_budget.map(|mb| mb << 20);
    let memory_limit = (args.memory_limit > 0).then_some(args.memory_limit << 20);
    let setup = Setup {
        kernel,
        config: VmConfig {
            jit,
            memory_budget,
            memory_limit,
            kept_suspended: args.keep_suspended,
            ..VmConfig::default()
        },
    };
    match args.command {
        Command::Eval { code, stone: None, gem: None, time_limit } => local::eval(&setup, &code, secs(time_limit)),
        Command::Eval { code, stone: Some(addr), time_limit, .. } => {
            local::eval_in_session(&setup, &addr, &code, secs(time_limit))
        }
        Command::Eval { code, gem: Some(gem), time_limit, .. } => {
            client::run(&gem, Request::Eval(code, secs(time_limit)))
        }
        Command::Commit { gem } => client::run(&gem, Request::Commit),
        Command::Abort { gem } => client::run(&gem, Request::Abort),
        Command::AddUser { user, may_change_code, may_debug_others, may_administer, mut groups, gem } => {
            if may_debug_others {
                groups.push(onyx_record::policy::DEBUGGERS.to_string());
            }
            if may_administer {
                groups.push(onyx_record::policy::ADMINISTRATORS.to_string());
            }
            let mut password = String::new();
            std::io::stdin().read_line(&mut password)?;
            let password = password.trim_end_matches(['\n', '\r']).to_string();
            client::run(&gem, Request::AddUser { user, password, may_change_code, groups })
        }
        Command::Classes { package, gem } => client::run(&gem, Request::Classes(package)),
        Command::Source { method, gem } => client::run(&gem, Request::Source(method)),
        Command::Senders { selector, gem } => client::run(&gem, Request::Senders(selector)),
        Command::Implementors { selector, gem } => client::run(&gem, Request::Implementors(selector)),
        Command::Processes { gem } => client::run(&gem, Request::Processes),
        Command::Sessions { locks, gem } => sessions::list(&gem, locks),
        Command::StopSession { session, gem } => sessions::administer(&gem, session, Act::Stop),
        Command::RemoveLocks { session, gem } => sessions::administer(&gem, session, Act::RemoveLocks),
        Command::Break { method, line, condition, log, once, this_gem, gem } => {
            client::run(&gem, Request::Break { method, line, condition, log, once, this_gem })
        }
        Command::Breakpoints { gem } => client::run(&gem, Request::Breakpoints),
        Command::Unbreak { id, gem } => client::run(&gem, Request::Unbreak(id)),
        Command::Dap { gem } => dap::serve(gem),
        Command::Stack { process, gem } => client::stack(&gem, process, false),
        Command::Pause { process, gem } => client::stack(&gem, process, true),
        Command::Run { file } => local::run_file(&setup, &file),
        Command::Check { paths } => local::check(&setup, &paths),
        Command::Diff { before, after, repository, gem } => packages::diff(&before, &after, &Side { repository, gem }),
        Command::Merge { version, repository, take, commit, gem } => {
            versions::merge(&version, &repository, &gem, take.as_deref(), commit)
        }
        Command::Load { paths, repository, commit, gem } => packages::load(&paths, repository.as_deref(), &gem, commit),
        Command::Status { packages: names, gem } => packages::status(&names, &gem),
        Command::Versions { repository, package, from, size } => {
            versions::list(&repository, package.as_deref(), from, size)
        }
        Command::Save { packages: names, to, format, message, author, gem } => {
            packages::save(&names, &gem, &to, format, &message, &author)
        }
        Command::Test { packages } => local::test(&setup, &packages),
        Command::Bench { runs, what: None } => bench::run(&setup, runs),
        Command::Bench { what: Some(BenchKind::Agent { gem, classes, methods, runs }), .. } => {
            bench::agent::run(&bench::agent::AgentBench { gem: &gem, classes, methods_per_class: methods, runs })
        }
        Command::Bench { what: Some(BenchKind::Logins { runs }), .. } => bench::logins::run(runs),
        Command::Bench { what: Some(BenchKind::Breakpoints { runs }), .. } => bench::breakpoints::run(&setup, runs),
        Command::Bench { what: Some(BenchKind::Spread { gem, setter, runs }), .. } => {
            bench::spread::run(&bench::spread::SpreadBench { gem: &gem, setter: &setter, runs })
        }
        Command::Bench { what: Some(BenchKind::Debugger { gem, runs }), .. } => {
            bench::debugger::run(&bench::debugger::DebuggerBench { gem: &gem, runs })
        }
        Command::Bench { what: Some(BenchKind::Faults { stone, objects }), .. } => {
            bench::faults::run(&setup, &stone, objects)
        }
        Command::Bench { what: Some(BenchKind::Commits { stone, gems, objects, words, seconds, disk }), .. } => {
            bench::commits::run(&bench::commits::CommitBench {
                stone: &stone,
                gems,
                objects,
                words,
                seconds,
                disk: &disk,
            })
        }
        Command::Init { dir, system_user_password, data_curator_password } => {
            let passwords = onyx_server_agent::repository::Passwords {
                system_user: system_user_password,
                data_curator: data_curator_password,
            };
            serve::init(&setup, &dir, &passwords)
        }
        Command::Gem { stone, listen, tls_cert, tls_key, idle_logout, eval_limit } => {
            let tls = onyx_protocol::tls::ServerFiles { cert: tls_cert, key: tls_key };
            serve::gem(setup.config, &stone, listen, &tls, secs(idle_logout), secs(eval_limit))
        }
        Command::Stone { dir, listen, gc_interval, tls_cert, tls_key, recover_truncating } => {
            let tls = onyx_protocol::tls::ServerFiles { cert: tls_cert, key: tls_key };
            serve::stone(&dir, listen, gc_interval, &tls, recover_truncating)
        }
        Command::Verify { dir } => serve::verify(&dir),
    }
}

fn secs(n: u64) -> std::time::Duration {
    std::time::Duration::from_secs(n)
}
