//! The draft event a CMS publishes on `drafts.published`, keyed by article id.
//!
//! Parsing is strict about what factgate needs and tolerant of the rest:
//! - required: `schema_version`, `article_id` (non-empty), `revision` (integer ≥ 0),
//!   `published_at` (RFC 3339), `body` and `body_format` (`markdown`, `html` or `text`);
//! - optional: `title`, `url`, `section`, `authors`, `metadata` (a free-form object);
//! - any other top-level field is kept, untouched, in [`DraftEvent::extra`] and written back on
//!   serialization, because a CMS adds fields of its own.
//!
//! A missing or ill-typed required field is a [`DraftError`] that names the field. A body that is
//! present but empty or unreadable is *not* a parse error: the draft is read, and extraction
//! reports the body as unreadable, which blocks the draft with a decision.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::version::DraftV1;
use crate::model::BodyFormat;

/// The longest article id accepted, in bytes: ids are Kafka keys and appear in every event.
pub const MAX_ARTICLE_ID_BYTES: usize = 512;

/// The top-level fields a draft must carry, in the order they are checked.
const REQUIRED_FIELDS: [&str; 6] = [
    "schema_version",
    "article_id",
    "revision",
    "published_at",
    "body",
    "body_format",
];

/// A draft revision of an article, as published by the CMS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftEvent {
    /// Always [`super::DRAFT_V1`].
    pub schema_version: DraftV1,
    /// The CMS's id of the article; the same for every revision. Non-empty.
    pub article_id: String,
    /// The revision number; one decision is made per (article_id, revision).
    pub revision: u64,
    /// When the CMS published this revision: the event time the verification deadline counts
    /// from.
    pub published_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The article body, in `body_format`.
    pub body: String,
    pub body_format: BodyFormat,
    /// The article's public URL, informational only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The newsroom section ("Business", "Science"…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// Free-form CMS metadata, carried but not read by factgate.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// Top-level fields this version of the contract does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The identity of a draft recovered from an event that could not be read in full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveredId {
    pub article_id: String,
    /// Absent when the event holds no valid revision.
    pub revision: Option<u64>,
}

/// Why a draft event could not be read. Every variant blocks the draft; those that carry a
/// [`RecoveredId`] can still be answered with a block decision, the others go to the dead-letter
/// topic.
#[derive(Debug, thiserror::Error)]
pub enum DraftError {
    /// The bytes are not JSON.
    #[error("the draft is not valid JSON: {source}")]
    NotJson {
        #[source]
        source: serde_json::Error,
    },
    /// The JSON is not an object.
    #[error("the draft is not a JSON object")]
    NotAnObject,
    /// A required field is absent.
    #[error("the draft lacks the required field `{field}`")]
    MissingField {
        field: &'static str,
        recovered: Option<RecoveredId>,
    },
    /// A field is present but does not have the type or value the contract requires.
    #[error("the draft's field `{field}` is invalid: {reason}")]
    InvalidField {
        /// The path of the field: `revision`, `authors[1]`.
        field: String,
        reason: String,
        recovered: Option<RecoveredId>,
    },
}

impl DraftError {
    /// The field at fault, when the error is about one.
    pub fn field(&self) -> Option<&str> {
        match self {
            DraftError::MissingField { field, .. } => Some(field),
            DraftError::InvalidField { field, .. } => Some(field),
            DraftError::NotJson { .. } | DraftError::NotAnObject => None,
        }
    }

    /// The article (and revision, when valid) the unreadable draft belongs to, when it can be
    /// told from the event.
    pub fn recovered(&self) -> Option<&RecoveredId> {
        match self {
            DraftError::MissingField { recovered, .. }
            | DraftError::InvalidField { recovered, .. } => recovered.as_ref(),
            DraftError::NotJson { .. } | DraftError::NotAnObject => None,
        }
    }
}

