//! The whole pipeline in this process, with its HTTP endpoint, for tests that read what a running
//! factgate serves (/metrics, /readyz, decisions).

use factgate::config::Config;
use factgate::pipeline::{self, PipelineError, Role};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, timeout};

/// A loopback port free right now (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Every role running with `config`, serving HTTP on `config.http.listen`.
pub struct Running {
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), PipelineError>>,
}

/// Starts every role with the HTTP endpoint and waits until the endpoint answers.
pub async fn start(config: Config, client: &reqwest::Client) -> Running {
    let base = format!("http://{}", config.http.listen);
    let (stop, stopped) = oneshot::channel::<()>();
    let (started_tx, started_rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        pipeline::run(
            config,
            &Role::ALL,
            true,
            async move {
                let _ = stopped.await;
            },
            move |_| {
                let _ = started_tx.send(());
            },
        )
        .await
    });
    timeout(Duration::from_secs(30), started_rx)
        .await
        .expect("the pipeline starts in time")
        .expect("the pipeline started rather than failing");
    // The endpoint binds as the pipeline starts; give it a moment rather than race it.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        match client.get(format!("{base}/healthz")).send().await {
            Ok(_) => break,
            Err(_) if Instant::now() < until => sleep(Duration::from_millis(100)).await,
            Err(err) => panic!("the HTTP endpoint never answered: {err}"),
        }
    }
    Running { stop, task }
}

impl Running {
    /// Stops the roles through their shutdown future; they must end cleanly.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        timeout(Duration::from_secs(30), self.task)
            .await
            .expect("the pipeline stops in time")
            .expect("the pipeline task did not panic")
            .expect("the pipeline stopped without an error");
    }
}

/// An HTTP client for loopback with a bounded wait per request.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("HTTP client")
}
