//! The pipeline in this process: some roles as a separate process would run them, or all of
//! them with the HTTP endpoint, for tests that read what a running factgate serves (/metrics,
//! /readyz, decisions).

use chrono::Utc;
use factgate::config::Config;
use factgate::kafka::{EventHeaders, EventProducer};
use factgate::pipeline::{self, PipelineError, Role};
use factgate_core::events::DRAFT_V1;
use rdkafka::ClientConfig;
use rdkafka::consumer::{Consumer, StreamConsumer};
use serde_json::Value;
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

/// The bearer token every request of [`http_client`] carries, and the login it belongs to: the
/// credentials [`start`] configures when a test configures none.
pub const TEST_TOKEN: &str = "factgate-test-token-0123";
/// See [`TEST_TOKEN`].
pub const TEST_EDITOR: &str = "test-editor";

/// A credentials file holding [`TEST_EDITOR`]:[`TEST_TOKEN`], written once per target directory.
pub fn credentials_file() -> String {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("factgate-test-credentials");
    if !path.exists() {
        let partial = path.with_extension(format!("{}", std::process::id()));
        std::fs::write(&partial, format!("{TEST_EDITOR}:{TEST_TOKEN}\n"))
            .expect("write credentials");
        std::fs::rename(&partial, &path).expect("credentials in place");
    }
    path.display().to_string()
}

/// Roles running in their own `pipeline::run`, as a separate process would.
pub struct Running {
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), PipelineError>>,
    /// The admin listener's base URL (`/metrics`, `/healthz`, `/readyz`), when it serves HTTP.
    pub admin: String,
}

/// Starts `roles` with `config`, without the HTTP endpoint, and waits until they run.
pub async fn start_roles(config: &Config, roles: &[Role]) -> Running {
    run(config.clone(), roles, false).await
}

/// Starts every role with the HTTP endpoints and waits until they answer. A configuration that
/// leaves the admin listener or the login at their defaults gets a free port and the test
/// credentials ([`TEST_TOKEN`]).
pub async fn start(mut config: Config, client: &reqwest::Client) -> Running {
    if config.http.admin_listen == factgate::config::DEFAULT_HTTP_ADMIN_LISTEN {
        config.http.admin_listen = std::net::SocketAddr::from(([127, 0, 0, 1], free_port()));
    }
    if config.http.auth.credentials_file.is_empty() {
        config.http.auth.credentials_file = credentials_file();
    }
    let base = format!("http://{}", config.http.admin_listen);
    let mut running = run(config, &Role::ALL, true).await;
    running.admin = base.clone();
    // The endpoint binds as the pipeline starts; give it a moment rather than race it.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        match client.get(format!("{base}/healthz")).send().await {
            Ok(_) => break,
            Err(_) if Instant::now() < until => sleep(Duration::from_millis(100)).await,
            Err(err) => panic!("the HTTP endpoint never answered: {err}"),
        }
    }
    running
}

async fn run(config: Config, roles: &[Role], serve_http: bool) -> Running {
    let (stop, stopped) = oneshot::channel::<()>();
    let (started_tx, started_rx) = oneshot::channel::<()>();
    let roles = roles.to_vec();
    let task = tokio::spawn(async move {
        pipeline::run(
            config,
            &roles,
            serve_http,
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
        .expect("the roles start in time")
        .expect("the roles started rather than failing");
    Running {
        stop,
        task,
        admin: String::new(),
    }
}

impl Running {
    /// Whether the roles have stopped (they never should before [`Running::stop`]).
    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Stops the roles through their shutdown future; they must end cleanly.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        timeout(Duration::from_secs(30), self.task)
            .await
            .expect("the roles stop in time")
            .expect("the roles' task did not panic")
            .expect("the roles stopped without an error");
    }
}

/// An HTTP client for loopback with a bounded wait per request, logged in with [`TEST_TOKEN`].
/// The HTML page at `url`, as a browser asks for it.
pub async fn html_page(client: &reqwest::Client, url: &str) -> String {
    client
        .get(url)
        .header("accept", "text/html")
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url} answers: {e}"))
        .text()
        .await
        .expect("the page's text")
}

pub fn http_client() -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        reqwest::header::HeaderValue::from_str(&format!("Bearer {TEST_TOKEN}"))
            .expect("a header value"),
    );
    reqwest::Client::builder()
        .no_proxy()
        .default_headers(headers)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("HTTP client")
}

