//! Version repositories on the gem's host (`onyx_versions`), reached only by a user who may
//! change code: their packages and versions; a version loaded into the image or the image's
//! code saved as a new version; two states of a package compared (the image's code or a
//! version); and a version merged into the image's code three ways, from the versions'
//! common ancestor, with every conflict settled before anything changes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use onyx_versions::{Repository, Version, VersionError};
use onyx_vm::Vm;
use onyx_vm::source::diff::{ChangeKind, Definition, diff};
use onyx_vm::source::merge::{Resolution, merge as merge_three};
use onyx_vm::source::{Package, Record};

use super::may_change_code;
use super::packages::{LoadSummary, Loadable, Teller, load};
use super::request::{Answer, ErrorKind, Failure, Listed, Outcome};

/// A state of a package: the image's code, or a version of a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackageSide {
    /// The package as the image holds it.
    Image(String),
    /// A version (by name or id; the newest when empty) of a repository's package.
    Version {
        /// The repository's folder.
        path: PathBuf,
        /// The package.
        package: String,
        /// The version.
        version: String,
    },
}

/// A definition that differs between two states, with its texts (none where absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitionDiff {
    /// `Foo>>bar`, `Foo class>>new`, `Foo (definition)`, `Foo (comment)`.
    pub definition: String,
    /// How it differs.
    pub kind: ChangeKind,
    /// Its text in the earlier state.
    pub before: Option<String>,
    /// Its text in the later state.
    pub after: Option<String>,
}

/// A definition both sides of a merge changed differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeConflict {
    /// Which definition (as [`DefinitionDiff::definition`]).
    pub definition: String,
    /// Its text in the common ancestor, on our side (the image's code) and on theirs.
    pub base: Option<String>,
    /// Ours.
    pub ours: Option<String>,
    /// Theirs.
    pub theirs: Option<String>,
    /// Whether text edited by hand can settle it (a method or a comment).
    pub editable: bool,
}

/// How a conflict is settled, on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Take {
    /// Our side.
    Ours,
    /// Their side.
    Theirs,
    /// Text edited by hand.
    Edited(String),
}

/// A merge: what it brings in and its conflicts, and once applied what the load changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// The version the image's code was made from.
    pub ours: String,
    /// The version merged in.
    pub theirs: String,
    /// Their common ancestor.
    pub base: String,
    /// What the merge changes in the image's code, conflicts aside.
    pub incoming: Vec<DefinitionDiff>,
    /// The conflicts, in definition order.
    pub conflicts: Vec<MergeConflict>,
    /// When applied: what the load changed.
    pub loaded: Option<LoadSummary>,
}

/// A merge asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeRequest {
    /// The repository's folder.
    pub path: PathBuf,
    /// The package.
    pub package: String,
    /// The version to merge in (by name or id; the newest when empty).
    pub version: String,
    /// Resolutions, by definition.
    pub resolutions: Vec<(String, Take)>,
    /// Whether to apply it (else only to tell what it would do).
    pub apply: bool,
}

fn failure(e: VersionError) -> Failure {
    let kind = match e {
        VersionError::NotFound(_) => ErrorKind::NotFound,
        VersionError::Source(_) | VersionError::Git { .. } => ErrorKind::Invalid,
    };
    Failure::new(kind, e.to_string())
}

fn open(vm: &Vm, path: &Path) -> Result<Repository, Failure> {
    may_change_code(vm)?;
    Repository::open(path).map_err(failure)
}

