//! The extract role: drafts read and extracted, limits, split manifests, dead letters, and the
//! messages of any role whose handling failed for a reason of their own.

use rdkafka::Message;
use tracing::{error, info, warn};

use crate::metrics::{FailingRole, Limit, ShortenedOutput, label, metrics};
use factgate_core::events::{ArticleManifest, DraftEvent, Encoded, ExtractionOutcome, fit};
use factgate_core::extract::LimitExceeded;

/// The extract role read a draft (readable or not).
pub fn draft_consumed() {
    metrics().drafts_consumed.inc();
}

/// A draft's manifest (in one part or more) and its `checks` verification requests were
/// published.
pub fn draft_extracted(draft: &DraftEvent, manifests: &[Encoded<ArticleManifest>], checks: usize) {
    // A claim of several kinds ("grew 40% to $9m") counts once under each.
    for kind in manifests
        .iter()
        .flat_map(|m| &m.claims)
        .flat_map(|c| &c.kinds)
    {
        metrics()
            .claims_extracted
            .with_label_values(&[label(*kind)])
            .inc();
    }
    let failed = manifests.first().and_then(|m| match &m.extraction {
        ExtractionOutcome::Failed { reason, .. } => Some(*reason),
        ExtractionOutcome::Ok { .. } => None,
    });
    info!(
        article_id = %draft.article_id,
        revision = draft.revision,
        claims = manifests.iter().map(|m| m.claims.len()).sum::<usize>(),
        checks,
        parts = manifests.len(),
        extraction_failed = ?failed,
        "draft extracted"
    );
}

/// A draft's manifest was split in `parts` to fit the broker's message limit of `budget` bytes.
pub fn manifest_split(draft: &DraftEvent, parts: usize, claims: usize, budget: usize) {
    metrics().output_shortened(ShortenedOutput::ManifestSplit);
    info!(
        article_id = %draft.article_id,
        revision = draft.revision,
        parts,
        claims,
        budget,
        "manifest split in parts to fit the broker's message limit"
    );
}

/// What a draft produced cannot fit the broker's message limit: the draft is blocked.
pub fn outputs_too_large(draft: &DraftEvent, oversize: &fit::Oversize) {
    metrics().limit_exceeded(Limit::OutputBytes);
    warn!(
        article_id = %draft.article_id,
        revision = draft.revision,
        error = %oversize,
        "output too large for the broker: the draft is blocked"
    );
}

/// A draft went over a per-draft limit: counted by limit, for the dashboard (the extraction
/// failure that follows is logged where the draft is answered).
pub fn limit_exceeded(over: &LimitExceeded) {
    let limit = match over {
        LimitExceeded::BodyBytes { .. } => Limit::BodyBytes,
        LimitExceeded::NestingDepth { .. } => Limit::NestingDepth,
        LimitExceeded::Links { .. } => Limit::Links,
        LimitExceeded::Claims { .. } => Limit::Claims,
        LimitExceeded::Checks { .. } => Limit::Checks,
        LimitExceeded::FieldBytes { .. } => Limit::FieldBytes,
        LimitExceeded::ClaimWords { .. } => Limit::ClaimWords,
        LimitExceeded::ClaimFigures { .. } => Limit::ClaimFigures,
    };
    metrics().limit_exceeded(limit);
}

/// Extraction of a draft's body failed (unreadable, over a limit, or a defect); the draft is
/// blocked.
pub fn extraction_failed(draft: &DraftEvent, message: &str) {
    warn!(article_id = %draft.article_id, revision = draft.revision, %message, "extraction failed");
}

/// A message of `role` whose handling failed for a reason of its own: answered with a block and
/// dead-lettered, logged with where it is, counted.
pub fn message_failed(
    role: FailingRole,
    message: &impl Message,
    article_id: Option<&str>,
    why: &str,
) {
    metrics().message_failed(role);
    let role: &'static str = role.into();
    error!(
        role,
        topic = message.topic(),
        partition = message.partition(),
        offset = message.offset(),
        article_id,
        error = why,
        "message failed: answered with a block and dead-lettered; reading on"
    );
}

/// A draft was written to the dead-letter topic under `schema`.
pub fn draft_dead_lettered(message: &impl Message, schema: &str) {
    metrics().dead_letters.inc();
    info!(
        topic = message.topic(),
        partition = message.partition(),
        offset = message.offset(),
        schema,
        "draft dead-lettered"
    );
}

/// The dead-letter topic refused a draft for its own sake: it is only logged.
pub fn dead_letter_refused(message: &impl Message, err: &rdkafka::error::KafkaError) {
    error!(
        topic = message.topic(),
        partition = message.partition(),
        offset = message.offset(),
        error = %err,
        "the dead-letter topic refused the draft; it is only logged"
    );
}

/// A draft could not be read (`field` names the part at fault, when known): it is dead-lettered,
/// and blocked when its article id (`article_id`) could be recovered.
pub fn draft_unreadable(
    message: &impl Message,
    field: Option<&str>,
    article_id: Option<&str>,
    error: &dyn std::fmt::Display,
) {
    warn!(
        topic = message.topic(),
        partition = message.partition(),
        offset = message.offset(),
        bytes = message.payload().map_or(0, <[u8]>::len),
        field,
        article_id,
        error = %error,
        "draft unreadable: dead-lettered"
    );
}

/// A waiver (inline in the draft, or in the waivers file) was ignored: `note` says why (it names
/// no finding type and reason, or matches no finding of the article).
pub fn waiver_ignored(article: &str, note: &str) {
    warn!(article = %article, "waiver ignored: {note}");
}
