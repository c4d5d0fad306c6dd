//! Packages on disk: `onyx diff` compares two states of them definition by definition,
//! `onyx load` sends them to a gem, `onyx save` writes what a gem holds.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_server_agent::packages::{contents, package};
use onyx_vm::source::diff::{ChangeKind, diff as compare};
use onyx_vm::source::save::{Format as SaveFormat, save as save_package};
use onyx_vm::source::{Package, read_packages};

use crate::args::Format;
use crate::client::execute_once;

/// `onyx load PATHS --gem ADDR [--commit]`: reads the packages, loads them into the gem all
/// or nothing, and commits if asked. Exits 1 with every problem when the gem loads nothing.
pub fn load(paths: &[PathBuf], gem: &str, commit: bool) -> Result<ExitCode> {
    let mut packages = Vec::new();
    for path in paths {
        if !path.exists() {
            bail!("{}: no such file or directory", path.display());
        }
        packages.extend(read_packages(path).map_err(|e| anyhow!("{e}"))?);
    }
    if packages.is_empty() {
        bail!("no package in {}", paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    }
    let op = Op::LoadPackages(pb::LoadPackages { packages: packages.iter().map(contents).collect() });
    let loaded = match execute_once(gem, vec![op])?.into_iter().next() {
        Some(Outcome::Loaded(loaded)) => loaded,
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            eprintln!("nothing was loaded");
            return Ok(ExitCode::FAILURE);
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    };
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    for failure in &loaded.initialize_errors {
        eprintln!("{failure}");
    }
    let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    println!(
        "loaded {}: {} classes defined, {} methods compiled, {} unchanged, {} classes and {} methods removed",
        names.join(", "),
        loaded.classes_defined,
        loaded.methods_compiled,
        loaded.unchanged,
        loaded.classes_removed,
        loaded.methods_removed
    );
    if commit {
        match execute_once(gem, vec![Op::CommitTransaction(pb::Empty {})])?.into_iter().next() {
            Some(Outcome::Committed(c)) if c.committed => println!("committed"),
            Some(Outcome::Committed(c)) => {
                let objects: Vec<&str> = c.conflicts.iter().map(|f| f.print_string.as_str()).collect();
                eprintln!("the commit failed: another session changed {}", objects.join(", "));
                return Ok(ExitCode::FAILURE);
            }
            Some(Outcome::Error(e)) => {
                eprintln!("{}", e.message);
                return Ok(ExitCode::FAILURE);
            }
            other => bail!("the gem answered out of turn: {other:?}"),
        }
    }
    Ok(if loaded.initialize_errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `onyx save PACKAGES --gem ADDR --to DIR --format F`: writes the packages as the gem holds
/// them.
pub fn save(names: &[String], gem: &str, to: &Path, format: Format, message: &str, author: &str) -> Result<ExitCode> {
    let op = Op::PackageContents(pb::PackageNames { names: names.to_vec() });
    let list = match execute_once(gem, vec![op])?.into_iter().next() {
        Some(Outcome::Packages(list)) => list,
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            return Ok(ExitCode::FAILURE);
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    };
    let format = match format {
        Format::Tonel => SaveFormat::Tonel,
        Format::Filetree => SaveFormat::FileTree,
        Format::Mcz => SaveFormat::Mcz { author: author.to_string(), message: message.to_string() },
    };
    for contents in list.packages {
        let package = package(contents).map_err(|m| anyhow!("the gem answered a package Onyx cannot write: {m}"))?;
        let written = save_package(to, &package, &format).map_err(|e| anyhow!("{e}"))?;
        println!(
            "saved {} ({} classes, {} methods) to {}",
            package.name,
            package.classes.len(),
            package.methods.len(),
            written.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `onyx diff BEFORE AFTER`: prints each definition added, removed or changed, with the lines
/// that differ, and a count; exits 1 when anything differs.
pub fn diff(before: &Path, after: &Path) -> Result<ExitCode> {
    let read = |path: &Path| read_packages(path).map_err(|e| anyhow!("{e}"));
    let (before, after) = (read(before)?, read(after)?);
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
