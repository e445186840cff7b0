//! The work of one instance of a run: the drafts of the partitions its group gives it, checked
//! when their checks fit in the budget of checks in flight, each decision published with the
//! run's id.
//!
//! The group shares out partitions and commits no offsets: a partition's owner (after a
//! rebalance, or a resumed run) reads it from its start and skips every draft the run has
//! decided, known from the run's decisions. Reading drafts again is cheap; checking them is
//! not. (It also keeps resumption exact on brokers that cannot serve a fetch from an offset in
//! the middle of a record batch, as tansu cannot.)

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::internal_events;
use chrono::Utc;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::message::Message;
use tokio::sync::{Semaphore, watch};
use tracing::debug;

use super::{Decided, RecheckError, Tally, Target, metrics};
use crate::check::{CheckOptions, NoProgress, check_extracted};
use crate::config::Config;
use crate::kafka::{EventHeaders, EventProducer, is_message_fault};
use crate::verify::Verifier;
use factgate_core::decide::decide_not_checked;
use factgate_core::events::{
    DECISION_V1, Decision, DecisionReason, DraftEvent, DraftPosition, content_digest, fit_decision,
};
use factgate_core::extract::{self, ExtractError};
use factgate_core::roles::check_keys;

/// Checks run at once within one article (as `factgate check`); the fetcher's per-host limits
/// apply within this.
const ARTICLE_CONCURRENCY: usize = 16;

/// What a worker needs.
pub(super) struct Work {
    pub config: Config,
    pub bootstrap: String,
    pub run_id: String,
    pub scope: super::RunScope,
    /// Targets by their draft's position.
    pub by_position: BTreeMap<DraftPosition, String>,
    pub targets: Arc<BTreeMap<String, Target>>,
    pub decided: Arc<Mutex<Decided>>,
    pub producer: EventProducer,
    pub max_in_flight_checks: usize,
}

/// An article ready to be checked, or already answered.
enum Prepared {
    /// Extracted, with its checks counted.
    Extracted {
        draft: Box<DraftEvent>,
        digest: String,
        extraction: Box<extract::Extraction>,
        checks: usize,
    },
    /// Decided without checks: unreadable, or extraction refused it.
    Answered(Box<Decision>),
}

/// Reads the run's drafts through its consumer group until every target is decided or `stop`.
///
/// # Errors
/// A fault of the broker (a decision that could not be published), or a setup fault.
pub(super) async fn run(
    work: Work,
    mut stop: watch::Receiver<bool>,
    mut tally: watch::Receiver<Tally>,
) -> Result<(), RecheckError> {
    let work = Arc::new(work);
    let verifier = build_verifier(&work.config)?;
    let role = format!("recheck-{}", work.run_id);
    let group = crate::kafka::group_id(&work.config.kafka, &role);
    let consumer: StreamConsumer =
        crate::kafka::client::base_config(&work.config.kafka, &work.bootstrap)
            .set("group.id", &group)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .create()
            .map_err(|e| RecheckError::Client(crate::kafka::client::redact_config_error(e)))?;
    let topic = work.scope.drafts_topic.clone();
    consumer
        .subscribe(&[topic.as_str()])
        .map_err(RecheckError::Client)?;
    internal_events::recheck_worker_reading(&work.run_id, &group, work.max_in_flight_checks);
    let budget = Arc::new(Semaphore::new(work.max_in_flight_checks));
    let in_flight_gauge = metrics::metrics()
        .in_flight_checks
        .with_label_values(&[&work.run_id]);
    let mut checks = tokio::task::JoinSet::new();
    let outcome: Result<(), RecheckError> = loop {
        let message = tokio::select! {
            _ = stop.wait_for(|s| *s) => break Ok(()),
            _ = tally.wait_for(|t| t.decided >= t.total) => break Ok(()),
            Some(joined) = checks.join_next() => {
                match joined {
                    Ok(Ok(())) => continue,
                    Ok(Err(err)) => break Err(err),
                    Err(err) => break Err(RecheckError::Task(err)),
                }
            }
            message = consumer.recv() => message,
        };
        let message = match message {
            Ok(message) => message,
            Err(err) => {
                internal_events::recheck_read_retried("the drafts", None, &err);
                continue;
            }
        };
        let position = DraftPosition {
            partition: message.partition(),
            offset: message.offset(),
        };
        let article = work.by_position.get(&position).cloned();
        let Some(article) = article.filter(|a| !is_decided(&work.decided, a)) else {
            continue;
        };
        let payload = message.payload().unwrap_or_default().to_vec();
        drop(message);
        let prepared = {
            let work = Arc::clone(&work);
            let article = article.clone();
            tokio::task::spawn_blocking(move || prepare(&work, &article, &payload))
                .await
                .map_err(RecheckError::Task)?
        };
        let needed = match &prepared {
            Prepared::Extracted { checks, .. } => (*checks).min(work.max_in_flight_checks),
            Prepared::Answered(_) => 0,
        };
        // Admission: wait (reading no further) until the article's checks fit.
        let permits = tokio::select! {
            _ = stop.wait_for(|s| *s) => break Ok(()),
            permits = Arc::clone(&budget).acquire_many_owned(u32::try_from(needed).unwrap_or(u32::MAX)) => {
                // The semaphore is never closed.
                permits.expect("the check budget is open")
            }
        };
        let work = Arc::clone(&work);
        let verifier = verifier.clone();
        let gauge = in_flight_gauge.clone();
        checks.spawn(async move {
            gauge.add(i64::try_from(needed).unwrap_or(i64::MAX));
            let started = Instant::now();
            let decision = decide(&work, &verifier, position, prepared).await;
            let published = publish(&work, decision).await;
            gauge.sub(i64::try_from(needed).unwrap_or(i64::MAX));
            drop(permits);
            metrics::metrics()
                .check_duration
                .with_label_values(&[&work.run_id])
                .observe(started.elapsed().as_secs_f64());
            published
        });
    };
    // Work in flight is abandoned: its offsets were not stored, so it is done again on resume.
    checks.abort_all();
    while checks.join_next().await.is_some() {}
    let _ = tokio::task::spawn_blocking(move || drop(consumer)).await;
    outcome
}