impl DraftEvent {
    /// Parses a draft event from its JSON bytes.
    ///
    /// # Errors
    /// [`DraftError::NotJson`] for bytes that are not JSON, [`DraftError::NotAnObject`] for JSON
    /// that is not an object, [`DraftError::MissingField`] or [`DraftError::InvalidField`] (naming
    /// the field) when a required field is absent, ill-typed or out of range.
    pub fn from_json(bytes: &[u8]) -> Result<DraftEvent, DraftError> {
        // A valid draft, the common case, is read straight into its type: about half the work
        // of reading a JSON tree and then the draft from it. Anything else is read again the
        // slow way, which names what is wrong and recovers the id.
        if let Ok(draft) = serde_json::from_slice::<DraftEvent>(bytes)
            && draft.check().is_ok()
        {
            return Ok(draft);
        }
        let value: Value =
            serde_json::from_slice(bytes).map_err(|source| DraftError::NotJson { source })?;
        DraftEvent::from_value(value)
    }

    /// Parses a draft event from a JSON value; see [`DraftEvent::from_json`].
    ///
    /// # Errors
    /// As [`DraftEvent::from_json`], except [`DraftError::NotJson`].
    pub fn from_value(value: Value) -> Result<DraftEvent, DraftError> {
        let Value::Object(object) = &value else {
            return Err(DraftError::NotAnObject);
        };
        // Checked here rather than left to serde, whose "missing field" error has no path: the
        // field is then named in a structured way, not only in a message.
        if let Some(field) = REQUIRED_FIELDS
            .into_iter()
            .find(|f| !object.contains_key(*f))
        {
            return Err(DraftError::MissingField {
                field,
                recovered: recover_from_object(object),
            });
        }
        let recovered = recover_from_object(object);
        let draft: DraftEvent =
            serde_path_to_error::deserialize(value).map_err(|err| DraftError::InvalidField {
                field: err.path().to_string(),
                reason: err.inner().to_string(),
                recovered: recovered.clone(),
            })?;
        draft
            .check()
            .map_err(|(field, reason)| DraftError::InvalidField {
                field: field.to_owned(),
                reason,
                recovered,
            })?;
        Ok(draft)
    }

    /// The constraints serde's types do not express.
    fn check(&self) -> Result<(), (&'static str, String)> {
        if self.article_id.trim().is_empty() {
            return Err(("article_id", "must not be empty".to_owned()));
        }
        if self.article_id.len() > MAX_ARTICLE_ID_BYTES {
            return Err((
                "article_id",
                format!("is longer than {MAX_ARTICLE_ID_BYTES} bytes"),
            ));
        }
        Ok(())
    }

    /// The digest of what factgate checks in this draft (its body format, body and title); see
    /// [`super::draft_content_digest`].
    pub fn content_digest(&self) -> String {
        super::decision::draft_content_digest(self.body_format, self.title.as_deref(), &self.body)
    }
}

/// Recovers the article id (and revision) of a draft event that may be invalid otherwise, so the
/// draft can still be blocked with a decision. Recovery needs a complete JSON object whose
/// `article_id` is a valid id (non-blank, at most [`MAX_ARTICLE_ID_BYTES`]); the revision is kept
/// only when it is an integer ≥ 0. Nothing is guessed from bytes that are not a whole JSON
/// document (cut short, not JSON at all).
///
/// The rest of the document only has to be well-formed: a number out of range (`1e400`),
/// invalid UTF-8 inside another string, or nesting deeper than a full parse allows do not stop
/// recovery, since only the two fields are decoded and everything else is skipped over.
pub fn recover_article_id(bytes: &[u8]) -> Option<RecoveredId> {
    /// Only the id: every other field is skipped (checked for syntax, never decoded).
    #[derive(Deserialize)]
    struct Id<'a> {
        #[serde(borrow)]
        article_id: std::borrow::Cow<'a, str>,
    }
    /// Only the revision, in a pass of its own, so an unreadable revision leaves the id.
    #[derive(Deserialize)]
    struct Revision {
        revision: u64,
    }
    let id: Id<'_> = serde_json::from_slice(bytes).ok()?;
    let article_id = id.article_id;
    if article_id.trim().is_empty() || article_id.len() > MAX_ARTICLE_ID_BYTES {
        return None;
    }
    Some(RecoveredId {
        article_id: article_id.into_owned(),
        revision: serde_json::from_slice::<Revision>(bytes)
            .ok()
            .map(|r| r.revision),
    })
}

