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

/// Starts tansu (in-memory storage) on a free loopback port it also advertises, with its logs in
/// `dir`, and waits until it accepts connections; returns it with its port.
pub async fn start_broker(dir: &std::path::Path) -> (super::process::Guarded, u16) {
    let port = super::pipeline::free_port();
    let url = format!("tcp://127.0.0.1:{port}");
    let mut broker = super::process::Guarded::spawn(
        "tansu",
        tokio::process::Command::new(tansu_binary())
            .args(["broker", "--cluster-id", "factgate-it"])
            .args(["--listener-url", &url, "--advertised-listener-url", &url])
            .args(["--storage-engine", "memory://tansu/"]),
        dir,
    );
    let until = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        broker.assert_running();
        assert!(
            tokio::time::Instant::now() < until,
            "tansu did not accept connections on 127.0.0.1:{port} within 30 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    (broker, port)
}
