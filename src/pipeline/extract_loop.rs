//! The extract role: a draft in; its manifest and one verification request per (claim, cited URL)
//! out, keyed by source host. Nothing is lost and no one draft stops the role:
//! - a draft that cannot be read goes to the dead-letter topic as it came, and is blocked at once
//!   when its article id can be recovered;
//! - a body that cannot be read, or that is over a per-draft limit, is a manifest whose
//!   extraction failed, which the join blocks;
//! - extraction of a draft over [`INLINE_EXTRACT_BYTES`] runs on the bounded parsing pool
//!   ([`crate::parse_pool::run_bounded`]), not on the async workers; a short draft is extracted
//!   in place; a panic in either is a failed extraction;
//! - outputs too large for the broker are split (manifests) or, when they cannot be, replaced by
//!   a failed manifest (`limit_exceeded`);
//! - a draft whose outputs the broker refuses for the record's own sake ([`is_message_fault`])
//!   is answered with a block and a dead letter, and its offset stored like any other.
//!
//! Up to [`EXTRACT_IN_FLIGHT`] drafts are handled at once, one article's drafts in order
//! ([`consume_in_flight`]); each draft's outputs are queued together and their deliveries awaited
//! together, and its offset is stored only once they, and those of every draft before it in its
//! partition, are acknowledged.
//!
//! Only a fault of the broker or the process stops the role; the drafts in hand are then read
//! again after the restart.

use super::{Services, stopped};
use crate::internal_events;
use crate::kafka::{self, EventHeaders, consume_in_flight, is_message_fault, read_trace_context};
use crate::metrics::FailingRole;
use crate::telemetry;
use chrono::Utc;
use factgate_core::decide::decide_not_checked;
use factgate_core::events::{
    ArticleManifest, DecisionReason, DraftEvent, DraftPosition, Encoded, ExtractionFailure,
    ExtractionOutcome, MANIFEST_V1, MAX_ARTICLE_ID_BYTES, TraceContext, VERIFY_REQUEST_V1,
    VerifyRequest, content_digest, recover_article_id, recover_from_key,
};
use factgate_core::extract::{
    ExtractError, ExtractLimits, Extraction, LimitExceeded, extract_titled_within,
};
use factgate_core::roles::{self, Shape};
use futures::future::try_join_all;
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;
use rdkafka::message::OwnedMessage;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::watch;
use tracing::Instrument;

/// Schema marker of dead-lettered drafts: the payload is the draft exactly as received.
pub const DEAD_LETTER_SCHEMA: &str = "factgate.dead_letter.v1";
/// Schema marker of a dead-lettered draft too large for factgate's own message limit: the
/// payload is the draft's first bytes only, as many as the limit allows.
pub const DEAD_LETTER_TRUNCATED_SCHEMA: &str = "factgate.dead_letter.truncated.v1";

/// Drafts read and not yet done at once in one extract role. Drafts of one article are handled
/// one after another, in the order published; extraction itself runs on the bounded parsing
/// pool, so this bounds memory and the producer's queue, not CPU.
pub const EXTRACT_IN_FLIGHT: usize = 64;

/// Drafts of at most this many bytes are extracted on the role's own task rather than handed to
/// the parsing pool. Extraction reads about 28 MiB/s (`cargo bench --bench extract`), so 4 KiB
/// takes about 150 µs, about what judging one claim takes on the verify role's task; handing
/// such a draft to another thread and back costs two wake-ups and two thread switches, a good
/// part of the work itself. Longer drafts go to the pool, which bounds parsing to one per core
/// and stops it when its time is up.
pub const INLINE_EXTRACT_BYTES: usize = 4 * 1024;

pub(super) async fn run(
    services: Arc<Services>,
    stop: watch::Receiver<bool>,
) -> Result<(), super::PipelineError> {
    let consumer = kafka::consumer(&services.config.kafka, &services.bootstrap, "extract")?;
    consumer.subscribe(&[services.config.kafka.topics.drafts.as_str()])?;
    services
        .readiness
        .watch("extract", consumer.context().health());
    let outcome = consume_in_flight(&consumer, stopped(stop), EXTRACT_IN_FLIGHT, |message| {
        let services = Arc::clone(&services);
        async move { handle(&services, &message).await }
    })
    .await;
    kafka::close_consumer(consumer).await?;
    outcome.map_err(|e| super::PipelineError::Role {
        role: super::Role::Extract,
        source: e.into(),
    })
}

