//! The LLM judge against a local server that speaks the chat-completions protocol.
//!
//! The server tells the three voters apart by their system prompt and answers each as the test
//! scripts it: valid votes, broken JSON, HTTP errors, prose, invented quotes, slow replies. It
//! counts requests and records each Authorization header.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use factgate::verify::llm::{ApiKey, LlmJudge, LlmSettings};
use factgate_core::model::Verdict;
use factgate_core::quorum::prompts::VoterRole;
use factgate_core::quorum::votes::{QuorumOutcome, VoteOutcome, VoterVerdict};
use serde_json::{Value, json};

const KEY: &str = "sk-test-3f9a1c7e5b";
const CLAIM: &str = "The Basic plan costs $9 per month.";
const SOURCE: &str = "https://example.org/pricing";

fn evidence() -> Vec<String> {
    vec![
        "The Basic plan costs $9 per month, the company said in March 2024.".to_string(),
        "More than 2 million people subscribe to the service.".to_string(),
    ]
}

/// How the server answers one voter.
#[derive(Clone)]
enum Reply {
    /// 200 with this message content.
    Content(String),
    /// This HTTP status, no completion.
    Status(u16),
    /// The content, after a delay.
    Slow(Duration, String),
    /// A reply whose verdict is the Authorization header it received, so a parse error would
    /// quote the key.
    EchoAuthorization,
}

fn reply(verdict: &str, quote: &str) -> Reply {
    Reply::Content(json!({"verdict": verdict, "quote": quote, "reason": "checked"}).to_string())
}
fn supported() -> Reply {
    reply("supported", "The Basic plan costs $9 per month")
}
fn refuted() -> Reply {
    reply("refuted", "The Basic plan costs $9 per month")
}
fn not_enough_info() -> Reply {
    reply("not_enough_info", "")
}

struct Mock {
    replies: [Reply; 3],
    requests: AtomicUsize,
    /// Requests being answered right now, and the most there ever were at once.
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    authorization: Mutex<Vec<Option<String>>>,
    bodies: Mutex<Vec<Value>>,
}

async fn completions(
    State(mock): State<Arc<Mock>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    mock.requests.fetch_add(1, Ordering::SeqCst);
    let now = mock.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    mock.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let response = answer(&mock, &headers, &body).await;
    mock.in_flight.fetch_sub(1, Ordering::SeqCst);
    response
}

async fn answer(mock: &Mock, headers: &HeaderMap, body: &Value) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    mock.authorization.lock().unwrap().push(auth.clone());
    mock.bodies.lock().unwrap().push(body.clone());
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    let Some(index) = VoterRole::ALL
        .iter()
        .position(|r| r.system_prompt() == system)
    else {
        return (StatusCode::BAD_REQUEST, "unknown voter").into_response();
    };
    let content = match mock.replies[index].clone() {
        Reply::Content(c) => c,
        Reply::Status(code) => {
            return StatusCode::from_u16(code).unwrap().into_response();
        }
        Reply::Slow(delay, c) => {
            tokio::time::sleep(delay).await;
            c
        }
        Reply::EchoAuthorization => {
            json!({"verdict": auth.unwrap_or_default(), "quote": "", "reason": "x"}).to_string()
        }
    };
    Json(crate::support::llm::chat_completion(
        &body["model"],
        &content,
    ))
    .into_response()
}

/// Starts the server on 127.0.0.1:0 and returns its base URL.
async fn serve(replies: [Reply; 3]) -> (String, Arc<Mock>) {
    let mock = Arc::new(Mock {
        replies,
        requests: AtomicUsize::new(0),
        in_flight: AtomicUsize::new(0),
        max_in_flight: AtomicUsize::new(0),
        authorization: Mutex::new(Vec::new()),
        bodies: Mutex::new(Vec::new()),
    });
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(mock.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), mock)
}

fn settings(base_url: &str, timeout: Duration) -> LlmSettings {
    let mut s = LlmSettings::new(base_url, "test-model");
    s.api_key = Some(ApiKey::new(KEY));
    s.timeout = timeout;
    s
}

