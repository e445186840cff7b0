//! What each stream-processing role decides, as pure functions: the service's loops read a
//! message, call one of these, and write what it returns.
//!
//! - extract: [`plan_draft`]: the verification requests and the manifest (or its parts) for a
//!   draft, sized to fit the broker.
//! - verify: [`failed_check`]: the result of a check that could not run.
//! - decisions: [`replaces`]: whether a decision takes the place of what is known of its
//!   revision (a block is never overturned by a replay of the same publication).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::events::{
    ArticleManifest, CheckKey, ClaimResult, Decision, DraftEvent, DraftPosition, Encoded,
    ExtractionFailure, ExtractionOutcome, FetchStatus, Issue, IssueType, Outcome, Oversize,
    VerifyRequest, split_manifest,
};
use crate::extract::Extraction;
use crate::model::{Claim, Severity, Verdict};

/// One check per (claim, distinct cited URL), in reading order.
pub fn check_keys(extraction: &Extraction) -> Vec<CheckKey> {
    let mut keys = Vec::new();
    for claim in &extraction.claims {
        for citation in &claim.citations {
            let key = CheckKey {
                claim_id: claim.id.clone(),
                source_url: citation.url.clone(),
            };
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// What the extract role writes for a draft, each event with the JSON it is sent as.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftPlan {
    /// One request per check, in reading order.
    pub requests: Vec<Encoded<VerifyRequest>>,
    /// The manifest, or its parts in order.
    pub manifests: Vec<Encoded<ArticleManifest>>,
    /// How the outputs were shaped to fit the broker.
    pub shape: Shape,
}

/// How a draft's outputs were fitted to the broker's message limit.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// As they are.
    Whole,
    /// The manifest split in this many parts.
    Split { parts: usize },
    /// A request or one claim cannot fit: nothing is requested and the manifest says the
    /// extraction failed (`limit_exceeded`), so the draft is blocked.
    Refused(Oversize),
}

/// When a draft's checking began (extract read it), and the deadline its checks must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    pub deadline: DateTime<Utc>,
    pub extracted_at: DateTime<Utc>,
}

