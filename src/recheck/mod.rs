//! `factgate recheck`: the archive checked again as one bounded, resumable run beside the live
//! deployment, ending with a summary and, per article, the change against its live decision.
//!
//! ```text
//! runs topic ──► scope (end offsets, filters; the first record of the run id wins)
//! drafts ──(no group, up to the end offsets)──► latest revision per article = the run's targets
//! decisions ──(no group, up to now)──► latest live decision per target
//! drafts ──(group {group_prefix}-recheck-{run})──► worker ──► recheck decisions (run id in each)
//!                                                                 │
//!                         every instance reads the run's decisions ◄┘ until all targets are decided
//! ```
//!
//! - **Bounded.** The first instance of a run records its scope on `kafka.topics.recheck_runs`:
//!   where each drafts partition ended and the filters. Every instance (and a resumed run) reads
//!   it back, so all re-check the same drafts; the run ends when each is decided.
//! - **Isolated.** The run writes only to `kafka.topics.recheck_runs` and
//!   `kafka.topics.recheck_decisions`; each decision carries the run id, which is part of its
//!   decision id, and a run reads only decisions of its own id. The drafts and live decisions
//!   are read without a consumer group; the run's own group is `{group_prefix}-recheck-{run}`.
//! - **Flow-controlled.** An article is extracted first, then admitted when its checks fit in
//!   the run's budget of checks in flight ([`RecheckOptions::max_in_flight_checks`]); its
//!   deadline starts at admission, so no article waits out its deadline in the run's own queue.
//!   A source that does not answer still fails its check with its own reason (the fetch's
//!   timeout).
//! - **Distributed and resumable.** Instances with one run id share the drafts' partitions
//!   through the run's group; a draft the run has decided (by any instance, before an
//!   interruption) is never checked again, so a run started again with its id goes on where it
//!   stopped.

mod diff;
mod metrics;
mod progress;
mod scope;
mod summary;
mod topics;
mod worker;

pub use diff::{
    ArticleDiff, Change, DecisionBrief, Finding, FindingKind, Summary, compare, findings,
};
pub use progress::{ProgressDisplay, ProgressStyle, Tally};
pub use scope::{RECHECK_RUN_V1, RunScope, Selection, Target, validate_run_id};
pub use summary::{ReportFormat, RunReport};

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::internal_events;
use chrono::{DateTime, Utc};
use rdkafka::message::Message;
use tokio::sync::watch;

use crate::config::Config;
use crate::kafka::{EventHeaders, EventProducer, KafkaSetupError, ensure_named_topics};
use factgate_core::events::{Decision, Outcome};

/// What to re-check, and how.
#[derive(Debug, Clone, Default)]
pub struct RecheckOptions {
    /// The run's id: instances with the same id share the work; a run started again with its
    /// id resumes.
    pub run_id: String,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub articles: Vec<String>,
    pub sections: Vec<String>,
    /// Checks (claim, source pairs) in flight at once on this instance; by default what the
    /// per-host rate limit can serve in half the deadline (see [`default_max_in_flight_checks`]).
    pub max_in_flight_checks: Option<usize>,
}

/// Faults that stop a run (it can be resumed with its run id).
#[derive(Debug, thiserror::Error)]
pub enum RecheckError {
    #[error(
        "factgate recheck reads the drafts from a Kafka cluster: set kafka.bootstrap_servers \
         (or FACTGATE_KAFKA__BOOTSTRAP_SERVERS), e.g. the address a running factgate prints"
    )]
    NoBrokers,
    #[error("{0}")]
    InvalidOptions(String),
    #[error(transparent)]
    Kafka(#[from] KafkaSetupError),
    #[error("Kafka client error")]
    Client(#[source] rdkafka::error::KafkaError),
    #[error("the drafts topic {0:?} does not exist on the brokers (kafka.topics.drafts)")]
    NoDraftsTopic(String),
    #[error("the runs topic {topic:?} has a record for run {run_id} that cannot be read: {why}")]
    BadScope {
        topic: String,
        run_id: String,
        why: String,
    },
    #[error(
        "run {run_id} was started with other filters ({recorded}); resume it with the same \
         filters or none, or start a new run with another --run-id"
    )]
    ScopeMismatch { run_id: String, recorded: String },
    #[error("reading {topic}: nothing arrived from partitions {partitions:?} for a minute")]
    Stalled { topic: String, partitions: Vec<i32> },
    #[error("building the fetcher")]
    Fetcher(#[source] crate::verify::fetch::FetchError),
    #[error("building the LLM judge")]
    Judge(#[source] crate::verify::llm::LlmError),
    #[error("a task of the run failed")]
    Task(#[source] tokio::task::JoinError),
    #[error("the shared decisions' lock was poisoned by a task that panicked")]
    LockPoisoned,
    #[error(
        "interrupted with {decided} of {total} articles decided; run again with --run-id \
         {run_id} to resume"
    )]
    Interrupted {
        run_id: String,
        decided: usize,
        total: usize,
    },
}