fn is_decided(decided: &Mutex<Decided>, article: &str) -> bool {
    decided
        .lock()
        .map(|d| d.decisions.contains_key(article))
        .unwrap_or(false)
}

fn build_verifier(config: &Config) -> Result<Verifier, RecheckError> {
    let fetcher = crate::verify::fetch::Fetcher::new(config.fetch_settings())
        .map_err(RecheckError::Fetcher)?;
    let llm = match config.llm_settings() {
        Some(settings) => {
            Some(crate::verify::llm::LlmJudge::new(settings).map_err(RecheckError::Judge)?)
        }
        None => None,
    };
    Ok(Verifier::new(fetcher, config.judge_settings(), llm)
        .with_draft_budget(config.judge.max_draft_judge()))
}

/// Reads and extracts the draft (CPU: on the blocking pool).
fn prepare(work: &Work, article: &str, payload: &[u8]) -> Prepared {
    let now = Utc::now();
    let draft = match DraftEvent::from_json(payload) {
        Ok(draft) => draft,
        Err(err) => {
            let revision = work.targets.get(article).and_then(|t| t.revision);
            return Prepared::Answered(Box::new(decide_not_checked(
                article,
                revision,
                &content_digest(payload),
                DecisionReason::DraftUnreadable,
                &err.to_string(),
                None,
                now,
            )));
        }
    };
    let digest = draft.content_digest();
    let limits = work.config.extract.limits();
    // Read as the live extract role reads it: the draft's title is a claim too.
    match extract::extract_titled_within(
        &draft.body,
        draft.body_format,
        draft.title.as_deref(),
        &limits,
    ) {
        Ok(extraction) => {
            let checks = check_keys(&extraction).len();
            Prepared::Extracted {
                draft: Box::new(draft),
                digest,
                extraction: Box::new(extraction),
                checks,
            }
        }
        Err(err) => {
            let reason = match err {
                ExtractError::Limit(_) => DecisionReason::LimitExceeded,
                _ => DecisionReason::ExtractionFailed,
            };
            Prepared::Answered(Box::new(decide_not_checked(
                &draft.article_id,
                Some(draft.revision),
                &digest,
                reason,
                &err.to_string(),
                None,
                now,
            )))
        }
    }
}

/// Checks an admitted article; its deadline starts now.
async fn decide(
    work: &Work,
    verifier: &Verifier,
    position: DraftPosition,
    prepared: Prepared,
) -> Decision {
    let decision = match prepared {
        Prepared::Answered(decision) => *decision,
        Prepared::Extracted {
            draft,
            digest,
            extraction,
            checks,
        } => {
            let options = CheckOptions {
                strictness: work.config.policy.strictness,
                deadline: super::deadline_for(&work.config, checks),
                concurrency: ARTICLE_CONCURRENCY,
                limits: work.config.extract.limits(),
            };
            check_extracted(
                &draft.article_id,
                draft.revision,
                &digest,
                *extraction,
                verifier,
                &options,
                &NoProgress,
            )
            .await
            .decision
        }
    };
    decision.for_recheck(&work.run_id, position)
}

/// Publishes the run's decision on its decisions topic, shortened to fit the broker's limit; a
/// decision the broker refuses for its own sake is replaced by a block saying so.
async fn publish(work: &Work, mut decision: Decision) -> Result<(), RecheckError> {
    let budget = work.config.kafka.max_payload_bytes();
    if let Err(oversize) = fit_decision(&mut decision, budget) {
        decision = unpublishable(work, &decision, &oversize.to_string());
    }
    let topic = &work.config.kafka.topics.recheck_decisions;
    let headers = EventHeaders::new(DECISION_V1, None).with("factgate-run-id", &work.run_id);
    for attempt in 0..2 {
        // factgate's events always serialize.
        let payload = serde_json::to_vec(&decision).expect("a decision serializes");
        match work
            .producer
            .produce(topic, &decision.article_id, &payload, &headers)
            .await
        {
            Ok(_) => {
                debug!(
                    run_id = %work.run_id,
                    article_id = %decision.article_id,
                    outcome = ?decision.outcome,
                    decision_id = %decision.decision_id,
                    "re-check decision published"
                );
                return Ok(());
            }
            Err(err) if is_message_fault(&err) && attempt == 0 => {
                internal_events::recheck_decision_refused(&decision.article_id, &err);
                decision = unpublishable(work, &decision, &err.to_string());
            }
            Err(err) => return Err(RecheckError::Client(err)),
        }
    }
    Ok(())
}

fn unpublishable(work: &Work, decision: &Decision, why: &str) -> Decision {
    let position = decision.draft_position.unwrap_or(DraftPosition {
        partition: 0,
        offset: 0,
    });
    decide_not_checked(
        &decision.article_id,
        decision.revision,
        decision.content_digest.as_deref().unwrap_or_default(),
        DecisionReason::InternalError,
        &format!("the decision could not be published: {why}"),
        None,
        Utc::now(),
    )
    .for_recheck(&work.run_id, position)
}