/// Handles one draft; resolves once everything it produced is acknowledged. Fails only for a
/// fault of the broker (or of producing at all), never for one of the draft's own.
async fn handle(services: &Services, message: &OwnedMessage) -> Result<(), KafkaError> {
    internal_events::draft_consumed();
    let payload = message.payload().unwrap_or_default();
    let position = DraftPosition {
        partition: message.partition(),
        offset: message.offset(),
    };
    // One trace per draft: the CMS's when it sent one, else a new one, so everything produced for
    // this draft, in every role, carries the same trace id.
    let incoming = read_trace_context(message);
    match DraftEvent::from_json(payload) {
        Ok(draft) => {
            let span = tracing::info_span!(
                "draft",
                article_id = %draft.article_id,
                revision = draft.revision,
                trace_id = tracing::field::Empty,
            );
            let trace = telemetry::adopt(&span, incoming.as_ref());
            span.record("trace_id", telemetry::trace_id(Some(&trace)));
            handle_draft(services, message, draft, position, &trace)
                .instrument(span)
                .await
        }
        Err(err) => {
            let trace = incoming.unwrap_or_else(telemetry::new_root);
            // The payload's id, else the record's key (the CMS keys drafts by article) with the
            // revision its `factgate-revision` header gives.
            let recovered = recover_article_id(payload).or_else(|| {
                let revision = kafka::headers::header_str(message, REVISION_HEADER)
                    .and_then(|r| r.trim().parse().ok());
                recover_from_key(message.key()?, revision)
            });
            internal_events::draft_unreadable(
                message,
                err.field(),
                recovered.as_ref().map(|r| r.article_id.as_str()),
                &err,
            );
            // The rare paths are boxed: a task holds the largest future it may await, and
            // every draft's task would otherwise carry (and move) theirs.
            if recovered.is_some() {
                Box::pin(dead_letter(services, message, &err, &trace)).await?;
            } else {
                let err = Undecided(&err);
                Box::pin(dead_letter(services, message, &err, &trace)).await?;
            }
            if let Some(id) = recovered {
                let decision = decide_not_checked(
                    &id.article_id,
                    id.revision,
                    &content_digest(payload),
                    DecisionReason::DraftUnreadable,
                    &err.to_string(),
                    None,
                    Utc::now(),
                )
                .for_publication(Some(position));
                // The draft's published_at is in the part that could not be read: the record's
                // timestamp stands in for it.
                let published = kafka::dead_letter::record_time(message);
                Box::pin(services.publish_decision(decision, published, Some(&trace))).await?;
            }
            Ok(())
        }
    }
}

use crate::kafka::headers::REVISION_HEADER;

/// An unreadable draft's error, for a dead letter that no decision answers: neither its payload
/// nor its key names an article. Its kind (`Debug`) is the error's own.
struct Undecided<'e, E>(&'e E);

impl<E: std::fmt::Display> std::fmt::Display for Undecided<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}; no decision was emitted: neither the payload nor the record's key names an article",
            self.0
        )
    }
}

impl<E: std::fmt::Debug> std::fmt::Debug for Undecided<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What extract sends for one readable draft, each event with its JSON.
struct Outputs {
    requests: Vec<Encoded<VerifyRequest>>,
    /// One manifest, or its parts in order.
    manifests: Vec<Encoded<ArticleManifest>>,
}