/// The draft's outputs: a request per check and the manifest, sized to `budget` bytes: the
/// manifest split when it must be, and a failed manifest (`limit_exceeded`, nothing requested)
/// when a request or one claim cannot fit.
pub fn plan_draft(
    draft: &DraftEvent,
    position: DraftPosition,
    timing: Timing,
    extraction: ExtractionOutcome,
    claims: Option<Extraction>,
    budget: usize,
) -> DraftPlan {
    let pending = claims.as_ref().map(check_keys).unwrap_or_default();
    let manifest = ArticleManifest {
        schema_version: Default::default(),
        article_id: draft.article_id.clone(),
        revision: draft.revision,
        published_at: draft.published_at,
        deadline: timing.deadline,
        extracted_at: Some(timing.extracted_at),
        content_digest: draft.content_digest(),
        extraction,
        claims: claims.map(|e| e.claims).unwrap_or_default(),
        pending,
        draft_position: Some(position),
        part: None,
    };
    let by_id: HashMap<&str, &Claim> = manifest.claims.iter().map(|c| (c.id.as_str(), c)).collect();
    let requests: Vec<Encoded<VerifyRequest>> = manifest
        .pending
        .iter()
        .filter_map(|key| {
            let claim = by_id.get(key.claim_id.as_str())?;
            let host = url::Url::parse(&key.source_url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_default();
            Some(Encoded::new(VerifyRequest {
                schema_version: Default::default(),
                article_id: draft.article_id.clone(),
                revision: draft.revision,
                claim: (*claim).clone(),
                source_url: key.source_url.clone(),
                source_host: host,
                published_at: draft.published_at,
                deadline: timing.deadline,
                draft_position: Some(position),
            }))
        })
        .collect();
    let oversize_request = requests.iter().find_map(|r| {
        let bytes = r.json().len();
        (bytes > budget).then(|| Oversize {
            what: format!("the verification request of claim {}", r.claim.id),
            bytes,
            budget,
        })
    });
    let fitted = match oversize_request {
        Some(oversize) => Err(oversize),
        None => split_manifest(manifest, budget),
    };
    match fitted {
        Ok(manifests) => DraftPlan {
            shape: if manifests.len() > 1 {
                Shape::Split {
                    parts: manifests.len(),
                }
            } else {
                Shape::Whole
            },
            requests,
            manifests,
        },
        Err(oversize) => DraftPlan {
            requests: Vec::new(),
            manifests: vec![Encoded::new(failed_manifest(
                draft,
                position,
                timing,
                ExtractionFailure::LimitExceeded,
                oversize.to_string(),
            ))],
            shape: Shape::Refused(oversize),
        },
    }
}

/// The manifest of a draft none of whose claims will be checked: its extraction failed for
/// `reason` (`message` says why), nothing is pending, and the join blocks it at once.
pub fn failed_manifest(
    draft: &DraftEvent,
    position: DraftPosition,
    timing: Timing,
    reason: ExtractionFailure,
    message: String,
) -> ArticleManifest {
    ArticleManifest {
        schema_version: Default::default(),
        article_id: draft.article_id.clone(),
        revision: draft.revision,
        published_at: draft.published_at,
        deadline: timing.deadline,
        extracted_at: Some(timing.extracted_at),
        content_digest: draft.content_digest(),
        extraction: ExtractionOutcome::Failed { reason, message },
        claims: Vec::new(),
        pending: Vec::new(),
        draft_position: Some(position),
        part: None,
    }
}

/// The result of a check that could not run (`reason` says why): inconclusive, with a high
/// issue, so the article blocks. The source counts as not fetched: a technical failure.
pub fn failed_check(request: &VerifyRequest, reason: &str, now: DateTime<Utc>) -> ClaimResult {
    ClaimResult {
        schema_version: Default::default(),
        article_id: request.article_id.clone(),
        revision: request.revision,
        claim_id: request.claim.id.clone(),
        source_url: request.source_url.clone(),
        fetch_status: FetchStatus::NetworkError,
        http_status: None,
        fetch_attempts: 0,
        verdict: Verdict::Unconfirmed,
        support: 0.0,
        confidence: None,
        source_credibility: 0.0,
        evidence: None,
        correction: None,
        issue: Some(Issue {
            severity: Severity::High,
            issue_type: IssueType::Error,
            claim: request.claim.text.clone(),
            location: request.claim.location.to_string(),
            problem: format!("The check could not run: {reason}"),
            evidence: request.source_url.clone(),
            recommendation: "Publish the draft again; if it fails again, report it".to_owned(),
            claim_id: Some(request.claim.id.clone()),
            source_url: Some(request.source_url.clone()),
            element: None,
            difference: None,
        }),
        reason: reason.to_owned(),
        judged_at: now,
        draft_position: request.draft_position,
    }
}

/// What is known of a revision when a decision on it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known<'a> {
    /// The draft was seen at `position` with content `digest`; not decided yet.
    Pending {
        position: Option<DraftPosition>,
        digest: Option<&'a str>,
    },
    /// Decided `outcome` on the publication at `position`, by the decision `decision_id`;
    /// `overridden` when that decision answers an editor's override.
    Decided {
        outcome: Outcome,
        position: Option<DraftPosition>,
        decision_id: &'a str,
        overridden: bool,
    },
}

