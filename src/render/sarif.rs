//! Checked articles as SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format), which
//! code-review tools and code-scanning dashboards read: one run of the `factgate` tool, a rule
//! per issue type and per reason a check could not complete, and one result per issue, located at
//! the claim's sentence (line and column) when the article is a file.
//!
//! Levels follow the report's severities: high is `error`, medium `warning`, low `note`. An
//! article blocked without an issue of its own (it could not be read, its checks ran out of time)
//! gets one `error` result for each such reason, located at the file.

use serde_json::{Value, json};

use super::{CheckedArticle, Region, claim_region, reason_names, serde_name};
use factgate_core::events::IssueType;
use factgate_core::model::Severity;

/// The SARIF version written, and the schema it follows.
pub const SARIF_VERSION: &str = "2.1.0";
/// The schema's canonical location, as SARIF files name it.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Every rule: the issue types of the report, then the reasons that say a check did not complete.
const RULES: &[(&str, &str)] = &[
    ("unsourced", "A claim that needs a source cites none."),
    ("verified_false", "The cited source contradicts the claim."),
    (
        "figure_mismatch",
        "A figure of the claim differs from the source's.",
    ),
    (
        "quote_mismatch",
        "A quotation does not appear in the source as quoted.",
    ),
    (
        "misattributed",
        "The source attributes the statement to someone else, or to no one the claim names.",
    ),
    (
        "unsupported_detail",
        "The claim adds a specific its source does not state.",
    ),
    (
        "unverifiable",
        "The claim could not be verified against its source.",
    ),
    (
        "contested",
        "The cited sources disagree: one supports the claim, another refutes it.",
    ),
    ("outdated_source", "The source's data is stale."),
    ("error", "Checking the claim failed."),
    ("draft_unreadable", "The draft event could not be read."),
    ("extraction_failed", "The article's body could not be read."),
    (
        "deadline_exceeded",
        "Checks did not finish by the deadline.",
    ),
    ("source_unjudgeable", "A cited source could not be judged."),
    ("superseded", "A newer revision replaced this one."),
    ("internal_error", "A check failed inside factgate."),
    (
        "limit_exceeded",
        "The article is over a per-draft limit and was not checked.",
    ),
];

/// The SARIF log of every article, as pretty-printed JSON.
pub fn render(articles: &[CheckedArticle<'_>]) -> String {
    let mut text = serde_json::to_string_pretty(&log(articles)).unwrap_or_default();
    text.push('\n');
    text
}

/// The SARIF log as a JSON value.
pub fn log(articles: &[CheckedArticle<'_>]) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, description)| {
            json!({
                "id": id,
                "name": id,
                "shortDescription": { "text": description },
            })
        })
        .collect();
    let results: Vec<Value> = articles.iter().flat_map(results_of).collect();
    json!({
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {
                "driver": {
                    "name": "factgate",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "results": results,
            "invocations": [{ "executionSuccessful": true }],
        }]
    })
}