/// Refuses an empty article id or section in the filters (`--articles ''`, `--articles a,,b`):
/// no draft has one, so the run would check nothing and end as a success.
fn validate_filters(options: &RecheckOptions) -> Result<(), String> {
    for (flag, values) in [
        ("--articles", &options.articles),
        ("--sections", &options.sections),
    ] {
        if values.iter().any(|v| v.trim().is_empty()) {
            return Err(format!(
                "{flag} holds an empty value ({flag} {:?}): give the ids, comma-separated, or \
                 leave {flag} out to re-check every article",
                values.join(",")
            ));
        }
    }
    Ok(())
}

/// Checks in flight by default: what `fetch.per_host_requests_per_second` serves in half of
/// `join.deadline_ms`, so even when every admitted check cites one host its wait for the rate
/// limiter leaves half the deadline to the fetch itself. At least one.
pub fn default_max_in_flight_checks(config: &Config) -> usize {
    let rps = config.fetch.per_host_requests_per_second.max(0.001);
    let half_deadline = config.join.deadline().as_secs_f64() / 2.0;
    ((rps * half_deadline).floor() as usize).max(1)
}

/// An article's deadline: `join.deadline_ms`, or longer for an article with more checks than
/// the per-host rate serves in it (all on one host, twice the time the limiter needs), so its
/// own checks never push it past its deadline.
pub(crate) fn deadline_for(config: &Config, checks: usize) -> Duration {
    let rps = config.fetch.per_host_requests_per_second.max(0.001);
    let needed = Duration::from_secs_f64(2.0 * checks as f64 / rps);
    config.join.deadline().max(needed)
}

/// The longest the reader of a run's decisions waits, past the ends reported at its start, for
/// a pause before it counts the topic as read.
const CATCH_UP_LIMIT: Duration = Duration::from_secs(30);

/// What the run has decided so far, shared by the reader of its decisions and the worker.
#[derive(Debug, Default)]
pub(crate) struct Decided {
    /// Per target article, the run's decision on the target's draft.
    pub decisions: HashMap<String, Decision>,
}

