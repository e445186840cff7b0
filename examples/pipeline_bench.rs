//! The pipeline benchmark, side by side in one run:
//!
//! - (a) the broker alone: the same draft events produced to the embedded broker and consumed
//!   back;
//! - (b) in process: the same drafts checked with no broker (extract, verify and decide called
//!   directly, with the roles' concurrency), each draft a task on the same multi-threaded
//!   runtime, so that (b), like (c), uses every core;
//! - (c) the whole pipeline (`factgate run`'s roles in one process) on the embedded broker,
//!   then paced at half its peak rate for the decision latency;
//! - memory: `--in-flight` articles held at the join (their sources answer only once all are
//!   published), and every claim citing a page of its own, so the page cache fills too.
//!
//! ```text
//! cargo run --release --example pipeline_bench -- [--drafts 2000] [--pages 20] [--claims N|mixed]
//!     [--in-flight 10000] [--skip-memory]
//! ```
//!
//! `BENCH_PROGRESS=1` prints, every 100 ms of the pipeline phase, the drafts read, the claims
//! verified, the decisions made, the articles held at the join and the roles' offset resets
//! (records the embedded broker dropped before they were read): where a role stalls shows as a
//! count that stops.
//!
//! Each phase runs in a process of its own (this program, started again with `--phase`), so
//! its CPU-seconds and peak RSS are its own. Sources are served on 127.0.0.1 only, by a server
//! this program starts; the cache is warmed before anything is timed (every page fetched once).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use chrono::{DateTime, Utc};
use factgate::check::{CheckOptions, check_article};
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventHeaders, EventProducer, ensure_topics};
use factgate::pipeline::{self, Role};
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate_core::model::BodyFormat;
use futures::StreamExt;
use rdkafka::Message;
use rdkafka::consumer::{Consumer, StreamConsumer};
use serde_json::{Value, json};
use tokio::sync::watch;

factgate::use_jemalloc!();

/// Checks in flight in process (b): the verify role's.
const CHECKS_IN_FLIGHT: usize = 32;
/// Drafts in flight in process (b): the extract role's.
const DRAFTS_IN_FLIGHT: usize = 64;

#[derive(Debug, Clone)]
struct Args {
    drafts: usize,
    pages: usize,
    /// Cited claims per draft; 0 for the mixed 1–20.
    claims: usize,
    in_flight: usize,
    skip_memory: bool,
    phase: Option<String>,
    rate: f64,
}