/// The article a record's key names, for an event whose payload names none (not JSON, or JSON
/// without a readable `article_id`): the producer keys drafts by article id, so a CMS that sent
/// bytes factgate cannot read still gets a block for the article it meant. `revision` is the one
/// the record's `factgate-revision` header gives, when it does. `None` for a key that is empty,
/// not UTF-8, longer than an article id may be, or holds control characters.
pub fn recover_from_key(key: &[u8], revision: Option<u64>) -> Option<RecoveredId> {
    let key = std::str::from_utf8(key).ok()?;
    if key.trim().is_empty()
        || key.len() > MAX_ARTICLE_ID_BYTES
        || key.chars().any(char::is_control)
    {
        return None;
    }
    Some(RecoveredId {
        article_id: key.to_owned(),
        revision,
    })
}

fn recover_from_object(object: &Map<String, Value>) -> Option<RecoveredId> {
    let article_id = object.get("article_id")?.as_str()?;
    if article_id.trim().is_empty() || article_id.len() > MAX_ARTICLE_ID_BYTES {
        return None;
    }
    Some(RecoveredId {
        article_id: article_id.to_owned(),
        revision: object.get("revision").and_then(Value::as_u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_key_names_the_article_when_the_payload_cannot() {
        let id = recover_from_key(b"article-42", Some(3)).expect("a key that is an id");
        assert_eq!(
            (id.article_id.as_str(), id.revision),
            ("article-42", Some(3))
        );
        assert_eq!(
            recover_from_key(b"a-1", None).map(|r| r.revision),
            Some(None)
        );
        for bad in [
            &b""[..],
            b"   ",
            b"\xff\xfe",
            b"line\nbreak",
            &[b'a'; MAX_ARTICLE_ID_BYTES + 1],
        ] {
            assert!(recover_from_key(bad, None).is_none(), "{bad:?}");
        }
    }

    const VALID: &str = r#"{
        "schema_version": "factgate.draft.v1",
        "article_id": "a-1",
        "revision": 3,
        "published_at": "2025-08-26T16:45:00+02:00",
        "body": "Prices rose 4% [1].",
        "body_format": "markdown",
        "cms_flag": {"x": 1}
    }"#;

    fn with(field: &str, value: Value) -> Vec<u8> {
        let mut v: Value = serde_json::from_str(VALID).unwrap();
        v[field] = value;
        serde_json::to_vec(&v).unwrap()
    }

    #[test]
    fn parses_a_minimal_draft_and_keeps_unknown_fields() {
        let draft = DraftEvent::from_json(VALID.as_bytes()).unwrap();
        assert_eq!(draft.article_id, "a-1");
        assert_eq!(draft.revision, 3);
        assert_eq!(draft.published_at.to_rfc3339(), "2025-08-26T14:45:00+00:00");
        assert_eq!(draft.extra["cms_flag"]["x"], 1);
        let out = serde_json::to_value(&draft).unwrap();
        assert_eq!(out["cms_flag"]["x"], 1);
    }

    #[test]
    fn blank_article_id_is_an_invalid_field_without_recovery() {
        let err = DraftEvent::from_json(&with("article_id", Value::from("  "))).unwrap_err();
        assert_eq!(err.field(), Some("article_id"));
        assert!(err.recovered().is_none());
    }

    #[test]
    fn negative_revision_names_the_field_and_recovers_the_article() {
        let err = DraftEvent::from_json(&with("revision", Value::from(-1))).unwrap_err();
        assert_eq!(err.field(), Some("revision"));
        let recovered = err.recovered().unwrap();
        assert_eq!(recovered.article_id, "a-1");
        assert_eq!(recovered.revision, None);
    }

    #[test]
    fn unknown_body_format_and_wrong_version_name_their_fields() {
        let err = DraftEvent::from_json(&with("body_format", Value::from("pdf"))).unwrap_err();
        assert_eq!(err.field(), Some("body_format"));
        let err = DraftEvent::from_json(&with("schema_version", Value::from("x"))).unwrap_err();
        assert_eq!(err.field(), Some("schema_version"));
        assert_eq!(err.recovered().unwrap().revision, Some(3));
    }

    #[test]
    fn nested_type_errors_carry_their_path() {
        let err = DraftEvent::from_json(&with("authors", serde_json::json!(["A", 2]))).unwrap_err();
        assert_eq!(err.field(), Some("authors[1]"));
    }

    #[test]
    fn ids_are_recovered_past_numbers_out_of_range_bad_utf8_and_deep_nesting() {
        let huge = br#"{"schema_version":"factgate.draft.v1","article_id":"a-9","revision":1e400,"body":"x","body_format":"text"}"#;
        assert!(matches!(
            DraftEvent::from_json(huge),
            Err(DraftError::NotJson { .. })
        ));
        let recovered = recover_article_id(huge).expect("the id is readable");
        assert_eq!(
            (recovered.article_id.as_str(), recovered.revision),
            ("a-9", None)
        );

        let mut bad_utf8 = br#"{"article_id":"a-8","revision":2,"title":"caf"#.to_vec();
        bad_utf8.extend_from_slice(&[0xff, 0xfe]);
        bad_utf8.extend_from_slice(br#"","body":"x","body_format":"text"}"#);
        assert!(DraftEvent::from_json(&bad_utf8).is_err());
        let recovered = recover_article_id(&bad_utf8).expect("the id is readable");
        assert_eq!(
            (recovered.article_id.as_str(), recovered.revision),
            ("a-8", Some(2))
        );

        let deep = format!(
            r#"{{"article_id":"a-7","revision":3,"metadata":{}1{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(DraftEvent::from_json(deep.as_bytes()).is_err());
        assert_eq!(
            recover_article_id(deep.as_bytes()).map(|r| r.revision),
            Some(Some(3))
        );

        // An id that is itself unreadable, or too long, is not guessed at.
        let mut bad_id = br#"{"article_id":"a-"#.to_vec();
        bad_id.push(0xff);
        bad_id.extend_from_slice(br#"","revision":1}"#);
        assert!(recover_article_id(&bad_id).is_none());
        let long = format!(r#"{{"article_id":"{}","revision":1}}"#, "x".repeat(513));
        assert!(recover_article_id(long.as_bytes()).is_none());
    }

    /// The direct read of a valid draft and the read through a JSON tree agree on every field,
    /// the CMS's own fields included; each invalid draft is refused by both.
    #[test]
    fn the_direct_read_and_the_checked_read_agree() {
        let full = r#"{
            "schema_version": "factgate.draft.v1", "article_id": "a-2", "revision": 18446744073709551615,
            "published_at": "2025-08-26T16:45:00Z", "title": "T", "url": "https://example.com/a",
            "section": null, "authors": ["A", "B"], "metadata": {"n": [1, 2.5, {"x": null}]},
            "body": "Body \u00e9 \"quoted\"", "body_format": "html",
            "cms_flag": 1, "cms_flag": 2, "other": {"deep": [[]]}
        }"#;
        // A field of the contract given twice: the direct read refuses it, the tree keeps the
        // last, as it always has.
        let repeated = VALID.replacen("\"revision\": 3", "\"revision\": 3, \"revision\": 4", 1);
        let valid = [VALID.as_bytes(), full.as_bytes(), repeated.as_bytes()];
        for bytes in valid {
            let slow = DraftEvent::from_value(serde_json::from_slice(bytes).unwrap()).unwrap();
            assert_eq!(DraftEvent::from_json(bytes).unwrap(), slow);
        }
        let draft = DraftEvent::from_json(full.as_bytes()).unwrap();
        assert_eq!(
            draft.extra["cms_flag"], 2,
            "the last of a repeated CMS field, as before"
        );
        assert_eq!(
            DraftEvent::from_json(repeated.as_bytes()).unwrap().revision,
            4
        );
        let invalid = [
            with("article_id", Value::from(" ")),
            with(
                "article_id",
                Value::from("x".repeat(MAX_ARTICLE_ID_BYTES + 1)),
            ),
            with("revision", Value::from(1.5)),
            with("body", Value::Null),
        ];
        for bytes in &invalid {
            let slow = DraftEvent::from_value(serde_json::from_slice(bytes).unwrap())
                .expect_err("refused through the tree");
            let fast = DraftEvent::from_json(bytes).expect_err("refused");
            assert_eq!(fast.field(), slow.field());
            assert!(fast.field().is_some());
        }
    }

    #[test]
    fn garbage_recovers_nothing() {
        assert!(recover_article_id(b"{\"article_id\": \"a-1\"").is_none());
        assert!(recover_article_id(b"[1,2]").is_none());
        assert!(matches!(
            DraftEvent::from_json(b"nope"),
            Err(DraftError::NotJson { .. })
        ));
    }
}
