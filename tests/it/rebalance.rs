//! Join instances joining, leaving and killed mid-run on tansu (an independent Kafka-protocol
//! broker): every draft gets exactly one decision, and no decision already made changes.
//!
//! Issue 29 saw 8 of 30 drafts that had passed get a second decision with the same decision id
//! (`block`, `deadline_exceeded`) when a second join instance joined and left: the committed
//! offsets of the manifests and the results partitions move apart, so a new owner read a decided
//! article's manifest again without its results, and blocked it at its deadline. Now a new owner
//! reads back the decisions already made before it reads its partitions, and the old owner
//! flushes its decisions before it lets them go.
//!
//! The CMS is `tests/e2e/cms.py` (kafka-python, an outside client): it publishes 60 drafts whose
//! sources answer after 0 to 20 s, so decisions are made all through the changes of the group,
//! and prints every decision it reads, until every deadline has passed. Meanwhile the group of
//! join processes (`factgate run --roles join`) changes: two run; a third joins; the first
//! leaves (SIGTERM); the second is killed (SIGKILL); a fourth joins. Each join logs its
//! assignments; the test prints how long partitions stayed without an owner after each change.
//! (After the kill, tansu 0.6 gives the survivor back only its previous partitions; the killed
//! member's wait for the fourth join: see docs/reliability.md, "Scaling the join".)
//!
//! Needs tansu and python3 with kafka-python, as `e2e_tansu` does; fails without them, never
//! skips. Everything listens on, and connects to, 127.0.0.1 only.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::support::origin::{demo_source, start_demo};
use crate::support::process::{Guarded, start_factgate};
use crate::support::tansu::start_broker;
use axum::Router;
use axum::extract::Path as UrlPath;
use axum::routing::get;
use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tokio::time::{Instant, sleep, timeout_at};

/// Drafts published.
const DRAFTS: usize = 60;
/// Partitions of every topic.
const PARTITIONS: u32 = 6;
/// Every draft's deadline: the CMS reads on past it, when a join that kept a stale article
/// would decide it again.
const DEADLINE_MS: u64 = 80_000;
/// How long the CMS reads on after the last first decision: past every deadline.
const SETTLE_S: u64 = 75;
/// The longest the whole run may take.
const WHOLE_RUN: Duration = Duration::from_secs(300);
/// How long a source takes to answer, by draft: decisions are made all through the run.
const LAGS_S: [u64; 6] = [0, 4, 8, 12, 16, 20];
/// How long the join's consumer may go without a heartbeat (the default), which bounds how long
/// a killed member keeps its partitions.
const SESSION_TIMEOUT_MS: u64 = 10_000;

/// A draft's template and the decision its content calls for.
const KINDS: [(&str, &str, &str); 4] = [
    (
        include_str!("../../examples/demo/drafts/clean.json"),
        "pass",
        "",
    ),
    (
        include_str!("../../examples/demo/drafts/wrong-figure.json"),
        "block",
        "high_severity_issue",
    ),
    (
        include_str!("../../examples/demo/drafts/dead-link.json"),
        "block",
        "high_severity_issue",
    ),
    (
        include_str!("../../examples/demo/drafts/unsourced-statistic.json"),
        "block",
        "high_severity_issue",
    ),
];

struct Draft {
    article_id: String,
    event: String,
    outcome: &'static str,
    reason: &'static str,
}

/// The drafts, each citing sources at URLs of its own that answer after its lag.
fn drafts(origin: &str) -> Vec<Draft> {
    let published_at = Utc::now().to_rfc3339();
    (0..DRAFTS)
        .map(|i| {
            let (template, outcome, reason) = KINDS[i % KINDS.len()];
            let article_id = format!("rebalance-{i:02}");
            let lag = LAGS_S[i % LAGS_S.len()];
            let text = template
                .replace("{{origin}}/", &format!("{origin}/lag/{lag}/{article_id}/"))
                .replace("{{published_at}}", &published_at);
            let mut event: Value = serde_json::from_str(&text).expect("a draft template");
            event["article_id"] = Value::from(article_id.as_str());
            Draft {
                article_id,
                event: event.to_string(),
                outcome,
                reason,
            }
        })
        .collect()
}