fn args() -> Args {
    let mut a = Args {
        drafts: 2_000,
        pages: 20,
        claims: 3,
        in_flight: 10_000,
        skip_memory: false,
        phase: None,
        rate: 0.0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--drafts" => a.drafts = value().parse().expect("--drafts N"),
            "--pages" => a.pages = value().parse().expect("--pages N"),
            "--claims" => {
                let v = value();
                a.claims = if v == "mixed" {
                    0
                } else {
                    v.parse()
                        .ok()
                        .filter(|n| (1..=20).contains(n))
                        .expect("--claims 1..=20 or mixed")
                };
            }
            "--in-flight" => a.in_flight = value().parse().expect("--in-flight N"),
            "--skip-memory" => a.skip_memory = true,
            "--phase" => a.phase = Some(value()),
            "--rate" => a.rate = value().parse().expect("--rate R"),
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

fn main() {
    let args = args();
    match args.phase.clone() {
        Some(phase) => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let report = runtime.block_on(run_phase(&phase, &args));
            println!("{report}");
        }
        None => orchestrate(&args),
    }
}

/// Runs every phase in a child process and prints the figures side by side.
fn orchestrate(args: &Args) {
    let claims = match args.claims {
        0 => "1–20 (mixed)".to_owned(),
        n => n.to_string(),
    };
    println!(
        "pipeline_bench: {} drafts, {claims} cited claims each, {} distinct pages on 127.0.0.1, warm cache",
        args.drafts, args.pages
    );
    let a = child(args, "broker", &[]);
    let b = child(args, "inprocess", &[]);
    let c = child(args, "pipeline", &[]);
    let rate = c["drafts_per_s"].as_f64().unwrap_or(0.0) / 2.0;
    let l = child(args, "latency", &["--rate", &format!("{rate:.1}")]);
    println!();
    println!(
        "{:<28} {:>10} {:>10} {:>8} {:>9} {:>9}",
        "phase", "drafts/s", "claims/s", "wall s", "CPU s", "peak RSS"
    );
    for (name, r) in [
        ("(a) broker alone", &a),
        ("(b) in process, no broker", &b),
        ("(c) pipeline, embedded", &c),
    ] {
        println!(
            "{name:<28} {:>10.0} {:>10.0} {:>8.2} {:>9.2} {:>6.0} MB",
            r["drafts_per_s"].as_f64().unwrap_or(0.0),
            r["claims_per_s"].as_f64().unwrap_or(0.0),
            r["wall_s"].as_f64().unwrap_or(0.0),
            r["cpu_s"].as_f64().unwrap_or(0.0),
            r["peak_rss_mb"].as_f64().unwrap_or(0.0),
        );
    }
    let ratio = |x: &Value, y: &Value| {
        x["drafts_per_s"].as_f64().unwrap_or(0.0) / y["drafts_per_s"].as_f64().unwrap_or(1.0)
    };
    println!("c/b = {:.2}   c/a = {:.3}", ratio(&c, &b), ratio(&c, &a));
    println!(
        "latency at {:.0} drafts/s (half of (c)): decided_at − published_at p50 {:.1} ms, p99 {:.1} ms; \
         origin time in that run {:.1} ms over {} requests, so beyond source time p50 {:.1} ms, p99 {:.1} ms",
        l["rate"].as_f64().unwrap_or(0.0),
        l["p50_ms"].as_f64().unwrap_or(0.0),
        l["p99_ms"].as_f64().unwrap_or(0.0),
        l["origin_ms"].as_f64().unwrap_or(0.0),
        l["origin_requests"].as_u64().unwrap_or(0),
        l["beyond_p50_ms"].as_f64().unwrap_or(0.0),
        l["beyond_p99_ms"].as_f64().unwrap_or(0.0),
    );
    if !args.skip_memory {
        let m = child(args, "memory", &[]);
        println!(
            "memory: {} articles in flight at the join (max seen {}), page cache {:.0} MB of {:.0} MB at the end: \
             RSS {:.0} MB while held, peak RSS {:.0} MB, all {} decided in {:.1} s",
            m["articles"],
            m["join_in_flight_max"],
            m["cache_mb"].as_f64().unwrap_or(0.0),
            m["cache_capacity_mb"].as_f64().unwrap_or(0.0),
            m["held_rss_mb"].as_f64().unwrap_or(0.0),
            m["peak_rss_mb"].as_f64().unwrap_or(0.0),
            m["articles"],
            m["wall_s"].as_f64().unwrap_or(0.0),
        );
        let mb = |v: &Value, k: &str| v[k].as_f64().unwrap_or(0.0);
        for (when, v) in [
            ("held", &m["held_mb"]),
            ("at peak", &m["at_peak_mb"]),
            ("at end", &m["at_end_mb"]),
        ] {
            println!(
                "  {when:8} RSS {:4.0} MB: allocator resident {:4.0}, active {:4.0}, allocated {:4.0}, metadata {:3.0}; page cache {:3.0}",
                mb(v, "rss"),
                mb(v, "resident"),
                mb(v, "active"),
                mb(v, "allocated"),
                mb(v, "metadata"),
                mb(v, "cache"),
            );
        }
    }
}

fn child(args: &Args, phase: &str, extra: &[&str]) -> Value {
    let exe = std::env::current_exe().expect("own path");
    let mut command = std::process::Command::new(exe);
    command
        .args(["--phase", phase])
        .args(["--drafts", &args.drafts.to_string()])
        .args(["--pages", &args.pages.to_string()])
        .args(["--claims", &claims_arg(args)])
        .args(["--in-flight", &args.in_flight.to_string()])
        .args(extra)
        .stderr(std::process::Stdio::inherit());
    eprintln!("… {phase}");
    let out = command.output().expect("phase runs");
    assert!(out.status.success(), "phase {phase} failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or("{}");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("phase {phase} output {line:?}: {e}"))
}

// -------------------------------------------------------------------------------------------
// The origin

/// What the origin served: requests and the time spent answering them.
#[derive(Default)]
struct OriginStats {
    requests: AtomicU64,
    nanos: AtomicU64,
}

#[derive(Clone)]
struct Origin {
    stats: Arc<OriginStats>,
    /// While false, every response waits (the memory run holds sources back).
    open: watch::Receiver<bool>,
}

/// Starts the origin on 127.0.0.1: `/page/{n}.html` is a page of about 1,500 words stating the
/// figures of subject `n`.
async fn start_origin(open: watch::Receiver<bool>) -> (String, Arc<OriginStats>) {
    let stats = Arc::new(OriginStats::default());
    let state = Origin {
        stats: Arc::clone(&stats),
        open,
    };
    let app = Router::new()
        .route("/page/{name}", get(page))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), stats)
}

