//! What a re-check run covers: its scope, captured once at its start and shared by every
//! instance of the run through the runs topic, and the pure choice of the drafts to re-check
//! within it (the latest revision of each article).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use factgate_core::events::{DraftEvent, DraftPosition};

/// The schema of a run's scope record on the runs topic.
pub const RECHECK_RUN_V1: &str = "factgate.recheck_run.v1";

/// The longest run id: it is part of a consumer group id and of every decision id.
pub const MAX_RUN_ID_CHARS: usize = 64;

/// Checks a run id: letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most
/// [`MAX_RUN_ID_CHARS`] (it names a consumer group).
///
/// # Errors
/// Why the id is refused, for the command line.
pub fn validate_run_id(id: &str) -> Result<(), String> {
    let mut chars = id.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !first_ok || !rest_ok || id.len() > MAX_RUN_ID_CHARS {
        return Err(format!(
            "run id {id:?} must start with a letter or digit and hold only letters, digits, \
             '.', '_' and '-', at most {MAX_RUN_ID_CHARS} characters"
        ));
    }
    Ok(())
}

/// The scope of one run, fixed when its first instance starts: where the drafts topic ended
/// then, and the filters asked for. Later instances and resumed runs read it back, so every
/// instance re-checks the same drafts whatever was published since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunScope {
    /// Always [`RECHECK_RUN_V1`].
    pub schema_version: String,
    pub run_id: String,
    /// When the run's first instance started.
    pub started_at: DateTime<Utc>,
    /// The drafts topic read.
    pub drafts_topic: String,
    /// Per partition of the drafts topic, the offset it ended at when the run started
    /// (exclusive): later drafts are not part of the run.
    pub end_offsets: BTreeMap<i32, i64>,
    /// Only drafts published at or after this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<DateTime<Utc>>,
    /// Only drafts published before this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<DateTime<Utc>>,
    /// Only these articles (all when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub articles: Vec<String>,
    /// Only articles of these sections (all when empty); compared without regard to case.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<String>,
}

impl RunScope {
    /// Whether the record at `position` was on the topic when the run started.
    pub fn holds_position(&self, position: DraftPosition) -> bool {
        self.end_offsets
            .get(&position.partition)
            .is_some_and(|end| position.offset < *end)
    }

    /// Whether the filters need the draft's time or section, which an unreadable draft lacks.
    fn filters_on_content(&self) -> bool {
        self.since.is_some() || self.until.is_some() || !self.sections.is_empty()
    }

    fn admits_article(&self, article_id: &str) -> bool {
        self.articles.is_empty() || self.articles.iter().any(|a| a == article_id)
    }

    /// Whether a readable draft is within the filters.
    pub fn admits(&self, draft: &DraftEvent) -> bool {
        if !self.admits_article(&draft.article_id) {
            return false;
        }
        if self.since.is_some_and(|since| draft.published_at < since) {
            return false;
        }
        if self.until.is_some_and(|until| draft.published_at >= until) {
            return false;
        }
        if !self.sections.is_empty() {
            let Some(section) = draft.section.as_deref() else {
                return false;
            };
            if !self
                .sections
                .iter()
                .any(|s| s.trim().eq_ignore_ascii_case(section.trim()))
            {
                return false;
            }
        }
        true
    }
}

/// One draft to re-check: the latest revision of its article within the scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Target {
    pub article_id: String,
    /// `None` for an unreadable draft whose revision could not be recovered.
    pub revision: Option<u64>,
    pub position: DraftPosition,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the draft event could be read (an unreadable one is blocked as
    /// `draft_unreadable`, as live).
    pub readable: bool,
}

impl Target {
    /// Whether this draft is newer than `other` of the same article: a higher revision, or the
    /// same revision published again later.
    fn is_newer_than(&self, other: &Target) -> bool {
        match (self.revision, other.revision) {
            (Some(a), Some(b)) if a != b => a > b,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            _ => self.position.is_after(&other.position),
        }
    }
}

/// The drafts of a run, chosen while reading the drafts topic within its scope.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The latest revision of each article, by article id.
    pub targets: BTreeMap<String, Target>,
    /// Draft records read within the end offsets.
    pub records_read: u64,
    /// Unreadable drafts whose article could not be told: nothing to re-check them as.
    pub unidentified: u64,
    /// Unreadable drafts left out because the scope filters on time or section, which they lack.
    pub unreadable_filtered: u64,
}

impl Selection {
    /// Takes in the record at `position` (its payload, when it has one).
    pub fn offer(&mut self, scope: &RunScope, position: DraftPosition, payload: Option<&[u8]>) {
        if !scope.holds_position(position) {
            return;
        }
        self.records_read += 1;
        let payload = payload.unwrap_or_default();
        let candidate = match DraftEvent::from_json(payload) {
            Ok(draft) => {
                if !scope.admits(&draft) {
                    return;
                }
                Target {
                    article_id: draft.article_id,
                    revision: Some(draft.revision),
                    position,
                    section: draft.section,
                    title: draft.title,
                    readable: true,
                }
            }
            Err(err) => {
                let recovered = err
                    .recovered()
                    .cloned()
                    .or_else(|| factgate_core::events::recover_article_id(payload));
                let Some(id) = recovered else {
                    self.unidentified += 1;
                    return;
                };
                if !scope.admits_article(&id.article_id) {
                    return;
                }
                if scope.filters_on_content() {
                    self.unreadable_filtered += 1;
                    return;
                }
                Target {
                    article_id: id.article_id,
                    revision: id.revision,
                    position,
                    section: None,
                    title: None,
                    readable: false,
                }
            }
        };
        match self.targets.get(&candidate.article_id) {
            Some(current) if !candidate.is_newer_than(current) => {}
            _ => {
                self.targets.insert(candidate.article_id.clone(), candidate);
            }
        }
    }

