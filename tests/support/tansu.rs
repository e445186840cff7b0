//! Finding tansu, the independent Kafka-protocol broker of the end-to-end tests.

use std::path::PathBuf;
use std::process::Stdio;

/// The tansu binary: `$FACTGATE_E2E_TANSU`, `tansu` on PATH, or cargo's install directory. The
/// tests that need it fail, never skip, without it.
pub fn tansu_binary() -> PathBuf {
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("FACTGATE_E2E_TANSU") {
        candidates.push(PathBuf::from(path));
    }
    candidates.push(PathBuf::from("tansu"));
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        candidates.push(PathBuf::from(home).join("bin/tansu"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(PathBuf::from(home).join(".cargo/bin/tansu"));
    }
    candidates
        .into_iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .unwrap_or_else(|| {
            panic!(
                "tansu is not installed: run `cargo install tansu --features dynostore` (the \
                 install step of .ci/test.sh does it), or set FACTGATE_E2E_TANSU"
            )
        })
}
