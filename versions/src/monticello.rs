//! A folder of Monticello versions (Monticello's directory repository): each `Pkg-ab.N.mcz`
//! a version, its info naming its ancestors.

use std::path::Path;

use onyx_vm::source::Package;
use onyx_vm::source::monticello::{self, VersionInfo};
use onyx_vm::source::save::{Format, save as save_package, version_files, versions_in};

use crate::{Version, VersionError};

/// The package names the folder's versions are of.
pub fn packages(dir: &Path) -> Result<Vec<String>, VersionError> {
    let entries = std::fs::read_dir(dir).map_err(|e| VersionError::NotFound(format!("{}: {e}", dir.display())))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let (rest, number) = name.strip_suffix(".mcz")?.rsplit_once('.')?;
            number.parse::<u64>().ok()?;
            Some(rest.rsplit_once('-')?.0.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

fn version(info: &VersionInfo) -> Version {
    Version {
        id: info.id.clone(),
        name: info.name.clone(),
        author: info.author.clone(),
        time: format!("{} {}", info.date, info.time),
        message: info.message.clone(),
        ancestors: info.ancestors.iter().map(|a| a.id.clone()).collect(),
    }
}

/// The versions of `package` in the folder, newest first.
pub fn versions(dir: &Path, package: &str) -> Result<Vec<Version>, VersionError> {
    Ok(versions_in(dir, package)?.iter().map(version).collect())
}

/// Every version the folder's versions name in their ancestry, the folder's own first.
pub fn ancestry(dir: &Path, package: &str) -> Result<Vec<Version>, VersionError> {
    let mut out: Vec<Version> = Vec::new();
    let mut pending: Vec<VersionInfo> = versions_in(dir, package)?;
    pending.reverse();
    while let Some(info) = pending.pop() {
        if out.iter().any(|v| v.id == info.id) {
            continue;
        }
        out.push(version(&info));
        pending.extend(info.ancestors.into_iter().rev());
    }
    Ok(out)
}

/// `package` as the version with id (or name) `id` holds it.
pub fn read(dir: &Path, package: &str, id: &str) -> Result<Package, VersionError> {
    for (_, path) in version_files(dir, package) {
        let info = monticello::read_info(&path)?;
        if info.id == id || info.name == id {
            return Ok(monticello::read(&path)?.package);
        }
    }
    Err(VersionError::NotFound(format!("{}: no version {id} of {package}", dir.display())))
}

/// Saves `package` as a new version made from `ancestors` (the newest there when none).
pub fn save(
    dir: &Path,
    package: &Package,
    author: &str,
    message: &str,
    ancestors: &[String],
) -> Result<Version, VersionError> {
    let format =
        Format::Mcz { author: author.to_string(), message: message.to_string(), ancestors: ancestors.to_vec() };
    let path = save_package(dir, package, &format)?;
    Ok(version(&monticello::read_info(&path)?))
}
