//! The `onyx` command line's arguments: global options, the subcommands and their flags,
//! as clap parses them.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Onyx: a transactional Smalltalk object server.
#[derive(Parser, Debug)]
#[command(name = "onyx", version, about)]
pub struct Args {
    /// Load the kernel from this directory of Tonel packages instead of the built-in one
    /// (also `ONYX_KERNEL`).
    #[arg(long, global = true, env = "ONYX_KERNEL")]
    pub kernel: Option<PathBuf>,
    /// Run everything in the interpreter: compile no method to native code.
    #[arg(long, global = true)]
    pub no_jit: bool,
    /// A gem keeps its objects under this many megabytes: past it, clean persistent objects
    /// are dropped after a collection and faulted back in when touched.
    #[arg(long, global = true)]
    pub memory_budget: Option<usize>,
    /// A gem's (or an evaluation's) objects may take at most this many megabytes: an
    /// allocation past it is an `OutOfMemory` error in Smalltalk (0: no limit).
    #[arg(long, global = true, default_value_t = onyx_vm::DEFAULT_MEMORY_LIMIT >> 20)]
    pub memory_limit: usize,
    /// How many suspended processes (stopped by an error, a halt or a debugger's step) a gem
    /// keeps to debug; past it the oldest is terminated, its report kept.
    #[arg(long, global = true, default_value_t = onyx_vm::debug::DEFAULT_KEPT)]
    pub keep_suspended: usize,
    #[command(subcommand)]
    pub command: Command,
}

