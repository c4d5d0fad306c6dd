//! A git repository whose work tree holds Tonel or FileTree packages in one folder: a
//! package's versions are the commits that changed its folder, read from the history (the
//! package as any commit holds it is read from that commit's tree, not from the work tree),
//! and a saved version is the package's files written into the work tree and committed.

use std::path::{Path, PathBuf};

use git2::{IndexAddOption, Oid, Repository, Signature, Sort, TreeWalkMode, TreeWalkResult};
use onyx_vm::source::monticello::civil_from_days;
use onyx_vm::source::save::{Format, save as save_package};
use onyx_vm::source::{Package, filetree, tonel};

use crate::{Version, VersionError};

/// A git repository and the folder of its work tree that holds packages.
pub struct GitPackages {
    repo: Repository,
    /// The folder, relative to the work tree's root.
    dir: PathBuf,
}

impl GitPackages {
    /// The git repository `path` is in, with `path` the folder of packages; none if `path` is
    /// in no git work tree.
    pub fn open(path: &Path) -> Result<Option<GitPackages>, VersionError> {
        let repo = match Repository::discover(path) {
            Ok(repo) => repo,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(VersionError::Git { path: path.to_path_buf(), message: e.message().to_string() }),
        };
        let Some(root) = repo.workdir().and_then(|w| w.canonicalize().ok()) else { return Ok(None) };
        let full = path.canonicalize().map_err(|e| VersionError::NotFound(format!("{}: {e}", path.display())))?;
        let dir = full.strip_prefix(&root).map(Path::to_path_buf).unwrap_or_default();
        Ok(Some(GitPackages { repo, dir }))
    }

    fn error(&self, e: &git2::Error) -> VersionError {
        VersionError::Git { path: self.root(), message: e.message().to_string() }
    }

    fn root(&self) -> PathBuf {
        self.repo.workdir().map(Path::to_path_buf).unwrap_or_default()
    }