/// Runs (or joins, or resumes) the re-check `options.run_id` until each article in its scope is
/// decided, then compares with the live decisions. `progress` is told the tally as it changes.
///
/// # Errors
/// A setup or broker fault, or [`RecheckError::Interrupted`] when `shutdown` resolves first.
pub async fn run(
    config: &Config,
    options: RecheckOptions,
    shutdown: impl Future<Output = ()> + Send,
    mut progress: impl FnMut(Tally) + Send,
) -> Result<RunReport, RecheckError> {
    validate_options(&options)?;
    let bootstrap = config
        .kafka
        .bootstrap_servers
        .clone()
        .ok_or(RecheckError::NoBrokers)?;
    let kafka = &config.kafka;
    let topics = &kafka.topics;
    ensure_named_topics(
        kafka,
        &bootstrap,
        &[&topics.recheck_runs, &topics.recheck_decisions],
    )
    .await?;
    let producer = EventProducer::new(kafka, &bootstrap)?;
    let run_id = options.run_id.clone();

    let (scope, selection) = establish_scope(config, &bootstrap, &producer, &options).await?;
    let targets = Arc::new(selection.targets.clone());
    let total = targets.len();
    crate::internal_events::recheck_targets_chosen(
        &run_id,
        &scope.started_at,
        scope.end_offsets.len(),
        total,
        selection.records_read,
        selection.unidentified,
    );
    let live = live_decisions(config, &bootstrap, &targets).await?;

    let decided = Arc::new(Mutex::new(Decided::default()));
    let (tally_tx, mut tally_rx) = watch::channel(Tally {
        total,
        ..Tally::default()
    });
    let (caught_up_tx, caught_up_rx) = watch::channel(false);
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    {
        let config = config.clone();
        let bootstrap = bootstrap.clone();
        let targets = Arc::clone(&targets);
        let decided = Arc::clone(&decided);
        let run_id = run_id.clone();
        let stop = stop_rx.clone();
        tasks.spawn(async move {
            follow_decisions(
                &config,
                &bootstrap,
                &run_id,
                &targets,
                &decided,
                &tally_tx,
                caught_up_tx,
                stop,
            )
            .await
        });
    }
    {
        let work = worker::Work {
            config: config.clone(),
            bootstrap: bootstrap.clone(),
            run_id: run_id.clone(),
            scope: scope.clone(),
            by_position: selection.by_position(),
            targets: Arc::clone(&targets),
            decided: Arc::clone(&decided),
            producer: producer.clone(),
            max_in_flight_checks: options
                .max_in_flight_checks
                .unwrap_or_else(|| default_max_in_flight_checks(config))
                .max(1),
        };
        spawn_worker(
            &mut tasks,
            work,
            caught_up_rx.clone(),
            stop_rx.clone(),
            tally_rx.clone(),
        );
    }

    let outcome = until_decided(
        shutdown,
        &mut tasks,
        &mut tally_rx,
        &caught_up_rx,
        &stop_tx,
        &run_id,
        &mut progress,
    )
    .await;
    let _ = producer.flush(Duration::from_secs(10)).await;
    outcome?;

    let decided = std::mem::take(
        &mut decided
            .lock()
            .map_err(|_| RecheckError::LockPoisoned)?
            .decisions,
    );
    if decided.len() < total {
        return Err(RecheckError::Interrupted {
            run_id,
            decided: decided.len(),
            total,
        });
    }
    let articles = diffs(&targets, &decided, &live);
    let summary = Summary::of(total, &articles);
    metrics::metrics().finished(&run_id, &summary);
    Ok(RunReport {
        run_id,
        finished_at: Utc::now(),
        summary,
        missing_articles: selection.missing_articles(&scope).into_iter().collect(),
        unidentified_drafts: selection.unidentified,
        scope,
        articles,
    })
}

/// The run's scope and its targets: the scope recorded on the runs topic for its id, or a new
/// one recorded now. When two instances start a new run at once, both record one and the first
/// on the topic wins.
async fn establish_scope(
    config: &Config,
    bootstrap: &str,
    producer: &EventProducer,
    options: &RecheckOptions,
) -> Result<(RunScope, Selection), RecheckError> {
    if let Some(recorded) = recorded_scope(config, bootstrap, &options.run_id).await? {
        check_same_filters(&recorded, options)?;
        crate::internal_events::recheck_resumed(&options.run_id);
        let selection = select(config, bootstrap, &recorded).await?;
        return Ok((recorded, selection));
    }
    let drafts = &config.kafka.topics.drafts;
    let marks = topics::watermarks(&config.kafka, bootstrap, drafts)
        .await?
        .ok_or_else(|| RecheckError::NoDraftsTopic(drafts.clone()))?;
    let started_at = Utc::now();
    // Every record written by now is in scope; the read finds where that ends.
    let mut scope = RunScope {
        schema_version: RECHECK_RUN_V1.to_owned(),
        run_id: options.run_id.clone(),
        started_at,
        drafts_topic: drafts.clone(),
        end_offsets: marks.keys().map(|p| (*p, i64::MAX)).collect(),
        since: options.since,
        until: options.until,
        articles: options.articles.clone(),
        sections: options.sections.clone(),
    };
    let reported = marks.iter().map(|(p, (_, high))| (*p, *high)).collect();
    let ((selection, _), ends) = topics::read_until(
        &config.kafka,
        bootstrap,
        drafts,
        &reported,
        Some(started_at),
        (Selection::default(), scope.clone()),
        |(selection, scope), record| selection.offer(scope, record.position, record.payload),
    )
    .await?;
    scope.end_offsets = ends;
    // A scope record is small and always serializes.
    let payload = serde_json::to_vec(&scope).expect("a run scope serializes");
    let headers = EventHeaders::new(RECHECK_RUN_V1, None);
    producer
        .produce_to_partition(
            &config.kafka.topics.recheck_runs,
            0,
            &options.run_id,
            &payload,
            &headers,
        )
        .await
        .map_err(RecheckError::Client)?;
    let recorded = recorded_scope(config, bootstrap, &options.run_id)
        .await?
        .ok_or_else(|| RecheckError::BadScope {
            topic: config.kafka.topics.recheck_runs.clone(),
            run_id: options.run_id.clone(),
            why: "the scope just recorded cannot be read back".into(),
        })?;
    if recorded == scope {
        Ok((scope, selection))
    } else {
        // Another instance recorded the run first: its scope is the run's.
        let selection = select(config, bootstrap, &recorded).await?;
        Ok((recorded, selection))
    }
}