    /// The targets by their position on the drafts topic, for the workers.
    pub fn by_position(&self) -> BTreeMap<DraftPosition, String> {
        self.targets
            .values()
            .map(|t| (t.position, t.article_id.clone()))
            .collect()
    }

    /// Articles asked for with `--articles` that have no draft within the scope.
    pub fn missing_articles(&self, scope: &RunScope) -> BTreeSet<String> {
        scope
            .articles
            .iter()
            .filter(|a| !self.targets.contains_key(*a))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope() -> RunScope {
        RunScope {
            schema_version: RECHECK_RUN_V1.to_owned(),
            run_id: "r1".into(),
            started_at: Utc::now(),
            drafts_topic: "drafts.published".into(),
            end_offsets: BTreeMap::from([(0, 10), (1, 10)]),
            since: None,
            until: None,
            articles: Vec::new(),
            sections: Vec::new(),
        }
    }

    fn draft(article: &str, revision: u64, section: &str, published: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "schema_version": "factgate.draft.v1",
            "article_id": article,
            "revision": revision,
            "published_at": published,
            "body": "Sales rose 4%.",
            "body_format": "text",
            "section": section,
        }))
        .unwrap()
    }

    fn at(partition: i32, offset: i64) -> DraftPosition {
        DraftPosition { partition, offset }
    }

    #[test]
    fn the_latest_revision_of_each_article_within_the_end_offsets_is_chosen() {
        let scope = scope();
        let mut selection = Selection::default();
        let t = "2026-01-01T00:00:00Z";
        selection.offer(&scope, at(0, 0), Some(&draft("a", 2, "Business", t)));
        selection.offer(&scope, at(0, 1), Some(&draft("a", 1, "Business", t)));
        selection.offer(&scope, at(0, 2), Some(&draft("b", 1, "Science", t)));
        selection.offer(&scope, at(0, 3), Some(&draft("b", 1, "Science", t)));
        // Published after the run started: not part of it.
        selection.offer(&scope, at(0, 10), Some(&draft("a", 3, "Business", t)));
        selection.offer(&scope, at(1, 0), Some(b"{not json"));
        assert_eq!(selection.targets["a"].revision, Some(2));
        assert_eq!(selection.targets["a"].position, at(0, 0));
        assert_eq!(selection.targets["b"].position, at(0, 3), "republished");
        assert_eq!(selection.unidentified, 1);
        assert_eq!(selection.records_read, 5);
    }

    #[test]
    fn filters_select_by_time_article_and_section() {
        let mut scope = scope();
        scope.since = Some("2026-01-02T00:00:00Z".parse().unwrap());
        scope.until = Some("2026-01-03T00:00:00Z".parse().unwrap());
        scope.sections = vec!["business".into()];
        let mut selection = Selection::default();
        selection.offer(
            &scope,
            at(0, 0),
            Some(&draft("early", 1, "Business", "2026-01-01T00:00:00Z")),
        );
        selection.offer(
            &scope,
            at(0, 1),
            Some(&draft("in", 1, "Business", "2026-01-02T12:00:00Z")),
        );
        selection.offer(
            &scope,
            at(0, 2),
            Some(&draft("late", 1, "Business", "2026-01-03T00:00:00Z")),
        );
        selection.offer(
            &scope,
            at(0, 3),
            Some(&draft("other", 1, "Science", "2026-01-02T12:00:00Z")),
        );
        selection.offer(
            &scope,
            at(0, 4),
            Some(br#"{"article_id":"x","revision":"bad"}"#),
        );
        let chosen: Vec<&str> = selection.targets.keys().map(String::as_str).collect();
        assert_eq!(chosen, ["in"]);
        assert_eq!(selection.unreadable_filtered, 1);

        let mut scope = self::scope();
        scope.articles = vec!["b".into(), "zzz".into()];
        let mut selection = Selection::default();
        let t = "2026-01-01T00:00:00Z";
        selection.offer(&scope, at(0, 0), Some(&draft("a", 1, "B", t)));
        selection.offer(&scope, at(0, 1), Some(&draft("b", 1, "B", t)));
        assert_eq!(selection.targets.len(), 1);
        assert_eq!(
            selection.missing_articles(&scope),
            BTreeSet::from(["zzz".to_owned()])
        );
    }

    #[test]
    fn an_unreadable_latest_draft_is_kept_with_its_recovered_id() {
        let scope = scope();
        let mut selection = Selection::default();
        selection.offer(
            &scope,
            at(0, 0),
            Some(&draft("a", 1, "B", "2026-01-01T00:00:00Z")),
        );
        selection.offer(
            &scope,
            at(0, 1),
            Some(br#"{"article_id":"a","revision":2}"#),
        );
        let target = &selection.targets["a"];
        assert!(!target.readable);
        assert_eq!(target.revision, Some(2));
    }

    #[test]
    fn run_ids_are_checked() {
        assert!(validate_run_id("2026-11-archive_1.b").is_ok());
        for bad in ["", "-x", "a b", "a/b", &"x".repeat(65)] {
            assert!(validate_run_id(bad).is_err(), "{bad:?}");
        }
    }
}