    /// The packages of the folder, as the work tree holds it.
    pub fn packages(&self) -> Result<Vec<String>, VersionError> {
        let folder = self.root().join(&self.dir);
        let entries =
            std::fs::read_dir(&folder).map_err(|e| VersionError::NotFound(format!("{}: {e}", folder.display())))?;
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.path().join("package.st").is_file() {
                    return Some(name);
                }
                name.strip_suffix(".package").map(str::to_string)
            })
            .collect();
        names.sort();
        Ok(names)
    }

    /// The package's folder in a tree: `Pkg` (Tonel) or `Pkg.package` (FileTree).
    fn folder(&self, tree: &git2::Tree<'_>, package: &str) -> Option<(Oid, bool)> {
        let tonel = tree.get_path(&self.dir.join(package)).ok().map(|e| (e.id(), false));
        tonel.or_else(|| tree.get_path(&self.dir.join(format!("{package}.package"))).ok().map(|e| (e.id(), true)))
    }

    /// The commits that changed the package's folder, newest first.
    pub fn versions(&self, package: &str) -> Result<Vec<Version>, VersionError> {
        let mut walk = self.repo.revwalk().map_err(|e| self.error(&e))?;
        if walk.push_head().is_err() {
            return Ok(Vec::new());
        }
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME).map_err(|e| self.error(&e))?;
        let mut versions = Vec::new();
        for oid in walk {
            let commit = self.repo.find_commit(oid.map_err(|e| self.error(&e))?).map_err(|e| self.error(&e))?;
            let tree = commit.tree().map_err(|e| self.error(&e))?;
            let Some((folder, _)) = self.folder(&tree, package) else { continue };
            let unchanged = commit
                .parents()
                .any(|p| p.tree().ok().and_then(|t| self.folder(&t, package)).map(|f| f.0) == Some(folder));
            if unchanged {
                continue;
            }
            let author = commit.author();
            let secs = commit.time().seconds();
            versions.push(Version {
                id: oid_text(commit.id()),
                name: oid_text(commit.id()).chars().take(8).collect(),
                author: author.name().unwrap_or_default().to_string(),
                time: time_text(secs),
                message: commit.message().unwrap_or_default().trim_end().to_string(),
                ancestors: commit.parent_ids().map(oid_text).collect(),
            });
        }
        Ok(versions)
    }

    /// The package as commit `id` (a hash, or anything git names a commit by) holds it.
    pub fn read(&self, package: &str, id: &str) -> Result<Package, VersionError> {
        let commit = self.repo.revparse_single(id).and_then(|o| o.peel_to_commit()).map_err(|e| self.error(&e))?;
        let tree = commit.tree().map_err(|e| self.error(&e))?;
        let (folder, filetree) = self
            .folder(&tree, package)
            .ok_or_else(|| VersionError::NotFound(format!("{id} holds no package {package}")))?;
        let subtree = self.repo.find_tree(folder).map_err(|e| self.error(&e))?;
        let scratch = tempfile::tempdir().map_err(|e| VersionError::NotFound(format!("a scratch folder: {e}")))?;
        let name = if filetree { format!("{package}.package") } else { package.to_string() };
        let target = scratch.path().join(&name);
        std::fs::create_dir_all(&target).map_err(|e| VersionError::NotFound(format!("a scratch folder: {e}")))?;
        let mut failure = None;
        subtree
            .walk(TreeWalkMode::PreOrder, |root, entry| {
                // A name git itself would not check out (a crafted tree's) is no package file.
                let Some(file) = entry.name().filter(|n| !matches!(*n, "" | "." | "..") && !n.contains(['/', '\\']))
                else {
                    return TreeWalkResult::Skip;
                };
                let path = target.join(root).join(file);
                let written = match entry.kind() {
                    Some(git2::ObjectType::Tree) => std::fs::create_dir_all(&path).map_err(|e| e.to_string()),
                    Some(git2::ObjectType::Blob) => self
                        .repo
                        .find_blob(entry.id())
                        .map_err(|e| e.message().to_string())
                        .and_then(|b| std::fs::write(&path, b.content()).map_err(|e| e.to_string())),
                    _ => Ok(()),
                };
                match written {
                    Ok(()) => TreeWalkResult::Ok,
                    Err(e) => {
                        failure = Some(e);
                        TreeWalkResult::Abort
                    }
                }
            })
            .map_err(|e| self.error(&e))?;
        if let Some(e) = failure {
            return Err(VersionError::NotFound(format!("{id}: {package} could not be read: {e}")));
        }
        let mut read = if filetree { filetree::read_package(&target)? } else { tonel::read_package(&target)? };
        // Name the files as the repository does, not as the scratch folder.
        let shown = PathBuf::from(format!("{}@{}", self.dir.join(&name).display(), &oid_text(commit.id())[..8]));
        for class in &mut read.classes {
            class.file = shown.join(class.file.strip_prefix(&target).unwrap_or(&class.file));
        }
        for method in &mut read.methods {
            method.file = shown.join(method.file.strip_prefix(&target).unwrap_or(&method.file));
        }
        Ok(read)
    }

    /// Writes the package into the work tree (in the format its folder has, Tonel for a new
    /// one) and commits it with `message`, by `author` unless git's configuration names one.
    pub fn save(&self, package: &Package, author: &str, message: &str) -> Result<Version, VersionError> {
        if message.trim().is_empty() {
            return Err(VersionError::NotFound("a commit needs a message".into()));
        }
        let folder = self.root().join(&self.dir);
        let filetree = folder.join(format!("{}.package", package.name)).is_dir();
        let format = if filetree { Format::FileTree } else { Format::Tonel };
        let written = save_package(&folder, package, &format)?;
        let relative = written.strip_prefix(self.root()).map(Path::to_path_buf).unwrap_or(written);
        let spec = relative.display().to_string();
        let mut index = self.repo.index().map_err(|e| self.error(&e))?;
        index.add_all([spec.as_str()], IndexAddOption::DEFAULT, None).map_err(|e| self.error(&e))?;
        index.update_all([spec.as_str()], None).map_err(|e| self.error(&e))?;
        index.write().map_err(|e| self.error(&e))?;
        let tree = self.repo.find_tree(index.write_tree().map_err(|e| self.error(&e))?).map_err(|e| self.error(&e))?;
        let signature = self
            .repo
            .signature()
            .or_else(|_| Signature::now(author, &format!("{author}@localhost")))
            .map_err(|e| self.error(&e))?;
        let parent = self.repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let oid = self
            .repo
            .commit(Some("HEAD"), &signature, &signature, message, &tree, &parents)
            .map_err(|e| self.error(&e))?;
        self.versions(&package.name)?
            .into_iter()
            .find(|v| v.id == oid_text(oid))
            .ok_or_else(|| VersionError::NotFound(format!("the commit {oid} changed nothing of {}", package.name)))
    }

    /// The nearest commit both `a` and `b` come from.
    pub fn merge_base(&self, a: &str, b: &str) -> Option<String> {
        let oid = |id: &str| self.repo.revparse_single(id).ok()?.peel_to_commit().ok().map(|c| c.id());
        self.repo.merge_base(oid(a)?, oid(b)?).ok().map(oid_text)
    }
}

fn oid_text(oid: Oid) -> String {
    oid.to_string()
}

/// A commit's time as `2026-12-04 17:25 UTC`.
fn time_text(secs: i64) -> String {
    let secs = secs.max(0) as u64;
    let (year, month, day) = civil_from_days(secs / 86_400);
    format!("{year}-{month:02}-{day:02} {:02}:{:02} UTC", secs / 3600 % 24, secs / 60 % 60)
}