/// Whether `decision` takes the place of what is known of its revision:
/// - a decision on a later publication (a retry, corrected content) replaces the one before; one
///   on an earlier publication (a replay arriving late) does not;
/// - a second decision on the same publication (a replay decided again, after a restart, on
///   results the first run lacked) never turns a block into a pass, and a block replaces a pass;
/// - a revision pending on new content is not answered by a decision on older content;
/// - an editor's override replaces the decision it names; once overridden, a publication is not
///   decided again by a replay of its checks (a new publication is judged afresh).
///
/// A position not known on either side counts as the same publication, and as later.
pub fn replaces(known: Known<'_>, decision: &Decision) -> bool {
    let new = decision.draft_position;
    let same_publication = |known: Option<DraftPosition>| match (known, new) {
        (Some(known), Some(new)) => known == new,
        _ => true,
    };
    match known {
        Known::Decided { decision_id, .. }
            if decision
                .override_applied
                .as_ref()
                .is_some_and(|o| o.overrides == decision_id) =>
        {
            true
        }
        Known::Decided {
            position,
            overridden: true,
            ..
        } if same_publication(position) => false,
        // The same publication decided again: only a block replaces a pass.
        Known::Decided {
            outcome, position, ..
        } if same_publication(position) => {
            outcome == Outcome::Pass && decision.outcome == Outcome::Block
        }
        Known::Decided { position, .. } => later_or_unknown(new, position),
        Known::Pending { position, digest } => {
            let other_content = match (digest, decision.content_digest.as_deref()) {
                (Some(pending), Some(decided)) => pending != decided,
                _ => false,
            };
            !(other_content && !same_publication(position) && !later_or_unknown(new, position))
        }
    }
}

