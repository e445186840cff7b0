//! The event contracts: the versioned messages factgate reads and writes. Each has a JSON Schema
//! in `schemas/` and an example in `schemas/examples/`; the shapes shared by several events (a
//! claim, an issue, a verdict…) are defined once in `schemas/common.v1.json`.
//!
//! | event | topic | key | type | schema |
//! |---|---|---|---|---|
//! | draft | `drafts.published` | article | [`DraftEvent`] | `schemas/draft.v1.json` |
//! | verification request | `claims.verify` | source host | [`VerifyRequest`] | `schemas/verify_request.v1.json` |
//! | claim result | `claims.verified` | article | [`ClaimResult`] | `schemas/claim_result.v1.json` |
//! | article manifest | `articles.manifest` | article | [`ArticleManifest`] | `schemas/manifest.v1.json` |
//! | decision | `decisions` | article | [`Decision`] | `schemas/decision.v1.json` |
//! | editor's override | `overrides` | article | [`OverrideEvent`] | `schemas/override.v1.json` |
//!
//! Every event carries a `schema_version` ("factgate.draft.v1", …). In Rust it is a zero-sized
//! marker ([`DraftV1`], …) that serializes as its constant and refuses any other value, so a
//! value of a factgate event type always claims the version its shape follows.
//!
//! # Open and closed shapes
//! The draft schema allows any extra top-level field, because a CMS adds its own; they are kept in
//! [`DraftEvent::extra`]. The schemas of factgate's own events are closed
//! (`additionalProperties: false`): they describe exactly what factgate writes, and the tests
//! hold every Rust type to them. Reading, factgate is tolerant: its types ignore fields they do not
//! know, so a newer writer that adds a field within a version does not break an older reader.
//!
//! # Counting verification results
//! Extraction emits one [`VerifyRequest`] per (claim, distinct cited source URL) and lists the
//! same pairs as [`CheckKey`]s in the manifest's `pending`. Verification answers each request with
//! exactly one [`ClaimResult`] carrying the same key. The join has everything it needs for an
//! (article, revision) once it holds the manifest and a result for every pending key; a replayed
//! result for a key already held changes nothing, and a result whose key is not pending is
//! ignored.
//!
//! # Layout
//! - `version`: the schema version constants and their markers.
//! - `draft`: the draft a CMS publishes, and its strict, field-naming parser.
//! - `verify`: the verification request and the claim result, with the fetch status.
//! - `manifest`: the article manifest extraction sends to the join.
//! - `report`: the editor's report (docs/report.md) and its issues.
//! - `decision`: the decision, its reasons, and the derivation of decision ids.
//! - `overrides`: an editor's override of a finding, and findings waived.
//! - `outcome`: a decision's outcome, pass or block, shared by the decision and the report.
//! - `position`: where a draft sits on the drafts topic, naming one publication of it; a
//!   topic-partition.
//! - `trace`: the trace context (W3C `traceparent`, `tracestate`) an event carries, held opaque.
//! - `fit`: events sized to fit the broker's message limit: manifests split, reports shortened.

mod check;
mod decision;
mod draft;
pub mod fit;
mod manifest;
mod outcome;
mod overrides;
mod position;
mod report;
mod trace;
mod version;

pub use check::{
    CheckKey, ClaimResult, DEADLINE_TIMEOUT_REASON, Evidence, FetchStatus, JUDGING_BUDGET_REASON,
    VerifyRequest,
};
pub use decision::{
    ArrivedLate, Decision, DecisionReason, content_digest, decision_id, decision_id_at,
    decision_id_for_run, draft_content_digest,
};
pub use draft::{
    DraftError, DraftEvent, MAX_ARTICLE_ID_BYTES, RecoveredId, recover_article_id, recover_from_key,
};
pub use fit::{
    Encoded, Oversize, encode_within, fit_decision, fit_result, split_manifest, to_json,
};
pub use manifest::{ArticleManifest, ExtractionFailure, ExtractionOutcome, ManifestPart};
pub use outcome::Outcome;
pub use overrides::{
    AppliedOverride, FindingRef, MAX_EDITOR_CHARS, MAX_REASON_CHARS, OverrideEvent, WaivedIssue,
    Waiver, WaiverKind, override_id,
};
pub use position::{DraftPosition, TopicPartition};
pub use report::{
    ChangeCounts, CitationReplaced, ClaimStatus, ClaimVerdict, Issue, IssueChange, IssueType,
    Rechecked, Recommendation, Report, Resolution, RevisionChanges, SeverityCounts, Summary,
    SupportingSource, VerificationDetails, VerificationResults,
};
pub use trace::{MAX_TRACEPARENT_BYTES, MAX_TRACESTATE_BYTES, TraceContext};
pub use version::{
    CLAIM_RESULT_V1, ClaimResultV1, DECISION_V1, DRAFT_V1, DecisionV1, DraftV1, MANIFEST_V1,
    ManifestV1, OVERRIDE_V1, OverrideV1, VERIFY_REQUEST_V1, VerifyRequestV1,
};