/// The targets of `scope`: the latest revision of each article within it.
async fn select(
    config: &Config,
    bootstrap: &str,
    scope: &RunScope,
) -> Result<Selection, RecheckError> {
    let ((selection, _), _) = topics::read_until(
        &config.kafka,
        bootstrap,
        &scope.drafts_topic,
        &scope.end_offsets,
        None,
        (Selection::default(), scope.clone()),
        |(selection, scope), record| selection.offer(scope, record.position, record.payload),
    )
    .await?;
    Ok(selection)
}

/// The first scope recorded for `run_id` on partition 0 of the runs topic.
async fn recorded_scope(
    config: &Config,
    bootstrap: &str,
    run_id: &str,
) -> Result<Option<RunScope>, RecheckError> {
    let topic = &config.kafka.topics.recheck_runs;
    let Some(marks) = topics::watermarks(&config.kafka, bootstrap, topic).await? else {
        return Ok(None);
    };
    let Some(&(_, high)) = marks.get(&0) else {
        return Ok(None);
    };
    let ends = BTreeMap::from([(0, high)]);
    let wanted = run_id.to_owned();
    let (found, _) = topics::read_until(
        &config.kafka,
        bootstrap,
        topic,
        &ends,
        Some(Utc::now()),
        None::<Result<RunScope, String>>,
        move |found, record| {
            if found.is_some() || record.key != Some(wanted.as_bytes()) {
                return;
            }
            let payload = record.payload.unwrap_or_default();
            *found = Some(
                serde_json::from_slice::<RunScope>(payload)
                    .map_err(|e| e.to_string())
                    .and_then(|s| {
                        if s.run_id == wanted && s.schema_version == RECHECK_RUN_V1 {
                            Ok(s)
                        } else {
                            Err(format!("not a {RECHECK_RUN_V1} record for this run"))
                        }
                    }),
            );
        },
    )
    .await?;
    match found {
        None => Ok(None),
        Some(Ok(scope)) => Ok(Some(scope)),
        Some(Err(why)) => Err(RecheckError::BadScope {
            topic: topic.clone(),
            run_id: run_id.to_owned(),
            why,
        }),
    }
}

