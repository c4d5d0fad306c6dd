//! Versions from the command line: `onyx versions` lists a repository's packages and a
//! package's versions; a package state named on the command line (`diff`, `merge`, `load
//! --repository`) is files at a path, `PKG@VERSION` of a repository, or `PKG` as a gem holds
//! it; `onyx merge` joins a version into a gem's code three ways from their common ancestor.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_server_agent::packages::{loadable, package};
use onyx_versions::{Repository, Version};
use onyx_vm::source::{Package, read_packages};

use crate::args::Side;
use crate::client::{execute_once, execute_telling};
use crate::packages::{show, spinner};

/// `onyx versions REPOSITORY [PACKAGE]`: the packages a version repository holds, or a page
/// of a package's versions, newest first.
pub fn list(repository: &Path, package: Option<&str>, from: usize, size: usize) -> Result<ExitCode> {
    let repo = Repository::open(repository).map_err(|e| anyhow!("{e}"))?;
    let Some(package) = package else {
        for name in repo.packages().map_err(|e| anyhow!("{e}"))? {
            println!("{name}");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let versions = repo.versions(package).map_err(|e| anyhow!("{e}"))?;
    if versions.is_empty() {
        eprintln!("{}: no version of {package}", repository.display());
        return Ok(ExitCode::FAILURE);
    }
    for v in versions.iter().skip(from).take(size) {
        let ancestors: Vec<&str> = v
            .ancestors
            .iter()
            .map(|id| versions.iter().find(|a| a.id == *id).map_or(id.get(..8).unwrap_or(id), |a| a.name.as_str()))
            .collect();
        let first_line = v.message.lines().next().unwrap_or_default();
        println!("{}  {}  {}  [{}]  {first_line}", v.name, v.time, v.author, ancestors.join(", "));
    }
    if from + size < versions.len() {
        println!("... {} more (--from {})", versions.len() - from - size, from + size);
    }
    Ok(ExitCode::SUCCESS)
}

/// The version `PKG@VERSION` names in `repo` (the newest without `@VERSION`).
fn version_of(repo: &Repository, spec: &str) -> Result<(String, Version)> {
    let (package, wanted) = spec.split_once('@').map_or((spec, None), |(p, v)| (p, Some(v)));
    let versions = repo.versions(package).map_err(|e| anyhow!("{e}"))?;
    let found = match wanted {
        None => versions.into_iter().next(),
        Some(v) => versions.into_iter().find(|x| x.name == v || x.id == v || (v.len() >= 7 && x.id.starts_with(v))),
    };
    let version = found.ok_or_else(|| anyhow!("no version {spec}"))?;
    Ok((package.to_string(), version))
}

/// The packages a command-line side names: files at a path; `PKG` as the gem holds it (when a
/// gem is given); `PKG@VERSION` of the repository (`PKG` alone: its newest version).
pub fn read_side(spec: &str, sides: &Side) -> Result<Vec<Package>> {
    if Path::new(spec).exists() {
        return read_packages(Path::new(spec)).map_err(|e| anyhow!("{e}"));
    }
    if let Some(gem) = sides.gem.as_ref().filter(|_| !spec.contains('@')) {
        return Ok(vec![from_gem(gem, spec)?]);
    }
    if let Some(repository) = &sides.repository {
        let repo = Repository::open(repository).map_err(|e| anyhow!("{e}"))?;
        let (name, version) = version_of(&repo, spec)?;
        return Ok(vec![repo.read(&name, &version.id).map_err(|e| anyhow!("{e}"))?]);
    }
    bail!("{spec}: no such file or directory (a version needs --repository, a gem's package --gem)")
}

/// Package `name` as the gem holds it.
fn from_gem(gem: &str, name: &str) -> Result<Package> {
    let op = Op::PackageContents(pb::PackageNames { names: vec![name.to_string()] });
    match execute_once(gem, vec![op])?.into_iter().next() {
        Some(Outcome::Packages(list)) => {
            let contents = list.packages.into_iter().next().ok_or_else(|| anyhow!("the gem holds no {name}"))?;
            package(contents).map_err(|m| anyhow!("{m}"))
        }
        Some(Outcome::Error(e)) => bail!("{}", e.message),
        other => bail!("the gem answered out of turn: {other:?}"),
    }
}

/// Loads `packages` (with their versions) into the gem, all or nothing; prints the problems.
pub fn send_load(
    gem: &str,
    packages: Vec<pb::PackageContents>,
    tell: &mut dyn FnMut(&pb::Progress),
) -> Result<Option<pb::Loaded>> {
    let op = Op::LoadPackages(pb::LoadPackages { packages });
    match execute_telling(gem, vec![op], tell)?.into_iter().next() {
        Some(Outcome::Loaded(loaded)) => Ok(Some(loaded)),
        Some(Outcome::Error(e)) => {
            eprintln!("{}", e.message);
            eprintln!("nothing was loaded");
            Ok(None)
        }
        other => bail!("the gem answered out of turn: {other:?}"),
    }
}

/// The versions `onyx load --repository R PKG[@VERSION]...` names, to load.
pub fn from_repository(repository: &Path, specs: &[String]) -> Result<Vec<pb::PackageContents>> {
    let repo = Repository::open(repository).map_err(|e| anyhow!("{e}"))?;
    let from = std::fs::canonicalize(repository).unwrap_or_else(|_| repository.to_path_buf()).display().to_string();
    let mut out = Vec::new();
    for spec in specs {
        let (name, version) = version_of(&repo, spec)?;
        let read = repo.read(&name, &version.id).map_err(|e| anyhow!("{e}"))?;
        out.push(loadable(&read, &version.name, &from, &[]));
    }
    Ok(out)
}

/// `onyx merge PKG@VERSION --repository R --gem G`: joins the version into the gem's code
/// from their common ancestor (the version the gem's code was made from, and this one), the
/// gem's own merge (the repository is read on the gem's host). Conflicts are listed and
/// nothing changes, unless `take` settles them all; the merged code is loaded all or nothing
/// and remembered as made from both versions.
pub fn merge(spec: &str, repository: &Path, gem: &str, take: Option<&str>, commit: bool) -> Result<ExitCode> {
    let take = match take {
        None => None,
        Some("ours") => Some(pb::merge_resolution::Take::Ours(pb::Empty {})),
        Some("theirs") => Some(pb::merge_resolution::Take::Theirs(pb::Empty {})),
        Some(other) => bail!("--take ours or --take theirs, not {other}"),
    };
    let (package, version) = spec.split_once('@').map_or((spec, ""), |(p, v)| (p, v));
    let path = std::fs::canonicalize(repository).unwrap_or_else(|_| repository.to_path_buf()).display().to_string();
    let request = |resolutions: Vec<pb::MergeResolution>, apply: bool| pb::MergeVersion {
        path: path.clone(),
        package: package.to_string(),
        version: version.to_string(),
        resolutions,
        apply,
    };
    let told = send_merge(gem, request(Vec::new(), false), &mut |_| {})?;
    if !told.conflicts.is_empty() && take.is_none() {
        for conflict in &told.conflicts {
            println!("conflict: {}", conflict.definition);
            for (side, text) in [("ours", &conflict.ours), ("theirs", &conflict.theirs)] {
                let text = text.as_deref().unwrap_or("(removed)");
                println!("  {side}:\n    {}", text.replace('\n', "\n    "));
            }
        }
        eprintln!(
            "{} conflicts: nothing merged (resolve them with --take ours|theirs, or in the IDE)",
            told.conflicts.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    let resolutions = told
        .conflicts
        .iter()
        .map(|c| pb::MergeResolution { definition: c.definition.clone(), take: take.clone() })
        .collect();
    let progress = spinner("merging");
    let merged = send_merge(gem, request(resolutions, true), &mut |told| show(&progress, told));
    progress.finish_and_clear();
    let merged = merged?;
    let loaded = merged.loaded.unwrap_or_default();
    println!(
        "merged {} into {package} (from {}): {} conflicts settled, {} methods compiled, {} removed",
        merged.theirs,
        merged.ours,
        merged.conflicts.len(),
        loaded.methods_compiled,
        loaded.methods_removed
    );
    if commit {
        return crate::packages::commit_gem(gem);
    }
    Ok(ExitCode::SUCCESS)
}

/// Sends a merge to the gem; its answer. `tell` hears how far an applied merge has come.
fn send_merge(gem: &str, merge: pb::MergeVersion, tell: &mut dyn FnMut(&pb::Progress)) -> Result<pb::Merged> {
    match execute_telling(gem, vec![Op::RepositoryMerge(merge)], tell)?.into_iter().next() {
        Some(Outcome::Merged(merged)) => Ok(merged),
        Some(Outcome::Error(e)) => bail!("{}\nnothing was merged", e.message),
        other => bail!("the gem answered out of turn: {other:?}"),
    }
}
