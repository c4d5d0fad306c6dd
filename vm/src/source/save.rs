//! Saving a package into a folder, in Tonel, FileTree or as a new Monticello version, keeping
//! what the files already there say and the image does not know: the Tonel version the
//! folder is written in and how each class's category is spelled, FileTree's comment stamps,
//! and the stamps of methods that did not change since the newest Monticello version.

use std::path::{Path, PathBuf};

use super::model::{Package, SourceError, Version};
use super::monticello::{self, VersionInfo};
use super::{filetree, tonel};

/// How a package is saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// A Tonel folder `dir/Pkg/`.
    Tonel,
    /// A FileTree folder `dir/Pkg.package/`.
    FileTree,
    /// A new Monticello version `dir/Pkg-author.N.mcz`.
    Mcz {
        /// The author's initials.
        author: String,
        /// The version's message.
        message: String,
        /// The ids of the versions there it is made from (two for a merge); none: the newest
        /// version there.
        ancestors: Vec<String>,
    },
}

fn io(path: &Path, e: std::io::Error) -> SourceError {
    SourceError::whole(path, format!("cannot write: {e}"))
}

/// Refuses `path` unless it stays inside `dir` however symbolic links on the way resolve:
/// the nearest part of it that exists (the file, or the folder it goes in) must lie in `dir`.
/// A save writes only where it was asked to, never through a link to elsewhere.
fn inside(dir: &Path, path: &Path) -> Result<(), SourceError> {
    let root = dir.canonicalize().map_err(|e| io(dir, e))?;
    let existing = path.ancestors().find(|p| p.symlink_metadata().is_ok()).unwrap_or(dir);
    // A link that leads nowhere resolves to nothing: refused as well.
    let real = existing.canonicalize().map_err(|e| io(existing, e))?;
    if real.starts_with(&root) {
        return Ok(());
    }
    Err(SourceError::whole(
        path,
        format!("cannot write: {} leads to {}, outside {}", existing.display(), real.display(), root.display()),
    ))
}

/// Writes `text` to `path` inside `dir`, making its folder: into a new file beside it, then
/// renamed over it, so that a link at `path` is replaced, never written through, and the
/// file is never left half written.
fn write(dir: &Path, path: &Path, text: &[u8]) -> Result<(), SourceError> {
    use std::io::Write as _;
    inside(dir, path)?;
    let parent = path.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    inside(dir, parent)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = parent.join(format!(".{name}.{}.saving", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| f.write_all(text).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io(path, e));
    }
    Ok(())
}

/// Takes over from `old` (the same package as files held it) what files keep and an image
/// does not.
fn carry_over(package: &mut Package, old: &Package) {
    package.version = old.version;
    for class in &mut package.classes {
        if let Some(was) = old.classes.iter().find(|c| c.name == class.name) {
            class.category_spelling = was.category_spelling;
            class.comment_stamp.clone_from(&was.comment_stamp);
            if was.category == class.category {
                class.package.clone_from(&was.package);
                class.tag.clone_from(&was.tag);
            }
        }
    }
    for method in &mut package.methods {
        let was = old.methods.iter().find(|m| {
            m.class_name == method.class_name && m.class_side == method.class_side && m.selector == method.selector
        });
        if let Some(was) = was.filter(|m| m.source == method.source && m.category == method.category) {
            method.stamp.clone_from(&was.stamp);
        }
    }
}