/// A resumed run keeps its recorded filters: asking for others is a mistake worth saying.
fn check_same_filters(recorded: &RunScope, options: &RecheckOptions) -> Result<(), RecheckError> {
    let asked = options.since.is_some()
        || options.until.is_some()
        || !options.articles.is_empty()
        || !options.sections.is_empty();
    let same = recorded.since == options.since
        && recorded.until == options.until
        && recorded.articles == options.articles
        && recorded.sections == options.sections;
    if asked && !same {
        let mut recorded_filters = Vec::new();
        if let Some(s) = recorded.since {
            recorded_filters.push(format!("--since {}", s.to_rfc3339()));
        }
        if let Some(u) = recorded.until {
            recorded_filters.push(format!("--until {}", u.to_rfc3339()));
        }
        if !recorded.articles.is_empty() {
            recorded_filters.push(format!("--articles {}", recorded.articles.join(",")));
        }
        if !recorded.sections.is_empty() {
            recorded_filters.push(format!("--sections {}", recorded.sections.join(",")));
        }
        if recorded_filters.is_empty() {
            recorded_filters.push("no filters".into());
        }
        return Err(RecheckError::ScopeMismatch {
            run_id: recorded.run_id.clone(),
            recorded: recorded_filters.join(" "),
        });
    }
    Ok(())
}
/// Spawns the run's worker in `tasks`. The decisions the run already made are read first
/// (`caught_up`), so none is checked again; the worker then checks the targets not yet decided.
fn spawn_worker(
    tasks: &mut tokio::task::JoinSet<Result<(), RecheckError>>,
    work: worker::Work,
    mut caught_up: watch::Receiver<bool>,
    stop: watch::Receiver<bool>,
    mut all_done: watch::Receiver<Tally>,
) {
    tasks.spawn(async move {
        if caught_up.wait_for(|c| *c).await.is_err() {
            return Ok(());
        }
        let tally = *all_done.borrow_and_update();
        if tally.decided >= tally.total {
            return Ok(());
        }
        worker::run(work, stop, all_done).await
    });
}

/// Reports progress until every target is decided and the run's own decisions are read, the
/// `shutdown` future resolves (the run is interrupted) or a task fails; then stops the tasks and
/// waits for them. The first error wins.
async fn until_decided(
    shutdown: impl Future<Output = ()> + Send,
    tasks: &mut tokio::task::JoinSet<Result<(), RecheckError>>,
    tally_rx: &mut watch::Receiver<Tally>,
    caught_up_rx: &watch::Receiver<bool>,
    stop_tx: &watch::Sender<bool>,
    run_id: &str,
    progress: &mut (impl FnMut(Tally) + Send),
) -> Result<(), RecheckError> {
    let mut shutdown = std::pin::pin!(shutdown);
    let mut outcome: Result<(), RecheckError> = Ok(());
    progress(*tally_rx.borrow_and_update());
    loop {
        let tally = *tally_rx.borrow_and_update();
        progress(tally);
        metrics::metrics().progress(
            run_id,
            tally.total,
            tally.decided - tally.blocked,
            tally.blocked,
        );
        if tally.decided >= tally.total && *caught_up_rx.borrow() {
            break;
        }
        tokio::select! {
            () = &mut shutdown => {
                outcome = Err(RecheckError::Interrupted {
                    run_id: run_id.to_owned(),
                    decided: tally.decided,
                    total: tally.total,
                });
                break;
            }
            changed = tally_rx.changed() => {
                if changed.is_err() {
                    break;
                }
            }
            Some(joined) = tasks.join_next() => {
                match joined {
                    Ok(Ok(())) => {}
                    Ok(Err(err)) => { outcome = Err(err); break; }
                    Err(err) => { outcome = Err(RecheckError::Task(err)); break; }
                }
            }
        }
    }
    let _ = stop_tx.send(true);
    while let Some(joined) = tasks.join_next().await {
        if let Ok(Err(err)) = joined
            && outcome.is_ok()
        {
            outcome = Err(err);
        }
    }
    outcome
}

/// The options' own errors, before anything is read: the run id, the filters, the time range.
fn validate_options(options: &RecheckOptions) -> Result<(), RecheckError> {
    validate_run_id(&options.run_id).map_err(RecheckError::InvalidOptions)?;
    validate_filters(options).map_err(RecheckError::InvalidOptions)?;
    if let (Some(since), Some(until)) = (options.since, options.until)
        && since >= until
    {
        return Err(RecheckError::InvalidOptions(format!(
            "--since ({since}) must be before --until ({until})"
        )));
    }
    Ok(())
}

/// Each target's decision in the run against its live one, most changed first, then by article.
fn diffs(
    targets: &BTreeMap<String, Target>,
    decided: &HashMap<String, Decision>,
    live: &HashMap<String, Decision>,
) -> Vec<ArticleDiff> {
    let mut articles: Vec<ArticleDiff> = targets
        .values()
        .filter_map(|target| {
            let now = decided.get(&target.article_id)?;
            let mut diff = compare(live.get(&target.article_id), now);
            diff.section = target.section.clone();
            diff.title = target.title.clone();
            Some(diff)
        })
        .collect();
    articles.sort_by(|a, b| (a.change, &a.article_id).cmp(&(b.change, &b.article_id)));
    articles
}