fn config(dir: &Path, port: u16) -> std::path::PathBuf {
    let path = dir.join("factgate.toml");
    std::fs::write(
        &path,
        format!(
            r#"[kafka]
bootstrap_servers = "127.0.0.1:{port}"
group_prefix = "factgate-rebalance"
partitions = {PARTITIONS}

[fetch]
address_allowlist = ["127.0.0.1/32"]
per_host_requests_per_second = 50.0
per_host_burst = 60
per_host_concurrency = 60
timeout_ms = 60000

[join]
deadline_ms = {DEADLINE_MS}

[http]
listen = "127.0.0.1:0"
admin_listen = "127.0.0.1:0"

[log]
level = "info,factgate::pipeline::history=debug,factgate::pipeline::join_loop=debug,factgate::kafka=debug"
format = "json"
"#
        ),
    )
    .expect("writing the config");
    path
}

/// One change of a join process's assignment, read from its log.
#[derive(Debug, Clone)]
struct Change {
    at: DateTime<Utc>,
    instance: String,
    /// Partitions it owns after the change.
    owned: usize,
}

/// The join role's assignment changes logged by `process` (JSON log lines).
fn changes(instance: &str, process: &Guarded) -> Vec<Change> {
    process
        .stderr()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["fields"]["role"] == "join")
        .filter_map(|line| {
            let owned = match line["fields"]["message"].as_str()? {
                "partitions assigned" => line["fields"]["partitions"].as_u64()? as usize,
                "partitions revoked" => 0,
                _ => return None,
            };
            Some(Change {
                at: line["timestamp"].as_str()?.parse().ok()?,
                instance: instance.to_owned(),
                owned,
            })
        })
        .collect()
}

