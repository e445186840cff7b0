//! Findings a person accepts: an editor's override on the stream, a waiver in `factgate check`.
//!
//! A waived finding moves from the report's `issues` to its `waived` list, with who waived it
//! and why, and the decision is made again from what is left under the same strictness: it
//! passes only when nothing else blocks. What says the check did not complete (a deadline, a
//! source that could not be read, an internal error) is not a finding anyone can waive: the
//! draft is published again instead.

use sha2::{Digest, Sha256};

use super::Strictness;
use crate::events::{
    AppliedOverride, Decision, DecisionReason, FindingRef, Issue, IssueType, MAX_EDITOR_CHARS,
    MAX_REASON_CHARS, Outcome, OverrideEvent, SeverityCounts, WaivedIssue, Waiver, WaiverKind,
};

/// Why an override was not applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideRefusal {
    /// It names another decision (an earlier publication, another revision or article).
    #[error("the override names decision {named}, not {current}, the one in force")]
    OtherDecision { named: String, current: String },
    /// The decision has no such finding.
    #[error("decision {decision} has no {finding} finding on that claim")]
    NoSuchFinding { decision: String, finding: String },
    /// The finding says the check did not complete: publish the draft again instead.
    #[error("a check that did not complete cannot be overridden: publish the draft again")]
    NotWaivable,
    /// A re-check run's decision: overrides answer live decisions only.
    #[error("decisions of re-check runs are not overridden")]
    RecheckDecision,
    /// An editor's name or a reason is missing, too long or holds control characters; or the
    /// override's id is not derived from its fields.
    #[error("{0}")]
    Invalid(String),
    /// It names a revision the article has moved past: its decision is no longer the
    /// article's latest, and a pass written for it would read as the article's.
    #[error(
        "revision {named} is superseded by revision {latest}: override the latest revision's decision"
    )]
    Superseded { named: u64, latest: u64 },
}

/// Whether a finding of this type can be waived: every editorial finding, not a check that did
/// not complete.
pub fn is_waivable(issue_type: IssueType) -> bool {
    issue_type != IssueType::Error
}

/// The decision that answers `over` on `decision`, the one in force for its revision: the
/// finding it names waived, the outcome made again under `strictness`, and the override
/// recorded.
///
/// # Errors
/// The override names another decision or a finding the decision does not have, a finding that
/// cannot be waived, or carries no editor or reason.
pub fn apply_override(
    decision: &Decision,
    over: &OverrideEvent,
    strictness: Strictness,
) -> Result<Decision, OverrideRefusal> {
    if decision.run_id.is_some() {
        return Err(OverrideRefusal::RecheckDecision);
    }
    if over.decision_id != decision.decision_id
        || over.article_id != decision.article_id
        || Some(over.revision) != decision.revision
    {
        return Err(OverrideRefusal::OtherDecision {
            named: over.decision_id.clone(),
            current: decision.decision_id.clone(),
        });
    }
    check_words("editor", &over.editor, MAX_EDITOR_CHARS, false)?;
    check_words("reason", &over.reason, MAX_REASON_CHARS, true)?;
    // The id is derived from what the override says: one that is not was not made by factgate's
    // form or API (or was altered on the way), and could pass for another override's replay.
    let derived =
        crate::events::override_id(&over.decision_id, &over.finding, &over.editor, &over.reason);
    if over.override_id != derived {
        return Err(OverrideRefusal::Invalid(format!(
            "the override_id {} is not the one its decision, finding, editor and reason derive",
            over.override_id
        )));
    }
    if !is_waivable(over.finding.issue_type) {
        return Err(OverrideRefusal::NotWaivable);
    }
    if !decision.report.issues.iter().any(|i| over.finding.names(i)) {
        return Err(OverrideRefusal::NoSuchFinding {
            decision: decision.decision_id.clone(),
            finding: format!("{:?}", over.finding.issue_type),
        });
    }
    let waiver = Waiver {
        kind: WaiverKind::Override,
        editor: Some(over.editor.clone()),
        reason: over.reason.clone(),
        override_id: Some(over.override_id.clone()),
        waived_at: Some(over.overridden_at),
    };
    let (mut overridden, _) =
        waive_findings(decision, &[(over.finding.clone(), waiver)], strictness);
    overridden.decision_id = overriding_decision_id(&decision.decision_id, &over.override_id);
    overridden.decided_at = over.overridden_at;
    overridden.override_applied = Some(AppliedOverride {
        override_id: over.override_id.clone(),
        overrides: decision.decision_id.clone(),
        editor: over.editor.clone(),
        reason: over.reason.clone(),
        finding: over.finding.clone(),
        overridden_at: over.overridden_at,
    });
    Ok(overridden)
}