/// The latest live decision of each target article on the live decisions topic, as it is now:
/// the highest revision, and for one revision the latest publication. Decisions of re-check
/// runs (with a run id) are not live and are left out.
async fn live_decisions(
    config: &Config,
    bootstrap: &str,
    targets: &Arc<BTreeMap<String, Target>>,
) -> Result<HashMap<String, Decision>, RecheckError> {
    let topic = &config.kafka.topics.decisions;
    let Some(marks) = topics::watermarks(&config.kafka, bootstrap, topic).await? else {
        internal_events::recheck_no_live_decisions(topic);
        return Ok(HashMap::new());
    };
    let ends = marks.iter().map(|(p, (_, high))| (*p, *high)).collect();
    let targets = Arc::clone(targets);
    let (latest, _) = topics::read_until(
        &config.kafka,
        bootstrap,
        topic,
        &ends,
        Some(Utc::now()),
        HashMap::<String, Decision>::new(),
        move |latest, record| {
            let Some(key) = record.key.and_then(|k| std::str::from_utf8(k).ok()) else {
                return;
            };
            if !targets.contains_key(key) {
                return;
            }
            let Ok(decision) =
                serde_json::from_slice::<Decision>(record.payload.unwrap_or_default())
            else {
                return;
            };
            if decision.run_id.is_some() || !targets.contains_key(&decision.article_id) {
                return;
            }
            let newer = match latest.get(&decision.article_id) {
                None => true,
                Some(current) => {
                    (decision.revision, decision.draft_position)
                        >= (current.revision, current.draft_position)
                }
            };
            if newer {
                latest.insert(decision.article_id.clone(), decision);
            }
        },
    )
    .await?;
    Ok(latest)
}

/// Reads the run's decisions as they arrive (other runs' are ignored), keeps each target's, and
/// publishes the tally; raises `caught_up` once what was on the topic at the start is read.
#[allow(clippy::too_many_arguments)]
async fn follow_decisions(
    config: &Config,
    bootstrap: &str,
    run_id: &str,
    targets: &BTreeMap<String, Target>,
    decided: &Mutex<Decided>,
    tally: &watch::Sender<Tally>,
    caught_up: watch::Sender<bool>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), RecheckError> {
    let topic = &config.kafka.topics.recheck_decisions;
    let marks = topics::watermarks(&config.kafka, bootstrap, topic)
        .await?
        .unwrap_or_default();
    // Partitions still to read up to where they were at the start. Past that, the topic counts
    // as read once records pause (some brokers report the end short; see `topics::read_until`),
    // or after a while on a topic other runs keep writing to.
    let mut behind: BTreeMap<i32, i64> = marks
        .iter()
        .filter(|(_, (low, high))| low < high)
        .map(|(p, (_, high))| (*p, *high))
        .collect();
    let mut reached_ends: Option<tokio::time::Instant> =
        behind.is_empty().then(tokio::time::Instant::now);
    let consumer = topics::tail_from_start(&config.kafka, bootstrap, topic, marks.keys().copied())?;
    loop {
        let pause = if *caught_up.borrow() || reached_ends.is_none() {
            Duration::from_secs(3600)
        } else {
            topics::PAST_END_IDLE
        };
        let message = tokio::select! {
            _ = stop.wait_for(|s| *s) => break,
            message = consumer.recv() => message,
            () = tokio::time::sleep(pause) => {
                let _ = caught_up.send(true);
                continue;
            }
        };
        if let Some(at) = reached_ends
            && at.elapsed() > CATCH_UP_LIMIT
        {
            let _ = caught_up.send(true);
        }
        let (partition, offset) = match &message {
            Ok(m) => (m.partition(), m.offset()),
            Err(rdkafka::error::KafkaError::PartitionEOF(p)) => (
                *p,
                topics::position_of(&consumer, topic, *p).map_or(-1, |at| at - 1),
            ),
            Err(err) => {
                internal_events::recheck_read_retried(
                    "the run's decisions",
                    Some(topic.as_str()),
                    &err,
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        if let Ok(message) = &message
            && let Ok(decision) =
                serde_json::from_slice::<Decision>(message.payload().unwrap_or_default())
            && decision.run_id.as_deref() == Some(run_id)
            && let Some(target) = targets.get(&decision.article_id)
            && decision.draft_position == Some(target.position)
        {
            let mut decided = decided.lock().map_err(|_| RecheckError::LockPoisoned)?;
            let blocks = decision.outcome == Outcome::Block;
            let replaced = decided
                .decisions
                .insert(decision.article_id.clone(), decision);
            let count = decided.decisions.len();
            drop(decided);
            // The count of blocks moves by this decision and the one it replaced, if any: no
            // recount of every decision under the lock.
            let was_block = replaced.is_some_and(|d| d.outcome == Outcome::Block);
            tally.send_modify(|t| {
                t.decided = count;
                t.blocked = t.blocked + usize::from(blocks) - usize::from(was_block);
            });
        }
        if let Some(end) = behind.get(&partition)
            && offset + 1 >= *end
        {
            behind.remove(&partition);
            if behind.is_empty() {
                reached_ends = Some(tokio::time::Instant::now());
            }
        }
    }
    let _ = tokio::task::spawn_blocking(move || drop(consumer)).await;
    Ok(())
}

/// Serves `GET /metrics` (and `/healthz`) on `listener` until `stop` resolves: a re-check's
/// metrics for Prometheus, under a job of its own.
///
/// # Errors
/// The server's I/O error.
pub async fn serve_metrics(
    listener: tokio::net::TcpListener,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::routing::get;
    let router = axum::Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route(
            "/metrics",
            get(|| async {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        crate::metrics::CONTENT_TYPE,
                    )],
                    crate::metrics::render(),
                )
            }),
        );
    axum::serve(listener, router)
        .with_graceful_shutdown(stop)
        .await
}