/// Judges CLAIM with scripted replies and checks what holds in every case: three requests, the
/// key in every Authorization header and nowhere in the outcome.
async fn run(replies: [Reply; 3], timeout: Duration) -> QuorumOutcome {
    let (url, mock) = serve(replies).await;
    let judge = LlmJudge::new(settings(&url, timeout)).unwrap();
    let outcome = judge.judge(CLAIM, SOURCE, &evidence()).await;
    assert_eq!(
        mock.requests.load(Ordering::SeqCst),
        3,
        "one request per voter"
    );
    let expected = format!("Bearer {KEY}");
    for auth in mock.authorization.lock().unwrap().iter() {
        assert_eq!(auth.as_deref(), Some(expected.as_str()));
    }
    assert!(!format!("{outcome:?}").contains(KEY), "key in {outcome:?}");
    assert!(!serde_json::to_string(&outcome).unwrap().contains(KEY));
    assert!(!format!("{judge:?}").contains(KEY));
    assert_eq!(outcome.votes.len(), 3);
    outcome
}

/// The abstention reason of each voter, None for a valid vote.
fn abstentions(outcome: &QuorumOutcome) -> Vec<Option<String>> {
    outcome
        .votes
        .iter()
        .map(|v| match &v.outcome {
            VoteOutcome::Abstained { reason } => Some(reason.clone()),
            VoteOutcome::Voted { .. } => None,
        })
        .collect()
}

fn assert_abstains(outcome: &QuorumOutcome, voter: usize, reason_contains: &str) {
    let reasons = abstentions(outcome);
    match &reasons[voter] {
        Some(reason) => assert!(
            reason.contains(reason_contains),
            "voter {voter} abstained for {reason:?}, expected {reason_contains:?}"
        ),
        None => panic!("voter {voter} voted: {:?}", outcome.votes[voter]),
    }
}

const QUICK: Duration = Duration::from_secs(5);

#[tokio::test]
async fn all_supported_is_supported_and_the_request_follows_the_protocol() {
    let (url, mock) = serve([supported(), supported(), supported()]).await;
    let judge = LlmJudge::new(settings(&url, QUICK)).unwrap();
    let outcome = judge.judge(CLAIM, SOURCE, &evidence()).await;
    assert_eq!(outcome.verdict, Verdict::Supported);
    assert_eq!(abstentions(&outcome), vec![None, None, None]);
    let voters: Vec<VoterRole> = outcome.votes.iter().map(|v| v.voter).collect();
    assert_eq!(voters, VoterRole::ALL);

    let bodies = mock.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 3);
    let mut systems: Vec<&str> = Vec::new();
    for body in bodies.iter() {
        assert_eq!(body["model"], "test-model");
        assert_eq!(body["temperature"], 0);
        assert_eq!(body["max_tokens"], 512, "the reply is capped");
        assert_eq!(body["response_format"]["type"], "json_object");
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][1]["role"], "user");
        let user: Value =
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
        assert_eq!(user["claim"], CLAIM);
        assert_eq!(user["source_url"], SOURCE);
        assert_eq!(user["evidence"], json!(evidence()));
        systems.push(body["messages"][0]["content"].as_str().unwrap());
    }
    systems.sort();
    systems.dedup();
    assert_eq!(systems.len(), 3, "each voter has its own system prompt");
}

#[tokio::test]
async fn two_refutations_refute() {
    let outcome = run([supported(), refuted(), refuted()], QUICK).await;
    assert_eq!(outcome.verdict, Verdict::Refuted);
    assert_eq!(abstentions(&outcome), vec![None, None, None]);
}

