//! Versions from the command line: `onyx versions` lists a repository's packages and a
//! package's versions; a package state named on the command line (`diff`, `merge`, `load
//! --repository`) is files at a path, `PKG@VERSION` of a repository, or `PKG` as a gem holds
//! it; `onyx merge` joins a version into a gem's code three ways from their common ancestor.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use onyx_protocol::agent::{self as pb, operation::Op, result::Outcome};
use onyx_server_agent::packages::{loadable, package};
use onyx_versions::{Repository, Version};
use onyx_vm::source::diff::Definition;
use onyx_vm::source::merge::{Resolution, merge as merge_three};
use onyx_vm::source::{Package, read_packages};

use crate::args::Side;
use crate::client::execute_once;

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

/// What the gem remembers of package `name`: its version and the versions it was made from.
fn state_in_gem(gem: &str, name: &str) -> Result<Option<pb::PackageState>> {
    let op = Op::PackageStates(pb::PackageNames { names: vec![name.to_string()] });
    match execute_once(gem, vec![op])?.into_iter().next() {
        Some(Outcome::PackageStates(states)) => Ok(states.states.into_iter().next()),
        Some(Outcome::Error(e)) => bail!("{}", e.message),
        other => bail!("the gem answered out of turn: {other:?}"),
    }
}

/// Loads `packages` (with their versions) into the gem, all or nothing; prints the problems.
pub fn send_load(gem: &str, packages: Vec<pb::PackageContents>) -> Result<Option<pb::Loaded>> {
    let op = Op::LoadPackages(pb::LoadPackages { packages });
    match execute_once(gem, vec![op])?.into_iter().next() {
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
/// from their common ancestor (the version the gem's code was made from, and this one).
/// Conflicts are listed and nothing changes, unless `take` settles them all; the merged code
/// is loaded all or nothing and remembered as made from both versions.
pub fn merge(spec: &str, repository: &Path, gem: &str, take: Option<&str>, commit: bool) -> Result<ExitCode> {
    let repo = Repository::open(repository).map_err(|e| anyhow!("{e}"))?;
    let (name, theirs_version) = version_of(&repo, spec)?;
    let state = state_in_gem(gem, &name)?.ok_or_else(|| anyhow!("the gem has no version of {name} to merge into"))?;
    let versions = repo.versions(&name).map_err(|e| anyhow!("{e}"))?;
    let ours_id = state
        .ancestors
        .iter()
        .find_map(|a| versions.iter().find(|v| v.name == *a || v.id == *a))
        .map(|v| v.id.clone())
        .ok_or_else(|| anyhow!("the version the gem's {name} was made from is not in {}", repository.display()))?;
    let base_id = repo
        .common_ancestor(&name, &ours_id, &theirs_version.id)
        .map_err(|e| anyhow!("{e}"))?
        .ok_or_else(|| anyhow!("{name}: the gem's version and {} have no common ancestor", theirs_version.name))?;
    let base = repo.read(&name, &base_id).map_err(|e| anyhow!("{e}"))?;
    let theirs = repo.read(&name, &theirs_version.id).map_err(|e| anyhow!("{e}"))?;
    let ours = from_gem(gem, &name)?;
    let merged = merge_three(&base, &ours, &theirs);
    let resolution = match take {
        None => None,
        Some("ours") => Some(Resolution::Ours),
        Some("theirs") => Some(Resolution::Theirs),
        Some(other) => bail!("--take ours or --take theirs, not {other}"),
    };
    if !merged.conflicts.is_empty() && resolution.is_none() {
        for conflict in &merged.conflicts {
            println!("conflict: {}", conflict.key);
            for (side, definition) in [("ours", &conflict.ours), ("theirs", &conflict.theirs)] {
                let text = definition.as_ref().map_or("(removed)".to_string(), Definition::text);
                println!("  {side}:\n    {}", text.replace('\n', "\n    "));
            }
        }
        eprintln!(
            "{} conflicts: nothing merged (resolve them with --take ours|theirs, or in the IDE)",
            merged.conflicts.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    let resolutions: BTreeMap<_, _> =
        merged.conflicts.iter().filter_map(|c| Some((c.key.clone(), resolution.clone()?))).collect();
    let result = merged.resolve(&resolutions).map_err(|e| anyhow!("{e}"))?;
    let ours_name = versions.iter().find(|v| v.id == ours_id).map_or(ours_id.clone(), |v| v.name.clone());
    let ancestors = vec![ours_name, theirs_version.name.clone()];
    let from = std::fs::canonicalize(repository).unwrap_or_else(|_| repository.to_path_buf()).display().to_string();
    let Some(loaded) = send_load(gem, vec![loadable(&result, "", &from, &ancestors)])? else {
        return Ok(ExitCode::FAILURE);
    };
    println!(
        "merged {} into {name} (from {}): {} conflicts settled, {} methods compiled, {} removed",
        theirs_version.name,
        ancestors[0],
        merged.conflicts.len(),
        loaded.methods_compiled,
        loaded.methods_removed
    );
    if commit {
        return crate::packages::commit_gem(gem);
    }
    Ok(ExitCode::SUCCESS)
}
