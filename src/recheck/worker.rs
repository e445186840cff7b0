//! The work of one instance of a run: the drafts of the partitions its group gives it, checked
//! when their checks fit in the budget of checks in flight, each decision published with the
//! run's id; offsets stored only past drafts decided (or not to be checked).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::Utc;
use rdkafka::consumer::Consumer;
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};
use tokio::sync::{Semaphore, watch};
use tracing::{debug, error, info, warn};

use super::{Decided, RecheckError, Tally, Target, metrics};
use crate::check::{CheckOptions, NoProgress, check_extracted, check_keys};
use crate::config::Config;
use crate::decide::decide_not_checked;
use crate::events::{
    DECISION_V1, Decision, DecisionReason, DraftEvent, DraftPosition, content_digest,
    fit_decision,
};
use crate::extract::{self, ExtractError};
use crate::kafka::{EventHeaders, EventProducer, is_message_fault};
use crate::verify::Verifier;

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

/// Drafts taken up and not yet decided, per partition, so a stored offset never passes one.
#[derive(Debug, Default)]
struct Offsets {
    partitions: BTreeMap<i32, PartitionOffsets>,
}

#[derive(Debug, Default)]
struct PartitionOffsets {
    pending: BTreeSet<i64>,
    next: i64,
}

impl Offsets {
    fn seen(&mut self, position: DraftPosition) {
        let p = self.partitions.entry(position.partition).or_default();
        p.next = p.next.max(position.offset + 1);
    }
    fn start(&mut self, position: DraftPosition) {
        self.seen(position);
        if let Some(p) = self.partitions.get_mut(&position.partition) {
            p.pending.insert(position.offset);
        }
    }
    fn done(&mut self, position: DraftPosition) {
        if let Some(p) = self.partitions.get_mut(&position.partition) {
            p.pending.remove(&position.offset);
        }
    }
    /// The offset to read the partition from after a restart.
    fn safe(&self, partition: i32) -> Option<i64> {
        let p = self.partitions.get(&partition)?;
        Some(p.pending.first().copied().unwrap_or(p.next))
    }
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
    let consumer = crate::kafka::consumer(&work.config.kafka, &work.bootstrap, &role)?;
    let topic = work.scope.drafts_topic.clone();
    consumer
        .subscribe(&[topic.as_str()])
        .map_err(RecheckError::Client)?;
    info!(
        run_id = %work.run_id,
        group = %crate::kafka::group_id(&work.config.kafka, &role),
        max_in_flight_checks = work.max_in_flight_checks,
        "re-check worker reading its drafts"
    );
    let budget = Arc::new(Semaphore::new(work.max_in_flight_checks));
    let in_flight_gauge = metrics::metrics()
        .in_flight_checks
        .with_label_values(&[&work.run_id]);
    let mut offsets = Offsets::default();
    let mut checks = tokio::task::JoinSet::new();
    let outcome: Result<(), RecheckError> = loop {
        let message = tokio::select! {
            _ = stop.wait_for(|s| *s) => break Ok(()),
            _ = tally.wait_for(|t| t.decided >= t.total) => break Ok(()),
            Some(joined) = checks.join_next() => {
                match joined {
                    Ok(Ok(position)) => {
                        offsets.done(position);
                        store(&consumer, &topic, &offsets, position.partition);
                        continue;
                    }
                    Ok(Err(err)) => break Err(err),
                    Err(err) => break Err(RecheckError::Blocking(err.to_string())),
                }
            }
            message = consumer.recv() => message,
        };
        let message = match message {
            Ok(message) => message,
            Err(err) => {
                warn!(error = %err, "reading the drafts: retrying");
                continue;
            }
        };
        let position = DraftPosition {
            partition: message.partition(),
            offset: message.offset(),
        };
        let article = work.by_position.get(&position).cloned();
        let Some(article) = article.filter(|a| !is_decided(&work.decided, a)) else {
            offsets.seen(position);
            store(&consumer, &topic, &offsets, position.partition);
            continue;
        };
        offsets.start(position);
        let payload = message.payload().unwrap_or_default().to_vec();
        drop(message);
        let prepared = {
            let work = Arc::clone(&work);
            let article = article.clone();
            tokio::task::spawn_blocking(move || prepare(&work, &article, &payload))
                .await
                .map_err(|e| RecheckError::Blocking(e.to_string()))?
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
            published.map(|()| position)
        });
    };
    // Work in flight is abandoned: its offsets were not stored, so it is done again on resume.
    checks.abort_all();
    while checks.join_next().await.is_some() {}
    let _ = tokio::task::spawn_blocking(move || {
        if let Err(err) = consumer.commit_consumer_state(rdkafka::consumer::CommitMode::Sync) {
            debug!(error = %err, "committing the re-check's offsets at exit");
        }
        drop(consumer);
    })
    .await;
    outcome
}

fn is_decided(decided: &Mutex<Decided>, article: &str) -> bool {
    decided
        .lock()
        .map(|d| d.decisions.contains_key(article))
        .unwrap_or(false)
}

/// Stores the partition's safe offset; a partition revoked meanwhile is its new owner's.
fn store<C: Consumer<crate::kafka::RoleContext>>(
    consumer: &C,
    topic: &str,
    offsets: &Offsets,
    partition: i32,
) {
    let Some(next) = offsets.safe(partition) else {
        return;
    };
    let mut list = TopicPartitionList::new();
    if list
        .add_partition_offset(topic, partition, Offset::Offset(next))
        .is_ok()
        && let Err(err) = consumer.store_offsets(&list)
    {
        debug!(partition, error = %err, "offset not stored (partition revoked?)");
    }
}

fn build_verifier(config: &Config) -> Result<Verifier, RecheckError> {
    let fetcher = crate::verify::fetch::Fetcher::new(config.fetch_settings())
        .map_err(|e| RecheckError::Verifier(e.to_string()))?;
    let llm = match config.llm_settings() {
        Some(settings) => Some(
            crate::verify::llm::LlmJudge::new(settings)
                .map_err(|e| RecheckError::Verifier(e.to_string()))?,
        ),
        None => None,
    };
    Ok(Verifier::new(fetcher, config.judge_settings(), llm))
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
    match extract::extract_within(&draft.body, draft.body_format, &limits) {
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
                error!(
                    article_id = %decision.article_id,
                    error = %err,
                    "the broker refused the re-check decision; a block saying so is sent instead"
                );
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at(offset: i64) -> DraftPosition {
        DraftPosition {
            partition: 0,
            offset,
        }
    }

    #[test]
    fn the_stored_offset_never_passes_a_draft_in_flight() {
        let mut offsets = Offsets::default();
        offsets.seen(at(0));
        offsets.start(at(1));
        offsets.seen(at(2));
        offsets.start(at(3));
        assert_eq!(offsets.safe(0), Some(1));
        offsets.done(at(3));
        assert_eq!(offsets.safe(0), Some(1));
        offsets.done(at(1));
        assert_eq!(offsets.safe(0), Some(4));
        assert_eq!(offsets.safe(1), None);
    }
}