/// Whether `over` is already part of `decision` (a replayed override).
pub fn already_applied(decision: &Decision, over: &OverrideEvent) -> bool {
    decision
        .report
        .waived
        .iter()
        .any(|w| w.waiver.override_id.as_deref() == Some(over.override_id.as_str()))
}

/// The id of the decision an override makes: the first 32 hex characters of SHA-256 over
/// `"factgate.decision.v1.override"`, then the overridden decision's id and the override's id,
/// each length-prefixed (8 bytes, big-endian).
pub(crate) fn overriding_decision_id(overridden: &str, override_id: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"factgate.decision.v1.override");
    for field in [overridden, override_id] {
        hasher.update((field.len() as u64).to_be_bytes());
        hasher.update(field.as_bytes());
    }
    let mut id = hex::encode(hasher.finalize());
    id.truncate(32);
    id
}

/// An editor's name or reason: present, at most `max` characters, and without control
/// characters (line breaks and tabs allowed in a reason, with `lines`), which no form sends and
/// a terminal or log would act on.
fn check_words(what: &str, text: &str, max: usize, lines: bool) -> Result<(), OverrideRefusal> {
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_control() && !(lines && matches!(c, '\n' | '\r' | '\t')))
    {
        return Err(OverrideRefusal::Invalid(format!(
            "the {what} holds a control character (U+{:04X})",
            u32::from(c)
        )));
    }
    let chars = text.trim().chars().count();
    if chars == 0 {
        let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return Err(OverrideRefusal::Invalid(format!(
            "an override needs {article} {what}"
        )));
    }
    if chars > max {
        return Err(OverrideRefusal::Invalid(format!(
            "the {what} is {chars} characters, over {max}"
        )));
    }
    Ok(())
}

/// `decision` with every finding `waivers` name (and may waive) moved to the report's `waived`
/// list, and the outcome made again under `strictness` from the issues left. Returns the
/// indexes of the waivers that named no finding, for the caller to report.
pub fn waive_findings(
    decision: &Decision,
    waivers: &[(FindingRef, Waiver)],
    strictness: Strictness,
) -> (Decision, Vec<usize>) {
    let mut out = decision.clone();
    let mut used = vec![false; waivers.len()];
    let mut kept: Vec<Issue> = Vec::with_capacity(out.report.issues.len());
    for issue in std::mem::take(&mut out.report.issues) {
        let waiver = waivers
            .iter()
            .enumerate()
            .find(|(_, (finding, _))| is_waivable(issue.issue_type) && finding.names(&issue));
        match waiver {
            Some((i, (_, waiver))) => {
                used[i] = true;
                out.report.waived.push(WaivedIssue {
                    issue,
                    waiver: waiver.clone(),
                });
            }
            None => kept.push(issue),
        }
    }
    out.report.issues = kept;
    let unused = used
        .iter()
        .enumerate()
        .filter(|(_, u)| !**u)
        .map(|(i, _)| i)
        .collect();
    if out.report.waived.len() == decision.report.waived.len() {
        return (out, unused);
    }
    reconsider(&mut out, strictness);
    (out, unused)
}

