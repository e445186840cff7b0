//! `factgate run` with no broker configured, driven the way an operator would try it: the
//! `factgate` binary starts its embedded broker and prints `bootstrap.servers=…`; kcat (standing in
//! for the CMS) produces a draft to that address and reads its decision back.
//!
//! kcat must be installed (`apt-get install kcat`; CI installs it): without it this test fails.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use serde_json::Value;

/// How long factgate may take to print its bootstrap address.
const STARTUP: Duration = Duration::from_secs(30);
/// How long kcat may take to read the decision: group joins, extraction, a fetch, the join.
const DECIDED_WITHIN: Duration = Duration::from_secs(60);

/// Kills factgate however the test ends.
struct Factgate(Child);

impl Drop for Factgate {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn kcat() -> &'static str {
    match Command::new("kcat").arg("-V").output() {
        Ok(out) if out.status.success() => "kcat",
        Ok(out) => panic!(
            "kcat -V failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(err) => panic!(
            "kcat is required by this test and could not be run ({err}): install it \
             (Debian/Ubuntu: apt-get install kcat); CI installs it"
        ),
    }
}

/// Serves the demo's survey on 127.0.0.1 from a thread of its own; returns the survey's URL.
fn start_origin() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("origin binds on loopback");
    let port = listener.local_addr().expect("origin address").port();
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().expect("origin runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("origin listener");
            let app = Router::new().route(
                "/survey.html",
                get(|| async { Html(include_str!("../../examples/demo/sources/survey.html")) }),
            );
            let _ = axum::serve(listener, app).await;
        });
    });
    format!("http://127.0.0.1:{port}/survey.html")
}

/// `factgate run --no-http` with the configuration at `config`, stdout piped and stderr as given.
/// No FACTGATE_… override from the caller's environment may point it at a broker.
fn start_factgate(config: &std::path::Path, stderr: Stdio) -> Factgate {
    let child = Command::new(env!("CARGO_BIN_EXE_factgate"))
        .args(["run", "--no-http", "--config"])
        .arg(config)
        .env_remove("FACTGATE_KAFKA__BOOTSTRAP_SERVERS")
        .env_remove("FACTGATE_CONFIG")
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("factgate starts");
    Factgate(child)
}

/// Reads `stream` line by line until `find` returns something, within [`STARTUP`]; returns it
/// with the lines read before. Reads to the end on its own thread even once the line is found:
/// factgate's output stays open, as a terminal's would.
fn wait_for_line<T>(
    factgate: &mut Child,
    stream: impl std::io::Read + Send + 'static,
    what: &str,
    find: impl Fn(&str) -> Option<T>,
) -> (T, Vec<String>) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    let until = Instant::now() + STARTUP;
    let mut printed = Vec::new();
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => match find(&line) {
                Some(found) => return (found, printed),
                None => printed.push(line),
            },
            Err(_) => panic!(
                "factgate printed no {what} within {STARTUP:?}; it printed: {printed:?}; status: {:?}",
                factgate.try_wait()
            ),
        }
    }
}

/// Waits for the `bootstrap.servers=` line of factgate's stdout.
fn bootstrap_address(factgate: &mut Child) -> String {
    let stdout = factgate.stdout.take().expect("factgate stdout is piped");
    let (address, _) = wait_for_line(factgate, stdout, "bootstrap.servers= line", |line| {
        line.split_once("bootstrap.servers=")
            .map(|(_, address)| address.trim().to_owned())
    });
    address
}