/// What `onyx` does.
#[derive(Subcommand, Debug)]
pub enum Command {
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
        /// Stop the doit (an error) after this many seconds (at least 1).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
        time_limit: u64,
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
        /// Whether the user may change code (compile, define and remove classes).
        #[arg(long)]
        may_change_code: bool,
        /// Whether the user may debug the processes of other users' gems (attach a debugger
        /// to them): puts the user in the group Debuggers, with the groups given.
        #[arg(long)]
        may_debug_others: bool,
        /// Whether the user administers the stone (adds users and gives rights, lists and
        /// removes any session's locks, stops sessions): puts the user in the group
        /// Administrators, with the groups given.
        #[arg(long)]
        may_administer: bool,
        /// A group the user is in (object security policies give groups their access); given
        /// once or more, the user's groups become these; not given, they stay as they were.
        #[arg(long = "group")]
        groups: Vec<String>,
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
    /// Set a breakpoint for every gem of the stone (Topaz's BREAK): at the first statement on
    /// a line of a method (from 1, the selector's line being 1), or on the next line with one.
    Break {
        /// `Class>>selector` or `Class class>>selector`.
        method: String,
        /// The line in the method.
        line: u32,
        /// Stop only when this Smalltalk expression, evaluated in the frame, answers true.
        #[arg(long)]
        condition: Option<String>,
        /// Do not stop: write this expression's displayString to the transcript.
        #[arg(long)]
        log: Option<String>,
        /// Remove it once it stopped a process.
        #[arg(long)]
        once: bool,
        /// Only this gem's processes stop at it.
        #[arg(long)]
        this_gem: bool,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// List the stone's breakpoints, as a gem has them (Topaz's LIST BREAKS).
    Breakpoints {
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Remove a breakpoint from every gem (Topaz's DELETE).
    Unbreak {
        /// The breakpoint's number, as `onyx breakpoints` lists it.
        id: u64,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// List the stone's sessions: the user the stone checked at each login, the gem's host,
    /// pid and agent, its view, and the objects it holds locks on (`--locks`: each of them).
    Sessions {
        /// List each session's locked objects too.
        #[arg(long)]
        locks: bool,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Stop a session of the stone (an administrator's right): its transaction is gone and
    /// its locks are released; its gem logs in again as a new session if it can.
    StopSession {
        /// The session's number (as `onyx sessions` lists it).
        session: u64,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Remove every lock a session of the stone holds (an administrator's right); its
    /// transaction goes on.
    RemoveLocks {
        /// The session's number (as `onyx sessions` lists it).
        session: u64,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// List a gem's processes: running, ready, waiting and suspended (with why).
    Processes {
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Serve the Debug Adapter Protocol on stdin and stdout (for VS Code and other editors):
    /// attach to a gem, and debug the processes every gem of its stone keeps suspended. The
    /// user and password are ONYX_USER's and ONYX_PASSWORD's.
    Dap {
        /// The gem's agent (`host:port`) to attach to when the editor's attach names none.
        #[arg(long, env = "ONYX_GEM")]
        gem: Option<String>,
    },
    /// Print a suspended process's stack, each frame with its variables (Topaz's STACK).
    Stack {
        /// The process's number (as `onyx processes` lists it).
        process: u64,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Pause a running or waiting process of a gem at its next step point, and print its
    /// stack as `onyx stack` does.
    Pause {
        /// The process's number (as `onyx processes` lists it).
        process: u64,
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
    /// Parse and compile every method in Tonel and FileTree package folders, Monticello
    /// versions and chunk files, reporting every problem.
    Check {
        /// Package folders, folders of packages, `.mcz` files, or `.st` chunk files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Compare two states of packages definition by definition: each class definition,
    /// comment and method added, removed or changed, with the lines that differ. Exits 1 when
    /// anything differs. A state is files at a path (Tonel or FileTree packages, folders of
    /// them, `.mcz` versions), `PKG@VERSION` of the `--repository`, or `PKG` as the `--gem`
    /// holds it.
    Diff {
        /// The earlier state.
        before: String,
        /// The later state.
        after: String,
        /// The version repository `PKG@VERSION` names a version of.
        #[arg(long)]
        repository: Option<PathBuf>,
        /// The gem whose code `PKG` names.
        #[arg(long)]
        gem: Option<String>,
    },
    /// Merge a version of a package into a gem's code, three ways from their common ancestor
    /// (the version the gem's code was made from, and this one, in the repository): what
    /// changed on one side only is taken; conflicts are listed and nothing changes, unless
    /// `--take` settles them all. The merged code loads all or nothing, made from both
    /// versions (the ancestors of the next version saved).
    Merge {
        /// `PKG@VERSION` (the newest version without `@VERSION`).
        version: String,
        /// The version repository.
        #[arg(long)]
        repository: PathBuf,
        /// Settle every conflict with our side (the gem's) or theirs (the version's).
        #[arg(long, value_parser = ["ours", "theirs"])]
        take: Option<String>,
        /// Commit once merged.
        #[arg(long)]
        commit: bool,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Load packages into a gem, all or nothing: Tonel or FileTree package folders, folders of
    /// packages, or Monticello `.mcz` files. A package already there is updated. Any problem
    /// loads nothing, and each is printed (`file:line: message`).
    Load {
        /// Package folders, folders of packages, or `.mcz` files; with `--repository`,
        /// `PKG@VERSION` (the newest version without `@VERSION`).
        #[arg(required = true)]
        paths: Vec<String>,
        /// Load versions from this version repository.
        #[arg(long)]
        repository: Option<PathBuf>,
        /// Commit once loaded.
        #[arg(long)]
        commit: bool,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// Save packages from a gem as files: Tonel (a folder per package, in the Tonel version the
    /// folder already uses, v3 for a new one), FileTree (`Pkg.package`), or a new Monticello
    /// version (`Pkg-author.N.mcz`, the newest version there its ancestor). In a git work
    /// tree, with `--message`, the package's files (in the format its folder has) are
    /// committed with that message.
    Save {
        /// Package names.
        #[arg(required = true)]
        packages: Vec<String>,
        /// The folder to write in.
        #[arg(long)]
        to: PathBuf,
        /// The format.
        #[arg(long, value_enum, default_value_t = Format::Tonel)]
        format: Format,
        /// The version's message (Monticello's, or the git commit's).
        #[arg(long, default_value = "")]
        message: String,
        /// The version's author's initials (Monticello).
        #[arg(long, env = "USER", default_value = "onyx")]
        author: String,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
    },
    /// The packages a version repository holds (a folder of `.mcz` files, or a folder of a git
    /// work tree holding Tonel or FileTree packages), or a package's versions, newest first:
    /// name, time, author, ancestors and message.
    Versions {
        /// The repository's folder.
        repository: PathBuf,
        /// A package: list its versions.
        package: Option<String>,
        /// The first version listed (0 the newest).
        #[arg(long, default_value_t = 0)]
        from: usize,
        /// How many versions to list.
        #[arg(long, default_value_t = 50)]
        size: usize,
    },
    /// The packages a gem remembers (or those named): the version each was loaded from or
    /// saved as, and whether it changed since; with names, each definition that did.
    Status {
        /// Package names (all remembered ones when none).
        packages: Vec<String>,
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
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
        /// Start even though the transaction log is damaged or missing: keep the commits
        /// before the damage and give up the rest (said on standard error).
        #[arg(long)]
        recover_truncating: bool,
    },
    /// Check a whole repository (its stone stopped): every record and chunk against its
    /// checksum and the shape of its kind, every reference, and the transaction log.
    Verify {
        /// The repository folder.
        dir: PathBuf,
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
        /// Seconds any evaluation may run at most, whatever its client asks (at least 1).
        #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
        eval_limit: u64,
    },
}

/// Which benchmark `onyx bench` runs (the VM's own without one).
#[derive(Subcommand, Debug)]
pub enum BenchKind {
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
    /// How long a breakpoint set through one gem (`--setter`) takes to stop a forked loop of
    /// another (`--gem`), from the setter's answer to the loop seen stopped.
    Spread {
        /// The gem whose loop stops (`host:port`).
        #[arg(long)]
        gem: String,
        /// The gem the breakpoints are set through (`host:port`).
        #[arg(long)]
        setter: String,
        /// Breakpoints set (the median, least and most are printed).
        #[arg(long, default_value_t = 21)]
        runs: usize,
    },
    /// What a breakpoint costs the method it is in: a million calls with none, a disabled
    /// one, one whose condition is false, and a log point taken every 1000th hit.
    Breakpoints {
        /// Runs of each (the median is printed).
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// How long the stone takes to refuse a wrong password, for a user it knows and for a
    /// name it does not (on a new repository in a temporary folder).
    Logins {
        /// Tries of each kind (the median is printed).
        #[arg(long, default_value_t = 21)]
        runs: usize,
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
    /// The debugger's operations through a running gem, as server time: a step 50 frames
    /// deep, the first page of a 10,000-frame stack, a frame near its bottom.
    Debugger {
        /// The gem's agent (`host:port`).
        #[arg(long, env = "ONYX_GEM")]
        gem: String,
        /// Times each is measured (the median is printed).
        #[arg(long, default_value_t = 21)]
        runs: usize,
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

/// Where a command-line side's packages come from when it names no file.
pub struct Side {
    /// The version repository `PKG@VERSION` names a version of.
    pub repository: Option<PathBuf>,
    /// The gem whose code `PKG` names.
    pub gem: Option<String>,
}

/// A format packages are saved in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Tonel: a folder per package, a file per class.
    Tonel,
    /// FileTree: a folder `Pkg.package`, a file per method.
    Filetree,
    /// A Monticello version: `Pkg-author.N.mcz`.
    Mcz,
}