/// Saves `package` into `dir` as `format`; answers the file or folder written.
pub fn save(dir: &Path, package: &Package, format: &Format) -> Result<PathBuf, SourceError> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut package = package.clone();
    match format {
        Format::Tonel => {
            // The version the folder's `.properties` names; else the package's files show;
            // else v1 where a `.properties` names none (as Tonel's first writers left it);
            // else v3.
            let folder = dir.join(&package.name);
            if folder.join("package.st").is_file() {
                carry_over(&mut package, &tonel::read_package(&folder)?);
            } else if dir.join(".properties").is_file() {
                package.version = Version::V1;
            } else {
                package.version = Version::default();
            }
            if let Some(version) = tonel::read_properties(dir)? {
                package.version = version;
            }
            let files = tonel::package_files(&package, package.version);
            inside(dir, &folder)?;
            for (name, _) in &files {
                inside(dir, &folder.join(name))?;
            }
            // Files of classes the package no longer holds go.
            if let Ok(entries) = std::fs::read_dir(&folder) {
                for entry in entries.flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if name.ends_with(".st") && !files.iter().any(|(f, _)| *f == name) {
                        std::fs::remove_file(entry.path()).map_err(|e| io(&entry.path(), e))?;
                    }
                }
            }
            for (name, text) in files {
                write(dir, &folder.join(name), text.as_bytes())?;
            }
            Ok(folder)
        }
        Format::FileTree => {
            let folder = dir.join(format!("{}.package", package.name));
            inside(dir, &folder)?;
            if folder.is_dir() {
                carry_over(&mut package, &filetree::read_package(&folder)?);
                std::fs::remove_dir_all(&folder).map_err(|e| io(&folder, e))?;
            }
            for (path, text) in filetree::package_files(&package) {
                write(dir, &folder.join(path), text.as_bytes())?;
            }
            Ok(folder)
        }
        Format::Mcz { author, message, ancestors } => {
            let newest = newest_version(dir, &package.name)?;
            let number = newest.as_ref().map_or(1, |(n, _)| n + 1);
            if let Some((_, path)) = &newest {
                carry_over(&mut package, &monticello::read(path)?.package);
            }
            let ancestors = if ancestors.is_empty() {
                newest.iter().map(|(_, path)| monticello::read_info(path)).collect::<Result<Vec<_>, _>>()?
            } else {
                let infos = versions_in(dir, &package.name)?;
                let mut found = Vec::new();
                for id in ancestors {
                    let info = infos.iter().find(|i| i.id == *id || i.name == *id);
                    found.push(info.cloned().ok_or_else(|| SourceError::whole(dir, format!("no version {id} here")))?);
                }
                found
            };
            let stamp = stamp(author);
            for method in package.methods.iter_mut().filter(|m| m.stamp.is_empty()) {
                method.stamp.clone_from(&stamp);
            }
            let name = format!("{}-{author}.{number}", package.name);
            let info = VersionInfo::new(&name, author, message, ancestors);
            let path = dir.join(monticello::file_name(&info));
            let bytes = monticello::write(&package, &info).map_err(|e| io(&path, e))?;
            write(dir, &path, &bytes)?;
            Ok(path)
        }
    }
}

/// The versions of `package` in `dir` (`Pkg-author.N.mcz`), as (number, file), newest first.
pub fn version_files(dir: &Path, package: &str) -> Vec<(u64, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_suffix(".mcz").and_then(|n| n.strip_prefix(package)) else { continue };
        let Some((author, number)) = rest.strip_prefix('-').and_then(|r| r.rsplit_once('.')) else { continue };
        let Ok(number) = number.parse::<u64>() else { continue };
        if !author.is_empty() && !author.contains(['.', '-']) {
            files.push((number, entry.path()));
        }
    }
    files.sort_by(|a, b| b.cmp(a));
    files
}

/// The newest version of `package` in `dir`, as (number, file).
pub fn newest_version(dir: &Path, package: &str) -> Result<Option<(u64, PathBuf)>, SourceError> {
    Ok(version_files(dir, package).into_iter().next())
}

/// The infos of the versions of `package` in `dir`, newest first.
pub fn versions_in(dir: &Path, package: &str) -> Result<Vec<VersionInfo>, SourceError> {
    version_files(dir, package).iter().map(|(_, path)| monticello::read_info(path)).collect()
}

/// A method's stamp as Squeak writes it: `ab 12/4/2026 16:34` (UTC).
fn stamp(author: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (year, month, day) = monticello::civil_from_days(secs / 86_400);
    format!("{author} {month}/{day}/{year} {:02}:{:02}", secs / 3600 % 24, secs / 60 % 60)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn package() -> Package {
        let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/kernel/Kernel-Announcements");
        super::super::read_packages(&kernel).unwrap().remove(0)
    }

    #[test]
    fn a_save_never_writes_through_a_link_out_of_its_folder() {
        let (into, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let package = package();
        let outside = elsewhere.path().join("precious.st");
        std::fs::write(&outside, "mine").unwrap();
        // A class file linked to a file elsewhere.
        let folder = into.path().join(&package.name);
        std::fs::create_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(&outside, folder.join("Announcer.class.st")).unwrap();
        let e = save(into.path(), &package, &Format::Tonel).unwrap_err().to_string();
        assert!(e.contains("outside"), "{e}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
        assert!(!folder.join("package.st").exists(), "nothing is written when one file would leave the folder");
        // A package folder linked to a folder elsewhere, in each format's name.
        std::fs::remove_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &folder).unwrap();
        assert!(save(into.path(), &package, &Format::Tonel).unwrap_err().to_string().contains("outside"));
        let filetree = into.path().join(format!("{}.package", package.name));
        std::os::unix::fs::symlink(elsewhere.path(), &filetree).unwrap();
        assert!(save(into.path(), &package, &Format::FileTree).unwrap_err().to_string().contains("outside"));
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 1, "nothing was written elsewhere");
        // Links that stay inside the folder are followed, and a save writes its files whole.
        std::fs::remove_file(&folder).unwrap();
        let real = into.path().join("real");
        std::fs::create_dir_all(&real).unwrap();
        std::os::unix::fs::symlink(&real, &folder).unwrap();
        save(into.path(), &package, &Format::Tonel).unwrap();
        assert!(real.join("Announcer.class.st").is_file());
        let left: Vec<_> = std::fs::read_dir(&real).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(left.iter().all(|n| !n.to_string_lossy().ends_with(".saving")), "{left:?}");
    }
}