#[test]
fn kcat_publishes_a_draft_to_factgate_run_and_reads_its_decision() {
    let kcat = kcat();
    let survey = start_origin();
    let dir = tempfile::tempdir().expect("temp dir");
    let config_path = dir.path().join("factgate.toml");
    std::fs::write(
        &config_path,
        "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n[join]\ndeadline_ms = 20000\n[log]\nlevel = \"warn\"\n",
    )
    .expect("config written");

    let mut factgate = start_factgate(&config_path, Stdio::inherit());
    let bootstrap = bootstrap_address(&mut factgate.0);
    assert!(
        bootstrap.split(',').all(|b| b.starts_with("127.0.0.1:")),
        "the embedded broker listens on loopback only: {bootstrap}"
    );

    let draft = serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": "kcat-1",
        "revision": 2,
        "published_at": chrono::Utc::now().to_rfc3339(),
        "body": format!("Online tutoring accounted for 28% of spending on private tutoring in 2023, according to [a survey]({survey}).\n"),
        "body_format": "markdown",
    });
    let mut produce = Command::new(kcat)
        .args(["-b", &bootstrap, "-P", "-t", "drafts.published", "-K:"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kcat -P starts");
    {
        use std::io::Write;
        let mut stdin = produce.stdin.take().expect("kcat stdin");
        writeln!(stdin, "kcat-1:{draft}").expect("draft written to kcat");
    }
    let produced = produce.wait_with_output().expect("kcat -P ends");
    assert!(
        produced.status.success(),
        "kcat -P failed: {}",
        String::from_utf8_lossy(&produced.stderr)
    );

    // -c 1 without -e: kcat waits for the decision; the wait is bounded by killing it.
    let consume = Command::new(kcat)
        .args(["-b", &bootstrap, "-C", "-t", "decisions", "-o", "beginning"])
        .args(["-c", "1", "-f", "%k\t%s\n"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kcat -C starts");
    let consume_pid = consume.id();
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(consume.wait_with_output());
    });
    let consumed = match done_rx.recv_timeout(DECIDED_WITHIN) {
        Ok(output) => output.expect("kcat -C ends"),
        Err(_) => {
            // kcat is ours; end it so the test does not leave it behind.
            let _ = Command::new("kill").arg(consume_pid.to_string()).status();
            panic!("kcat read no decision within {DECIDED_WITHIN:?}");
        }
    };
    assert!(
        consumed.status.success(),
        "kcat -C failed: {}",
        String::from_utf8_lossy(&consumed.stderr)
    );
    let out = String::from_utf8_lossy(&consumed.stdout);
    let (key, payload) = out
        .trim_end()
        .split_once('\t')
        .unwrap_or_else(|| panic!("kcat printed no key<TAB>decision: {out:?}"));
    assert_eq!(key, "kcat-1", "decisions are keyed by article");
    let decision: Value = serde_json::from_str(payload).expect("the decision is JSON");
    assert_eq!(decision["article_id"], "kcat-1", "{decision}");
    assert_eq!(decision["revision"], 2, "{decision}");
    assert_eq!(
        decision["outcome"], "pass",
        "the survey supports the claim: {decision}"
    );
    assert_eq!(decision["reasons"], serde_json::json!([]), "{decision}");
    assert_eq!(
        decision["report"]["summary"]["total_claims"], 1,
        "{decision}"
    );

    // The process was still running: it served until it was killed.
    assert!(
        factgate.0.try_wait().expect("status").is_none(),
        "factgate exited on its own"
    );
}

/// An operator's supervisor may stop reading factgate's stdout (or pipe it to `head`): the gate
/// keeps running and says on stderr that its banner could not be printed.
#[test]
fn factgate_run_keeps_running_when_its_stdout_is_closed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config_path = dir.path().join("factgate.toml");
    std::fs::write(&config_path, "[log]\nlevel = \"warn\"\n").expect("config written");
    let mut factgate = start_factgate(&config_path, Stdio::piped());
    // Closed before factgate prints anything: its first write to stdout fails.
    drop(factgate.0.stdout.take());
    let stderr = factgate.0.stderr.take().expect("stderr is piped");
    let ((), printed) = wait_for_line(
        &mut factgate.0,
        stderr,
        "word on stderr of its closed stdout",
        |line| {
            line.contains("could not print the startup banner")
                .then_some(())
        },
    );
    // Past the banner, the gate is serving; give a panic time to show.
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        factgate.0.try_wait().expect("status").is_none(),
        "factgate exited after its stdout was closed; stderr: {printed:?}"
    );
}

/// A clean stop (SIGTERM, as a supervisor sends it) is not an error: factgate exits 0, and no
/// line of its log is an error or a warning about brokers going down, which the stop itself
/// brings about (the embedded broker closes under its own clients).
#[test]
fn a_stop_by_sigterm_exits_cleanly_and_logs_no_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config_path = dir.path().join("factgate.toml");
    std::fs::write(&config_path, "[log]\nlevel = \"info\"\n").expect("config written");
    let mut factgate = start_factgate(&config_path, Stdio::piped());
    let stderr = factgate.0.stderr.take().expect("stderr is piped");
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let lines = std::sync::Arc::clone(&log);
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            lines.lock().expect("log").push(line);
        }
    });
    let _ = bootstrap_address(&mut factgate.0);
    // Serving: the roles have their partitions.
    let until = Instant::now() + STARTUP;
    while !log
        .lock()
        .expect("log")
        .iter()
        .any(|l| l.contains("partitions assigned"))
    {
        assert!(
            Instant::now() < until,
            "no partitions assigned: {:?}",
            log.lock()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let status = Command::new("kill")
        .args(["-TERM", &factgate.0.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let until = Instant::now() + Duration::from_secs(60);
    let exit = loop {
        if let Some(exit) = factgate.0.try_wait().expect("status") {
            break exit;
        }
        assert!(
            Instant::now() < until,
            "factgate did not stop after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = reader.join();
    let log = log.lock().expect("log");
    assert!(exit.success(), "{exit:?}: {log:#?}");
    let bad: Vec<&String> = log
        .iter()
        .filter(|l| {
            l.contains(" ERROR ") || (l.contains(" WARN ") && l.contains("brokers are down"))
        })
        .collect();
    assert!(bad.is_empty(), "a clean stop logged: {bad:#?}");
}