async fn page(
    State(origin): State<Origin>,
    Path(name): Path<String>,
) -> axum::response::Html<String> {
    let mut open = origin.open.clone();
    let _ = open.wait_for(|o| *o).await;
    let started = Instant::now();
    let n: usize = name.trim_end_matches(".html").parse().unwrap_or_default();
    let body = page_html(n);
    origin.stats.requests.fetch_add(1, Ordering::Relaxed);
    origin
        .stats
        .nanos
        .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    axum::response::Html(body)
}

const REGIONS: [&str; 8] = [
    "northern", "southern", "eastern", "western", "coastal", "upland", "central", "island",
];
const THINGS: [&str; 8] = [
    "rail freight",
    "hospital admissions",
    "school enrolment",
    "wind generation",
    "housing starts",
    "bus ridership",
    "library loans",
    "water use",
];

/// The subject of page `n`: a region and a measure.
fn subject(n: usize) -> (&'static str, &'static str) {
    (
        REGIONS[n % REGIONS.len()],
        THINGS[(n / REGIONS.len()) % THINGS.len()],
    )
}

/// The figure page `n` states.
fn figure(n: usize) -> usize {
    10 + (n * 7) % 80
}

/// About 1,500 words: a report with the page's figure in its third paragraph, the rest
/// background with other figures, as a statistics office would publish.
fn page_html(n: usize) -> String {
    let (region, thing) = subject(n);
    let mut html = format!(
        "<!doctype html><html><head><title>Annual report {n}: {thing} in the {region} region</title></head><body><h1>{thing} in the {region} region</h1>"
    );
    for p in 0..30 {
        html.push_str("<p>");
        if p == 2 {
            html.push_str(&format!(
                "In 2023, {thing} in the {region} region rose {}% compared with the previous year, the office reported. ",
                figure(n)
            ));
        }
        for s in 0..5 {
            let (r, t) = subject(n + p * 5 + s + 1);
            html.push_str(&format!(
                "Analysts noted that {t} across the {r} district changed by {} percent during {} as local conditions shifted and budgets were revised. ",
                (p * 11 + s * 3) % 50 + 1,
                2010 + (p + s) % 14
            ));
        }
        html.push_str("</p>");
    }
    html.push_str("</body></html>");
    html
}

// -------------------------------------------------------------------------------------------
// The drafts

fn claims_of(args: &Args, i: usize) -> usize {
    match args.claims {
        0 => 1 + (i * 13) % 20,
        n => n,
    }
}

/// `--claims` as given: a count, or `mixed`.
fn claims_arg(args: &Args) -> String {
    match args.claims {
        0 => "mixed".to_owned(),
        n => n.to_string(),
    }
}

/// The page the `j`th claim of draft `i` cites.
fn page_of(args: &Args, i: usize, j: usize, distinct_per_claim: bool) -> usize {
    if distinct_per_claim {
        i * 3 + j
    } else {
        (i * 7 + j * 3) % args.pages
    }
}

/// Draft `i` as the CMS would publish it: a short article whose claims each cite a page.
fn draft(
    args: &Args,
    run: &str,
    i: usize,
    origin: &str,
    distinct_per_claim: bool,
) -> (String, Value) {
    let id = format!("{run}-{i:06}");
    let mut body = format!("# Regional figures {i}\n\n");
    for j in 0..claims_of(args, i) {
        let p = page_of(args, i, j, distinct_per_claim);
        let (region, thing) = subject(p);
        body.push_str(&format!(
            "In 2023, {thing} in the {region} region rose {}% from the year before, according to [the annual report]({origin}/page/{p}.html).\n\n",
            figure(p)
        ));
    }
    let value = json!({
        "schema_version": "factgate.draft.v1",
        "article_id": id,
        "revision": 1,
        "published_at": Utc::now().to_rfc3339(),
        "title": format!("Regional figures {i}"),
        "body": body,
        "body_format": "markdown",
        "url": format!("https://news.example.com/regions/{id}"),
        "section": "Regions",
        "authors": ["Bench Reporter"],
        "metadata": {},
    });
    (id, value)
}