async fn handle_draft(
    services: &Services,
    message: &OwnedMessage,
    draft: DraftEvent,
    position: DraftPosition,
    trace: &TraceContext,
) -> Result<(), KafkaError> {
    let extracted_at = Utc::now();
    let deadline = roles::Timing {
        deadline: services
            .config
            .join
            .deadline_for(draft.published_at, extracted_at),
        extracted_at,
    };
    let (extraction, claims, panicked) = read_body(services, &draft).await;
    let outputs = plan(services, &draft, position, deadline, extraction, claims);
    match send(services, &draft, &outputs, trace).await {
        Ok(()) => {
            if !outputs.manifests.is_empty() {
                internal_events::draft_extracted(
                    &draft,
                    &outputs.manifests,
                    outputs.requests.len(),
                );
            }
            if panicked {
                internal_events::message_failed(
                    FailingRole::Extract,
                    message,
                    Some(&draft.article_id),
                    "extraction panicked",
                );
                Box::pin(dead_letter(
                    services,
                    message,
                    &DraftFailure::ExtractionPanicked,
                    trace,
                ))
                .await?;
            }
            Ok(())
        }
        Err(err) if is_message_fault(&err) => {
            Box::pin(answer_failure(
                services, message, &draft, position, deadline, trace, &err,
            ))
            .await
        }
        Err(err) => Err(err),
    }
}

/// Produces the requests, then the manifest (or its parts, in order), and resolves once all are
/// acknowledged. Everything is queued first, in that order, and the deliveries awaited together:
/// librdkafka sends them in batches, and the manifest's parts land in their partition in order.
async fn send(
    services: &Services,
    draft: &DraftEvent,
    outputs: &Outputs,
    trace: &TraceContext,
) -> Result<(), KafkaError> {
    let topics = &services.config.kafka.topics;
    let mut queued = Vec::with_capacity(outputs.requests.len() + outputs.manifests.len());
    for request in &outputs.requests {
        let delivery = services
            .enqueue_json(
                &topics.verify,
                &request.source_host,
                VERIFY_REQUEST_V1,
                request.json(),
                Some(trace),
            )
            .await?;
        queued.push(delivery.acknowledged());
    }
    for manifest in &outputs.manifests {
        let delivery = services
            .enqueue_json(
                &topics.manifests,
                &draft.article_id,
                MANIFEST_V1,
                manifest.json(),
                Some(trace),
            )
            .await?;
        queued.push(delivery.acknowledged());
    }
    try_join_all(queued).await?;
    Ok(())
}

/// The outputs of a draft, sized to fit the broker ([`roles::plan_draft`]), with the shaping
/// logged and counted.
fn plan(
    services: &Services,
    draft: &DraftEvent,
    position: DraftPosition,
    deadline: roles::Timing,
    extraction: ExtractionOutcome,
    claims: Option<Extraction>,
) -> Outputs {
    let budget = services.config.kafka.max_payload_bytes();
    let claim_count = claims.as_ref().map_or(0, |c| c.claims.len());
    let plan = roles::plan_draft(draft, position, deadline, extraction, claims, budget);
    match &plan.shape {
        Shape::Whole => {}
        Shape::Split { parts } => {
            internal_events::manifest_split(draft, *parts, claim_count, budget);
        }
        Shape::Refused(oversize) => internal_events::outputs_too_large(draft, oversize),
    }
    Outputs {
        requests: plan.requests,
        manifests: plan.manifests,
    }
}

/// Answers a draft whose outputs the broker refused for the record's own sake: the draft goes to
/// the dead-letter topic and its revision is blocked (`internal_error`, through the join as a
/// failed manifest; directly when even that is refused). Nothing is retried: the same outputs
/// would be refused again. Resolves `Ok` (the offset is stored) unless the broker itself fails.
async fn answer_failure(
    services: &Services,
    message: &OwnedMessage,
    draft: &DraftEvent,
    position: DraftPosition,
    deadline: roles::Timing,
    trace: &TraceContext,
    err: &KafkaError,
) -> Result<(), KafkaError> {
    let why = format!("the broker refused what its check produced: {err}");
    internal_events::message_failed(FailingRole::Extract, message, Some(&draft.article_id), &why);
    dead_letter(
        services,
        message,
        &DraftFailure::OutputsRefused(why.clone()),
        trace,
    )
    .await?;
    let manifest = roles::failed_manifest(
        draft,
        position,
        deadline,
        ExtractionFailure::InternalError,
        why.clone(),
    );
    let topic = &services.config.kafka.topics.manifests;
    match services
        .publish(
            topic,
            &draft.article_id,
            MANIFEST_V1,
            &manifest,
            Some(trace),
        )
        .await
    {
        Ok(()) => Ok(()),
        Err(again) if is_message_fault(&again) => {
            let decision = decide_not_checked(
                &draft.article_id,
                Some(draft.revision),
                &draft.content_digest(),
                DecisionReason::InternalError,
                &why,
                Some(draft.published_at),
                Utc::now(),
            )
            .for_publication(Some(position));
            services
                .publish_decision(decision, Some(draft.published_at), Some(trace))
                .await
        }
        Err(again) => Err(again),
    }
}

