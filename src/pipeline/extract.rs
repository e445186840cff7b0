//! The extract role: a draft in; its manifest and one verification request per (claim, cited URL)
//! out, keyed by source host. Nothing is lost: a draft that cannot be read goes to the dead-letter
//! topic as it came, and is blocked at once when its article id can be recovered; a body that
//! cannot be read is a manifest whose extraction failed, which the join blocks.

use super::{Services, stopped};
use crate::check::check_keys;
use crate::decide::decide_not_checked;
use crate::events::{
    ArticleManifest, DecisionReason, DraftEvent, ExtractionFailure, ExtractionOutcome, MANIFEST_V1,
    VERIFY_REQUEST_V1, VerifyRequest, content_digest, recover_article_id,
};
use crate::extract::{ExtractError, extract};
use crate::kafka::{self, EventHeaders, TraceParent, consume_at_least_once, read_traceparent};
use crate::telemetry;
use chrono::Utc;
use futures::future::try_join_all;
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;
use rdkafka::message::OwnedMessage;
use std::sync::Arc;
use tokio::sync::watch;
use tracing::{Instrument, info, warn};

/// Schema marker of dead-lettered drafts: the payload is the draft exactly as received.
pub const DEAD_LETTER_SCHEMA: &str = "factgate.dead_letter.v1";

pub(super) async fn run(
    services: Arc<Services>,
    stop: watch::Receiver<bool>,
) -> Result<(), super::PipelineError> {
    let consumer = kafka::consumer(&services.config.kafka, &services.bootstrap, "extract")?;
    consumer.subscribe(&[services.config.kafka.topics.drafts.as_str()])?;
    services
        .readiness
        .watch("extract", consumer.context().health());
    let outcome = consume_at_least_once(&consumer, stopped(stop), |message| {
        let services = Arc::clone(&services);
        async move { handle(&services, &message).await }
    })
    .await;
    kafka::close_consumer(consumer).await?;
    outcome.map_err(|e| super::PipelineError::Role {
        role: super::Role::Extract,
        message: e.to_string(),
    })
}

/// Handles one draft; resolves once everything it produced is acknowledged.
async fn handle(services: &Services, message: &OwnedMessage) -> Result<(), KafkaError> {
    crate::metrics::metrics().drafts_consumed.inc();
    let payload = message.payload().unwrap_or_default();
    // One trace per draft: the CMS's when it sent one, else a new one, so everything produced for
    // this draft, in every role, carries the same trace id.
    let incoming = read_traceparent(message);
    match DraftEvent::from_json(payload) {
        Ok(draft) => {
            let span = tracing::info_span!(
                "draft",
                article_id = %draft.article_id,
                revision = draft.revision,
                trace_id = tracing::field::Empty,
            );
            let trace = telemetry::adopt(&span, incoming.as_ref());
            span.record("trace_id", tracing::field::display(trace.trace_id()));
            handle_draft(services, draft, Some(&trace))
                .instrument(span)
                .await
        }
        Err(err) => {
            let trace = Some(incoming.unwrap_or_else(TraceParent::new_root));
            warn!(
                topic = message.topic(),
                partition = message.partition(),
                offset = message.offset(),
                error = %err,
                "draft unreadable: dead-lettered"
            );
            dead_letter(services, message, &err, trace.as_ref()).await?;
            if let Some(id) = recover_article_id(payload) {
                let decision = decide_not_checked(
                    &id.article_id,
                    id.revision,
                    &content_digest(payload),
                    DecisionReason::DraftUnreadable,
                    &err.to_string(),
                    None,
                    Utc::now(),
                );
                // The draft's published_at is in the part that could not be read: the record's
                // timestamp stands in for it.
                let published = kafka::dead_letter::record_time(message);
                services
                    .publish_decision(&decision, published, trace.as_ref())
                    .await?;
            }
            Ok(())
        }
    }
}

