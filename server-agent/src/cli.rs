//! Command-line parsing and the subcommands.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use onyx_vm::source::chunk::{ChunkItem, read_chunks};
use onyx_vm::source::tonel;
use onyx_vm::{EvalError, JitConfig, KernelSource, Vm, VmConfig};

use crate::client::{self, Request};

/// Onyx: a transactional Smalltalk object server.
#[derive(Parser, Debug)]
#[command(name = "onyx", version, about)]
pub struct Args {
    /// Load the kernel from this directory of Tonel packages instead of the built-in one
    /// (also `ONYX_KERNEL`).
    #[arg(long, global = true, env = "ONYX_KERNEL")]
    kernel: Option<PathBuf>,
    /// Run everything in the interpreter: compile no method to native code.
    #[arg(long, global = true)]
    no_jit: bool,
    /// A gem keeps its objects under this many megabytes: past it, clean persistent objects
    /// are dropped after a collection and faulted back in when touched.
    #[arg(long, global = true)]
    memory_budget: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate a doit and print the printString of its value.
    Eval {
        /// Smalltalk statements, with optional `| temps |`.
        code: String,
        /// Run in a new session of the stone at this address (`host:port`) instead of a
        /// fresh VM: the doit sees the committed state and commits only if it says so.
        #[arg(long, conflicts_with = "gem")]
        stone: Option<String>,
        /// Run in the session of the gem whose agent is at this address (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: Option<String>,
    },
    /// Commit the transaction of a gem's session.
    Commit {
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Abort the transaction of a gem's session.
    Abort {
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Add a user to the repository (or give one a new password), through a gem, and commit:
    /// the password is the first line of standard input.
    AddUser {
        /// The user's name.
        user: String,
        /// Whether the user may change code (compile, define and remove classes, add users).
        #[arg(long)]
        may_change_code: bool,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// List the classes of a package in a gem (with their superclasses), or its packages.
    Classes {
        /// The package; all package names when left out.
        package: Option<String>,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Print a method's source from a gem.
    Source {
        /// `Class>>selector` or `Class class>>selector`.
        method: String,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// List the methods that send a selector.
    Senders {
        selector: String,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// List the methods that implement a selector.
    Implementors {
        selector: String,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// File in a chunk-format file; Transcript output goes to stdout.
    Run {
        /// The `.st` file.
        file: PathBuf,
    },
    /// Parse and compile every method in Tonel package folders and chunk files.
    Check {
        /// Package folders, folders of packages, or `.st` chunk files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Run SUnit tests (all test packages, or the ones named).
    Test {
        /// Package names, e.g. `Kernel-Tests-Numbers`.
        packages: Vec<String>,
    },
    /// Run the VM benchmarks (tinyBenchmarks, 30 benchFib, 1000 factorial printString,
    /// semaphore ping-pong), each `--runs` times.
    Bench {
        /// How many times to run each benchmark.
        #[arg(long, default_value_t = 1)]
        runs: usize,
        #[command(subcommand)]
        what: Option<BenchKind>,
    },
    /// Create a repository in a new folder, holding the kernel and the users SystemUser and
    /// DataCurator.
    Init {
        /// The repository folder (created).
        dir: PathBuf,
        /// SystemUser's password (default: swordfish, as in GemStone).
        #[arg(long, env = "ONYX_SYSTEMUSER_PASSWORD", hide_env_values = true)]
        system_user_password: Option<String>,
        /// DataCurator's password (default: swordfish).
        #[arg(long, env = "ONYX_DATACURATOR_PASSWORD", hide_env_values = true)]
        data_curator_password: Option<String>,
    },
    /// Serve a repository to gems until SIGTERM or SIGINT.
    Stone {
        /// The repository folder.
        dir: PathBuf,
        /// Address to listen on; port 0 picks a free port (printed on the first line).
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
        /// Seconds between the stone's own garbage collections (when something was
        /// committed since the last); 0 never collects on its own.
        #[arg(long, default_value_t = 60)]
        gc_interval: u64,
        /// Serve over TLS with this certificate (PEM; with --tls-key).
        #[arg(long)]
        tls_cert: Option<PathBuf>,
        /// The certificate's private key (PEM).
        #[arg(long)]
        tls_key: Option<PathBuf>,
    },
    /// Run a gem: log in to a stone and serve the agent (the tools' service) until SIGTERM or
    /// SIGINT.
    Gem {
        /// The stone's address (`host:port`).
        #[arg(long)]
        stone: String,
        /// Where the agent listens (port 0 picks a free one).
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
        /// Serve the agent over TLS with this certificate (PEM; with --tls-key).
        #[arg(long)]
        tls_cert: Option<PathBuf>,
        /// The certificate's private key (PEM).
        #[arg(long)]
        tls_key: Option<PathBuf>,
        /// Seconds a login's token may go unused before it ends (its handles are released).
        #[arg(long, default_value_t = 8 * 3600)]
        idle_logout: u64,
    },
}

pub fn run(args: Args) -> Result<ExitCode> {
    let kernel = match &args.kernel {
        Some(dir) => KernelSource::from_dir(dir).map_err(|e| anyhow::anyhow!("{e}"))?,
        None => KernelSource::embedded(),
    };
    let jit = if args.no_jit { JitConfig::Off } else { JitConfig::default() };
    let memory_budget = args.memory_budget.map(|mb| mb << 20);
    let setup = Setup { kernel, config: VmConfig { jit, memory_budget, ..VmConfig::default() } };
    match args.command {
        Command::Eval { code, stone: None, gem: None } => eval(&setup, &code),
        Command::Eval { code, stone: Some(addr), .. } => crate::gem::eval(&setup, &addr, &code),
        Command::Eval { code, gem: Some(gem), .. } => client::run(&gem, Request::Eval(code)),
        Command::Commit { gem } => client::run(&gem, Request::Commit),
        Command::Abort { gem } => client::run(&gem, Request::Abort),
        Command::AddUser { user, may_change_code, gem } => {
            let mut password = String::new();
            std::io::stdin().read_line(&mut password)?;
            let password = password.trim_end_matches(['\n', '\r']).to_string();
            client::run(&gem, Request::AddUser { user, password, may_change_code })
        }
        Command::Classes { package, gem } => client::run(&gem, Request::Classes(package)),
        Command::Source { method, gem } => client::run(&gem, Request::Source(method)),
        Command::Senders { selector, gem } => client::run(&gem, Request::Senders(selector)),
        Command::Implementors { selector, gem } => client::run(&gem, Request::Implementors(selector)),
        Command::Run { file } => run_file(&setup, &file),
        Command::Check { paths } => check(&setup, &paths),
        Command::Test { packages } => test(&setup, &packages),
        Command::Bench { runs, what: None } => crate::bench::run(&setup, runs),
        Command::Bench { what: Some(BenchKind::Agent { gem, classes, methods, runs }), .. } => {
            crate::agent_bench::run(&crate::agent_bench::AgentBench {
                gem: &gem,
                classes,
                methods_per_class: methods,
                runs,
            })
        }
        Command::Bench { what: Some(BenchKind::Faults { stone, objects }), .. } => {
            crate::fault_bench::run(&setup, &stone, objects)
        }
        Command::Bench { what: Some(BenchKind::Commits { stone, gems, objects, words, seconds, disk }), .. } => {
            crate::commit_bench::run(&crate::commit_bench::CommitBench {
                stone: &stone,
                gems,
                objects,
                words,
                seconds,
                disk: &disk,
            })
        }
        Command::Init { dir, system_user_password, data_curator_password } => {
            let passwords =
                crate::gem::Passwords { system_user: system_user_password, data_curator: data_curator_password };
            crate::gem::init(&setup, &dir, &passwords)
        }
        Command::Gem { stone, listen, tls_cert, tls_key, idle_logout } => {
            let tls = crate::tls::ServerFiles { cert: tls_cert, key: tls_key };
            let idle = std::time::Duration::from_secs(idle_logout);
            crate::agent::serve(crate::agent::GemOptions {
                config: setup.config,
                stone: &stone,
                listen,
                tls: &tls,
                idle_logout: idle,
            })
        }
        Command::Stone { dir, listen, gc_interval, tls_cert, tls_key } => {
            let tls = crate::tls::ServerFiles { cert: tls_cert, key: tls_key };
            crate::stone::serve(&dir, listen, gc_interval, &tls)
        }
    }
}

#[derive(Subcommand, Debug)]
enum BenchKind {
    /// Commit throughput of a running stone, beside the disk's raw fdatasync rate and write
    /// bandwidth measured in the same run.
    Commits {
        /// The stone's address (`host:port`).
        #[arg(long)]
        stone: String,
        /// Concurrent gem sessions.
        #[arg(long, default_value_t = 1)]
        gems: usize,
        /// Objects each commit writes.
        #[arg(long, default_value_t = 1)]
        objects: usize,
        /// Slot words per object (8 bytes each).
        #[arg(long, default_value_t = 22)]
        words: usize,
        /// How long to run.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// A folder on the repository's disk, where the raw disk figures are measured.
        #[arg(long, default_value = ".")]
        disk: PathBuf,
    },
    /// How fast a gem faults in a persistent linked list of N objects as it walks it, and in
    /// how many round trips.
    Faults {
        /// The stone's address (`host:port`).
        #[arg(long)]
        stone: String,
        /// Objects in the list.
        #[arg(long, default_value_t = 1_000_000)]
        objects: u64,
    },
    /// The server agent's speed on a large image (generated into the gem's repository on the
    /// first run): selecting a method, senders, implementors, batches, as server time.
    Agent {
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
        /// Classes to generate.
        #[arg(long, default_value_t = 5_400)]
        classes: usize,
        /// Methods per generated class.
        #[arg(long, default_value_t = 16)]
        methods: usize,
        /// Times each figure is measured (the median is printed).
        #[arg(long, default_value_t = 9)]
        runs: usize,
    },
}

/// What every subcommand boots: the kernel source and the VM settings.
pub struct Setup {
    kernel: KernelSource,
    pub config: VmConfig,
}

impl Default for Setup {
    /// The kernel built into the binary, and the VM's default settings.
    fn default() -> Setup {
        Setup { kernel: KernelSource::embedded(), config: VmConfig::default() }
    }
}

/// Boots a VM on the kernel without its test packages.
pub fn boot(setup: &Setup) -> Result<Vm> {
    Vm::boot_with(&setup.kernel.without_tests(), setup.config)
        .map_err(|e| anyhow::anyhow!("the kernel did not load: {e}"))
}

fn print_error(e: &EvalError) {
    eprint!("{e}");
    if !e.to_string().ends_with('\n') {
        eprintln!();
    }
}

pub fn flush_transcript(vm: &mut Vm) {
    let out = vm.take_transcript();
    if !out.is_empty() {
        print!("{out}");
    }
}

fn eval(setup: &Setup, code: &str) -> Result<ExitCode> {
    let mut vm = boot(setup)?;
    print_evaluation(&mut vm, code)
}

/// Evaluates `code` and prints its value (exit 0) or the error and its stack (exit 1).
pub fn print_evaluation(vm: &mut Vm, code: &str) -> Result<ExitCode> {
    let result = vm.evaluate(code);
    flush_transcript(vm);
    match result.and_then(|v| vm.print_string(v)) {
        Ok(s) => {
            println!("{s}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            print_error(&e);
            Ok(ExitCode::FAILURE)
        }
    }
}

fn run_file(setup: &Setup, file: &Path) -> Result<ExitCode> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let items = read_chunks(&text).map_err(|e| anyhow::anyhow!("{}:{}: {}", file.display(), e.line, e.message))?;
    let mut vm = boot(setup)?;
    for item in items {
        let outcome = file_in(&mut vm, &item);
        flush_transcript(&mut vm);
        if let Err(message) = outcome {
            eprintln!("{}:{}: {message}", file.display(), item_line(&item));
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn item_line(item: &ChunkItem) -> usize {
    match item {
        ChunkItem::Doit { line, .. } | ChunkItem::Method { line, .. } | ChunkItem::ClassComment { line, .. } => *line,
    }
}

/// Files in one chunk: evaluates a doit, compiles a method, or sets a class comment.
fn file_in(vm: &mut Vm, item: &ChunkItem) -> std::result::Result<(), String> {
    match item {
        ChunkItem::Doit { source, .. } => vm.evaluate(source).map(|_| ()).map_err(|e| e.to_string()),
        ChunkItem::Method { class_name, class_side, category, source, .. } => {
            let class = vm
                .global(class_name)
                .filter(|&c| vm.is_behavior(c))
                .ok_or(format!("class {class_name} is not defined"))?;
            let class = if *class_side { vm.class_of(class) } else { class };
            let protocol = vm.intern(category);
            vm.compile_and_install(class, source, protocol).map(|_| ()).map_err(|e| e.to_string())
        }
        ChunkItem::ClassComment { class_name, text, .. } => {
            let class = vm.global(class_name).ok_or(format!("class {class_name} is not defined"))?;
            let comment = vm.new_string(text);
            vm.heap.set_slot(class, onyx_vm::class_slots::COMMENT, comment);
            Ok(())
        }
    }
}

fn check(setup: &Setup, paths: &[PathBuf]) -> Result<ExitCode> {
    let mut vm = boot(setup)?;
    let mut methods = 0;
    let mut errors: Vec<String> = Vec::new();
    for path in paths {
        if path.is_dir() {
            let packages = if path.join("package.st").is_file() {
                vec![tonel::read_package(path).map_err(|e| anyhow::anyhow!("{e}"))?]
            } else {
                tonel::read_packages(path).map_err(|e| anyhow::anyhow!("{e}"))?
            };
            match vm.load_packages(&packages) {
                Ok(report) => {
                    methods += report.methods + report.errors.len();
                    errors.extend(report.errors);
                }
                Err(e) => errors.push(e.to_string()),
            }
        } else if path.is_file() {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            let items = match read_chunks(&text) {
                Ok(items) => items,
                Err(e) => {
                    errors.push(format!("{}:{}: {}", path.display(), e.line, e.message));
                    continue;
                }
            };
            for item in &items {
                let is_method = matches!(item, ChunkItem::Method { .. });
                let is_definition = matches!(item, ChunkItem::Doit { source, .. } if source.contains("subclass:"));
                if !is_method && !is_definition {
                    continue;
                }
                if is_method {
                    methods += 1;
                }
                if let Err(message) = file_in(&mut vm, item) {
                    errors.push(format!("{}:{}: {message}", path.display(), item_line(item)));
                }
            }
        } else {
            bail!("{}: no such file or directory", path.display());
        }
    }
    for e in &errors {
        println!("{e}");
    }
    println!("{methods} methods, {} errors", errors.len());
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn test(setup: &Setup, packages: &[String]) -> Result<ExitCode> {
    let mut vm =
        Vm::boot_with(&setup.kernel, setup.config).map_err(|e| anyhow::anyhow!("the kernel did not load: {e}"))?;
    let names: Vec<String> = if packages.is_empty() { setup.kernel.test_package_names() } else { packages.to_vec() };
    let list = names.iter().map(|n| format!("'{}'", n.replace('\'', "''"))).collect::<Vec<_>>().join(" ");
    let code = format!("TestRunner reportForPackages: #({list})");
    let result = vm.evaluate(&code);
    flush_transcript(&mut vm);
    let report = match result {
        Ok(v) => vm.string_of(v).unwrap_or_default(),
        Err(e) => {
            print_error(&e);
            return Ok(ExitCode::FAILURE);
        }
    };
    print!("{report}");
    let failed = report
        .lines()
        .last()
        .and_then(|l| l.split(", ").nth(1))
        .and_then(|f| f.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok());
    Ok(if failed == Some(0) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
