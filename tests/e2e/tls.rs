//! TLS: a stone and a gem serving over TLS (the test certificate in `tests/tls/`, for
//! localhost and 127.0.0.1, is signed by the test authority `ca.pem`), reached by a gem and
//! by the command line that trust the authority through `ONYX_TLS_CA`, and refused to
//! clients that do not speak TLS.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A server process, killed when dropped.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The server certificate, its key, and the authority that signed it.
fn certs() -> (String, String, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tls");
    let path = |f: &str| dir.join(f).display().to_string();
    (path("cert.pem"), path("key.pem"), path("ca.pem"))
}

/// Starts `onyx ARGS` with TLS and the test certificate trusted; answers it and the last
/// word of its first line (the address it serves on).
fn serve(args: &[&str]) -> (Serving, String) {
    let (cert, key, ca) = certs();
    let mut child = Command::new(onyx_tests::onyx())
        .args(args)
        .args(["--listen", "127.0.0.1:0", "--tls-cert", &cert, "--tls-key", &key])
        .env("ONYX_TLS_CA", &ca)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("onyx starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).expect("a first line");
    let addr = line.trim().rsplit(' ').next().unwrap_or_default().to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{line:?}");
    (Serving(child), addr)
}

fn eval(gem: &str, ca: Option<&str>) -> (bool, String) {
    let mut command = Command::new(onyx_tests::onyx());
    command.args(["eval", "3 + 4", "--gem", gem]).env_remove("ONYX_TLS_CA");
    if let Some(ca) = ca {
        command.env("ONYX_TLS_CA", ca);
    }
    let out = command.output().expect("onyx runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[test]
fn a_stone_and_a_gem_serve_over_tls_to_clients_that_trust_them() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let init = Command::new(onyx_tests::onyx()).arg("init").arg(&repo).output().expect("onyx init runs");
    assert!(init.status.success());
    let (_stone, stone) = serve(&["stone", &repo.display().to_string()]);
    let (_gem, gem) = serve(&["gem", "--stone", &format!("https://{stone}")]);
    let (_, _, ca) = certs();
    let (ok, out) = eval(&format!("https://{gem}"), Some(&ca));
    assert!(ok && out.trim() == "7", "{out}");
    let (ok, out) = eval(&format!("https://{gem}"), None);
    assert!(!ok && out.contains("ONYX_TLS_CA"), "{out}");
    let (ok, _) = eval(&gem, None);
    assert!(!ok, "a plain connection to a TLS agent is refused");
}

#[test]
fn half_or_missing_tls_files_are_clear_errors() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let repo = dir.path().join("repo");
    let init = Command::new(onyx_tests::onyx()).arg("init").arg(&repo).output().expect("onyx init runs");
    assert!(init.status.success());
    let (cert, _, _) = certs();
    let missing = dir.path().join("nowhere.pem").display().to_string();
    let repo = repo.display().to_string();
    for (extra, expected) in [
        (vec!["--tls-cert", cert.as_str()], "both"),
        (vec!["--tls-cert", missing.as_str(), "--tls-key", missing.as_str()], "cannot read the TLS certificate"),
        (vec!["--tls-cert", cert.as_str(), "--tls-key", cert.as_str()], ""),
    ] {
        let out = Command::new(onyx_tests::onyx())
            .args(["stone", &repo, "--listen", "127.0.0.1:0"])
            .args(&extra)
            .stdout(Stdio::null())
            .output()
            .expect("onyx runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(expected) && !err.contains("panicked"), "{extra:?}: {err}");
    }
}
