//! Checked articles as a GitLab Code Quality report (`artifacts:reports:codequality`), the subset
//! of the Code Climate issue format GitLab reads: a JSON array with one object per issue, each
//! with `description`, `check_name`, `fingerprint`, `severity` and `location` (`path`, and
//! `positions` with line and column, or `lines.begin` for an issue of the whole file).
//!
//! Severities: high is `critical`, medium `major`, low `minor`; an article blocked without an
//! issue of its own (it could not be read, its checks did not complete) gets one `blocker` per
//! such reason. The fingerprint identifies an issue across runs, so GitLab can tell a merge
//! request's new findings from its base's: a hash of the file, the check and the claim's words,
//! not of its line (which moves when text is added above it), made distinct within a report.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{CheckedArticle, claim_region, serde_name};
use factgate_core::events::IssueType;
use factgate_core::model::Severity;

/// The report over every article, as pretty-printed JSON.
pub fn render(articles: &[CheckedArticle<'_>]) -> String {
    let mut text = serde_json::to_string_pretty(&report(articles)).unwrap_or_default();
    text.push('\n');
    text
}

/// The report as a JSON value: an array of issues.
pub fn report(articles: &[CheckedArticle<'_>]) -> Value {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut issues = Vec::new();
    for article in articles {
        let path = article
            .file
            .map(super::checkout_path)
            .unwrap_or_else(|| article.name.to_owned());
        let decision = article.decision;
        for issue in &decision.report.issues {
            if issue.issue_type == IssueType::Error && article.extraction.is_none() {
                continue;
            }
            let check = format!("factgate/{}", serde_name(&issue.issue_type));
            let region = issue
                .claim_id
                .as_deref()
                .and_then(|id| claim_region(article, id));
            let location = match region {
                Some(r) => json!({
                    "path": path,
                    "positions": {
                        "begin": { "line": r.start_line, "column": r.start_column },
                        "end": { "line": r.end_line, "column": r.end_column },
                    },
                }),
                None => json!({ "path": path, "lines": { "begin": 1 } }),
            };
            let mut description = issue.problem.clone();
            if !issue.claim.is_empty() {
                description.push_str(&format!(": \"{}\"", issue.claim));
            }
            description.push_str(&format!(" — {}", issue.recommendation));
            issues.push(json!({
                "type": "issue",
                "description": description,
                "check_name": check,
                "fingerprint": fingerprint(&mut seen, &[&path, &check, &issue.claim, &issue.problem]),
                "severity": severity(issue.severity),
                "categories": ["Bug Risk"],
                "location": location,
            }));
        }
        // Waived findings stay listed, as information, with who waived them and why.
        for w in &decision.report.waived {
            let check = format!("factgate/{}", serde_name(&w.issue.issue_type));
            let description = format!(
                "Waived: {}: \"{}\" — {}: {}",
                w.issue.problem,
                w.issue.claim,
                super::waiver_words(&w.waiver),
                w.waiver.reason
            );
            issues.push(json!({
                "type": "issue",
                "description": description,
                "check_name": check,
                "fingerprint": fingerprint(&mut seen, &[&path, &check, &w.issue.claim, "waived"]),
                "severity": "info",
                "categories": ["Bug Risk"],
                "location": { "path": path, "lines": { "begin": 1 } },
            }));
        }
        for reason in decision.reasons.iter().filter(|r| r.is_not_checked()) {
            let check = format!("factgate/{}", serde_name(reason));
            issues.push(json!({
                "type": "issue",
                "description": decision.report.recommendation_reason,
                "check_name": check,
                "fingerprint": fingerprint(&mut seen, &[&path, &check]),
                "severity": "blocker",
                "categories": ["Bug Risk"],
                "location": { "path": path, "lines": { "begin": 1 } },
            }));
        }
    }
    Value::Array(issues)
}

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "critical",
        Severity::Medium => "major",
        Severity::Low => "minor",
    }
}

/// 32 hex digits of SHA-256 over `parts`; the second issue of the same parts gets `#2` added
/// before hashing, and so on, so fingerprints are unique within the report.
fn fingerprint(seen: &mut BTreeMap<String, usize>, parts: &[&str]) -> String {
    let key = parts.join("\u{0}");
    let n = seen.entry(key.clone()).or_insert(0);
    *n += 1;
    let mut hasher = Sha256::new();
    hasher.update(key.as_bytes());
    if *n > 1 {
        hasher.update(format!("#{n}").as_bytes());
    }
    hex::encode(hasher.finalize())[..32].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_stable_and_distinct() {
        let mut seen = BTreeMap::new();
        let a = fingerprint(&mut seen, &["a.md", "factgate/unsourced", "x"]);
        let b = fingerprint(&mut seen, &["a.md", "factgate/unsourced", "x"]);
        let c = fingerprint(&mut BTreeMap::new(), &["a.md", "factgate/unsourced", "x"]);
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_eq!(a, c);
    }
}
