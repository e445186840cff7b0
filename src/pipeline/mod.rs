//! The stream processor: the roles of docs/design.md on Kafka, in one process or split across many.
//!
//! ```text
//! drafts ─► extract ─► verify requests (key: source host) ─► verify ─► results (key: article) ─┐
//!              ├─► manifests (key: article) ───────────────────────────────────────────────────┴─► join ─► decisions
//!              └─► dead letters (drafts that cannot be read; a block decision when the id is known)
//! ```
//!
//! - `extract`: one draft in, its manifest and one verification request per (claim, cited URL)
//!   out; an unreadable draft goes to the dead-letter topic and, when its id can be recovered, is
//!   blocked at once.
//! - `verify`: checks requests concurrently; a result per request, never silence.
//! - `join`: [`factgate_core::join::JoinState`] over manifests and results; decisions as soon as complete,
//!   or at the event-time deadline.
//! - `board`: every process reads drafts and decisions to answer the HTTP endpoint.
//! - `override_loop`: with the join, editors' overrides in, a new decision on their revision out.
//!
//! Each role is its own consumer group and stores a message's offset only after everything it
//! produced for that message is acknowledged (the join: only up to its earliest undecided
//! article), so a crash or a shutdown in the middle of work means the work is done again.
//!
//! No one message stops a role: what it produces is sized to the broker's message limit
//! ([`factgate_core::events::fit`]), and a message whose outputs the broker refuses for their own sake
//! ([`crate::kafka::is_message_fault`]) is answered (a block, a dead letter) and its offset
//! stored. Only a fault of the broker or the process stops a role, and with it the process.

mod extract_loop;
mod history;
mod join_loop;
mod override_loop;
mod verify_loop;

use crate::board::DecisionBoard;
use crate::config::{Config, KafkaConfig};
use crate::http::Readiness;
use crate::internal_events;
use crate::kafka::{
    self, EmbeddedBroker, EventHeaders, EventProducer, KafkaSetupError, PendingDelivery,
    is_message_fault,
};
use crate::verify::Verifier;
use crate::verify::fetch::Fetcher;
use crate::verify::llm::LlmJudge;
use chrono::{DateTime, Utc};
use factgate_core::events::{
    DECISION_V1, Decision, TraceContext, encode_within, fit_decision, to_json,
};
use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::Arc;
use tokio::sync::watch;

/// Articles the HTTP endpoint remembers decisions and pending drafts for.
pub const BOARD_CAPACITY: usize = 100_000;

/// How long a consumer's fetch may wait for records on the embedded broker.
pub const EMBEDDED_FETCH_WAIT_MS: u32 = 5;
/// The consumers' session timeout on the embedded broker, which holds a group rebalancing this
/// long less a second whenever a member joins or leaves.
pub const EMBEDDED_SESSION_TIMEOUT_MS: u32 = 3_000;
/// The producer's compression on the embedded broker, whose topics live in factgate's memory.
pub const EMBEDDED_COMPRESSION: &str = "lz4";

/// One of the stream processor's roles. Its name (on the command line, in group ids, logs and
/// metric labels) is the variant's, in snake case.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::IntoStaticStr,
    strum::Display,
    strum::EnumIter,
)]
#[strum(serialize_all = "snake_case")]
pub enum Role {
    Extract,
    Verify,
    Join,
}

impl Role {
    /// Every role, for a single process that runs the whole pipeline (the declaration order, a
    /// test checks).
    pub const ALL: [Role; 3] = [Role::Extract, Role::Verify, Role::Join];

    /// The name used on the command line, in group ids and logs.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use strum::IntoEnumIterator;
        let s = s.trim();
        Role::iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown role {s:?}: expected extract, verify or join"))
    }
}