/// The stretches during which some of the join's `total` partitions had no live owner, with
/// when they began: from the first change that left some unowned (a revocation, or a member
/// killed at `killed`) to the assignment that gave every one an owner again.
fn unowned_stretches(
    mut changes: Vec<Change>,
    killed: Option<(&str, DateTime<Utc>)>,
    total: usize,
) -> Vec<(DateTime<Utc>, Duration)> {
    if let Some((instance, at)) = killed {
        changes.push(Change {
            at,
            instance: instance.to_owned(),
            owned: 0,
        });
    }
    changes.sort_by_key(|c| c.at);
    let mut owned: BTreeMap<String, usize> = BTreeMap::new();
    let mut since: Option<DateTime<Utc>> = None;
    let mut started = false;
    let mut stretches = Vec::new();
    for change in changes {
        owned.insert(change.instance.clone(), change.owned);
        let now: usize = owned.values().sum();
        if now >= total {
            started = true;
            if let Some(from) = since.take() {
                stretches.push((from, (change.at - from).to_std().unwrap_or_default()));
            }
        } else if started && since.is_none() {
            since = Some(change.at);
        }
    }
    stretches
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_instances_joining_leaving_and_killed_on_tansu_never_change_a_decision() {
    let started = Instant::now();
    let until = started + WHOLE_RUN;
    // Dropped last: the processes' guards print their logs' tails from it when the test fails.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (_broker, port) = start_broker(dir.path()).await;
    let origin = start_demo(Router::new().route(
        "/lag/{secs}/{article}/{name}",
        get(
            |UrlPath((secs, _, name)): UrlPath<(u64, String, String)>| async move {
                sleep(Duration::from_secs(secs)).await;
                demo_source(UrlPath(name)).await
            },
        ),
    ))
    .await;
    let config = config(dir.path(), port);

    // The workers, and two join instances.
    let mut workers = start_factgate(
        "workers",
        &["--roles", "extract,verify", "--no-http"],
        &config,
        dir.path(),
    );
    workers
        .wait_for_stdout("roles:", Duration::from_secs(60))
        .await;
    let join_args = ["--roles", "join", "--no-http"];
    let mut joins: BTreeMap<&str, Guarded> = BTreeMap::new();
    for name in ["join-1", "join-2"] {
        let mut join = start_factgate(name, &join_args, &config, dir.path());
        join.wait_for_stdout("roles:", Duration::from_secs(60))
            .await;
        joins.insert(name, join);
    }
    // Let the first assignment settle before the drafts come.
    sleep(Duration::from_secs(5)).await;

    let expected = drafts(&origin);
    let drafts_file = dir.path().join("drafts.jsonl");
    let lines: Vec<&str> = expected.iter().map(|d| d.event.as_str()).collect();
    std::fs::write(&drafts_file, lines.join("\n") + "\n").expect("writing the drafts");
    let mut cms = Command::new("python3");
    cms.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/cms.py"))
        .args(["--bootstrap", &format!("127.0.0.1:{port}")])
        .arg("--drafts")
        .arg(&drafts_file)
        .args(["--expect", &DRAFTS.to_string()])
        .args([
            "--timeout",
            &WHOLE_RUN
                .saturating_sub(started.elapsed())
                .as_secs()
                .to_string(),
        ])
        .args(["--settle", &SETTLE_S.to_string()])
        .args(["--group", "cms-rebalance"])
        .stdout(Stdio::piped());
    let mut cms = Guarded::spawn_piped("cms", &mut cms, dir.path());
    let mut cms_lines = BufReader::new(cms.child.stdout.take().expect("the CMS's stdout")).lines();

    // The group changes while the CMS reads decisions.
    let reading = tokio::spawn(async move {
        let mut seen: Vec<Value> = Vec::new();
        while let Ok(Ok(Some(line))) = timeout_at(until, cms_lines.next_line()).await {
            seen.push(serde_json::from_str(&line).expect("the CMS prints JSON lines"));
        }
        seen
    });
    sleep(Duration::from_secs(3)).await;
    let mut join = start_factgate("join-3", &join_args, &config, dir.path());
    join.wait_for_stdout("roles:", Duration::from_secs(60))
        .await;
    joins.insert("join-3", join);
    sleep(Duration::from_secs(7)).await;
    let left = joins
        .get_mut("join-1")
        .expect("join-1")
        .terminate(Duration::from_secs(30))
        .await;
    assert!(left.success(), "join-1 left with {left}");
    sleep(Duration::from_secs(6)).await;
    joins.get_mut("join-2").expect("join-2").kill_hard().await;
    let killed = Utc::now();
    sleep(Duration::from_secs(14)).await;
    let mut join = start_factgate("join-4", &join_args, &config, dir.path());
    join.wait_for_stdout("roles:", Duration::from_secs(60))
        .await;
    joins.insert("join-4", join);

    let seen = reading.await.expect("the reading task");
    let cms_status = timeout_at(until, cms.child.wait()).await;
    for name in ["join-3", "join-4"] {
        joins.get_mut(name).expect("a join").assert_running();
    }
    workers.assert_running();

    // Exactly one decision per draft, the one its content calls for.
    let mut by_article: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    for decision in &seen {
        let article = decision["article_id"].as_str().unwrap_or_default();
        by_article.entry(article).or_default().push(decision);
    }
    let mut failures = Vec::new();
    for draft in &expected {
        let Some(decisions) = by_article.get(draft.article_id.as_str()) else {
            failures.push(format!("{}: no decision", draft.article_id));
            continue;
        };
        if decisions.len() != 1 {
            failures.push(format!(
                "{}: {} decisions: {:?}",
                draft.article_id,
                decisions.len(),
                decisions
                    .iter()
                    .map(|d| (
                        &d["decision_id"],
                        &d["outcome"],
                        &d["reasons"],
                        &d["decided_at"]
                    ))
                    .collect::<Vec<_>>()
            ));
            continue;
        }
        let d = decisions[0];
        let reasons: Vec<&str> = d["reasons"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let as_expected = d["outcome"] == draft.outcome
            && (draft.reason.is_empty() && reasons.is_empty() || reasons.contains(&draft.reason));
        if !as_expected {
            failures.push(format!(
                "{}: expected {} {}, got {} {:?}",
                draft.article_id, draft.outcome, draft.reason, d["outcome"], reasons
            ));
        }
    }
    let strays: Vec<&&str> = by_article
        .keys()
        .filter(|a| !expected.iter().any(|d| d.article_id == **a))
        .collect();
    assert!(strays.is_empty(), "decisions for no draft: {strays:?}");

    // How long partitions went without an owner after each change of the group.
    let mut all = Vec::new();
    for (name, process) in &joins {
        all.extend(changes(name, process));
    }
    let stretches = unowned_stretches(all, Some(("join-2", killed)), 2 * PARTITIONS as usize);
    let base = stretches.first().map(|(at, _)| *at);
    let described: Vec<String> = stretches
        .iter()
        .map(|(at, took)| {
            let offset = base.map_or(0.0, |b| (*at - b).as_seconds_f64());
            format!("+{offset:.1} s: {:.1} s", took.as_secs_f64())
        })
        .collect();
    eprintln!(
        "rebalance on tansu: {} drafts, {} decisions read; partitions unowned after each change \
         (session timeout {SESSION_TIMEOUT_MS} ms): {}; {:.0} s in all",
        expected.len(),
        seen.len(),
        described.join(", "),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    match cms_status {
        Ok(Ok(status)) => assert!(status.success(), "tests/e2e/cms.py failed: {status}"),
        other => panic!("the CMS did not finish in time: {other:?}"),
    }
    assert!(
        stretches.len() >= 3,
        "the group changed at least three times: {described:?}"
    );
}