/// Extraction of the draft's body within the configured limits (on the bounded parsing pool when
/// it is over [`INLINE_EXTRACT_BYTES`]);
/// `None` with the failure when it could not be read or is over a limit. Never truncates: an
/// over-long body or too many claims fail closed. The flag is set when extraction panicked.
async fn read_body(
    services: &Services,
    draft: &DraftEvent,
) -> (ExtractionOutcome, Option<Extraction>, bool) {
    let limits = services.config.extract.limits();
    let failed = |reason, message: String| {
        internal_events::extraction_failed(draft, &message);
        (ExtractionOutcome::Failed { reason, message }, None, false)
    };
    // Over the size limit, the body is not even copied to the pool.
    if draft.body.len() as u64 > limits.max_body_bytes {
        let over = LimitExceeded::BodyBytes {
            limit: limits.max_body_bytes,
        };
        internal_events::limit_exceeded(&over);
        return failed(ExtractionFailure::BodyTooLarge, over.to_string());
    }
    if let Err(over) = check_fields(draft, &limits) {
        internal_events::limit_exceeded(&over);
        return failed(ExtractionFailure::LimitExceeded, over.to_string());
    }
    let format = draft.body_format;
    let extracted = if draft.body.len() <= INLINE_EXTRACT_BYTES {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            extract_titled_within(&draft.body, format, draft.title.as_deref(), &limits)
        }))
        .map_err(drop)
    } else {
        let body = draft.body.clone();
        let title = draft.title.clone();
        crate::parse_pool::run_bounded(move |_| {
            extract_titled_within(&body, format, title.as_deref(), &limits)
        })
        .await
        .map_err(drop)
    };
    match extracted {
        Ok(Ok(extraction)) => (
            ExtractionOutcome::Ok {
                paragraphs: extraction.paragraphs,
                sentences: extraction.sentences,
            },
            Some(extraction),
            false,
        ),
        Ok(Err(ExtractError::Limit(over))) => {
            internal_events::limit_exceeded(&over);
            let reason = match over {
                LimitExceeded::BodyBytes { .. } => ExtractionFailure::BodyTooLarge,
                _ => ExtractionFailure::LimitExceeded,
            };
            failed(reason, over.to_string())
        }
        Ok(Err(err @ ExtractError::EmptyBody)) => {
            failed(ExtractionFailure::EmptyBody, err.to_string())
        }
        Ok(Err(err)) => failed(ExtractionFailure::UnreadableBody, err.to_string()),
        Err(_panicked) => {
            let (outcome, claims, _) = failed(
                ExtractionFailure::InternalError,
                "extraction failed internally (a defect in factgate)".to_owned(),
            );
            (outcome, claims, true)
        }
    }
}

/// Whether every text field of `draft` but its body is within `extract.max_field_bytes`: the
/// title is read as a claim, and every field is carried into the board and the pages.
fn check_fields(draft: &DraftEvent, limits: &ExtractLimits) -> Result<(), LimitExceeded> {
    let json_len = |value: &serde_json::Value| serde_json::to_vec(value).map_or(0, |v| v.len());
    for (field, text) in [
        ("title", draft.title.as_deref()),
        ("url", draft.url.as_deref()),
        ("section", draft.section.as_deref()),
    ] {
        limits.check_field(field, text.map_or(0, str::len))?;
    }
    for author in &draft.authors {
        limits.check_field("author", author.len())?;
    }
    if !draft.metadata.is_empty() {
        let metadata = serde_json::to_vec(&draft.metadata).map_or(0, |v| v.len());
        limits.check_field("metadata", metadata)?;
    }
    for value in draft.extra.values() {
        limits.check_field("field of the CMS's own", json_len(value))?;
    }
    Ok(())
}

