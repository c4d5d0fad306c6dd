//! Tests of the version repositories: a folder of `.mcz` files and a git repository.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use onyx_vm::source::diff::diff;
use onyx_vm::source::tonel::parse_class_file;

use super::*;

fn shop(total: &str) -> Package {
    let text = format!(
        "Class {{\n\t#name : #Shop,\n\t#superclass : #Object,\n\t#category : #Shop\n}}\n\n{{ #category : #accessing }}\nShop >> total [\n\t^ {total}\n]\n"
    );
    let (class, methods) = parse_class_file(Path::new("Shop/Shop.class.st"), &text).unwrap();
    Package { name: "Shop".into(), classes: class.into_iter().collect(), methods, ..Package::default() }
}

fn names(versions: &[Version]) -> Vec<&str> {
    versions.iter().map(|v| v.name.as_str()).collect()
}

#[test]
fn a_folder_of_monticello_versions() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::open(dir.path()).unwrap();
    assert!(matches!(repo, Repository::Monticello(_)));
    let first = repo.save(&shop("1"), "ab", "first", &[]).unwrap();
    assert_eq!((first.name.as_str(), first.ancestors.len()), ("Shop-ab.1", 0));
    let second = repo.save(&shop("2"), "ab", "second", &[]).unwrap();
    assert_eq!(second.ancestors, vec![first.id.clone()]);
    // A branch from the first version.
    let branch = repo.save(&shop("3"), "cd", "branch", std::slice::from_ref(&first.id)).unwrap();
    assert_eq!((branch.name.as_str(), branch.ancestors.clone()), ("Shop-cd.3", vec![first.id.clone()]));
    let versions = repo.versions("Shop").unwrap();
    assert_eq!(names(&versions), ["Shop-cd.3", "Shop-ab.2", "Shop-ab.1"]);
    assert_eq!(versions[1].message, "second");
    assert_eq!(repo.packages().unwrap(), ["Shop"]);
    assert_eq!(repo.common_ancestor("Shop", &second.id, &branch.id).unwrap(), Some(first.id.clone()));
    assert_eq!(diff(&shop("1"), &repo.read("Shop", &first.id).unwrap()), vec![]);
    assert_eq!(diff(&shop("2"), &repo.read("Shop", "Shop-ab.2").unwrap()), vec![]);
    assert!(matches!(repo.read("Shop", "nope"), Err(VersionError::NotFound(_))));
    // A merge names both.
    let merged = repo.save(&shop("5"), "ab", "merged", &[second.id.clone(), branch.id.clone()]).unwrap();
    assert_eq!(merged.ancestors, vec![second.id, branch.id]);
}

#[test]
fn a_git_repository_of_tonel_packages() {
    let dir = tempfile::tempdir().unwrap();
    let git = git2::Repository::init(dir.path()).unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let repo = Repository::open(&dir.path().join("src")).unwrap();
    assert!(matches!(repo, Repository::Git(_)));
    assert!(repo.versions("Shop").unwrap().is_empty());
    let first = repo.save(&shop("1"), "ab", "First version", &[]).unwrap();
    assert_eq!((first.message.as_str(), first.ancestors.len()), ("First version", 0));
    assert!(dir.path().join("src/Shop/Shop.class.st").is_file());
    // A commit that leaves the package alone is not one of its versions.
    std::fs::write(dir.path().join("README.md"), "hello").unwrap();
    let mut index = git.index().unwrap();
    index.add_path(Path::new("README.md")).unwrap();
    index.write().unwrap();
    let tree = git.find_tree(index.write_tree().unwrap()).unwrap();
    let head = git.head().unwrap().peel_to_commit().unwrap();
    let sig = git2::Signature::now("x", "x@localhost").unwrap();
    git.commit(Some("HEAD"), &sig, &sig, "docs", &tree, &[&head]).unwrap();
    let second = repo.save(&shop("2"), "ab", "Second", &[]).unwrap();
    let versions = repo.versions("Shop").unwrap();
    assert_eq!(versions.iter().map(|v| v.message.as_str()).collect::<Vec<_>>(), ["Second", "First version"]);
    assert_eq!(versions[0].id, second.id);
    assert_eq!(repo.packages().unwrap(), ["Shop"]);
    // Each version read from history, whatever the work tree holds.
    std::fs::remove_dir_all(dir.path().join("src/Shop")).unwrap();
    let read = repo.read("Shop", &first.id).unwrap();
    assert_eq!(diff(&shop("1"), &read), vec![]);
    assert!(read.methods[0].file.starts_with(format!("src/Shop@{}", &first.id[..8])), "{:?}", read.methods[0].file);
    assert_eq!(diff(&shop("2"), &repo.read("Shop", "HEAD").unwrap()), vec![]);
    assert_eq!(repo.common_ancestor("Shop", &first.id, &second.id).unwrap(), Some(first.id.clone()));
    assert!(matches!(repo.save(&shop("3"), "ab", " ", &[]), Err(VersionError::NotFound(_))));
    assert!(repo.read("Shop", "0123456789abcdef0123456789abcdef01234567").is_err());
}