/// The repository's folder as remembered with a package loaded from it.
fn place(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

/// The version `wanted` names (name, id or an id's prefix of 7 or more) among `versions`, the
/// newest when empty.
fn find(versions: Vec<Version>, package: &str, wanted: &str) -> Result<Version, Failure> {
    let found = if wanted.is_empty() {
        versions.into_iter().next()
    } else {
        versions
            .into_iter()
            .find(|v| v.name == wanted || v.id == wanted || (wanted.len() >= 7 && v.id.starts_with(wanted)))
    };
    found.ok_or_else(|| {
        let which = if wanted.is_empty() { String::new() } else { format!(" {wanted}") };
        Failure::new(ErrorKind::NotFound, format!("no version{which} of {package}"))
    })
}

/// The packages of the version repository at `path`.
pub fn packages(vm: &Vm, path: &Path) -> Outcome {
    let repository = open(vm, path)?;
    Ok(Answer::Names(Listed::whole(repository.packages().map_err(failure)?)))
}

/// The versions of `package` in the version repository at `path`, newest first.
pub fn versions(vm: &Vm, path: &Path, package: &str) -> Outcome {
    let repository = open(vm, path)?;
    Ok(Answer::Versions(Listed::whole(repository.versions(package).map_err(failure)?)))
}

/// Loads a version of a repository's package, remembered as that version.
pub fn load_version(vm: &mut Vm, path: &Path, package: &str, version: &str, teller: &mut Teller) -> Outcome {
    let repository = open(vm, path)?;
    let version = find(repository.versions(package).map_err(failure)?, package, version)?;
    let read = repository.read(package, &version.id).map_err(failure)?;
    let loadable = Loadable { package: read, version: version.name, from: place(path), ancestors: Vec::new() };
    load(vm, vec![loadable], teller)
}

/// Saves `package` as the image holds it as a new version of the repository at `path`, made
/// from the versions the image's code was made from (those the repository holds), and
/// remembers the package as that version.
pub fn save_version(
    vm: &mut Vm,
    path: &Path,
    package: &str,
    message: &str,
    author: &str,
    teller: &mut Teller,
) -> Outcome {
    let repository = open(vm, path)?;
    teller.tell(&format!("taking {package} from the image"), 0, 0);
    vm.image_classes();
    let held = vm.package_snapshot(package);
    if held.classes.is_empty() && held.methods.is_empty() {
        return Err(Failure::new(ErrorKind::NotFound, format!("no package named {package}")));
    }
    let made_from: Vec<String> =
        vm.package_states(&[package.to_string()]).into_iter().flat_map(|s| s.ancestors).collect();
    let known = repository.versions(package).map_err(failure)?;
    let ancestors: Vec<String> = made_from
        .iter()
        .filter_map(|a| known.iter().find(|v| v.name == *a || v.id == *a).map(|v| v.id.clone()))
        .collect();
    if author.is_empty() {
        return Err(Failure::new(ErrorKind::Invalid, "a version needs its author (initials for Monticello)"));
    }
    teller.tell(&format!("writing the new version of {package}"), 0, 0);
    let saved = repository.save(&held, author, message, &ancestors).map_err(failure)?;
    let record =
        Record { name: package.to_string(), version: saved.name.clone(), from: place(path), ancestors: Vec::new() };
    vm.record_packages(&[record]);
    Ok(Answer::Versions(Listed::whole(vec![saved])))
}

/// A package in the state `side` names.
fn read_side(vm: &mut Vm, side: &PackageSide) -> Result<Package, Failure> {
    match side {
        PackageSide::Image(name) => {
            may_change_code(vm)?;
            vm.image_classes();
            Ok(vm.package_snapshot(name))
        }
        PackageSide::Version { path, package, version } => {
            let repository = open(vm, path)?;
            let version = find(repository.versions(package).map_err(failure)?, package, version)?;
            repository.read(package, &version.id).map_err(failure)
        }
    }
}

fn differences(before: &Package, after: &Package) -> Vec<DefinitionDiff> {
    diff(before, after)
        .into_iter()
        .map(|c| DefinitionDiff { definition: c.key.to_string(), kind: c.kind, before: c.before, after: c.after })
        .collect()
}

/// The definitions that differ from `left` to `right`.
pub fn compare(vm: &mut Vm, left: &PackageSide, right: &PackageSide) -> Outcome {
    let (before, after) = (read_side(vm, left)?, read_side(vm, right)?);
    Ok(Answer::Changes(differences(&before, &after)))
}

/// Merges a version into the image's code of its package (see [`Merged`]).
pub fn merge(vm: &mut Vm, request: MergeRequest, teller: &mut Teller) -> Outcome {
    let MergeRequest { path, package: name, version, resolutions, apply } = request;
    let repository = open(vm, &path)?;
    let versions = repository.versions(&name).map_err(failure)?;
    let theirs_version = find(versions.clone(), &name, &version)?;
    vm.image_classes();
    let state = vm.package_states(std::slice::from_ref(&name)).into_iter().next().ok_or_else(|| {
        Failure::new(ErrorKind::NotFound, format!("the image has no version of {name} to merge into"))
    })?;
    let ours_version =
        state.ancestors.iter().find_map(|a| versions.iter().find(|v| v.name == *a || v.id == *a)).cloned().ok_or_else(
            || {
                let message = format!("the version the image's {name} was made from is not in {}", path.display());
                Failure::new(ErrorKind::NotFound, message)
            },
        )?;
    let base_id =
        repository.common_ancestor(&name, &ours_version.id, &theirs_version.id).map_err(failure)?.ok_or_else(|| {
            let message = format!("{name}: {} and {} have no common ancestor", ours_version.name, theirs_version.name);
            Failure::new(ErrorKind::Invalid, message)
        })?;
    let base_name = versions.iter().find(|v| v.id == base_id).map_or(base_id.clone(), |v| v.name.clone());
    let base = repository.read(&name, &base_id).map_err(failure)?;
    let theirs = repository.read(&name, &theirs_version.id).map_err(failure)?;
    let ours = vm.package_snapshot(&name);
    let merge = merge_three(&base, &ours, &theirs);
    // What comes in without a conflict: the merge with every conflict left as ours is.
    let as_ours: BTreeMap<_, _> = merge.conflicts.iter().map(|c| (c.key.clone(), Resolution::Ours)).collect();
    let quiet = merge.resolve(&as_ours).map_err(|e| Failure::new(ErrorKind::Invalid, e.to_string()))?;
    let text = |d: &Option<Definition>| d.as_ref().map(Definition::text);
    let mut merged = Merged {
        ours: ours_version.name.clone(),
        theirs: theirs_version.name.clone(),
        base: base_name,
        incoming: differences(&ours, &quiet),
        conflicts: merge
            .conflicts
            .iter()
            .map(|c| MergeConflict {
                definition: c.key.to_string(),
                base: text(&c.base),
                ours: text(&c.ours),
                theirs: text(&c.theirs),
                editable: c.editable(),
            })
            .collect(),
        loaded: None,
    };
    let mut settled = BTreeMap::new();
    for (definition, take) in resolutions {
        let conflict =
            merge.conflicts.iter().find(|c| c.key.to_string() == definition).ok_or_else(|| {
                Failure::new(ErrorKind::Invalid, format!("{definition} is not a conflict of this merge"))
            })?;
        let resolution = match take {
            Take::Ours => Resolution::Ours,
            Take::Theirs => Resolution::Theirs,
            Take::Edited(text) => Resolution::Edited(text),
        };
        settled.insert(conflict.key.clone(), resolution);
    }
    if !apply {
        return Ok(Answer::Merged(merged));
    }
    let result = merge.resolve(&settled).map_err(|e| Failure::new(ErrorKind::Invalid, e.to_string()))?;
    let ancestors = vec![ours_version.name, theirs_version.name];
    let loadable = Loadable { package: result, version: String::new(), from: place(&path), ancestors };
    match load(vm, vec![loadable], teller)? {
        Answer::Loaded(summary) => merged.loaded = Some(summary),
        other => return Ok(other),
    }
    Ok(Answer::Merged(merged))
}