/// Faults that stop the stream processor.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Kafka(#[from] KafkaSetupError),
    #[error("Kafka client error")]
    Client(#[from] rdkafka::error::KafkaError),
    /// The verifier's fetcher could not be built (its HTTP client or settings).
    #[error("building the verifier's fetcher")]
    Fetcher(#[source] crate::verify::fetch::FetchError),
    /// The verifier's LLM judge could not be built (its settings or HTTP client).
    #[error("building the verifier's LLM judge")]
    Judge(#[source] crate::verify::llm::LlmError),
    /// A role stopped before it was asked to.
    #[error("role {role} stopped")]
    Role {
        role: Role,
        #[source]
        source: StopCause,
    },
    /// A task beside the roles (the decision board's consumer, a role's task) stopped.
    #[error("{task} stopped")]
    Task {
        task: String,
        #[source]
        source: StopCause,
    },
    #[error("the HTTP server failed")]
    Http(#[source] std::io::Error),
    /// A listener could not bind: which one (its key) and where.
    #[error("{key} could not listen on {address}")]
    Bind {
        key: &'static str,
        address: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// The login's credentials could not be read.
    #[error("the login of the HTTP endpoint")]
    Login(#[source] crate::http::login::LoginError),
}

/// Why a role or a task stopped before its shutdown signal.
#[derive(Debug, thiserror::Error)]
pub enum StopCause {
    /// Consuming failed: a message's outputs were not acknowledged, or the consumer failed.
    #[error(transparent)]
    Consume(Box<kafka::ConsumeError<rdkafka::error::KafkaError>>),
    /// The Kafka client failed fatally.
    #[error(transparent)]
    Client(#[from] rdkafka::error::KafkaError),
    /// The task panicked or was cancelled.
    #[error("panicked or was cancelled")]
    Aborted(#[source] tokio::task::JoinError),
    /// A check was due but no check slot was free, which the verify loop rules out; it stops
    /// rather than lose the message.
    #[error("no free check slot")]
    NoCheckSlot,
    /// The join could not read back the decisions already made for partitions just assigned to
    /// it; it stops rather than risk deciding a revision a second time.
    #[error("the decisions already made could not be read back: {0}")]
    ReadBack(String),
}

impl From<kafka::ConsumeError<rdkafka::error::KafkaError>> for StopCause {
    fn from(err: kafka::ConsumeError<rdkafka::error::KafkaError>) -> Self {
        StopCause::Consume(Box::new(err))
    }
}

/// `err` and its causes, outermost first, joined by `: `: what a log line shows of an error
/// whose causes are kept as its sources.
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut chain = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        chain.push_str(": ");
        chain.push_str(&cause.to_string());
        source = cause.source();
    }
    chain
}

/// What the roles share.
pub(crate) struct Services {
    pub config: Config,
    pub bootstrap: String,
    pub producer: EventProducer,
    pub board: DecisionBoard,
    pub readiness: Arc<Readiness>,
}

impl Services {
    /// Produces `event` as JSON to `topic` under `key` and waits for the broker's acknowledgement.
    ///
    /// # Errors
    /// As [`Self::enqueue`], or the failed delivery.
    pub async fn publish<T: Serialize>(
        &self,
        topic: &str,
        key: &str,
        schema: &str,
        event: &T,
        trace: Option<&TraceContext>,
    ) -> Result<(), rdkafka::error::KafkaError> {
        self.enqueue(topic, key, schema, event, trace)
            .await?
            .acknowledged()
            .await
            .map(|_| ())
    }

    /// Hands `event`, as JSON, to the producer for `topic` under `key` without waiting for the
    /// broker: events enqueued one after another keep that order in their partition. Await the
    /// returned delivery before storing the offset of what caused it.
    ///
    /// # Errors
    /// The producer's error; an event larger than the broker's message limit
    /// (`kafka.properties` `message.max.bytes`) fails at once with `MessageSizeTooLarge`, as the
    /// producer would, without being queued.
    pub async fn enqueue<T: Serialize>(
        &self,
        topic: &str,
        key: &str,
        schema: &str,
        event: &T,
        trace: Option<&TraceContext>,
    ) -> Result<PendingDelivery, rdkafka::error::KafkaError> {
        self.enqueue_json(topic, key, schema, &to_json(event), trace)
            .await
    }

    /// [`Self::enqueue`] for an event already written as JSON (an
    /// [`factgate_core::events::Encoded`] one, or one written by [`factgate_core::events::encode_within`]).
    ///
    /// # Errors
    /// As [`Self::enqueue`].
    pub async fn enqueue_json(
        &self,
        topic: &str,
        key: &str,
        schema: &str,
        payload: &[u8],
        trace: Option<&TraceContext>,
    ) -> Result<PendingDelivery, rdkafka::error::KafkaError> {
        if payload.len() > self.config.kafka.max_payload_bytes() {
            return Err(rdkafka::error::KafkaError::MessageProduction(
                rdkafka::error::RDKafkaErrorCode::MessageSizeTooLarge,
            ));
        }
        let headers = EventHeaders::new(schema, trace);
        self.producer.enqueue(topic, key, payload, &headers).await
    }

    /// Publishes a decision to the decisions topic, waits for its acknowledgement, then logs and
    /// counts it: [`Self::enqueue_decision`], awaited.
    ///
    /// # Errors
    /// A fault of the broker (the decision is then not published).
    pub async fn publish_decision(
        &self,
        decision: Decision,
        published_at: Option<DateTime<Utc>>,
        trace: Option<&TraceContext>,
    ) -> Result<(), rdkafka::error::KafkaError> {
        self.enqueue_decision(decision, published_at, trace)
            .await
            .await
    }

    /// Queues a decision for the decisions topic and returns what resolves once it is
    /// acknowledged, then logs and counts it: the one place a decision is published. Decisions
    /// queued one after another keep their order on the topic. `published_at` is the draft's,
    /// when known, for the decision latency.
    ///
    /// A report too large for the broker is shortened first ([`fit_decision`]); a decision the
    /// broker still refuses for its own sake is replaced by a block (`internal_error`) saying
    /// so, and if even that is refused it is logged and given up: one decision never stops a
    /// role.
    ///
    /// The returned future fails only for a fault of the broker (the decision is then not
    /// published).
    pub async fn enqueue_decision(
        &self,
        mut decision: Decision,
        published_at: Option<DateTime<Utc>>,
        trace: Option<&TraceContext>,
    ) -> BoxFuture<'_, Result<(), rdkafka::error::KafkaError>> {
        let budget = self.config.kafka.max_payload_bytes();
        let payload = match encode_within(&mut decision, budget, fit_decision) {
            Ok((payload, false)) => payload,
            Ok((payload, true)) => {
                internal_events::decision_shortened(&decision, budget);
                payload
            }
            Err(oversize) => {
                decision = unpublishable(&decision, &oversize.to_string(), published_at);
                to_json(&decision)
            }
        };
        let topic = &self.config.kafka.topics.decisions;
        let queued = self
            .enqueue_json(topic, &decision.article_id, DECISION_V1, &payload, trace)
            .await;
        let trace = trace.cloned();
        async move {
            let sent = match queued {
                Ok(delivery) => delivery.acknowledged().await.map(|_| ()),
                Err(err) => Err(err),
            };
            self.settle_decision(decision, sent, published_at, trace.as_ref())
                .await
        }
        .boxed()
    }

    /// What follows a decision's delivery: the fallback block when the broker refused it for its
    /// own sake, then the log line and the metrics of the decision published.
    async fn settle_decision(
        &self,
        mut decision: Decision,
        sent: Result<(), rdkafka::error::KafkaError>,
        published_at: Option<DateTime<Utc>>,
        trace: Option<&TraceContext>,
    ) -> Result<(), rdkafka::error::KafkaError> {
        let topic = &self.config.kafka.topics.decisions;
        match sent {
            Ok(()) => {}
            Err(err) if is_message_fault(&err) => {
                internal_events::decision_refused(&decision, &err);
                let fallback = unpublishable(&decision, &err.to_string(), published_at);
                match self
                    .publish(topic, &fallback.article_id, DECISION_V1, &fallback, trace)
                    .await
                {
                    Ok(()) => decision = fallback,
                    Err(again) if is_message_fault(&again) => {
                        internal_events::decision_lost(&decision, &again);
                        return Ok(());
                    }
                    Err(again) => return Err(again),
                }
            }
            Err(err) => return Err(err),
        }
        // A clock ahead of the CMS's would make it negative: count that as immediate.
        let latency = published_at.map(|at| (Utc::now() - at).to_std().unwrap_or_default());
        internal_events::decision_published(&decision, latency);
        Ok(())
    }
}

/// Where the pages' override form sends an override: the overrides topic, keyed by article,
/// once the process is connected to Kafka.
fn override_sink(services: Arc<std::sync::OnceLock<Arc<Services>>>) -> crate::http::OverrideSink {
    Arc::new(move |over: factgate_core::events::OverrideEvent| {
        let services = services.get().cloned();
        async move {
            let Some(services) = services else {
                return Err("factgate is not connected to Kafka yet".to_owned());
            };
            let topic = services.config.kafka.topics.overrides.clone();
            services
                .publish(
                    &topic,
                    &over.article_id,
                    factgate_core::events::OVERRIDE_V1,
                    &over,
                    None,
                )
                .await
                .map_err(|err| err.to_string())
        }
        .boxed()
    })
}

/// The block that replaces a decision the broker cannot take (`internal_error`, saying why):
/// small, so it always fits, and never a pass.
fn unpublishable(decision: &Decision, why: &str, published_at: Option<DateTime<Utc>>) -> Decision {
    factgate_core::decide::decide_not_checked(
        &decision.article_id,
        decision.revision,
        decision.content_digest.as_deref().unwrap_or_default(),
        factgate_core::events::DecisionReason::InternalError,
        &format!("the decision could not be published: {why}"),
        published_at,
        Utc::now(),
    )
    .for_publication(decision.draft_position)
}

/// A running stream processor's handles, for callers (the demo, tests) that need the bootstrap
/// address or the decision board.
pub struct Running {
    /// Where the brokers are: the configured ones, or the embedded broker.
    pub bootstrap: String,
    pub board: DecisionBoard,
    pub readiness: Arc<Readiness>,
    /// Keeps the embedded broker alive as long as the pipeline runs.
    pub embedded: Option<EmbeddedBroker>,
}

/// Starts the embedded broker when no brokers are configured, and creates factgate's topics.
///
/// # Errors
/// When the broker cannot be started or reached, or topics cannot be created.
pub async fn connect(config: &Config) -> Result<(String, Option<EmbeddedBroker>), PipelineError> {
    let (bootstrap, embedded) = match &config.kafka.bootstrap_servers {
        Some(servers) => (servers.clone(), None),
        None => {
            let broker = EmbeddedBroker::start(&config.kafka)?;
            let bootstrap = broker.bootstrap_servers().to_owned();
            (bootstrap, Some(broker))
        }
    };
    kafka::ensure_topics(&config.kafka, &bootstrap).await?;
    Ok((bootstrap, embedded))
}

/// The tasks of a pipeline: each ends with its name and how it ended.
type Tasks = tokio::task::JoinSet<(String, Result<(), PipelineError>)>;

/// Binds the API (`http.listen`, behind the login) and admin (`http.admin_listen`) listeners and
/// serves them in `tasks` until `stop`.
async fn serve(
    config: &Config,
    board: &DecisionBoard,
    readiness: &Arc<Readiness>,
    connected_services: &Arc<std::sync::OnceLock<Arc<Services>>>,
    stop_rx: &watch::Receiver<bool>,
    tasks: &mut Tasks,
) -> Result<(), PipelineError> {
    let http = config.http.clone();
    let login = crate::http::login::Login::from_config(&http.auth).map_err(PipelineError::Login)?;
    if !login.is_configured() {
        internal_events::http_login_missing();
    }
    let bind = |key: &'static str, address: std::net::SocketAddr| async move {
        tokio::net::TcpListener::bind(address)
            .await
            .map_err(|source| PipelineError::Bind {
                key,
                address,
                source,
            })
    };
    let api = bind("http.listen", http.listen).await?;
    let admin = bind("http.admin_listen", http.admin_listen).await?;
    internal_events::http_listening(&http.listen, &http.admin_listen);
    let routers = [
        (
            "http",
            api,
            crate::http::router(
                board.clone(),
                login,
                Some(override_sink(Arc::clone(connected_services))),
            ),
        ),
        (
            "http-admin",
            admin,
            crate::http::admin_router(Arc::clone(readiness)),
        ),
    ];
    for (name, listener, router) in routers {
        let mut stop = stop_rx.clone();
        let http = http.clone();
        tasks.spawn(async move {
            let served = crate::http::serve(listener, router, &http, async move {
                let _ = stop.wait_for(|s| *s).await;
            })
            .await;
            (name.to_owned(), served.map_err(PipelineError::Http))
        });
    }
    Ok(())
}

/// Sets the consumers' properties the embedded broker needs in `config` and returns the
/// producer's Kafka settings, with its own (explicit settings win).
fn tune_for_embedded(config: &mut Config) -> KafkaConfig {
    let mut producer_kafka = config.kafka.clone();
    // The embedded broker keeps every topic in this process's memory: records compressed by
    // the producer stay compressed there (its log of 10,000 held articles: 18 MB with LZ4,
    // 47 MB without). A producer property only, so the consumers warn of nothing.
    producer_kafka
        .properties
        .entry("compression.type".to_owned())
        .or_insert_with(|| EMBEDDED_COMPRESSION.to_owned());
    // The embedded broker answers a fetch that finds nothing only after the whole
    // `fetch.wait.max.ms` (librdkafka's default 500 ms), even when records arrive meanwhile,
    // unlike a real broker; each of the three hops would add that to a decision. It is
    // in-process, so asking more often costs little. A consumer property only, set past the
    // producer's copy so it warns of nothing.
    config
        .kafka
        .properties
        .entry("fetch.wait.max.ms".to_owned())
        .or_insert_with(|| EMBEDDED_FETCH_WAIT_MS.to_string());
    // The embedded broker holds a group rebalancing for the session timeout less a second
    // whenever a member joins or leaves (a real broker waits only for the members to
    // rejoin): a short one keeps partitions owned.
    config
        .kafka
        .properties
        .entry("session.timeout.ms".to_owned())
        .or_insert_with(|| EMBEDDED_SESSION_TIMEOUT_MS.to_string());
    producer_kafka
}

/// Spawns in `tasks` each of `roles`, the board's feeder and, with the join, its overrides.
fn spawn_roles(
    roles: &BTreeSet<Role>,
    services: &Arc<Services>,
    verifier: Option<Verifier>,
    stop_rx: &watch::Receiver<bool>,
    tasks: &mut Tasks,
) {
    for role in roles {
        let services = Arc::clone(services);
        let stop = stop_rx.clone();
        let verifier = verifier.clone();
        let role = *role;
        tasks.spawn(async move {
            let outcome = match role {
                Role::Extract => extract_loop::run(services, stop).await,
                Role::Verify => match verifier {
                    Some(v) => verify_loop::run(services, v, stop).await,
                    None => Ok(()),
                },
                Role::Join => join_loop::run(services, stop).await,
            };
            (role.to_string(), outcome)
        });
    }
    {
        let services = Arc::clone(services);
        let stop = stop_rx.clone();
        tasks.spawn(async move {
            let fed = crate::board::feed(
                &services.config.kafka,
                &services.bootstrap,
                &services.board,
                stopped(stop),
            )
            .await;
            ("board".to_owned(), fed.map_err(board_stopped))
        });
    }
    if roles.contains(&Role::Join) {
        let services = Arc::clone(services);
        let stop = stop_rx.clone();
        tasks.spawn(async move {
            (
                "overrides".to_owned(),
                override_loop::run(services, stop).await,
            )
        });
    }
}

/// Runs `roles` (and the board that answers HTTP) until `shutdown` resolves or a role fails.
/// The HTTP endpoint is served when `serve_http` is set, from the start: while the brokers are
/// being reached `/healthz` answers and `/readyz` says what is missing.
///
/// # Errors
/// The first fault that stopped a role, or a setup fault: brokers that do not answer within
/// `kafka.connect_timeout_ms` fail start-up with their last error.
pub async fn run(
    mut config: Config,
    roles: &[Role],
    serve_http: bool,
    shutdown: impl Future<Output = ()> + Send,
    on_started: impl FnOnce(&Running),
) -> Result<(), PipelineError> {
    tokio::pin!(shutdown);
    let readiness = Arc::new(Readiness::default());
    let roles: BTreeSet<Role> = roles.iter().copied().collect();
    for role in &roles {
        readiness.expect_role(role.as_str());
    }
    let board = DecisionBoard::with_body_budget(BOARD_CAPACITY, config.http.page_body_bytes)
        .with_decision_budget(config.http.decision_bytes)
        .with_extract_limits(config.extract.limits());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = Tasks::new();
    // The override form's sink reaches the producer once Kafka is connected; until then a post
    // is answered "try again".
    let connected_services: Arc<std::sync::OnceLock<Arc<Services>>> = Arc::default();
    if serve_http {
        serve(
            &config,
            &board,
            &readiness,
            &connected_services,
            &stop_rx,
            &mut tasks,
        )
        .await?;
    }

    internal_events::kafka_connecting(
        config.kafka.bootstrap_servers.as_deref(),
        config.kafka.connect_timeout_ms,
    );
    let connected = tokio::select! {
        () = &mut shutdown => None,
        connected = connect(&config) => Some(connected),
    };
    let (bootstrap, embedded) = match connected {
        Some(Ok(connected)) => connected,
        Some(Err(err)) => {
            let _ = stop_tx.send(true);
            while tasks.join_next().await.is_some() {}
            return Err(err);
        }
        None => {
            internal_events::stopped_before_connected();
            let _ = stop_tx.send(true);
            while tasks.join_next().await.is_some() {}
            return Ok(());
        }
    };
    let producer_kafka = if embedded.is_some() {
        tune_for_embedded(&mut config)
    } else {
        config.kafka.clone()
    };
    let producer = EventProducer::new(&producer_kafka, &bootstrap)?;
    readiness.set_broker_reachable(true);
    let services = Arc::new(Services {
        config,
        bootstrap: bootstrap.clone(),
        producer,
        board: board.clone(),
        readiness: Arc::clone(&readiness),
    });
    let _ = connected_services.set(Arc::clone(&services));
    let verifier = if roles.contains(&Role::Verify) {
        Some(build_verifier(&services.config)?)
    } else {
        None
    };
    let running = Running {
        bootstrap,
        board,
        readiness: Arc::clone(&readiness),
        embedded,
    };
    on_started(&running);

    spawn_roles(&roles, &services, verifier, &stop_rx, &mut tasks);

    let mut first_error = None;
    tokio::select! {
        () = &mut shutdown => internal_events::pipeline_stopping(),
        Some(joined) = tasks.join_next() => {
            first_error = task_error(joined);
        }
    }
    let _ = stop_tx.send(true);
    while let Some(joined) = tasks.join_next().await {
        if let Some(err) = task_error(joined)
            && first_error.is_none()
        {
            first_error = Some(err);
        }
    }
    let _ = services
        .producer
        .flush(std::time::Duration::from_secs(10))
        .await;
    // Clients first, then the embedded broker they are connected to.
    drop(connected_services);
    drop(services);
    drop(running);
    match first_error {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

fn task_error(
    joined: Result<(String, Result<(), PipelineError>), tokio::task::JoinError>,
) -> Option<PipelineError> {
    match joined {
        Ok((_, Ok(()))) => None,
        Ok((name, Err(err))) => {
            internal_events::task_failed(&name, &error_chain(&err));
            Some(err)
        }
        Err(join_error) => Some(PipelineError::Task {
            task: "a role task".to_owned(),
            source: StopCause::Aborted(join_error),
        }),
    }
}

fn build_verifier(config: &Config) -> Result<Verifier, PipelineError> {
    let fetcher = Fetcher::new(config.fetch_settings()).map_err(PipelineError::Fetcher)?;
    let llm = match config.llm_settings() {
        Some(settings) => Some(LlmJudge::new(settings).map_err(PipelineError::Judge)?),
        None => None,
    };
    Ok(Verifier::new(fetcher, config.judge_settings(), llm)
        .with_draft_budget(config.judge.max_draft_judge()))
}

/// Resolves when the stop signal is raised.
/// The board's feeder stopped before it was asked to: as a task of the pipeline.
fn board_stopped(err: crate::board::FeedError) -> PipelineError {
    match err {
        crate::board::FeedError::Setup(err) => PipelineError::Kafka(err),
        crate::board::FeedError::Client(err) => PipelineError::Task {
            task: "the board consumer".to_owned(),
            source: err.into(),
        },
    }
}

pub(crate) async fn stopped(mut stop: watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdkafka::error::{KafkaError, RDKafkaErrorCode};
    use strum::IntoEnumIterator;

    #[test]
    fn every_role_is_listed_and_read_back_by_its_name() {
        assert_eq!(Role::iter().collect::<Vec<_>>(), Role::ALL);
        let names: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names, ["extract", "verify", "join"]);
        for role in Role::ALL {
            assert_eq!(role.to_string(), role.as_str());
            assert_eq!(format!(" {role} ").parse::<Role>(), Ok(role));
        }
        let err = "verifier".parse::<Role>().expect_err("not a role");
        assert!(err.contains("expected extract, verify or join"), "{err}");
    }

    #[test]
    fn a_stopped_role_keeps_its_cause_and_logs_it_in_one_line() {
        let cause = KafkaError::MessageConsumption(RDKafkaErrorCode::Fatal);
        let err = PipelineError::Role {
            role: Role::Join,
            source: cause.clone().into(),
        };
        assert_eq!(err.to_string(), "role join stopped");
        let kept = std::error::Error::source(&err)
            .and_then(|source| source.downcast_ref::<StopCause>())
            .expect("the cause is the source");
        assert!(
            matches!(kept, StopCause::Client(k) if *k == cause),
            "{kept:?}"
        );
        let chain = error_chain(&err);
        assert!(
            chain.starts_with(&format!("role join stopped: {cause}")),
            "{chain}"
        );
    }

    #[tokio::test]
    async fn a_role_task_that_panicked_says_so() {
        let joined = tokio::spawn(async { panic!("boom") }).await;
        let err = PipelineError::Task {
            task: "a role task".to_owned(),
            source: StopCause::Aborted(joined.expect_err("the task panicked")),
        };
        let chain = error_chain(&err);
        assert!(
            chain.starts_with("a role task stopped: panicked or was cancelled: "),
            "{chain}"
        );
        assert!(chain.contains("boom"), "the panic's message: {chain}");
    }
}