fn results_of(article: &CheckedArticle<'_>) -> Vec<Value> {
    let decision = article.decision;
    let mut results: Vec<Value> = decision
        .report
        .issues
        .iter()
        .filter(|issue| !is_not_checked_issue(issue.issue_type, article))
        .map(|issue| {
            let region = issue
                .claim_id
                .as_deref()
                .and_then(|id| claim_region(article, id));
            let mut text = issue.problem.clone();
            if !issue.claim.is_empty() {
                text.push_str(&format!(
                    " Claim: \"{}\" ({}).",
                    issue.claim, issue.location
                ));
            }
            text.push_str(&format!(" Do: {}", issue.recommendation));
            let mut result = json!({
                "ruleId": serde_name(&issue.issue_type),
                "level": level(issue.severity),
                "message": { "text": text },
                "locations": [location(article, region)],
                "properties": {
                    "article_id": decision.article_id,
                    "severity": serde_name(&issue.severity),
                    "evidence": issue.evidence,
                },
            });
            if let Some(url) = &issue.source_url {
                result["properties"]["source_url"] = json!(url);
            }
            result
        })
        .collect();
    // Waived findings stay results, suppressed with who waived them and why (SARIF's own way
    // to say "reviewed and accepted"), so a dashboard lists them as suppressed, not gone.
    for w in &decision.report.waived {
        let issue = &w.issue;
        let region = issue
            .claim_id
            .as_deref()
            .and_then(|id| claim_region(article, id));
        let kind = match w.waiver.kind {
            factgate_core::events::WaiverKind::Inline => "inSource",
            _ => "external",
        };
        results.push(json!({
            "ruleId": serde_name(&issue.issue_type),
            "level": level(issue.severity),
            "message": { "text": format!("{} Claim: \"{}\" ({}).", issue.problem, issue.claim, issue.location) },
            "locations": [location(article, region)],
            "suppressions": [{
                "kind": kind,
                "justification": format!("{}: {}", super::waiver_words(&w.waiver), w.waiver.reason),
            }],
            "properties": {
                "article_id": decision.article_id,
                "severity": serde_name(&issue.severity),
                "evidence": issue.evidence,
            },
        }));
    }
    // A block without a claim at fault: the check itself did not complete.
    for reason in &decision.reasons {
        if reason.is_not_checked() {
            results.push(json!({
                "ruleId": serde_name(reason),
                "level": "error",
                "message": { "text": decision.report.recommendation_reason },
                "locations": [location(article, None)],
                "properties": {
                    "article_id": decision.article_id,
                    "reasons": reason_names(&decision.reasons),
                },
            }));
        }
    }
    results
}

/// An issue that only restates a not-checked reason (the one issue of a draft or body that could
/// not be read), reported once under its reason instead.
fn is_not_checked_issue(issue_type: IssueType, article: &CheckedArticle<'_>) -> bool {
    issue_type == IssueType::Error && article.extraction.is_none()
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

fn location(article: &CheckedArticle<'_>, region: Option<Region>) -> Value {
    let uri = article
        .file
        .map(|p| uri_of(&p.to_string_lossy()))
        .unwrap_or_else(|| uri_of(article.name));
    let mut physical = json!({ "artifactLocation": { "uri": uri } });
    if let Some(r) = region {
        physical["region"] = json!({
            "startLine": r.start_line,
            "startColumn": r.start_column,
            "endLine": r.end_line,
            "endColumn": r.end_column,
        });
    }
    json!({
        "physicalLocation": physical,
        "message": { "text": article.name },
    })
}

/// A relative URI reference for a path: forward slashes, and the characters a URI cannot hold
/// percent-encoded.
fn uri_of(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use factgate_core::events::DecisionReason;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_of("articles/a b.md"), "articles/a%20b.md");
        assert_eq!(uri_of("dir\\é.md"), "dir/%C3%A9.md");
    }

    #[test]
    fn every_issue_type_and_not_checked_reason_has_a_rule() {
        let ids: Vec<&str> = RULES.iter().map(|(id, _)| *id).collect();
        // Every issue type of the contract (the schema's enum, which the schema tests hold the
        // code to), so a new type cannot be added without its rule.
        let common: serde_json::Value =
            serde_json::from_str(include_str!("../../schemas/common.v1.json")).expect("schema");
        let types = common["$defs"]["issue"]["properties"]["type"]["enum"]
            .as_array()
            .expect("the issue types");
        assert!(types.len() >= 10, "{types:?}");
        for t in types {
            let t = t.as_str().expect("a type name");
            assert!(ids.contains(&t), "{t}");
            // And the code knows the type by that name.
            serde_json::from_value::<IssueType>(serde_json::Value::from(t)).expect(t);
        }
        for r in DecisionReason::ALL
            .into_iter()
            .filter(|r| r.is_not_checked())
        {
            assert!(ids.contains(&serde_name(&r).as_str()), "{r:?}");
        }
    }
}
