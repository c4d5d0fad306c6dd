//! Version repositories of packages, as Monticello and Iceberg keep them: a folder of `.mcz`
//! files (Monticello's directory repository: each file a version, with its ancestry), or a
//! git repository whose work tree holds Tonel or FileTree packages (each commit that changed a
//! package's folder a version of it, its parents the ancestors).
//!
//! A repository lists a package's versions (newest first), reads the package as any version
//! holds it, and saves a new version: a new `.mcz` whose ancestor is the version the caller
//! names, or the package's files written into the work tree and committed, the version's
//! message the commit's.

mod git;
mod monticello;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use onyx_vm::source::{Package, SourceError};

/// Why a repository could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    /// A file of the repository is bad.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// Git refused or failed.
    #[error("{path}: {message}")]
    Git {
        /// The repository.
        path: PathBuf,
        /// What git said.
        message: String,
    },
    /// No such package or version.
    #[error("{0}")]
    NotFound(String),
}

/// One version of a package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// What tells it apart: a Monticello version's id, a commit's hash.
    pub id: String,
    /// Its name: `Pkg-ab.3`, or a commit's short hash.
    pub name: String,
    /// Who made it.
    pub author: String,
    /// When, as the repository tells it.
    pub time: String,
    /// Why.
    pub message: String,
    /// The ids of the versions it was made from (two for a merge).
    pub ancestors: Vec<String>,
}

/// A version repository.
pub enum Repository {
    /// A folder of Monticello versions.
    Monticello(PathBuf),
    /// A git repository, and the folder of its work tree that holds the packages.
    Git(git::GitPackages),
}

impl Repository {
    /// The repository at `path`: the git repository it is in, if any, with `path` the folder
    /// of packages; otherwise a folder of Monticello versions.
    pub fn open(path: &Path) -> Result<Repository, VersionError> {
        if !path.is_dir() {
            return Err(VersionError::NotFound(format!("{}: no such folder", path.display())));
        }
        match git::GitPackages::open(path)? {
            Some(git) => Ok(Repository::Git(git)),
            None => Ok(Repository::Monticello(path.to_path_buf())),
        }
    }

    /// The names of the packages it holds versions of, sorted.
    pub fn packages(&self) -> Result<Vec<String>, VersionError> {
        match self {
            Repository::Monticello(dir) => monticello::packages(dir),
            Repository::Git(git) => git.packages(),
        }
    }

    /// The versions of `package`, newest first.
    pub fn versions(&self, package: &str) -> Result<Vec<Version>, VersionError> {
        match self {
            Repository::Monticello(dir) => monticello::versions(dir, package),
            Repository::Git(git) => git.versions(package),
        }
    }

    /// `package` as version `id` holds it.
    pub fn read(&self, package: &str, id: &str) -> Result<Package, VersionError> {
        match self {
            Repository::Monticello(dir) => monticello::read(dir, package, id),
            Repository::Git(git) => git.read(package, id),
        }
    }

    /// Saves `package` as a new version by `author` with `message`, made from the versions
    /// `ancestors` (ids; a Monticello version keeps their whole ancestry, a commit's parent
    /// is the work tree's current commit); answers it.
    pub fn save(
        &self,
        package: &Package,
        author: &str,
        message: &str,
        ancestors: &[String],
    ) -> Result<Version, VersionError> {
        match self {
            Repository::Monticello(dir) => monticello::save(dir, package, author, message, ancestors),
            Repository::Git(git) => git.save(package, author, message),
        }
    }
}

impl Repository {
    /// The id of the nearest version both `a` and `b` (ids) come from: the base of a
    /// three-way merge.
    pub fn common_ancestor(&self, package: &str, a: &str, b: &str) -> Result<Option<String>, VersionError> {
        match self {
            Repository::Monticello(dir) => Ok(common_ancestor(&monticello::ancestry(dir, package)?, a, b)),
            Repository::Git(git) => Ok(git.merge_base(a, b)),
        }
    }
}

/// The common ancestor of versions `a` and `b` nearest to them, among `versions` (each with
/// its ancestors' ids).
fn common_ancestor(versions: &[Version], a: &str, b: &str) -> Option<String> {
    let ancestry = |start: &str| -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        let mut queue = std::collections::VecDeque::from([start.to_string()]);
        while let Some(id) = queue.pop_front() {
            if seen.contains(&id) {
                continue;
            }
            if let Some(v) = versions.iter().find(|v| v.id == id) {
                queue.extend(v.ancestors.iter().cloned());
            }
            seen.push(id);
        }
        seen
    };
    let of_b = ancestry(b);
    ancestry(a).into_iter().find(|id| of_b.contains(id))
}
