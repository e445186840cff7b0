//! The Grafana dashboard and the alert rules work against a real Prometheus scraping a running
//! factgate: the whole pipeline runs in this process on the embedded broker (librdkafka's mock
//! cluster on 127.0.0.1), the demo's drafts go in twice (the second time their sources come from
//! the cache), with an unreadable draft for the dead-letter topic, and Debian's `prometheus`
//! scrapes the HTTP endpoint every second. Then every panel query of
//! deploy/grafana/dashboards/factgate.json must evaluate to data, and every alert expression of
//! deploy/prometheus/alerts.yml must evaluate without an error (not firing is fine).
//!
//! The LLM judge is on, against a chat-completions endpoint served here: one voter answers
//! `not_enough_info`, one answers outside the schema (an abstention), one `refuted` without the
//! quote the schema needs (another abstention), so the votes panel and the abstention alert see
//! real votes of both kinds.
//!
//! Everything listens on loopback only. The registry is process-wide and this file holds one
//! test, so what Prometheus sees is this workload alone.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::pipeline::{decided, demo_draft, publish_draft};
use axum::Json;
use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use factgate::config::Config;
use factgate::demo::DRAFTS;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use factgate_core::quorum::prompts::VoterRole;
use serde_json::Value;
use tokio::time::{Instant, sleep};

/// Prometheus' scrape interval here: short, so rate() windows fill within the test.
const SCRAPE_INTERVAL_S: u64 = 1;
/// The demo's deadline: short, so the slow source blocks with deadline_exceeded.
const DEADLINE_MS: u64 = 4_000;
/// How long the slow source takes: past the deadline, but over before the test ends.
const SLOW_SOURCE: Duration = Duration::from_secs(8);
/// The longest the test waits for one wave's decisions: group joins on the mock cluster take
/// seconds.
const WAVE_DECIDED_WITHIN: Duration = Duration::from_secs(90);

/// Answers like the demo's source `name`, too late for the deadline, as `factgate demo` does.
async fn slow(name: UrlPath<String>) -> Response {
    sleep(SLOW_SOURCE).await;
    crate::support::origin::demo_source(name).await
}

/// An OpenAI-compatible chat-completions endpoint on 127.0.0.1 whose voters answer as the module
/// doc says; returns its base URL.
async fn start_llm() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("LLM endpoint binds on loopback");
    let port = listener.local_addr().expect("LLM endpoint address").port();
    let app = Router::new().route("/v1/chat/completions", post(completions));
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://127.0.0.1:{port}/v1")
}

async fn completions(Json(body): Json<Value>) -> Response {
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    let content = match VoterRole::ALL
        .iter()
        .position(|role| role.system_prompt() == system)
    {
        Some(0) => r#"{"verdict": "not_enough_info", "quote": "", "reason": "cannot tell"}"#,
        Some(1) => "I think it is probably fine.",
        Some(_) => r#"{"verdict": "refuted", "quote": "", "reason": "no quote"}"#,
        None => return (StatusCode::BAD_REQUEST, "unknown voter").into_response(),
    };
    Json(crate::support::llm::chat_completion(
        &body["model"],
        content,
    ))
    .into_response()
}

/// The pipeline's configuration; `port` is the admin listener's, which Prometheus scrapes.
fn config(bootstrap: &str, port: u16, llm: &str) -> Config {
    let api = crate::support::pipeline::free_port();
    let mut config = Config::from_toml_str(&format!(
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n[join]\ndeadline_ms = {DEADLINE_MS}\n[http]\nlisten = \"127.0.0.1:{api}\"\nadmin_listen = \"127.0.0.1:{port}\"\n\
         [llm]\nenabled = true\nbase_url = \"{llm}\"\nmodel = \"test-model\"\n"
    ))
    .expect("test configuration is valid");
    config.kafka.bootstrap_servers = Some(bootstrap.to_owned());
    // Lag comes from librdkafka's statistics; the default interval would outlast the test.
    config
        .kafka
        .properties
        .insert("statistics.interval.ms".into(), "1000".into());
    config
}

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

/// The `prometheus` server binary: `$PROMETHEUS` if set, else the one on PATH.
fn prometheus_binary() -> PathBuf {
    let found = match std::env::var_os("PROMETHEUS") {
        Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
        None => std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("prometheus"))
                .find(|candidate| candidate.is_file())
        }),
    };
    found.unwrap_or_else(|| {
        panic!(
            "no `prometheus` binary (PROMETHEUS or PATH): install Debian's prometheus package \
             (`apt-get install prometheus`, as .ci/test.sh does) or set PROMETHEUS to its path"
        )
    })
}

/// A Prometheus server, killed when dropped.
struct PrometheusServer {
    child: Child,
    log: PathBuf,
    base: String,
    _dir: tempfile::TempDir,
}

