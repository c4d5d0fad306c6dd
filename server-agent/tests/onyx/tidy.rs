//! Repository hygiene: every Rust file opens with a `//!` doc comment saying what it owns,
//! and no file grows past the size a reader can hold in mind.

use std::path::{Path, PathBuf};

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

#[test]
fn every_rust_file_has_a_module_doc_and_a_reasonable_size() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if !text.trim_start().starts_with("//!") {
            problems.push(format!("{}: does not start with a //! doc comment", f.display()));
        }
        let lines = text.lines().count();
        if lines > 900 {
            problems.push(format!("{}: {lines} lines (keep files under about 800)", f.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
