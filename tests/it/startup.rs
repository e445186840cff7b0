//! `factgate run` starting against brokers that are not there: it says where it is connecting,
//! answers `/healthz` (and `/readyz`: not ready) while it waits, and gives up within
//! `kafka.connect_timeout_ms` with the brokers' own error, as an operator watching a rollout
//! needs.
//!
//! Everything listens on, and connects to, 127.0.0.1 only.

use std::process::Stdio;
use std::time::Duration;

use crate::support::pipeline::{free_port, http_client};
use tokio::process::Command;
use tokio::time::{Instant, sleep, timeout};

/// How long the run waits for the brokers here.
const CONNECT_TIMEOUT_MS: u64 = 4_000;

#[tokio::test]
async fn run_without_its_brokers_serves_healthz_while_it_waits_then_fails_with_their_error() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Bound, then released: nothing listens there.
    let broker_port = free_port();
    // The admin listener, where the probes are.
    let http_port = free_port();
    let api_port = free_port();
    let config = dir.path().join("factgate.toml");
    std::fs::write(
        &config,
        format!(
            "[kafka]\nbootstrap_servers = \"127.0.0.1:{broker_port}\"\n\
             connect_timeout_ms = {CONNECT_TIMEOUT_MS}\n\n\
             [http]\nlisten = \"127.0.0.1:{api_port}\"\nadmin_listen = \"127.0.0.1:{http_port}\"\n\n[log]\nlevel = \"info\"\n"
        ),
    )
    .expect("writing the config");
    let stderr_path = dir.path().join("stderr");
    let mut command = Command::new(env!("CARGO_BIN_EXE_factgate"));
    command
        .args(["run", "--config"])
        .arg(&config)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).expect("a log file"))
        .kill_on_drop(true);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FACTGATE_") || key == "RUST_LOG" {
            command.env_remove(key);
        }
    }
    let started = Instant::now();
    let mut child = command.spawn().expect("factgate starts");

    // The probes answer while the brokers are being tried.
    let client = http_client();
    let base = format!("http://127.0.0.1:{http_port}");
    let healthy = loop {
        if let Ok(response) = client.get(format!("{base}/healthz")).send().await {
            break response.status();
        }
        assert!(
            child.try_wait().expect("polling the child").is_none(),
            "factgate exited before /healthz answered: {}",
            std::fs::read_to_string(&stderr_path).unwrap_or_default()
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "/healthz never answered while the brokers were tried"
        );
        sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(healthy, 200);
    let ready = client
        .get(format!("{base}/readyz"))
        .send()
        .await
        .expect("/readyz answers while waiting");
    assert_eq!(ready.status(), 503);
    let missing = ready.text().await.unwrap_or_default();
    assert!(missing.contains("broker not reachable"), "{missing}");

    // Then it gives up, with the brokers' error.
    let status = timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("factgate gives up on its brokers")
        .expect("waiting for factgate");
    assert!(!status.success(), "{status}");
    let stderr = std::fs::read_to_string(&stderr_path).expect("reading its log");
    let address = format!("127.0.0.1:{broker_port}");
    let connecting = stderr
        .lines()
        .find(|l| l.contains("connecting to Kafka"))
        .unwrap_or_else(|| panic!("no line says where it connects:\n{stderr}"));
    assert!(connecting.contains(&address), "{connecting}");
    let last = stderr.lines().last().unwrap_or_default();
    for wanted in [
        address.as_str(),
        "kafka.connect_timeout_ms",
        "Connection refused",
    ] {
        assert!(
            stderr.contains(wanted) && last.contains(wanted),
            "the final error lacks {wanted:?}:\n{stderr}"
        );
    }
}

/// A listener whose address is taken: `factgate run` exits at once, naming the listener's key
/// and its address beside the system's reason, for each of the two listeners.
#[tokio::test]
async fn a_listener_that_cannot_bind_is_named_with_its_address() {
    // Held for the whole test: the address factgate is told to listen on is taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to occupy");
    let taken_port = taken.local_addr().expect("its address").port();
    for key in ["listen", "admin_listen"] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let other = free_port();
        let (listen, admin) = if key == "listen" {
            (taken_port, other)
        } else {
            (other, taken_port)
        };
        let config = dir.path().join("factgate.toml");
        std::fs::write(
            &config,
            format!(
                "[http]\nlisten = \"127.0.0.1:{listen}\"\nadmin_listen = \"127.0.0.1:{admin}\"\n"
            ),
        )
        .expect("writing the config");
        let mut command = Command::new(env!("CARGO_BIN_EXE_factgate"));
        command
            .args(["run", "--config"])
            .arg(&config)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .kill_on_drop(true);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("FACTGATE_") || name == "RUST_LOG" {
                command.env_remove(name);
            }
        }
        let output = timeout(Duration::from_secs(60), command.output())
            .await
            .expect("factgate exits when it cannot listen")
            .expect("factgate runs");
        assert!(!output.status.success(), "{key}: {}", output.status);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let address = format!("127.0.0.1:{taken_port}");
        for wanted in [format!("http.{key} "), address, "in use".to_owned()] {
            assert!(
                stderr.contains(&wanted),
                "{key}: the error lacks {wanted:?}:\n{stderr}"
            );
        }
    }
    drop(taken);
}