/// Whether the publication at `new` came after the one at `known`; a position not known on
/// either side counts as later, so the newest information wins.
pub fn later_or_unknown(new: Option<DraftPosition>, known: Option<DraftPosition>) -> bool {
    match (new, known) {
        (Some(new), Some(known)) => new.is_after(&known),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::decide_not_checked;
    use crate::events::DecisionReason;

    fn at(partition: i32, offset: i64) -> Option<DraftPosition> {
        Some(DraftPosition { partition, offset })
    }

    /// A decision on content `digest` at `position`; `pass` flips its outcome.
    fn decision(position: Option<DraftPosition>, digest: &str, pass: bool) -> Decision {
        let mut d = decide_not_checked(
            "a",
            Some(1),
            digest,
            DecisionReason::InternalError,
            "x",
            None,
            Utc::now(),
        );
        d.draft_position = position;
        if pass {
            d.outcome = Outcome::Pass;
        }
        d
    }

    #[test]
    fn a_replay_of_the_same_publication_never_turns_a_block_into_a_pass() {
        let decided = |outcome| Known::Decided {
            outcome,
            position: at(0, 5),
            decision_id: "d0",
            overridden: false,
        };
        assert!(!replaces(
            decided(Outcome::Block),
            &decision(at(0, 5), "d", true)
        ));
        assert!(replaces(
            decided(Outcome::Pass),
            &decision(at(0, 5), "d", false)
        ));
        assert!(!replaces(
            decided(Outcome::Pass),
            &decision(at(0, 5), "d", true)
        ));
    }

    #[test]
    fn a_later_publication_replaces_and_a_late_replay_does_not() {
        let known = Known::Decided {
            outcome: Outcome::Block,
            position: at(0, 5),
            decision_id: "d0",
            overridden: false,
        };
        assert!(replaces(known, &decision(at(0, 9), "d", true)));
        assert!(!replaces(known, &decision(at(0, 2), "d", true)));
    }

    #[test]
    fn an_override_replaces_the_decision_it_names_and_stands_against_a_replay() {
        let blocked = decision(at(0, 5), "d", false);
        let known = Known::Decided {
            outcome: Outcome::Block,
            position: at(0, 5),
            decision_id: &blocked.decision_id,
            overridden: false,
        };
        let mut overriding = decision(at(0, 5), "d", true);
        overriding.override_applied = Some(crate::events::AppliedOverride {
            override_id: "o1".into(),
            overrides: blocked.decision_id.clone(),
            editor: "ana".into(),
            reason: "checked".into(),
            finding: crate::events::FindingRef {
                issue_type: crate::events::IssueType::Unsourced,
                claim_id: None,
            },
            overridden_at: Utc::now(),
        });
        assert!(replaces(known, &overriding));
        // An override naming another decision replaces nothing.
        let elsewhere = Known::Decided {
            outcome: Outcome::Block,
            position: at(0, 5),
            decision_id: "another",
            overridden: false,
        };
        assert!(!replaces(elsewhere, &overriding));
        // Once overridden, a replay of the same publication does not block it again; a new
        // publication is judged afresh.
        let overridden = Known::Decided {
            outcome: Outcome::Pass,
            position: at(0, 5),
            decision_id: "o",
            overridden: true,
        };
        assert!(!replaces(overridden, &blocked));
        assert!(replaces(overridden, &decision(at(0, 9), "d2", false)));
    }

    #[test]
    fn a_pending_revision_is_not_answered_by_older_content() {
        let pending = Known::Pending {
            position: at(0, 9),
            digest: Some("new"),
        };
        assert!(!replaces(pending, &decision(at(0, 2), "old", true)));
        assert!(replaces(pending, &decision(at(0, 9), "new", true)));
        assert!(replaces(pending, &decision(at(0, 2), "new", true)));
    }

    #[test]
    fn one_check_per_claim_and_distinct_source_and_a_failed_check_blocks() {
        let extraction = crate::extract::extract(
            "Ridership rose 4% in 2023 [a](https://x.test/a) [b](https://x.test/a).",
            crate::model::BodyFormat::Markdown,
        )
        .expect("extracts");
        let keys = check_keys(&extraction);
        assert_eq!(keys.len(), 1, "{keys:?}");
        let claim = extraction.claims[0].clone();
        let request = VerifyRequest {
            schema_version: Default::default(),
            article_id: "a".into(),
            revision: 1,
            claim,
            source_url: keys[0].source_url.clone(),
            source_host: "x.test".into(),
            published_at: Utc::now(),
            deadline: Utc::now(),
            draft_position: None,
        };
        let result = failed_check(&request, "the worker stopped", Utc::now());
        assert_eq!(result.verdict, Verdict::Unconfirmed);
        let issue = result.issue.expect("an issue");
        assert_eq!(issue.severity, Severity::High);
        assert!(issue.problem.contains("the worker stopped"));
    }

    #[test]
    fn a_draft_plan_requests_each_check_and_a_plan_over_the_budget_blocks_whole() {
        let draft =
            DraftEvent::from_json(include_str!("../../schemas/examples/draft.v1.json").as_bytes())
                .expect("the example draft");
        let position = DraftPosition {
            partition: 0,
            offset: 7,
        };
        let extraction = crate::extract::extract(&draft.body, draft.body_format).expect("reads");
        let keys = check_keys(&extraction);
        assert!(!keys.is_empty(), "the example cites its sources");
        let deadline = Timing {
            deadline: Utc::now(),
            extracted_at: Utc::now(),
        };
        let plan = plan_draft(
            &draft,
            position,
            deadline,
            ExtractionOutcome::Ok {
                paragraphs: 1,
                sentences: 1,
            },
            Some(extraction.clone()),
            1 << 20,
        );
        assert_eq!(plan.shape, Shape::Whole);
        assert_eq!(plan.requests.len(), keys.len());
        assert_eq!(plan.manifests.len(), 1);
        assert_eq!(plan.manifests[0].pending, keys);
        assert_eq!(plan.manifests[0].draft_position, Some(position));

        // A budget no request fits: nothing is requested, and the manifest blocks the draft.
        let plan = plan_draft(
            &draft,
            position,
            deadline,
            ExtractionOutcome::Ok {
                paragraphs: 1,
                sentences: 1,
            },
            Some(extraction),
            64,
        );
        assert!(matches!(plan.shape, Shape::Refused(_)), "{:?}", plan.shape);
        assert!(plan.requests.is_empty());
        let [manifest] = plan.manifests.as_slice() else {
            panic!("one manifest: {:?}", plan.manifests);
        };
        assert!(manifest.pending.is_empty() && manifest.claims.is_empty());
        assert!(matches!(
            manifest.extraction,
            ExtractionOutcome::Failed {
                reason: ExtractionFailure::LimitExceeded,
                ..
            }
        ));
        assert_eq!(manifest.content_digest, draft.content_digest());
    }
}