/// Why a readable draft is dead-lettered all the same; named in the dead letter's headers.
#[derive(Debug, thiserror::Error)]
enum DraftFailure {
    #[error("extraction panicked")]
    ExtractionPanicked,
    #[error("{0}")]
    OutputsRefused(String),
}

/// Sends the draft, exactly as received, to the dead-letter topic, with why and where it was read
/// in its headers; a draft over factgate's own message limit is sent cut to it, under
/// [`DEAD_LETTER_TRUNCATED_SCHEMA`]. Fails only for a fault of the broker: a dead letter the
/// broker refuses anyway is logged and given up.
async fn dead_letter<E: std::fmt::Display + std::fmt::Debug>(
    services: &Services,
    message: &OwnedMessage,
    error: &E,
    trace: &TraceContext,
) -> Result<(), KafkaError> {
    // The key is kept as it came, unless it would take over half the record.
    let max_key = usize::try_from(services.config.kafka.message_max_bytes() / 2)
        .unwrap_or(usize::MAX)
        .max(MAX_ARTICLE_ID_BYTES);
    let key = kafka::dead_letter::letter_key(message, max_key);
    let payload = message.payload().unwrap_or_default();
    let headers_of = |schema: &str| {
        kafka::dead_letter::with_cause(
            EventHeaders::new(schema, Some(trace)),
            "extract",
            message,
            error,
        )
    };
    // The payload's room is what the key and the cause's headers leave of the broker's limit.
    let truncated_headers = headers_of(DEAD_LETTER_TRUNCATED_SCHEMA);
    let budget = services
        .config
        .kafka
        .max_payload_bytes_beside(key.len() + truncated_headers.encoded_len());
    let (payload, headers) = if payload.len() > budget {
        (&payload[..budget], truncated_headers)
    } else {
        (payload, headers_of(DEAD_LETTER_SCHEMA))
    };
    let schema = headers.schema.clone();
    let produced = services
        .producer
        .produce(
            &services.config.kafka.topics.dead_letter,
            key,
            payload,
            &headers,
        )
        .await;
    match produced {
        Ok(_) => {}
        Err(err) if is_message_fault(&err) => {
            internal_events::dead_letter_refused(message, &err);
            return Ok(());
        }
        Err(err) => return Err(err),
    }
    internal_events::draft_dead_lettered(message, &schema);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(extra: serde_json::Value) -> DraftEvent {
        let mut event = serde_json::json!({
            "schema_version": "factgate.draft.v1",
            "article_id": "a-1",
            "revision": 1,
            "published_at": "2026-01-01T00:00:00Z",
            "body": "Sales rose 4%.",
            "body_format": "markdown",
        });
        if let (Some(event), Some(extra)) = (event.as_object_mut(), extra.as_object()) {
            event.extend(extra.clone());
        }
        DraftEvent::from_json(event.to_string().as_bytes()).expect("a valid draft")
    }

    #[test]
    fn every_text_field_of_a_draft_is_under_the_field_cap() {
        let limits = ExtractLimits {
            max_field_bytes: 100,
            ..ExtractLimits::default()
        };
        let long = "x".repeat(101);
        assert!(check_fields(&draft(serde_json::json!({"title": "Sales"})), &limits).is_ok());
        for (field, extra) in [
            ("title", serde_json::json!({ "title": long })),
            ("url", serde_json::json!({ "url": long })),
            ("section", serde_json::json!({ "section": long })),
            (
                "author",
                serde_json::json!({ "authors": ["A. Writer", long] }),
            ),
            (
                "metadata",
                serde_json::json!({ "metadata": { "tags": [long] } }),
            ),
            (
                "field of the CMS's own",
                serde_json::json!({ "cms_notes": long }),
            ),
        ] {
            let err = check_fields(&draft(extra), &limits).expect_err(field);
            assert!(
                matches!(err, LimitExceeded::FieldBytes { field: f, limit: 100, .. } if f == field),
                "{field}: {err:?}"
            );
            assert!(err.to_string().contains("extract.max_field_bytes"), "{err}");
        }
    }
}