/// Registers `factgate recheck`'s families and gives each one series, so that the test of
/// `deploy/metrics.txt` ([`crate::metrics`]) sees their label names.
#[cfg(test)]
pub(crate) fn touch_metrics_for_tests() {
    let run = "metrics-txt-test";
    let m = metrics::metrics();
    m.progress(run, 0, 0, 0);
    m.changes.with_label_values(&[run, "unchanged"]).set(0);
    m.in_flight_checks.with_label_values(&[run]).set(0);
    m.check_duration.with_label_values(&[run]).observe(0.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_of_checks_fits_the_rate_limit_in_half_the_deadline() {
        let mut config = Config::default();
        config.fetch.per_host_requests_per_second = 2.0;
        config.join.deadline_ms = 60_000;
        assert_eq!(default_max_in_flight_checks(&config), 60);
        config.fetch.per_host_requests_per_second = 0.01;
        assert_eq!(default_max_in_flight_checks(&config), 1);
        // An article with many checks gets the time its own checks need.
        config.fetch.per_host_requests_per_second = 2.0;
        assert_eq!(deadline_for(&config, 10), Duration::from_secs(60));
        assert_eq!(deadline_for(&config, 100), Duration::from_secs(100));
    }

    #[test]
    fn an_empty_article_or_section_filter_is_refused() {
        let with = |articles: &[&str], sections: &[&str]| RecheckOptions {
            run_id: "r".into(),
            articles: articles.iter().map(|s| (*s).to_owned()).collect(),
            sections: sections.iter().map(|s| (*s).to_owned()).collect(),
            ..RecheckOptions::default()
        };
        assert!(validate_filters(&with(&[], &[])).is_ok());
        assert!(validate_filters(&with(&["a-1", "a-2"], &["Politics"])).is_ok());
        for (articles, sections) in [
            (&[""][..], &[][..]),
            (&["a-1", ""][..], &[][..]),
            (&[][..], &[" "][..]),
        ] {
            let err = validate_filters(&with(articles, sections)).expect_err("refused");
            assert!(err.contains("empty value"), "{err}");
        }
    }
}
