//! Packages on disk: `onyx diff` compares two states of them definition by definition,
//! `onyx load` sends them to a gem, `onyx save` writes what a gem holds.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_server_agent::packages::{loadable, package};
use onyx_vm::source::diff::{ChangeKind, diff as compare};
use onyx_vm::source::save::{Format as SaveFormat, save as save_package};
use onyx_vm::source::{Package, read_packages};

use onyx_versions::Repository;

use crate::args::{Format, Side};
use crate::client::execute_once;
use crate::versions::{from_repository, read_side, send_load};

/// `onyx load PATHS --gem ADDR [--commit]` (or `PKG@VERSION`s with `--repository`): reads
/// the packages, loads them into the gem all or nothing, and commits if asked. Exits 1 with
/// every problem when the gem loads nothing.
pub fn load(paths: &[String], repository: Option<&Path>, gem: &str, commit: bool) -> Result<ExitCode> {
    let progress = spinner("reading the packages");
    let sent = match repository {
        Some(repository) => from_repository(repository, paths)?,
        None => from_files(paths)?,
    };
    let names: Vec<String> = sent.iter().map(|p| p.name.clone()).collect();
    let methods: usize = sent.iter().map(|p| p.methods.len()).sum();
    progress.set_message(format!("loading {} packages ({methods} methods) into the gem", names.len()));
    let loaded = send_load(gem, sent, &mut |told| show(&progress, told));
    progress.finish_and_clear();
    let Some(loaded) = loaded? else {
        return Ok(ExitCode::FAILURE);
    };
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    for failure in &loaded.initialize_errors {
        eprintln!("{failure}");
    }
    println!(
        "loaded {}: {} classes defined, {} methods compiled, {} unchanged, {} classes and {} methods removed",
        names.join(", "),
        loaded.classes_defined,
        loaded.methods_compiled,
        loaded.unchanged,
        loaded.classes_removed,
        loaded.methods_removed
    );
    let committed = commit.then(|| {
        let progress = spinner("committing");
        let committed = commit_gem(gem);
        progress.finish_and_clear();
        committed
    });
    if committed.transpose()?.is_some_and(|c| c != ExitCode::SUCCESS) {
        return Ok(ExitCode::FAILURE);
    }
    Ok(if loaded.initialize_errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The packages in files at `paths`, each with the version it is (a Monticello version's).
fn from_files(paths: &[String]) -> Result<Vec<pb::PackageContents>> {
    let mut sent = Vec::new();
    for path in paths.iter().map(PathBuf::from) {
        if !path.exists() {
            bail!("{}: no such file or directory", path.display());
        }
        let from = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()).display().to_string();
        if path.extension().is_some_and(|e| e == "mcz") && path.is_file() {
            let mcz = onyx_vm::source::monticello::read(&path).map_err(|e| anyhow!("{e}"))?;
            sent.push(loadable(&mcz.package, &mcz.info.name, &from, &[]));
            continue;
        }
        for package in read_packages(&path).map_err(|e| anyhow!("{e}"))? {
            sent.push(loadable(&package, "", &from, &[]));
        }
    }
    if sent.is_empty() {
        bail!("no package in {}", paths.join(", "));
    }
    Ok(sent)
}

/// How a bar of packages written or methods loaded looks.
const BAR: &str = "{bar:40} {pos}/{len} {msg}";

/// A spinner on standard error (shown only on a terminal) saying what is under way.
pub(crate) fn spinner(message: &str) -> ProgressBar {
    let progress = ProgressBar::new_spinner();
    progress.set_message(message.to_string());
    progress.enable_steady_tick(std::time::Duration::from_millis(120));
    progress
}

/// Shows on `progress` what the gem told of a load (or a merge applied): a bar over a step that counts, the
/// spinner over one that does not.
pub(crate) fn show(progress: &ProgressBar, told: &pb::Progress) {
    progress.set_message(told.step.clone());
    if told.total == 0 {
        progress.set_style(ProgressStyle::default_spinner());
        progress.unset_length();
        return;
    }
    if progress.length() != Some(told.total) {
        if let Ok(style) = ProgressStyle::with_template(BAR) {
            progress.set_style(style);
        }
        progress.set_length(told.total);
    }
    progress.set_position(told.done);
}

/// Commits the gem's transaction, saying so; exits 1 when the commit fails.
pub fn commit_gem(gem: &str) -> Result<ExitCode> {
    match execute_once(gem, vec![Op::CommitTransaction(pb::Empty {})])?.into_iter().next() {
        Some(Outcome::Committed(c)) if c.committed => {
            println!("committed");
            Ok(ExitCode::SUCCESS)
        }
        Some(Outcome::Committed(c)) => {
            let objects: Vec<&str> = c.conflicts.iter().map(|f| f.print_string.as_str()).collect();
            eprintln!("the commit failed: another session changed {}", objects.join(", "));
            Ok(ExitCode::FAILURE)
        }
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            Ok(ExitCode::FAILURE)
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    }
}

/// `onyx save PACKAGES --gem ADDR --to DIR --format F`: writes the packages as the gem holds
/// them.
pub fn save(names: &[String], gem: &str, to: &Path, format: Format, message: &str, author: &str) -> Result<ExitCode> {
    let contents = Op::PackageContents(pb::PackageNames { names: names.to_vec() });
    let states = Op::PackageStates(pb::PackageNames { names: names.to_vec() });
    let mut outcomes = execute_once(gem, vec![contents, states])?.into_iter();
    let list = match outcomes.next() {
        Some(Outcome::Packages(list)) => list,
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            return Ok(ExitCode::FAILURE);
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    };
    let states = match outcomes.next() {
        Some(Outcome::PackageStates(states)) => states.states,
        _ => Vec::new(),
    };
    let repository = Repository::open(to).ok().filter(|r| matches!(r, Repository::Git(_)) && !message.is_empty());
    let format = match format {
        Format::Tonel => SaveFormat::Tonel,
        Format::Filetree => SaveFormat::FileTree,
        Format::Mcz => {
            SaveFormat::Mcz { author: author.to_string(), message: message.to_string(), ancestors: Vec::new() }
        }
    };
    let mut records = Vec::new();
    let progress = ProgressBar::new(list.packages.len() as u64);
    if let Ok(style) = ProgressStyle::with_template(BAR) {
        progress.set_style(style);
    }
    for contents in list.packages {
        progress.set_message(format!("writing {}", contents.name));
        progress.inc(1);
        let package = package(contents).map_err(|m| anyhow!("the gem answered a package Onyx cannot write: {m}"))?;
        let (written, version) = match &repository {
            Some(git) => {
                let version = git.save(&package, author, message, &[]).map_err(|e| anyhow!("{e}"))?;
                progress.suspend(|| println!("committed {} as {}", package.name, version.name));
                (to.to_path_buf(), version.name)
            }
            None => {
                // A Monticello version is made from the versions the gem's code was made from,
                // those of them this folder holds (else from the newest one here).
                let format = match &format {
                    SaveFormat::Mcz { author, message, .. } => {
                        let here = onyx_vm::source::save::versions_in(to, &package.name).map_err(|e| anyhow!("{e}"))?;
                        let ancestors = states
                            .iter()
                            .filter(|s| s.name == package.name)
                            .flat_map(|s| s.ancestors.iter())
                            .filter(|a| here.iter().any(|i| i.name == **a || i.id == **a))
                            .cloned()
                            .collect();
                        SaveFormat::Mcz { author: author.clone(), message: message.clone(), ancestors }
                    }
                    other => other.clone(),
                };
                let written = save_package(to, &package, &format).map_err(|e| anyhow!("{e}"))?;
                let version = match format {
                    SaveFormat::Mcz { .. } => {
                        written.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
                    }
                    _ => String::new(),
                };
                (written, version)
            }
        };
        let from = std::fs::canonicalize(&written).unwrap_or_else(|_| written.clone()).display().to_string();
        records.push(pb::RecordVersion { package: package.name.clone(), version, from, ancestors: Vec::new() });
        progress.suspend(|| {
            println!(
                "saved {} ({} classes, {} methods) to {}",
                package.name,
                package.classes.len(),
                package.methods.len(),
                written.display()
            );
        });
    }
    progress.finish_and_clear();
    // The gem remembers every package saved as its version, in one operation.
    let record = Op::RecordVersions(pb::RecordVersions { records });
    if let Some(Outcome::Error(e)) = execute_once(gem, vec![record])?.into_iter().next() {
        eprintln!("{}", e.message);
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `onyx diff BEFORE AFTER`: prints each definition added, removed or changed, with the lines
/// that differ, and a count; exits 1 when anything differs.
pub fn diff(before: &str, after: &str, sides: &Side) -> Result<ExitCode> {
    let (before, after) = (read_side(before, sides)?, read_side(after, sides)?);
    let mut names: Vec<&str> = before.iter().chain(&after).map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let (mut added, mut removed, mut changed) = (0, 0, 0);
    for name in names {
        let empty = Package { name: name.to_string(), ..Package::default() };
        let find =
            |packages: &[Package]| packages.iter().find(|p| p.name == name).cloned().unwrap_or_else(|| empty.clone());
        for change in compare(&find(&before), &find(&after)) {
            let kind = match change.kind {
                ChangeKind::Added => {
                    added += 1;
                    "added"
                }
                ChangeKind::Removed => {
                    removed += 1;
                    "removed"
                }
                ChangeKind::Changed => {
                    changed += 1;
                    "changed"
                }
            };
            println!("--- {name}: {} ({kind})", change.key);
            for (sign, line) in change.lines() {
                println!("{sign}{line}");
            }
        }
    }
    println!("{changed} changed, {added} added, {removed} removed");
    Ok(if changed + added + removed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `onyx status [PACKAGES] --gem ADDR`: each package the gem remembers (or those named), with
/// the version it was loaded from or saved as and whether it changed since; with names, each
/// definition changed.
pub fn status(names: &[String], gem: &str) -> Result<ExitCode> {
    let op = Op::PackageStates(pb::PackageNames { names: names.to_vec() });
    let states = match execute_once(gem, vec![op])?.into_iter().next() {
        Some(Outcome::PackageStates(states)) => states.states,
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            return Ok(ExitCode::FAILURE);
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    };
    for name in names.iter().filter(|n| !states.iter().any(|s| s.name == **n)) {
        println!("{name}: never loaded or saved");
    }
    for state in &states {
        let version = if state.version.is_empty() { "no version".to_string() } else { state.version.clone() };
        let dirty = match state.changes.len() {
            0 => "clean".to_string(),
            n => format!("dirty ({n} changed)"),
        };
        println!("{}: {version} from {}, {dirty}", state.name, state.from);
        if !names.is_empty() {
            for change in &state.changes {
                let kind = match pb::ChangeKind::try_from(change.kind) {
                    Ok(pb::ChangeKind::Added) => "added",
                    Ok(pb::ChangeKind::Removed) => "removed",
                    _ => "changed",
                };
                println!("  {kind} {}", change.definition);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