#[tokio::test]
async fn invalid_json_and_a_server_error_abstain_leaving_one_vote_inconclusive() {
    let votes = |voter: &str, vote: &str| {
        factgate::metrics::metrics()
            .llm_votes
            .with_label_values(&[voter, vote])
            .get()
    };
    let before = (
        votes("verifier", "supported"),
        votes("skeptic", "abstained"),
    );
    let broken = Reply::Content(r#"{"verdict": "supported", "quote": "The Basic"#.to_string());
    let outcome = run([supported(), broken, Reply::Status(500)], QUICK).await;
    assert_eq!(outcome.verdict, Verdict::Unconfirmed);
    assert!(abstentions(&outcome)[0].is_none());
    assert_abstains(&outcome, 1, "not the required JSON object");
    assert_abstains(&outcome, 2, "HTTP 500");
    // Every vote and abstention is counted (other tests in this binary count too: at least).
    assert!(votes("verifier", "supported") > before.0);
    assert!(votes("skeptic", "abstained") > before.1);
}

#[tokio::test]
async fn a_verdict_outside_the_schema_abstains() {
    let maybe = Reply::Content(r#"{"verdict": "maybe", "quote": "", "reason": "unsure"}"#.into());
    let outcome = run([maybe, supported(), not_enough_info()], QUICK).await;
    assert_abstains(&outcome, 0, "unknown variant `maybe`");
    // One supported vote and one "not enough info" do not carry the claim.
    assert_eq!(outcome.verdict, Verdict::Unconfirmed);
}

#[tokio::test]
async fn json_inside_prose_is_not_fished_out() {
    let Reply::Content(valid) = supported() else {
        unreachable!()
    };
    let prose = Reply::Content(format!(
        "Sure! Here is my verdict:\n{valid}\nHope this helps."
    ));
    let outcome = run([prose, supported(), not_enough_info()], QUICK).await;
    assert_abstains(&outcome, 0, "not the required JSON object");
    // Had the prose been mined for its JSON, two supported votes would pass the claim.
    assert_eq!(outcome.verdict, Verdict::Unconfirmed);
}

#[tokio::test]
async fn one_json_fence_is_accepted() {
    let Reply::Content(valid) = supported() else {
        unreachable!()
    };
    let fenced = Reply::Content(format!("```json\n{valid}\n```"));
    let outcome = run([fenced, supported(), not_enough_info()], QUICK).await;
    assert_eq!(abstentions(&outcome), vec![None, None, None]);
    assert_eq!(outcome.verdict, Verdict::Supported);
}

#[tokio::test]
async fn a_quote_not_in_the_evidence_abstains() {
    let invented = reply("supported", "The Basic plan costs $4 per month");
    let outcome = run([invented, supported(), not_enough_info()], QUICK).await;
    assert_abstains(&outcome, 0, "quote is not in the evidence");
    assert_eq!(outcome.verdict, Verdict::Unconfirmed);
}

#[tokio::test]
async fn a_voter_past_the_timeout_abstains_and_the_others_still_decide() {
    let Reply::Content(valid) = supported() else {
        unreachable!()
    };
    let slow = Reply::Slow(Duration::from_secs(10), valid);
    let started = Instant::now();
    let outcome = run([slow, supported(), supported()], Duration::from_millis(500)).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "waited for the slow voter"
    );
    assert_abstains(&outcome, 0, "timed out");
    assert_eq!(outcome.verdict, Verdict::Supported);
    let VoteOutcome::Voted { verdict, quote, .. } = &outcome.votes[1].outcome else {
        panic!("skeptic abstained")
    };
    assert_eq!(*verdict, VoterVerdict::Supported);
    assert_eq!(quote, "The Basic plan costs $9 per month");
}

#[tokio::test]
async fn the_key_never_reaches_an_abstention_reason() {
    // The server puts the Authorization header it received into the verdict field; serde's
    // "unknown variant" message would quote it. `run` asserts the key appears nowhere.
    let outcome = run(
        [Reply::EchoAuthorization, Reply::Status(401), supported()],
        QUICK,
    )
    .await;
    assert_abstains(&outcome, 0, "[redacted]");
    assert_abstains(&outcome, 1, "HTTP 401");
    assert_eq!(outcome.verdict, Verdict::Unconfirmed);
}

#[tokio::test]
async fn no_key_sends_no_authorization_header() {
    let (url, mock) = serve([supported(), supported(), supported()]).await;
    let mut s = settings(&url, QUICK);
    s.api_key = None;
    let outcome = LlmJudge::new(s)
        .unwrap()
        .judge(CLAIM, SOURCE, &evidence())
        .await;
    assert_eq!(outcome.verdict, Verdict::Supported);
    assert_eq!(*mock.authorization.lock().unwrap(), vec![None, None, None]);
}

#[tokio::test]
async fn an_unreachable_endpoint_makes_every_voter_abstain() {
    // Bind then drop a loopback listener so the port is closed.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let judge = LlmJudge::new(settings(&format!("http://127.0.0.1:{port}/v1"), QUICK)).unwrap();
    let outcome = judge.judge(CLAIM, SOURCE, &evidence()).await;
    assert_eq!(outcome.verdict, Verdict::Unconfirmed);
    for reason in abstentions(&outcome) {
        let reason = reason.expect("abstained");
        assert!(reason.contains("request failed"), "{reason}");
        assert!(!reason.contains(KEY));
    }
}

#[tokio::test]
async fn requests_in_flight_never_exceed_the_configured_bound() {
    let Reply::Content(valid) = supported() else {
        unreachable!()
    };
    let slow = || Reply::Slow(Duration::from_millis(300), valid.clone());
    let (url, mock) = serve([slow(), slow(), slow()]).await;
    let mut s = settings(&url, QUICK);
    s.max_concurrent_requests = 2;
    let judge = LlmJudge::new(s).unwrap();
    // Three claims at once, as `factgate check` runs them: nine requests, two at a time.
    let passages = evidence();
    let outcomes =
        futures::future::join_all((0..3).map(|_| judge.judge(CLAIM, SOURCE, &passages))).await;
    for outcome in &outcomes {
        assert_eq!(outcome.verdict, Verdict::Supported);
    }
    assert_eq!(mock.requests.load(Ordering::SeqCst), 9);
    assert_eq!(mock.max_in_flight.load(Ordering::SeqCst), 2);

    // With one slot, the voters of one claim take turns.
    let (url, mock) = serve([slow(), slow(), slow()]).await;
    let mut s = settings(&url, QUICK);
    s.max_concurrent_requests = 1;
    let outcome = LlmJudge::new(s)
        .unwrap()
        .judge(CLAIM, SOURCE, &evidence())
        .await;
    assert_eq!(outcome.verdict, Verdict::Supported);
    assert_eq!(mock.max_in_flight.load(Ordering::SeqCst), 1);
    // The per-claim time counts the waits for a slot: three turns of 300 ms.
    assert!(outcome.elapsed_ms >= 900, "{}", outcome.elapsed_ms);
}

#[tokio::test]
async fn evidence_is_cut_to_the_context_window_and_the_cut_is_reported() {
    let (url, mock) = serve([not_enough_info(), not_enough_info(), not_enough_info()]).await;
    let mut s = settings(&url, QUICK);
    s.context_tokens = 2048;
    s.max_reply_tokens = 256;
    let judge = LlmJudge::new(s).unwrap();
    // Three long passages, the first about the claim: far more than 2048 tokens.
    let long = |topic: &str| format!("{topic} ").repeat(400);
    let evidence = vec![
        format!(
            "The Basic plan costs $9 per month. {}",
            long("pricing details")
        ),
        long("company history"),
        long("office locations"),
    ];
    let outcome = judge.judge(CLAIM, SOURCE, &evidence).await;
    let fit = &outcome.evidence;
    assert!(fit.is_cut(), "{fit:?}");
    assert_eq!(fit.passages_given, 3);
    assert!(fit.tokens_sent <= fit.budget_tokens, "{fit:?}");
    assert!(fit.tokens_sent < fit.tokens_given, "{fit:?}");
    let summary = outcome.summary();
    assert!(
        summary.contains("evidence cut to fit llm.context_tokens"),
        "{summary}"
    );
    // What the voters saw ends with the cut marker, begins with the best passage, and the
    // whole request is well under the window by the server's own count of characters.
    let bodies = mock.bodies.lock().unwrap();
    for body in bodies.iter() {
        let user: Value =
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
        let sent: Vec<&str> = user["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        assert_eq!(sent.len(), fit.passages_sent);
        assert!(sent[0].starts_with("The Basic plan costs $9 per month."));
        assert!(sent.last().unwrap().ends_with(" […]"), "{sent:?}");
        let chars: usize = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap().chars().count())
            .sum();
        // About four characters a token in English: the prompt fits 2048 - 256 tokens.
        assert!(chars < (2048 - 256) * 4, "{chars} characters");
    }
}

#[tokio::test]
async fn a_claim_that_leaves_no_room_for_evidence_abstains_without_a_request() {
    let (url, mock) = serve([supported(), supported(), supported()]).await;
    let mut s = settings(&url, QUICK);
    s.context_tokens = 1400;
    let judge = LlmJudge::new(s).unwrap();
    let claim = "The Basic plan costs $9 per month. ".repeat(60);
    let outcome = judge.judge(&claim, SOURCE, &evidence()).await;
    assert_eq!(outcome.verdict, Verdict::Unconfirmed);
    for reason in abstentions(&outcome) {
        let reason = reason.expect("abstained");
        assert!(reason.contains("llm.context_tokens"), "{reason}");
    }
    assert_eq!(mock.requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_panel_time_per_claim_is_in_the_metrics() {
    let count = || {
        factgate::metrics::metrics()
            .llm_claim_duration
            .get_sample_count()
    };
    let before = count();
    let outcome = run([supported(), supported(), refuted()], QUICK).await;
    assert_eq!(outcome.verdict, Verdict::Supported);
    // Other tests of this binary observe too: at least one more.
    assert!(count() > before);
    let text = factgate::metrics::render();
    assert!(text.contains("factgate_llm_claim_duration_seconds_bucket"));
}
