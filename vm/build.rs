//! Embeds the kernel packages (`assets/kernel/*/*.st`) into the crate.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/kernel");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    if let Ok(dirs) = std::fs::read_dir(&root) {
        for dir in dirs.flatten() {
            let path = dir.path();
            println!("cargo:rerun-if-changed={}", path.display());
            if let Ok(entries) = std::fs::read_dir(&path) {
                for f in entries.flatten() {
                    let p = f.path();
                    if p.extension().is_some_and(|e| e == "st") {
                        files.push(p);
                    }
                }
            }
        }
    }
    files.sort();
    let mut out = String::from(
        "/// The kernel's files: (path relative to the kernel root, text).\npub static KERNEL: &[(&str, &str)] = &[\n",
    );
    for p in &files {
        let rel = p.strip_prefix(&root).unwrap_or(p);
        let _ = writeln!(out, "    ({:?}, include_str!({:?})),", rel.display().to_string(), p.display().to_string());
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("kernel_files.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        panic!("cannot write {}: {e}", dest.display());
    }
}