impl PrometheusServer {
    /// Starts Prometheus scraping `target` (host:port) as job `factgate`, with its data in a
    /// temporary directory.
    fn start(target: &str) -> Self {
        let binary = prometheus_binary();
        let dir = tempfile::tempdir().expect("temporary directory");
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: {SCRAPE_INTERVAL_S}s\n  evaluation_interval: {SCRAPE_INTERVAL_S}s\n\
                 scrape_configs:\n  - job_name: factgate\n    static_configs:\n      - targets: [\"{target}\"]\n"
            ),
        )
        .expect("write prometheus.yml");
        let port = crate::support::pipeline::free_port();
        let log = dir.path().join("prometheus.log");
        let log_file = std::fs::File::create(&log).expect("create the log file");
        let child = Command::new(&binary)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        Self {
            child,
            log,
            base: format!("http://127.0.0.1:{port}"),
            _dir: dir,
        }
    }

    /// What Prometheus has logged, for failure messages.
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Evaluates `expr` now; returns the response's `data`, or Prometheus' error.
    async fn query(&self, client: &reqwest::Client, expr: &str) -> Result<Value, String> {
        let url =
            url::Url::parse_with_params(&format!("{}/api/v1/query", self.base), &[("query", expr)])
                .map_err(|e| format!("query URL: {e}"))?;
        let response = client
            .get(url)
            .send()
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let body: Value = response
            .json()
            .await
            .map_err(|e| format!("not JSON: {e}"))?;
        if body["status"] == "success" {
            Ok(body["data"].clone())
        } else {
            Err(format!("{}: {}", body["errorType"], body["error"]))
        }
    }

    /// The instant vector `expr` evaluates to now, or an error.
    async fn vector(&self, client: &reqwest::Client, expr: &str) -> Vec<Value> {
        match self.query(client, expr).await {
            Ok(data) => data["result"].as_array().cloned().unwrap_or_default(),
            Err(err) => panic!("{expr}: {err}\nprometheus log:\n{}", self.log()),
        }
    }

    /// Waits until `expr` evaluates to at least one series.
    async fn wait_for(&self, client: &reqwest::Client, expr: &str, within: Duration) {
        let until = Instant::now() + within;
        loop {
            if let Ok(data) = self.query(client, expr).await
                && data["result"].as_array().is_some_and(|r| !r.is_empty())
            {
                return;
            }
            assert!(
                Instant::now() < until,
                "Prometheus had no data for {expr} within {within:?}\nprometheus log:\n{}",
                self.log()
            );
            sleep(Duration::from_millis(250)).await;
        }
    }
}

impl Drop for PrometheusServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Publishes the demo's drafts and an unreadable one under ids ending in `-{wave}`, and waits
/// for all their decisions.
async fn wave(
    wave: u32,
    producer: &EventProducer,
    config: &Config,
    origin: &str,
    client: &reqwest::Client,
    base: &str,
) {
    let mut drafts: Vec<(String, Vec<u8>)> = DRAFTS
        .iter()
        .map(|(name, template)| {
            let id = format!("live-{name}-{wave}");
            let payload = demo_draft(template, &id, origin);
            (id, payload)
        })
        .collect();
    let unreadable = format!("live-unreadable-{wave}");
    drafts.push((
        unreadable.clone(),
        format!(
            r#"{{"schema_version":"factgate.draft.v1","article_id":"{unreadable}","revision":1,"title":"no body"}}"#
        )
        .into_bytes(),
    ));
    for (key, payload) in &drafts {
        publish_draft(producer, config, key, payload).await;
    }
    let until = Instant::now() + WAVE_DECIDED_WITHIN;
    for (article_id, _) in &drafts {
        decided(client, base, article_id, until).await;
    }
}

/// Every Prometheus query of the dashboard's panels, with its panel's title.
fn panel_queries() -> Vec<(String, String)> {
    fn walk(panels: &[Value], out: &mut Vec<(String, String)>) {
        for panel in panels {
            if let Some(nested) = panel["panels"].as_array() {
                walk(nested, out);
            }
            let title = panel["title"].as_str().unwrap_or("(untitled)");
            for target in panel["targets"].as_array().into_iter().flatten() {
                if let Some(expr) = target["expr"].as_str() {
                    out.push((title.to_owned(), expr.to_owned()));
                }
            }
        }
    }
    let path = deploy().join("grafana/dashboards/factgate.json");
    let text = std::fs::read_to_string(&path).expect("read the dashboard");
    let dashboard: Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    let mut out = Vec::new();
    walk(
        dashboard["panels"]
            .as_array()
            .expect("the dashboard has panels"),
        &mut out,
    );
    out
}

/// Every alert rule's name and expression.
fn alert_expressions() -> Vec<(String, String)> {
    let path = deploy().join("prometheus/alerts.yml");
    let text = std::fs::read_to_string(&path).expect("read the alert rules");
    let rules: serde_norway::Value = serde_norway::from_str(&text).expect("alerts.yml is YAML");
    let groups = rules["groups"]
        .as_sequence()
        .expect("alerts.yml has groups");
    groups
        .iter()
        .flat_map(|g| g["rules"].as_sequence().cloned().unwrap_or_default())
        .filter_map(|rule| {
            let name = rule["alert"].as_str()?.to_owned();
            let expr = rule["expr"].as_str()?.to_owned();
            Some((name, expr))
        })
        .collect()
}

