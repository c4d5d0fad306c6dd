//! `onyx diff`: two states of packages on disk (Tonel or FileTree), compared definition by
//! definition.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, anyhow};
use onyx_vm::source::diff::{ChangeKind, diff as compare};
use onyx_vm::source::{Package, read_packages};

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