/// A client that knows nothing of factgate, as the CMS would be, reading `topic` from the start.
pub fn outside_reader(config: &Config, topic: &str, group: &str) -> StreamConsumer {
    let reader: StreamConsumer = ClientConfig::new()
        .set(
            "bootstrap.servers",
            config.kafka.bootstrap_servers.as_deref().unwrap_or(""),
        )
        .set("group.id", group)
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "6000")
        .create()
        .expect("outside consumer");
    reader.subscribe(&[topic]).expect("subscribe");
    reader
}

/// A configuration for the pipeline on the mock cluster at `bootstrap`: fetching allowed from
/// 127.0.0.1 only (the test's origin), three partitions, and `extra` TOML on top.
pub fn mock_cluster_config(bootstrap: &str, extra: &str) -> Config {
    let mut config = Config::from_toml_str(&format!(
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n{extra}"
    ))
    .expect("test configuration is valid");
    config.kafka.bootstrap_servers = Some(bootstrap.to_owned());
    config.kafka.partitions = 3;
    // The mock cluster keeps a group that its last member left "rebalancing" for the session
    // timeout less a second before it admits a new member; the default 45 s would make a
    // restarted role wait that long.
    config
        .kafka
        .properties
        .insert("session.timeout.ms".into(), "6000".into());
    config
}

/// A demo draft template (`examples/demo/drafts/…`) made concrete: published now, citing
/// `origin`, under `article_id`.
pub fn demo_draft(template: &str, article_id: &str, origin: &str) -> Vec<u8> {
    let text = template
        .replace("{{published_at}}", &Utc::now().to_rfc3339())
        .replace("{{origin}}", origin);
    let mut value: Value = serde_json::from_str(&text).expect("draft template is JSON");
    value["article_id"] = Value::from(article_id);
    serde_json::to_vec(&value).expect("serializes")
}

/// Publishes `payload` on the drafts topic under `key` with `headers`, as the CMS would, and
/// waits for the broker's acknowledgement.
pub async fn publish_draft_with(
    producer: &EventProducer,
    config: &Config,
    key: &str,
    payload: &[u8],
    headers: &EventHeaders,
) {
    timeout(
        Duration::from_secs(60),
        producer.produce(&config.kafka.topics.drafts, key, payload, headers),
    )
    .await
    .expect("the draft is acknowledged in time")
    .expect("the draft is delivered");
}

/// [`publish_draft_with`] a new trace.
pub async fn publish_draft(producer: &EventProducer, config: &Config, key: &str, payload: &[u8]) {
    let headers = EventHeaders::new(DRAFT_V1, None);
    publish_draft_with(producer, config, key, payload, &headers).await;
}

/// Waits until the HTTP endpoint at `base` has a decision for `article_id`; returns it.
pub async fn decided(
    client: &reqwest::Client,
    base: &str,
    article_id: &str,
    until: Instant,
) -> Value {
    loop {
        let response = client
            .get(format!("{base}/v1/decisions/{article_id}"))
            .send()
            .await;
        if let Ok(response) = response
            && response.status() == 200
        {
            return response.json().await.expect("a decision is JSON");
        }
        assert!(
            Instant::now() < until,
            "{article_id} was not decided in time"
        );
        sleep(Duration::from_millis(200)).await;
    }
}

/// The whole pipeline on a new embedded broker, its API and pages on a free loopback port: what
/// the tests of the editors' pages start from.
pub struct Served {
    pub config: Config,
    /// A client logged in with the test credentials.
    pub client: reqwest::Client,
    pub running: Running,
    /// The API's and the pages' base URL.
    pub base: String,
    /// A producer on the broker, standing in for the CMS.
    pub producer: EventProducer,
}

/// Starts [`Served`].
pub async fn serve_on_embedded_broker() -> Served {
    let broker: &'static factgate::kafka::EmbeddedBroker = Box::leak(Box::new(
        factgate::kafka::EmbeddedBroker::start(&Config::default().kafka)
            .expect("embedded broker starts"),
    ));
    let http = free_port();
    let config = mock_cluster_config(
        broker.bootstrap_servers(),
        &format!("[http]\nlisten = \"127.0.0.1:{http}\"\n"),
    );
    let client = http_client();
    let running = start(config.clone(), &client).await;
    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
    Served {
        config,
        client,
        running,
        base: format!("http://127.0.0.1:{http}"),
        producer,
    }
}