async fn handle_draft(
    services: &Services,
    draft: DraftEvent,
    trace: Option<&TraceParent>,
) -> Result<(), KafkaError> {
    let config = &services.config;
    let topics = &config.kafka.topics;
    let deadline = config.join.deadline_for(draft.published_at, Utc::now());
    let (extraction, claims) = read_body(services, &draft);
    let pending = match &claims {
        Some(extraction) => check_keys(extraction),
        None => Vec::new(),
    };
    let manifest = ArticleManifest {
        schema_version: Default::default(),
        article_id: draft.article_id.clone(),
        revision: draft.revision,
        published_at: draft.published_at,
        deadline,
        content_digest: draft.content_digest(),
        extraction,
        claims: claims.map(|e| e.claims).unwrap_or_default(),
        pending: pending.clone(),
    };
    let requests = pending.iter().filter_map(|key| {
        let claim = manifest.claims.iter().find(|c| c.id == key.claim_id)?;
        let host = url::Url::parse(&key.source_url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        Some(VerifyRequest {
            schema_version: Default::default(),
            article_id: draft.article_id.clone(),
            revision: draft.revision,
            claim: claim.clone(),
            source_url: key.source_url.clone(),
            source_host: host,
            published_at: draft.published_at,
            deadline,
        })
    });
    let sends = requests.map(|request| async move {
        services
            .publish(
                &topics.verify,
                &request.source_host,
                VERIFY_REQUEST_V1,
                &request,
                trace,
            )
            .await
    });
    try_join_all(sends).await?;
    services
        .publish(
            &topics.manifests,
            &draft.article_id,
            MANIFEST_V1,
            &manifest,
            trace,
        )
        .await?;
    draft_extracted(&manifest);
    Ok(())
}

/// A draft's manifest and verification requests were published.
fn draft_extracted(manifest: &ArticleManifest) {
    let metrics = crate::metrics::metrics();
    // A claim of several kinds ("grew 40% to $9m") counts once under each.
    for kind in manifest.claims.iter().flat_map(|c| &c.kinds) {
        metrics
            .claims_extracted
            .with_label_values(&[crate::metrics::claim_kind(*kind)])
            .inc();
    }
    info!(
        article_id = %manifest.article_id,
        revision = manifest.revision,
        claims = manifest.claims.len(),
        checks = manifest.pending.len(),
        "draft extracted"
    );
}

/// Extraction of the draft's body within the configured limits; `None` with the failure when it
/// could not be read. Never truncates: an over-long body or too many claims fail closed.
fn read_body(
    services: &Services,
    draft: &DraftEvent,
) -> (ExtractionOutcome, Option<crate::extract::Extraction>) {
    let limits = &services.config.extract;
    let failed = |reason, message: String| {
        warn!(article_id = %draft.article_id, revision = draft.revision, %message, "extraction failed");
        (ExtractionOutcome::Failed { reason, message }, None)
    };
    if draft.body.len() as u64 > limits.max_body_bytes {
        return failed(
            ExtractionFailure::BodyTooLarge,
            format!(
                "the body is {} bytes, over extract.max_body_bytes ({})",
                draft.body.len(),
                limits.max_body_bytes
            ),
        );
    }
    match extract(&draft.body, draft.body_format) {
        Ok(extraction) if extraction.claims.len() as u64 > limits.max_claims_per_article as u64 => {
            failed(
                ExtractionFailure::InternalError,
                format!(
                    "the article has {} claims, over extract.max_claims_per_article ({})",
                    extraction.claims.len(),
                    limits.max_claims_per_article
                ),
            )
        }
        Ok(extraction) => (
            ExtractionOutcome::Ok {
                paragraphs: extraction.paragraphs,
                sentences: extraction.sentences,
            },
            Some(extraction),
        ),
        Err(err @ ExtractError::EmptyBody) => failed(ExtractionFailure::EmptyBody, err.to_string()),
        Err(err) => failed(ExtractionFailure::UnreadableBody, err.to_string()),
    }
}

/// Sends the draft, exactly as received, to the dead-letter topic, with why and where it was read
/// in its headers.
async fn dead_letter(
    services: &Services,
    message: &OwnedMessage,
    error: &crate::events::DraftError,
    trace: Option<&TraceParent>,
) -> Result<(), KafkaError> {
    let key = message
        .key()
        .and_then(|k| std::str::from_utf8(k).ok())
        .unwrap_or("");
    let headers = kafka::dead_letter::with_cause(
        EventHeaders::new(DEAD_LETTER_SCHEMA, trace),
        "extract",
        message,
        error,
    );
    services
        .producer
        .produce(
            &services.config.kafka.topics.dead_letter,
            key,
            message.payload().unwrap_or_default(),
            &headers,
        )
        .await?;
    crate::metrics::metrics().dead_letters.inc();
    info!(
        topic = message.topic(),
        partition = message.partition(),
        offset = message.offset(),
        "draft dead-lettered"
    );
    Ok(())
}
