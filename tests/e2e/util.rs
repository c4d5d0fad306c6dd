//! What the end-to-end tests share: where the `onyx` binary they start is. The binary is
//! `onyx-cli`'s, which `cargo test --workspace` builds (that package's own tests need it)
//! into the same target folder as these tests, before any test runs.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The `onyx` binary next to this test binary's folder (`target/<profile>/onyx`).
pub fn onyx() -> &'static Path {
    static ONYX: OnceLock<PathBuf> = OnceLock::new();
    ONYX.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        // target/<profile>/deps/e2e-<hash> → target/<profile>/onyx
        let profile = exe.parent().and_then(Path::parent).unwrap_or(Path::new("."));
        let onyx = profile.join(format!("onyx{}", std::env::consts::EXE_SUFFIX));
        assert!(
            onyx.is_file(),
            "{} is missing: build it with cargo build -p onyx-cli (or cargo test --workspace)",
            onyx.display()
        );
        onyx
    })
}