fn with_published_now(mut value: Value) -> (Value, DateTime<Utc>) {
    let now = Utc::now();
    value["published_at"] = Value::from(now.to_rfc3339());
    (value, now)
}

// -------------------------------------------------------------------------------------------
// Measuring

/// CPU-seconds this process used (user + system), from /proc (in USER_HZ, 100 on Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let after = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of stat: 12 and 13 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

/// A line of /proc/self/status in MB (`VmHWM` is the peak RSS, `VmRSS` the current one).
fn status_mb(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// jemalloc's own counters in MB, read after advancing its epoch: `allocated` is what the
/// program holds, `active` the pages those allocations occupy, `resident` what the allocator
/// keeps in memory (free pages included), `metadata` its own bookkeeping, `arenas` how many
/// arenas it runs.
#[cfg(target_os = "linux")]
fn allocator_mb() -> serde_json::Map<String, Value> {
    use tikv_jemalloc_ctl::{epoch, stats};
    let mut m = serde_json::Map::new();
    if epoch::advance().is_err() {
        return m;
    }
    let mb = |r: tikv_jemalloc_ctl::Result<usize>| r.map_or(0.0, |b| b as f64 / 1048576.0);
    m.insert("allocated".into(), mb(stats::allocated::read()).into());
    m.insert("active".into(), mb(stats::active::read()).into());
    m.insert("resident".into(), mb(stats::resident::read()).into());
    m.insert("metadata".into(), mb(stats::metadata::read()).into());
    m.insert("retained".into(), mb(stats::retained::read()).into());
    let background = tikv_jemalloc_ctl::background_thread::read().unwrap_or(false);
    m.insert("background_thread".into(), background.into());
    if let Ok(arenas) = tikv_jemalloc_ctl::arenas::narenas::read() {
        m.insert("arenas".into(), arenas.into());
    }
    m.insert("cache".into(), cache_mb().into());
    m
}

/// What the page cache holds, in MB.
fn cache_mb() -> f64 {
    factgate::metrics::metrics().cache_bytes.get() as f64 / 1048576.0
}

#[cfg(not(target_os = "linux"))]
fn allocator_mb() -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("cache".into(), cache_mb().into());
    m
}