/// Makes the decision again from the report's issues: the reasons that say the check did not
/// complete are kept, the editorial ones follow the issues left.
fn reconsider(decision: &mut Decision, strictness: Strictness) {
    let report = &mut decision.report;
    report.summary.severity_counts = SeverityCounts::of(&report.issues);
    // The claims' severities follow their issues left.
    for claim in &mut report.claims {
        claim.severity = report
            .issues
            .iter()
            .filter(|i| i.claim_id.as_deref() == Some(claim.claim_id.as_str()))
            .map(|i| i.severity)
            .max();
    }
    let mut reasons: Vec<DecisionReason> = decision
        .reasons
        .iter()
        .copied()
        .filter(|r| r.is_not_checked())
        .collect();
    reasons.extend(strictness.blocking_reasons(&report.summary.severity_counts));
    reasons.sort();
    reasons.dedup();
    decision.outcome = if reasons.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Block
    };
    decision.reasons = reasons;
    report.top_priorities = super::compose::top_priorities(&report.issues);
    report.recommendation_reason.clear();
    super::compose::set_recommendation(report, &decision.reasons);
    let waived = report.waived.len();
    let by: Vec<String> = report
        .waived
        .iter()
        .map(|w| match &w.waiver.editor {
            Some(editor) => format!("by {editor}"),
            None => "in the draft or a waivers file".to_owned(),
        })
        .fold(Vec::new(), |mut all, by| {
            if !all.contains(&by) {
                all.push(by);
            }
            all
        });
    report.recommendation_reason = format!(
        "{} {} {} waived {}.",
        report.recommendation_reason,
        waived,
        if waived == 1 { "finding" } else { "findings" },
        by.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{ArticleCheck, decide};
    use crate::events::{CheckKey, ClaimResult};
    use crate::model::Claim;
    use chrono::Utc;

    /// A decision with two high issues: invented first-person data, an unsourced statistic.
    fn blocked() -> Decision {
        let claims: Vec<Claim> = crate::extract::extract(
            "Our pilot with 500 students showed 73% improvement.\n\nMost readers like tea.\n",
            crate::model::BodyFormat::Markdown,
        )
        .expect("extracts")
        .claims;
        let results: Vec<ClaimResult> = Vec::new();
        let unfinished: Vec<CheckKey> = Vec::new();
        let d = decide(
            &ArticleCheck {
                article_id: "a-1",
                revision: 2,
                content_digest: "digest",
                published_at: Utc::now(),
                claims: &claims,
                results: &results,
                unfinished: &unfinished,
            },
            Strictness::Normal,
            Utc::now(),
        );
        assert_eq!(d.outcome, Outcome::Block, "{:?}", d.report.issues);
        d
    }

    fn override_of(decision: &Decision, finding: FindingRef) -> OverrideEvent {
        OverrideEvent::new(
            &decision.article_id,
            decision.revision.expect("a revision"),
            &decision.decision_id,
            finding,
            "Ana Editor",
            "The pilot's data is in our archive; checked by the standards desk.",
            Utc::now(),
        )
    }

    #[test]
    fn each_override_waives_only_its_finding_and_the_last_one_passes() {
        let decision = blocked();
        assert_eq!(
            decision.report.issues.len(),
            2,
            "{:?}",
            decision.report.issues
        );
        let first = FindingRef::of(&decision.report.issues[0]);
        let second = FindingRef::of(&decision.report.issues[1]);
        let over = override_of(&decision, first.clone());
        let once = apply_override(&decision, &over, Strictness::Normal).expect("applied");
        assert_eq!(
            once.outcome,
            Outcome::Block,
            "the other finding still blocks"
        );
        assert_eq!(once.report.issues.len(), 1);
        assert!(second.names(&once.report.issues[0]));
        assert_eq!(once.report.waived.len(), 1);
        assert!(first.names(&once.report.waived[0].issue));
        assert_ne!(once.decision_id, decision.decision_id);
        assert!(already_applied(&once, &over));

        let again = override_of(&once, second.clone());
        let passed = apply_override(&once, &again, Strictness::Normal).expect("applied");
        assert_eq!(passed.outcome, Outcome::Pass, "{:?}", passed.reasons);
        let applied = passed.override_applied.as_ref().expect("recorded");
        assert_eq!(applied.editor, "Ana Editor");
        assert_eq!(applied.finding, second);
        assert_eq!(applied.overrides, once.decision_id);
        assert_eq!(passed.report.waived.len(), 2, "both listed as waived");
        assert!(passed.report.issues.is_empty());
        assert_eq!(passed.report.summary.severity_counts.high, 0);
        assert!(
            passed
                .report
                .recommendation_reason
                .contains("2 findings waived by Ana Editor"),
            "{}",
            passed.report.recommendation_reason
        );
        // The first override does not apply to the decision it already changed.
        assert!(apply_override(&passed, &over, Strictness::Normal).is_err());
    }

    #[test]
    fn an_override_never_applies_to_another_decision_or_an_unnamed_finding() {
        let decision = blocked();
        let finding = FindingRef::of(&decision.report.issues[0]);
        let mut other = override_of(&decision, finding.clone());
        other.decision_id = "another-publication".into();
        assert!(matches!(
            apply_override(&decision, &other, Strictness::Normal),
            Err(OverrideRefusal::OtherDecision { .. })
        ));
        let mut next_revision = override_of(&decision, finding.clone());
        next_revision.revision = 3;
        assert!(apply_override(&decision, &next_revision, Strictness::Normal).is_err());
        let unnamed = override_of(
            &decision,
            FindingRef {
                issue_type: IssueType::FigureMismatch,
                claim_id: finding.claim_id.clone(),
            },
        );
        assert!(matches!(
            apply_override(&decision, &unnamed, Strictness::Normal),
            Err(OverrideRefusal::NoSuchFinding { .. })
        ));
        let mut anonymous = override_of(&decision, finding);
        anonymous.editor = " ".into();
        assert!(matches!(
            apply_override(&decision, &anonymous, Strictness::Normal),
            Err(OverrideRefusal::Invalid(_))
        ));
    }

    /// What the HTTP form refuses is refused on the topic too: control characters in the
    /// editor's name (a line break, an escape) or in the reason (but its line breaks), an id
    /// its fields do not derive, and fields the schema does not have.
    #[test]
    fn an_override_on_the_topic_is_held_to_the_forms_rules() {
        let decision = blocked();
        let finding = FindingRef::of(&decision.report.issues[0]);
        let made = |editor: &str, reason: &str| {
            let mut over = override_of(&decision, finding.clone());
            over.editor = editor.into();
            over.reason = reason.into();
            over.override_id =
                crate::events::override_id(&over.decision_id, &over.finding, editor, reason);
            over
        };
        for (editor, reason) in [
            ("Ana\nEditor", "checked"),
            ("Ana \u{1b}[2KEditor", "checked"),
            ("Ana Editor", "checked \u{1b}[32mPASS"),
        ] {
            let refused = apply_override(&decision, &made(editor, reason), Strictness::Normal);
            assert!(
                matches!(&refused, Err(OverrideRefusal::Invalid(why)) if why.contains("control")),
                "{editor:?} {reason:?}: {refused:?}"
            );
        }
        let multi_line = made("Ana Editor", "Checked by the desk.\nThe archive has it.");
        assert!(apply_override(&decision, &multi_line, Strictness::Normal).is_ok());
        let mut forged = made("Ana Editor", "checked");
        forged.override_id = "0".repeat(32);
        assert!(matches!(
            apply_override(&decision, &forged, Strictness::Normal),
            Err(OverrideRefusal::Invalid(why)) if why.contains("derive")
        ));
        let mut json = serde_json::to_value(made("Ana Editor", "checked")).expect("json");
        json["approved_by_bot"] = serde_json::json!(true);
        assert!(serde_json::from_value::<OverrideEvent>(json).is_err());
    }

    #[test]
    fn a_check_that_did_not_complete_is_not_waived() {
        let decision = crate::decide::decide_not_checked(
            "a-1",
            Some(1),
            "d",
            DecisionReason::DeadlineExceeded,
            "late",
            None,
            Utc::now(),
        );
        let finding = FindingRef::of(&decision.report.issues[0]);
        let over = override_of(&decision, finding.clone());
        assert_eq!(
            apply_override(&decision, &over, Strictness::Normal),
            Err(OverrideRefusal::NotWaivable)
        );
        let (same, unused) = waive_findings(
            &decision,
            &[(
                finding,
                Waiver {
                    kind: WaiverKind::File,
                    editor: None,
                    reason: "x".into(),
                    override_id: None,
                    waived_at: None,
                },
            )],
            Strictness::Normal,
        );
        assert_eq!(same.outcome, Outcome::Block);
        assert_eq!(unused, vec![0]);
    }
}
