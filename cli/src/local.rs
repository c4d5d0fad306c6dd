//! The subcommands that run Smalltalk themselves, in a VM booted from the kernel or in a new
//! session of a stone: `onyx eval`, `run`, `check` and `test`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result, anyhow, bail};
use onyx_server_agent::Setup;
use onyx_server_agent::stone_client::StoneSession;
use onyx_vm::source::chunk::{ChunkItem, read_chunks};
use onyx_vm::{EvalError, Vm, VmConfig};

fn print_error(e: &EvalError) {
    eprint!("{e}");
    if !e.to_string().ends_with('\n') {
        eprintln!();
    }
}

/// Writes what the Transcript holds to standard output: an error when that cannot be done
/// (a reader that went away, a full disk), which ends the command.
fn flush_transcript(vm: &mut Vm) -> Result<()> {
    let out = vm.take_transcript();
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .context("cannot write the Transcript to standard output")
}

/// `onyx eval CODE`: a doit in a VM of its own.
pub fn eval(setup: &Setup, code: &str, limit: Duration) -> Result<ExitCode> {
    let mut vm = setup.boot().context("the kernel did not load")?;
    print_evaluation(&mut vm, code, limit)
}

/// `onyx eval --stone ADDR CODE`: a doit in a new session of the stone at `addr` (like
/// `topaz -l`): it sees the committed state and commits only if it says so.
pub fn eval_in_session(setup: &Setup, addr: &str, code: &str, limit: Duration) -> Result<ExitCode> {
    let mut vm = login(setup.config, addr)?;
    print_evaluation(&mut vm, code, limit)
}

/// A VM logged in to the stone at `addr` as [`crate::client::credentials`] say: the
/// repository's committed state, with that user's rights.
pub fn login(config: VmConfig, addr: &str) -> Result<Vm> {
    let (user, password) = crate::client::credentials();
    let session = StoneSession::connect(addr, &user, &password)?;
    let may_change_code = onyx_record::StoneLink::user(&session).may_change_code;
    let mut vm =
        Vm::login(Box::new(session), config).map_err(|e| anyhow!("cannot log in to the stone at {addr}: {e}"))?;
    vm.set_may_change_code(may_change_code);
    Ok(vm)
}

/// Evaluates `code` (stopped after `limit`) and prints its value (exit 0) or the error and its
/// stack (exit 1).
pub fn print_evaluation(vm: &mut Vm, code: &str, limit: Duration) -> Result<ExitCode> {
    let result = vm.evaluate_within(code, limit);
    flush_transcript(vm)?;
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

/// `onyx run FILE`: files in a chunk file; the Transcript goes to standard output.
pub fn run_file(setup: &Setup, file: &Path) -> Result<ExitCode> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let items = read_chunks(&text).map_err(|e| anyhow!("{}:{}: {}", file.display(), e.line, e.message))?;
    let mut vm = setup.boot().context("the kernel did not load")?;
    for item in items {
        let outcome = file_in(&mut vm, &item);
        flush_transcript(&mut vm)?;
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

/// `onyx check PATHS`: parses and compiles every method of packages (all of them together,
/// as one load would, changing nothing) and of chunk files, and reports every problem.
pub fn check(setup: &Setup, paths: &[PathBuf]) -> Result<ExitCode> {
    let mut vm = setup.boot().context("the kernel did not load")?;
    let mut methods = 0;
    let mut errors: Vec<String> = Vec::new();
    let mut packages = Vec::new();
    let mut chunk_files = Vec::new();
    for path in paths {
        let mcz = path.extension().is_some_and(|e| e == "mcz");
        if path.is_dir() || (mcz && path.is_file()) {
            let mut problems = Vec::new();
            packages.extend(onyx_vm::source::read_packages_reporting(path, &mut problems));
            errors.extend(problems.iter().map(ToString::to_string));
        } else if path.is_file() {
            chunk_files.push(path);
        } else {
            bail!("{}: no such file or directory", path.display());
        }
    }
    methods += packages.iter().map(|p| p.methods.len()).sum::<usize>();
    errors.extend(vm.check_load(&packages).iter().map(ToString::to_string));
    for path in chunk_files {
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
    }
    for e in &errors {
        println!("{e}");
    }
    println!("{methods} methods, {} errors", errors.len());
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `onyx test [PACKAGES]`: runs SUnit tests.
pub fn test(setup: &Setup, packages: &[String]) -> Result<ExitCode> {
    let mut vm = Vm::boot_with(&setup.kernel, setup.config).map_err(|e| anyhow!("the kernel did not load: {e}"))?;
    let names: Vec<String> = if packages.is_empty() { setup.kernel.test_package_names() } else { packages.to_vec() };
    let list = names.iter().map(|n| format!("'{}'", n.replace('\'', "''"))).collect::<Vec<_>>().join(" ");
    let code = format!("TestRunner reportForPackages: #({list})");
    let result = vm.evaluate(&code);
    flush_transcript(&mut vm)?;
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