/// Samples RSS every 20 ms until `stop`, and keeps the allocator's counters and the page
/// cache's weight at the highest RSS seen: what the peak is made of.
fn sample_peak(stop: Arc<AtomicBool>) -> std::thread::JoinHandle<serde_json::Map<String, Value>> {
    std::thread::spawn(move || {
        let mut peak = 0.0;
        let mut at_peak = serde_json::Map::new();
        while !stop.load(Ordering::Relaxed) {
            let rss = status_mb("VmRSS:");
            if rss > peak {
                peak = rss;
                at_peak = allocator_mb();
                at_peak.insert("rss".into(), rss.into());
                at_peak.insert(
                    "join_in_flight".into(),
                    factgate::metrics::metrics().join_in_flight.get().into(),
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        at_peak
    })
}

fn config(args: &Args) -> Config {
    let text = format!(
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n\
         per_host_requests_per_second = 1000000.0\nper_host_burst = 1000000\n\
         global_requests_per_second = 1000000.0\nper_host_concurrency = 64\n\
         [join]\ndeadline_ms = 900000\nmax_in_flight_articles = {}\n",
        args.in_flight
            .max(factgate::config::DEFAULT_MAX_IN_FLIGHT_ARTICLES)
    ) + &std::env::var("BENCH_TOML").unwrap_or_default();
    let mut config = Config::from_toml_str(&text).expect("bench configuration is valid");
    config.kafka.bootstrap_servers = None;
    config
}

fn report(
    wall: Duration,
    drafts: usize,
    claims: usize,
    cpu0: f64,
) -> serde_json::Map<String, Value> {
    let secs = wall.as_secs_f64();
    let mut m = serde_json::Map::new();
    m.insert("wall_s".into(), secs.into());
    m.insert("drafts_per_s".into(), (drafts as f64 / secs).into());
    m.insert("claims_per_s".into(), (claims as f64 / secs).into());
    m.insert("cpu_s".into(), (cpu_seconds() - cpu0).into());
    m.insert("peak_rss_mb".into(), status_mb("VmHWM:").into());
    m
}

async fn run_phase(phase: &str, args: &Args) -> Value {
    let (open_tx, open_rx) = watch::channel(phase != "memory");
    let (origin, stats) = start_origin(open_rx).await;
    let claims: usize = (0..args.drafts).map(|i| claims_of(args, i)).sum();
    match phase {
        "broker" => Value::Object(broker_alone(args, &origin, claims).await),
        "inprocess" => Value::Object(in_process(args, &origin, claims).await),
        "pipeline" | "latency" => {
            Value::Object(whole_pipeline(args, phase, &origin, &stats, claims).await)
        }
        "memory" => Value::Object(memory(args, &origin, open_tx).await),
        other => panic!("unknown phase {other}"),
    }
}

/// (a): the draft events produced to the embedded broker and consumed back.
async fn broker_alone(args: &Args, origin: &str, claims: usize) -> serde_json::Map<String, Value> {
    let config = config(args);
    let broker = EmbeddedBroker::start(&config.kafka).expect("embedded broker");
    let bootstrap = broker.bootstrap_servers().to_owned();
    ensure_topics(&config.kafka, &bootstrap)
        .await
        .expect("topics");
    let producer = EventProducer::new(&config.kafka, &bootstrap).expect("producer");
    let drafts: Vec<(String, Vec<u8>)> = (0..args.drafts)
        .map(|i| {
            let (id, v) = draft(args, "a", i, origin, false);
            (id, serde_json::to_vec(&v).expect("json"))
        })
        .collect();
    let consumer = factgate::kafka::consumer(&config.kafka, &bootstrap, "bench").expect("consumer");
    // Assigned, not subscribed: the group join would be timed otherwise.
    let mut partitions = rdkafka::TopicPartitionList::new();
    for p in 0..config.kafka.partitions {
        partitions
            .add_partition_offset(
                &config.kafka.topics.drafts,
                p as i32,
                rdkafka::Offset::Beginning,
            )
            .expect("partition");
    }
    consumer.assign(&partitions).expect("assign");
    let cpu0 = cpu_seconds();
    let started = Instant::now();
    let headers = EventHeaders::new(factgate_core::events::DRAFT_V1, None);
    let mut pending = Vec::with_capacity(drafts.len());
    for (id, payload) in &drafts {
        let d = producer
            .enqueue(&config.kafka.topics.drafts, id, payload, &headers)
            .await
            .expect("queued");
        pending.push(d.acknowledged());
    }
    futures::future::try_join_all(pending)
        .await
        .expect("delivered");
    let mut read = 0;
    while read < drafts.len() {
        let m = consumer.recv().await.expect("read");
        let _ = m.payload();
        read += 1;
    }
    report(started.elapsed(), drafts.len(), claims, cpu0)
}

/// (b): the same drafts checked in process, no broker.
async fn in_process(args: &Args, origin: &str, claims: usize) -> serde_json::Map<String, Value> {
    let config = config(args);
    let fetcher = Fetcher::new(config.fetch_settings()).expect("fetcher");
    let verifier = Verifier::new(fetcher, config.judge_settings(), None);
    let options = CheckOptions {
        strictness: config.policy.strictness,
        deadline: Duration::from_secs(600),
        concurrency: CHECKS_IN_FLIGHT,
        limits: config.extract.limits(),
    };
    let bodies: Vec<(String, String)> = (0..args.drafts)
        .map(|i| {
            let (id, v) = draft(args, "b", i, origin, false);
            (id, v["body"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    // Warm the cache: every page once.
    for p in 0..args.pages {
        let _ = verifier
            .fetcher()
            .fetch(&format!("{origin}/page/{p}.html"))
            .await;
    }
    let cpu0 = cpu_seconds();
    let started = Instant::now();
    // Each draft is a task of its own, as each message is in the roles, so the checks spread
    // over every worker thread of the runtime (both cores here), as the pipeline's do.
    let decided = futures::stream::iter(bodies)
        .map(|(id, body)| {
            let verifier = verifier.clone();
            let options = options.clone();
            tokio::spawn(async move {
                check_article(&id, 1, &body, BodyFormat::Markdown, &verifier, &options).await
            })
        })
        .buffer_unordered(DRAFTS_IN_FLIGHT)
        .map(|joined| joined.expect("a check task completes"))
        .count()
        .await;
    assert_eq!(decided, args.drafts);
    report(started.elapsed(), decided, claims, cpu0)
}

/// Starts the pipeline with every role, returning its bootstrap address and the stop switch.
async fn start_pipeline(
    config: Config,
) -> (String, watch::Sender<bool>, tokio::task::JoinHandle<()>) {
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let (boot_tx, boot_rx) = tokio::sync::oneshot::channel();
    let handle = tokio::spawn(async move {
        let shutdown = async move {
            let _ = stop_rx.wait_for(|s| *s).await;
        };
        let mut boot_tx = Some(boot_tx);
        pipeline::run(config, &Role::ALL, false, shutdown, |running| {
            if let Some(tx) = boot_tx.take() {
                let _ = tx.send(running.bootstrap.clone());
            }
        })
        .await
        .expect("the pipeline runs");
    });
    let bootstrap = boot_rx.await.expect("pipeline started");
    (bootstrap, stop_tx, handle)
}

fn decisions_reader(bootstrap: &str, topic: &str, group: &str) -> StreamConsumer {
    let reader: StreamConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", group)
        .set("auto.offset.reset", "earliest")
        .set("fetch.wait.max.ms", "5")
        .create()
        .expect("reader");
    reader.subscribe(&[topic]).expect("subscribe");
    reader
}

/// Decisions read and their payload bytes, for the mean size of a decision.
static DECISION_BYTES: AtomicU64 = AtomicU64::new(0);
static DECISIONS_READ: AtomicU64 = AtomicU64::new(0);

/// What the bench reads of a decision.
#[derive(serde::Deserialize)]
struct DecisionSeen<'a> {
    #[serde(borrow)]
    article_id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    decided_at: std::borrow::Cow<'a, str>,
}

/// Reads decisions until every id in `want` has one; returns each id's `decided_at`.
async fn read_decisions(
    reader: &StreamConsumer,
    want: &HashMap<String, DateTime<Utc>>,
) -> HashMap<String, DateTime<Utc>> {
    let mut got = HashMap::new();
    while got.len() < want.len() {
        let m = tokio::time::timeout(Duration::from_secs(300), reader.recv())
            .await
            .expect("decisions keep coming")
            .expect("read");
        // Only the two fields it needs, as a CMS would read them; the rest is skipped, not
        // built into a tree (the reader shares the pipeline's cores).
        let Ok(v) = serde_json::from_slice::<DecisionSeen<'_>>(m.payload().unwrap_or_default())
        else {
            continue;
        };
        DECISION_BYTES.fetch_add(m.payload().map_or(0, <[u8]>::len) as u64, Ordering::Relaxed);
        DECISIONS_READ.fetch_add(1, Ordering::Relaxed);
        if want.contains_key(v.article_id.as_ref()) {
            let at = DateTime::parse_from_rfc3339(&v.decided_at)
                .map_or_else(|_| Utc::now(), |d| d.with_timezone(&Utc));
            got.insert(v.article_id.into_owned(), at);
        }
    }
    got
}

async fn publish(
    producer: &EventProducer,
    topic: &str,
    drafts: Vec<(String, Value)>,
) -> HashMap<String, DateTime<Utc>> {
    let headers = EventHeaders::new(factgate_core::events::DRAFT_V1, None);
    let mut published = HashMap::new();
    let mut pending = Vec::new();
    for (id, v) in drafts {
        let (v, at) = with_published_now(v);
        let payload = serde_json::to_vec(&v).expect("json");
        pending.push(
            producer
                .enqueue(topic, &id, &payload, &headers)
                .await
                .expect("queued")
                .acknowledged(),
        );
        published.insert(id, at);
    }
    futures::future::try_join_all(pending)
        .await
        .expect("delivered");
    published
}

/// (c), and the paced latency run.
async fn whole_pipeline(
    args: &Args,
    phase: &str,
    origin: &str,
    stats: &OriginStats,
    claims: usize,
) -> serde_json::Map<String, Value> {
    let config = config(args);
    let topics = config.kafka.topics.clone();
    let kafka = config.kafka.clone();
    let (bootstrap, stop, handle) = start_pipeline(config).await;
    let producer = EventProducer::new(&kafka, &bootstrap).expect("producer");
    let reader = decisions_reader(&bootstrap, &topics.decisions, "bench-reader");
    // Warm-up: every page fetched once, through the pipeline.
    let warm: Vec<(String, Value)> = (0..args.pages)
        .map(|p| {
            let (id, mut v) = draft(args, "warm", p, origin, false);
            let (region, thing) = subject(p);
            v["body"] = Value::from(format!(
                "In 2023, {thing} in the {region} region rose {}%, according to [the report]({origin}/page/{p}.html).\n",
                figure(p)
            ));
            (id, v)
        })
        .collect();
    let warmed = publish(&producer, &topics.drafts, warm).await;
    read_decisions(&reader, &warmed).await;
    let drafts: Vec<(String, Value)> = (0..args.drafts)
        .map(|i| draft(args, phase, i, origin, false))
        .collect();
    let requests0 = stats.requests.load(Ordering::Relaxed);
    let nanos0 = stats.nanos.load(Ordering::Relaxed);
    let cpu0 = cpu_seconds();
    let started = Instant::now();
    let mut out = if phase == "latency" {
        let interval = Duration::from_secs_f64(1.0 / args.rate.max(1.0));
        let mut tick = tokio::time::interval(interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        let mut published = HashMap::new();
        let headers = EventHeaders::new(factgate_core::events::DRAFT_V1, None);
        let reading = {
            let want: HashMap<String, DateTime<Utc>> = drafts
                .iter()
                .map(|(id, _)| (id.clone(), Utc::now()))
                .collect();
            let reader = &reader;
            async move { read_decisions(reader, &want).await }
        };
        let publishing = async {
            let mut pending = Vec::new();
            for (id, v) in drafts {
                tick.tick().await;
                let (v, at) = with_published_now(v);
                let payload = serde_json::to_vec(&v).expect("json");
                pending.push(
                    producer
                        .enqueue(&topics.drafts, &id, &payload, &headers)
                        .await
                        .expect("queued")
                        .acknowledged(),
                );
                published.insert(id, at);
            }
            futures::future::try_join_all(pending)
                .await
                .expect("delivered");
        };
        let (decided, ()) = tokio::join!(reading, publishing);
        let mut latencies: Vec<f64> = decided
            .iter()
            .filter_map(|(id, at)| {
                Some((*at - *published.get(id)?).num_microseconds()? as f64 / 1000.0)
            })
            .collect();
        latencies.sort_by(f64::total_cmp);
        let pct = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q).round() as usize];
        let origin_requests = stats.requests.load(Ordering::Relaxed) - requests0;
        let origin_ms = (stats.nanos.load(Ordering::Relaxed) - nanos0) as f64 / 1e6;
        // No draft waits on more origin time than the whole run's: an upper bound to subtract.
        let per_draft_origin = origin_ms;
        let mut m = report(started.elapsed(), latencies.len(), claims, cpu0);
        m.insert("rate".into(), args.rate.into());
        m.insert("p50_ms".into(), pct(0.50).into());
        m.insert("p99_ms".into(), pct(0.99).into());
        m.insert("origin_requests".into(), origin_requests.into());
        m.insert("origin_ms".into(), origin_ms.into());
        m.insert(
            "beyond_p50_ms".into(),
            (pct(0.50) - per_draft_origin).max(0.0).into(),
        );
        m.insert(
            "beyond_p99_ms".into(),
            (pct(0.99) - per_draft_origin).max(0.0).into(),
        );
        m
    } else {
        if std::env::var_os("BENCH_PROGRESS").is_some() {
            tokio::spawn(progress(started));
        }
        let published = publish(&producer, &topics.drafts, drafts).await;
        let decided = read_decisions(&reader, &published).await;
        report(started.elapsed(), decided.len(), claims, cpu0)
    };
    out.insert(
        "origin_requests_timed".into(),
        (stats.requests.load(Ordering::Relaxed) - requests0).into(),
    );
    close_clients(producer, reader).await;
    let _ = stop.send(true);
    let _ = handle.await;
    out
}

/// Closes the bench's own clients while the pipeline's embedded broker is still up. Closed
/// after it, each waits for a broker that is gone: the decisions reader to leave its group,
/// about 45 s in all, which kept the phase's process alive (and its idle threads in a profile)
/// long after the figures were taken.
async fn close_clients(producer: EventProducer, reader: StreamConsumer) {
    drop(producer);
    factgate::kafka::close_consumer(reader)
        .await
        .expect("the reader closes");
}

/// Prints the roles' counts every 100 ms, until the process ends (`BENCH_PROGRESS`).
async fn progress(started: Instant) {
    let m = factgate::metrics::metrics();
    let sum = |family: &prometheus::IntCounterVec, labels: &[&str]| -> u64 {
        labels
            .iter()
            .map(|l| family.with_label_values(&[l]).get())
            .sum()
    };
    // Records a role never read because the embedded broker had dropped them (it keeps the
    // last 5 MiB of each partition): the count of every such reset, from the metrics' text.
    let resets = || -> u64 {
        factgate::metrics::render()
            .lines()
            .filter(|l| l.starts_with("factgate_consumer_offset_resets_total"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    };
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        eprintln!(
            "{:6.1}s  drafts read {:6}  claims verified {:6}  decisions {:6}  held at the join {:6}  offset resets {}",
            started.elapsed().as_secs_f64(),
            m.drafts_consumed.get(),
            sum(
                &m.verifications,
                &["supported", "refuted", "unconfirmed", "contested"]
            ),
            sum(&m.decisions, &["pass", "block"]),
            m.join_in_flight.get(),
            resets(),
        );
    }
}

/// The memory run: `--in-flight` articles held at the join, each claim citing a page of its
/// own (so the page cache fills once the sources answer), then released.
async fn memory(
    args: &Args,
    origin: &str,
    open: watch::Sender<bool>,
) -> serde_json::Map<String, Value> {
    let mut args = args.clone();
    // Each claim cites a page of its own: `page_of` numbers them for 3 claims a draft.
    args.claims = 3;
    let config = config(&args);
    let capacity_mb = config.fetch_settings().cache_capacity_bytes as f64 / 1048576.0;
    let topics = config.kafka.topics.clone();
    let kafka = config.kafka.clone();
    let (bootstrap, stop, handle) = start_pipeline(config).await;
    let producer = EventProducer::new(&kafka, &bootstrap).expect("producer");
    let reader = decisions_reader(&bootstrap, &topics.decisions, "bench-memory");
    let sampling = Arc::new(AtomicBool::new(false));
    let sampler = sample_peak(sampling.clone());
    let started = Instant::now();
    let drafts: Vec<(String, Value)> = (0..args.in_flight)
        .map(|i| draft(&args, "mem", i, origin, true))
        .collect();
    let published = publish(&producer, &topics.drafts, drafts).await;
    let gauge = &factgate::metrics::metrics().join_in_flight;
    let mut max_seen = 0;
    let deadline = Instant::now() + Duration::from_secs(300);
    while (gauge.get() as usize) < args.in_flight && Instant::now() < deadline {
        max_seen = max_seen.max(gauge.get());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    max_seen = max_seen.max(gauge.get());
    let held_rss = status_mb("VmRSS:");
    if std::env::var_os("BENCH_EXIT_WHEN_HELD").is_some() {
        eprintln!(
            "held: {held_rss:.0} MB: {}",
            std::fs::read_to_string("/proc/self/status")
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("Rss"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        std::process::exit(0);
    }
    let mut held_allocator = allocator_mb();
    held_allocator.insert("rss".into(), held_rss.into());
    let _ = open.send(true);
    read_decisions(&reader, &published).await;
    sampling.store(true, Ordering::Relaxed);
    let at_peak = sampler.join().unwrap_or_default();
    let mut at_end = allocator_mb();
    at_end.insert("rss".into(), status_mb("VmRSS:").into());
    let cache_mb = cache_mb();
    let mut m = serde_json::Map::new();
    m.insert("articles".into(), published.len().into());
    m.insert("join_in_flight_max".into(), max_seen.into());
    m.insert("held_rss_mb".into(), held_rss.into());
    m.insert("peak_rss_mb".into(), status_mb("VmHWM:").into());
    m.insert("held_mb".into(), held_allocator.into());
    m.insert("at_peak_mb".into(), at_peak.into());
    m.insert("at_end_mb".into(), at_end.into());
    m.insert("cache_mb".into(), cache_mb.into());
    m.insert("cache_capacity_mb".into(), capacity_mb.into());
    m.insert(
        "decision_kb".into(),
        (DECISION_BYTES.load(Ordering::Relaxed) as f64
            / DECISIONS_READ.load(Ordering::Relaxed).max(1) as f64
            / 1024.0)
            .into(),
    );
    m.insert("wall_s".into(), started.elapsed().as_secs_f64().into());
    close_clients(producer, reader).await;
    let _ = stop.send(true);
    let _ = handle.await;
    m
}