/// Whether a query result holds a sample that is a number (not NaN): what a panel can draw.
fn has_number(result: &[Value]) -> bool {
    result.iter().any(|series| {
        series["value"][1]
            .as_str()
            .and_then(|v| v.parse::<f64>().ok())
            .is_some_and(|v| !v.is_nan())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_panel_and_alert_evaluates_on_a_real_prometheus() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let panels = panel_queries();
    let alerts = alert_expressions();
    assert!(!panels.is_empty(), "the dashboard has no panel queries");
    assert!(!alerts.is_empty(), "alerts.yml has no alert rules");

    let origin =
        crate::support::origin::start_demo(Router::new().route("/slow/{name}", get(slow))).await;
    let llm = start_llm().await;
    // The broker outlives the roles: closing a consumer waits for it.
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let port = crate::support::pipeline::free_port();
    let config = config(broker.bootstrap_servers(), port, &llm);
    let base = format!("http://{}", config.http.listen);

    let client = crate::support::pipeline::http_client();
    let running = crate::support::pipeline::start(config.clone(), &client).await;

    // Prometheus scrapes the counters at zero before any draft, so every rate() below sees the
    // workload as an increase.
    let prometheus = PrometheusServer::start(&format!("127.0.0.1:{port}"));
    let started = Instant::now();
    prometheus
        .wait_for(
            &client,
            "up{job=\"factgate\"} == 1",
            Duration::from_secs(30),
        )
        .await;
    prometheus
        .wait_for(
            &client,
            "count_over_time(up{job=\"factgate\"}[1m]) >= 3",
            Duration::from_secs(30),
        )
        .await;

    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
    wave(1, &producer, &config, &origin, &client, &base).await;
    // A few scrapes between the waves: the second is an increase from a settled first.
    sleep(Duration::from_secs(3 * SCRAPE_INTERVAL_S)).await;
    wave(2, &producer, &config, &origin, &client, &base).await;

    // Lag comes from a statistics report after the roles got their partitions; then a few more
    // scrapes so the last decisions are in Prometheus.
    prometheus
        .wait_for(
            &client,
            "factgate_consumer_lag_messages",
            Duration::from_secs(30),
        )
        .await;
    sleep(Duration::from_secs(4 * SCRAPE_INTERVAL_S)).await;

    // Grafana's $__rate_interval, as a window covering the whole run: every rate() then spans
    // the zeros before the first draft and the counts after the last decision.
    let window = format!("{}s", started.elapsed().as_secs() + 10);
    let mut failures = Vec::new();
    for (title, expr) in &panels {
        // The job, instance and run variables set to All, as Grafana sends them (allValue .*).
        let expr = expr
            .replace("$__rate_interval", &window)
            .replace("$job", ".*")
            .replace("$instance", ".*")
            .replace("$run", ".*");
        match prometheus.query(&client, &expr).await {
            Err(err) => failures.push(format!("panel {title:?}: {expr}: {err}")),
            Ok(data) => {
                let result = match data["resultType"].as_str() {
                    Some("scalar") => vec![serde_json::json!({ "value": data["result"] })],
                    _ => data["result"].as_array().cloned().unwrap_or_default(),
                };
                eprintln!("panel {title:?}: {expr}: {result:?}");
                // No re-check runs here: its panels only have to evaluate (tests/it/recheck.rs
                // reads the re-check metrics).
                if result.is_empty() && expr.contains("factgate_recheck_") {
                } else if result.is_empty() {
                    failures.push(format!("panel {title:?}: {expr}: no series"));
                } else if !has_number(&result) {
                    failures.push(format!(
                        "panel {title:?}: {expr}: only NaN, nothing to draw: {result:?}"
                    ));
                }
            }
        }
    }
    for (name, expr) in &alerts {
        // Not firing is an empty result, and fine; an error is not.
        if let Err(err) = prometheus.query(&client, expr).await {
            failures.push(format!("alert {name}: {expr}: {err}"));
        }
    }
    // The LLM voters were asked, and both valid votes and abstentions were counted.
    for vote in ["not_enough_info", "abstained"] {
        let counted = prometheus
            .vector(
                &client,
                &format!("sum(factgate_llm_votes_total{{vote=\"{vote}\"}}) > 0"),
            )
            .await;
        assert!(!counted.is_empty(), "no LLM vote {vote} was counted");
    }
    // The target stayed up all along: FactgateDown's own expression finds nothing down.
    let down_expr = alerts
        .iter()
        .find(|(name, _)| name == "FactgateDown")
        .map(|(_, expr)| expr.clone())
        .expect("alerts.yml has FactgateDown");
    let down = prometheus.vector(&client, &down_expr).await;
    assert!(down.is_empty(), "factgate was seen down: {down:?}");
    assert!(
        failures.is_empty(),
        "{} of {} panel queries and {} alert expressions failed:\n{}",
        failures.len(),
        panels.len(),
        alerts.len(),
        failures.join("\n")
    );
    drop(prometheus);

    running.stop().await;
}
