//! Repository hygiene, and the boundaries between the crates (see ARCHITECTURE.md): every Rust
//! file opens with a `//!` doc comment saying what it owns and stays under 800 lines; the VM
//! does not depend on the database; the IDE's library uses no crate of the workspace but the
//! protocol; only the command line uses `anyhow`; the store knows nothing of RPC or Smalltalk;
//! nothing below the agent's gRPC layer knows protobuf.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn files_under(dir: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&root().join(dir), &mut files);
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn every_rust_file_has_a_module_doc_and_a_reasonable_size() {
    let files = files_under(".");
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut problems = Vec::new();
    for f in &files {
        let text = read(f);
        if !text.trim_start().starts_with("//!") {
            problems.push(format!("{}: does not start with a //! doc comment", f.display()));
        }
        let lines = text.lines().count();
        if lines >= 800 {
            problems.push(format!("{}: {lines} lines (keep files under 800)", f.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The dependencies a workspace member's manifest lists as normal ones (not dev or build
/// dependencies): each name, and the member's folder if it is a workspace path dependency.
fn normal_dependencies(member: &str) -> BTreeMap<String, Option<String>> {
    let manifest = read(&root().join(member).join("Cargo.toml"));
    let mut deps = BTreeMap::new();
    let mut in_normal = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_normal = line == "[dependencies]" || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        if !in_normal || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default().to_string();
        let path = line.split("path = \"../").nth(1).and_then(|p| p.split('"').next()).map(str::to_string);
        deps.insert(name, path);
    }
    deps
}

/// Every crate a member depends on, directly or through other members, as normal dependencies.
fn dependency_closure(member: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![member.to_string()];
    while let Some(m) = todo.pop() {
        for (name, path) in normal_dependencies(&m) {
            if seen.insert(name) {
                todo.extend(path);
            }
        }
    }
    seen
}

#[test]
fn the_vm_knows_no_database_rpc_or_ui() {
    let deps = dependency_closure("vm");
    assert!(deps.contains("onyx-record"), "the VM shares records through onyx-record: {deps:?}");
    for banned in ["redb", "onyx-store", "tonic", "prost", "onyx-protocol", "eframe", "egui_tiles"] {
        assert!(!deps.contains(banned), "the VM depends on {banned}: {deps:?}");
    }
}

#[test]
fn the_store_knows_no_rpc_or_smalltalk_and_records_nothing_else() {
    let store = dependency_closure("store");
    for banned in ["tonic", "prost", "onyx-protocol", "onyx-vm"] {
        assert!(!store.contains(banned), "the store depends on {banned}: {store:?}");
    }
    let record = dependency_closure("record");
    assert_eq!(record, BTreeSet::from(["thiserror".to_string()]), "onyx-record depends on more than it needs");
    let protocol = dependency_closure("protocol");
    for banned in ["onyx-vm", "onyx-store", "onyx-server-agent", "redb"] {
        assert!(!protocol.contains(banned), "the protocol depends on {banned}: {protocol:?}");
    }
}

/// The workspace crates (as Rust names) a source file refers to.
fn workspace_crates_used(text: &str) -> BTreeSet<String> {
    let crates =
        ["onyx_record", "onyx_vm", "onyx_store", "onyx_stone", "onyx_protocol", "onyx_server_agent", "onyx_ide"];
    crates.iter().filter(|c| text.contains(&format!("{c}::"))).map(|c| c.to_string()).collect()
}

#[test]
fn the_ide_library_speaks_only_the_protocol() {
    let mut problems = Vec::new();
    for f in files_under("ide/src") {
        if f.file_name().is_some_and(|n| n == "main.rs") {
            continue;
        }
        let used = workspace_crates_used(&read(&f));
        for c in used.iter().filter(|c| *c != "onyx_protocol") {
            problems.push(format!("{}: uses {c}", f.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn only_the_command_line_uses_anyhow() {
    let mut problems = Vec::new();
    for f in files_under(".") {
        let in_cli = f.strip_prefix(root()).is_ok_and(|p| p.starts_with("cli"));
        if !in_cli && read(&f).contains("anyhow") && !f.ends_with("tests/e2e/tidy.rs") {
            problems.push(format!("{}: uses anyhow", f.display()));
        }
    }
    for member in ["record", "vm", "store", "stone", "protocol", "server-agent", "ide", "tests"] {
        let manifest = read(&root().join(member).join("Cargo.toml"));
        if manifest.contains("anyhow") {
            problems.push(format!("{member}/Cargo.toml: depends on anyhow"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn below_the_agents_grpc_layer_nothing_knows_protobuf() {
    let mut problems = Vec::new();
    for dir in ["server-agent/src/ops", "server-agent/src/vm_thread"] {
        for f in files_under(dir) {
            if workspace_crates_used(&read(&f)).contains("onyx_protocol") || read(&f).contains("tonic::") {
                problems.push(format!("{}: knows the protocol", f.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
