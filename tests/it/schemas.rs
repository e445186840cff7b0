//! The event contracts: every schema in `schemas/` is a valid draft 2020-12 schema, every example
//! in `schemas/examples/` satisfies its schema and survives a round trip through its Rust type,
//! values built in Rust satisfy the schemas, and the schemas reject what the contracts forbid.

use std::collections::BTreeMap;

use crate::support::schema::{errors, read_json, schema, schemas_dir, validator};
use chrono::{DateTime, TimeZone, Utc};
use factgate_core::events::{
    ArticleManifest, ChangeCounts, CheckKey, CitationReplaced, ClaimResult, ClaimResultV1,
    ClaimStatus, ClaimVerdict, Decision, DecisionReason, DecisionV1, DraftError, DraftEvent,
    DraftPosition, Evidence, ExtractionFailure, ExtractionOutcome, FetchStatus, Issue, IssueChange,
    IssueType, ManifestPart, ManifestV1, Outcome, Rechecked, Recommendation, Report, Resolution,
    RevisionChanges, SeverityCounts, Summary, SupportingSource, VerificationDetails,
    VerificationResults, VerifyRequest, content_digest, decision_id, recover_article_id,
};
use factgate_core::model::{
    Citation, CitationRule, CitationStyle, Claim, ClaimElement, ClaimKind, Difference, Figure,
    Location, Severity, Unit, Verdict,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The event schemas, by file stem; each has an example of the same name.
const EVENTS: [&str; 8] = [
    "draft.v1",
    "verify_request.v1",
    "claim_result.v1",
    "manifest.v1",
    "decision.v1",
    "override.v1",
    // The headers of a dead-lettered record (its payload is the draft as received).
    "dead_letter.v1",
    // The scope of a factgate recheck run, on factgate.recheck.runs.
    "recheck_run.v1",
];

fn example(stem: &str) -> Value {
    read_json(&schemas_dir().join("examples").join(format!("{stem}.json")))
}

#[track_caller]
fn assert_valid(stem: &str, instance: &Value) {
    let errs = errors(&validator(stem), instance);
    assert!(
        errs.is_empty(),
        "{stem} rejects a value it should accept:\n{}",
        errs.join("\n")
    );
}

#[track_caller]
fn assert_invalid(stem: &str, instance: &Value, why: &str) {
    assert!(
        !errors(&validator(stem), instance).is_empty(),
        "{stem} accepts a value it should reject: {why}"
    );
}

/// Deserializes an example into its Rust type, serializes it back and checks the schema still
/// accepts it; returns the value read.
fn round_trip<T: DeserializeOwned + Serialize>(stem: &str) -> (T, Value) {
    let original = example(stem);
    let typed: T = serde_json::from_value(original.clone())
        .unwrap_or_else(|e| panic!("{stem}: example does not fit its Rust type: {e}"));
    let again = serde_json::to_value(&typed).expect("serializes");
    assert_valid(stem, &again);
    (typed, again)
}

#[test]
fn schemas_are_valid_draft_2020_12_with_ids_titles_and_descriptions() {
    let mut files: Vec<_> = std::fs::read_dir(schemas_dir())
        .expect("schemas/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        EVENTS.len() + 1,
        "one schema per event plus common: {files:?}"
    );
    for path in files {
        let schema = read_json(&path);
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("{} is not a valid JSON Schema: {e}", path.display());
        }
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name");
        assert_eq!(
            schema["$id"],
            format!("https://factgate.example/schemas/{stem}.json"),
            "$id names the file and its version"
        );
        assert!(
            schema["title"].is_string() && schema["description"].is_string(),
            "{stem}"
        );
    }
}

#[test]
fn every_top_level_field_is_described() {
    for stem in EVENTS {
        let schema = schema(stem);
        let properties = schema["properties"].as_object().expect("object schema");
        for (name, property) in properties {
            // A bare reference takes the description of what it refers to.
            let described = property.get("description").is_some() || property.get("$ref").is_some();
            assert!(described, "{stem}: field `{name}` has no description");
        }
    }
}

#[test]
fn every_example_is_valid_against_its_schema() {
    let examples: BTreeMap<_, _> = std::fs::read_dir(schemas_dir().join("examples"))
        .expect("schemas/examples/ exists")
        .map(|e| e.expect("readable entry").path())
        .map(|p| (p.file_stem().and_then(|s| s.to_str()).map(str::to_owned), p))
        .collect();
    let mut expected: Vec<_> = EVENTS.iter().map(|s| Some(s.to_string())).collect();
    expected.sort();
    assert_eq!(examples.keys().cloned().collect::<Vec<_>>(), expected);
    for stem in EVENTS {
        assert_valid(stem, &example(stem));
    }
}

#[test]
fn examples_round_trip_through_their_rust_types() {
    let (draft, draft_json) = round_trip::<DraftEvent>("draft.v1");
    // The CMS's own field survives the round trip.
    assert_eq!(draft_json["cms_workflow_state"], "ready_for_review");
    assert_eq!(draft.extra.len(), 1);

    let (request, again) = round_trip::<VerifyRequest>("verify_request.v1");
    assert_eq!(again, example("verify_request.v1"));
    assert_eq!(request.check_key().source_url, request.source_url);

    let (result, again) = round_trip::<ClaimResult>("claim_result.v1");
    assert_eq!(again, example("claim_result.v1"));
    assert_eq!(
        result.check_key(),
        request.check_key(),
        "the example result answers the request"
    );

    let (manifest, again) = round_trip::<ArticleManifest>("manifest.v1");
    assert_eq!(again, example("manifest.v1"));
    assert!(manifest.pending.contains(&result.check_key()));

    let (scope, again) = round_trip::<factgate::recheck::RunScope>("recheck_run.v1");
    assert_eq!(again, example("recheck_run.v1"));
    assert_eq!(scope.end_offsets[&2], 1240);

    let (decision, again) = round_trip::<Decision>("decision.v1");
    assert_eq!(again, example("decision.v1"));
    assert_eq!(decision.outcome, Outcome::Block);

    // The example override names a finding of the example decision, and its id follows the
    // documented derivation.
    let (over, again) = round_trip::<factgate_core::events::OverrideEvent>("override.v1");
    assert_eq!(again, example("override.v1"));
    assert_eq!(over.decision_id, decision.decision_id);
    assert!(decision.report.issues.iter().any(|i| over.finding.names(i)));
    assert_eq!(
        over.override_id,
        factgate_core::events::override_id(
            &over.decision_id,
            &over.finding,
            &over.editor,
            &over.reason
        )
    );
    // The join's answer to it satisfies the decision schema, audit fields and all.
    let answered = factgate_core::decide::waive::apply_override(
        &decision,
        &over,
        factgate_core::decide::Strictness::Normal,
    )
    .expect("the override applies");
    assert_eq!(
        answered
            .override_applied
            .as_ref()
            .map(|o| o.editor.as_str()),
        Some("Ana Editor")
    );
    assert_valid(
        "decision.v1",
        &serde_json::to_value(&answered).expect("serializes"),
    );
}

#[test]
fn example_ids_follow_the_documented_derivation() {
    let draft = DraftEvent::from_json(example("draft.v1").to_string().as_bytes()).expect("parses");
    let manifest: ArticleManifest = serde_json::from_value(example("manifest.v1")).expect("fits");
    let decision: Decision = serde_json::from_value(example("decision.v1")).expect("fits");
    assert_eq!(manifest.content_digest, draft.content_digest());
    assert_eq!(
        decision.decision_id,
        decision_id(
            &draft.article_id,
            Some(draft.revision),
            &manifest.content_digest
        )
    );
}

#[test]
fn draft_with_unknown_fields_parses_and_keeps_them() {
    let mut draft = example("draft.v1");
    draft["cms_priority"] = json!({"level": 2, "flags": ["front_page"]});
    let parsed =
        DraftEvent::from_json(draft.to_string().as_bytes()).expect("unknown fields are tolerated");
    assert_eq!(parsed.extra["cms_priority"]["flags"][0], "front_page");
    assert_valid("draft.v1", &draft);
    assert_valid(
        "draft.v1",
        &serde_json::to_value(&parsed).expect("serializes"),
    );
}

#[test]
fn draft_missing_article_id_is_an_error_naming_it() {
    let mut draft = example("draft.v1");
    draft.as_object_mut().expect("object").remove("article_id");
    let bytes = draft.to_string().into_bytes();
    let err = DraftEvent::from_json(&bytes).expect_err("article_id is required");
    assert!(
        matches!(
            err,
            DraftError::MissingField {
                field: "article_id",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("article_id"), "{err}");
    assert!(recover_article_id(&bytes).is_none(), "no id to recover");
    assert_invalid("draft.v1", &draft, "article_id is required");
}

#[test]
fn draft_with_revision_three_in_words_is_an_error_naming_it() {
    let mut draft = example("draft.v1");
    draft["revision"] = json!("three");
    let bytes = draft.to_string().into_bytes();
    let err = DraftEvent::from_json(&bytes).expect_err("revision must be an integer");
    assert_eq!(err.field(), Some("revision"));
    assert!(err.to_string().contains("revision"), "{err}");
    // The article is still known, so the draft can be blocked with a decision.
    let recovered = err.recovered().expect("article id recovered");
    assert_eq!(recovered.article_id, "ai-tutoring-2025");
    assert_eq!(recovered.revision, None);
    assert_eq!(recover_article_id(&bytes).as_ref(), Some(recovered));
    assert_invalid("draft.v1", &draft, "revision is an integer");
}

#[test]
fn draft_parser_and_schema_agree_on_other_faults() {
    let cases = [
        ("published_at", json!("yesterday")),
        ("body_format", json!("pdf")),
        ("schema_version", json!("factgate.draft.v2")),
        ("article_id", json!("")),
        ("body", json!(null)),
    ];
    for (field, value) in cases {
        let mut draft = example("draft.v1");
        draft[field] = value;
        let err = DraftEvent::from_json(draft.to_string().as_bytes()).expect_err(field);
        assert_eq!(err.field(), Some(field), "{err}");
        assert_invalid("draft.v1", &draft, field);
    }
    assert!(matches!(
        DraftEvent::from_json(b"{\"article_id\":"),
        Err(DraftError::NotJson { .. })
    ));
}

fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_756_226_640 + seconds, 0)
        .single()
        .expect("valid timestamp")
}

fn market_claim() -> Claim {
    Claim {
        id: "c-market".into(),
        text: "The market is worth $50 billion, according to Gartner [3].".into(),
        kinds: vec![ClaimKind::Money, ClaimKind::Attribution],
        figures: vec![Figure {
            text: "$50 billion".into(),
            value: 50e9,
            unit: Unit::Currency,
            currency: Some("USD".into()),
            scale: 1e9,
            per: None,
        }],
        quotes: vec![],
        attributed_to: Some("Gartner".into()),
        location: Location {
            section: Some("Market".into()),
            paragraph: 3,
            sentence: 1,
            span: None,
            block: None,
        },
        citations: vec![Citation {
            url: "http://127.0.0.1:8080/market".into(),
            style: CitationStyle::NumberedReference,
            label: Some("3".into()),
            paragraph: None,
        }],
        citation_rule: CitationRule::SameSentence,
        prejudgment: None,
        unbacked: None,
    }
}

fn market_issue() -> Issue {
    Issue {
        severity: Severity::High,
        issue_type: IssueType::FigureMismatch,
        claim: market_claim().text,
        location: market_claim().location.to_string(),
        problem: "Market size is 67% above the source's figure".into(),
        evidence: "Source says the market is worth $30 billion".into(),
        recommendation: "Correct to $30 billion per source".into(),
        claim_id: Some("c-market".into()),
        source_url: Some("http://127.0.0.1:8080/market".into()),
        element: Some(ClaimElement::Figure),
        difference: Some(Difference {
            claim: "$50 billion".into(),
            source: "$30 billion".into(),
        }),
    }
}

#[test]
fn values_built_in_rust_satisfy_the_schemas() {
    let claim = market_claim();
    let key = CheckKey {
        claim_id: claim.id.clone(),
        source_url: claim.citations[0].url.clone(),
    };
    let manifest = ArticleManifest {
        schema_version: ManifestV1,
        article_id: "a-7".into(),
        revision: 0,
        published_at: at(0),
        deadline: at(300),
        extracted_at: Some(at(1)),
        content_digest: content_digest(b"body"),
        extraction: ExtractionOutcome::Ok {
            paragraphs: 5,
            sentences: 12,
        },
        claims: vec![claim.clone()],
        pending: vec![key.clone()],
        draft_position: Some(DraftPosition {
            partition: 2,
            offset: 417,
        }),
        part: Some(ManifestPart { index: 0, count: 2 }),
    };
    assert_valid(
        "manifest.v1",
        &serde_json::to_value(&manifest).expect("serializes"),
    );

    let result = ClaimResult {
        schema_version: ClaimResultV1,
        article_id: "a-7".into(),
        revision: 0,
        claim_id: key.claim_id.clone(),
        source_url: key.source_url.clone(),
        fetch_status: FetchStatus::Ok,
        http_status: Some(200),
        fetch_attempts: 2,
        verdict: Verdict::Refuted,
        support: 0.1,
        confidence: None,
        source_credibility: 0.7,
        evidence: Some(Evidence {
            quote: "The market is worth $30 billion.".into(),
            span: None,
            sentence: Some(4),
            // The page of a PDF source: optional, and valid where given.
            page: Some(3),
        }),
        correction: Some("source says $30 billion".into()),
        issue: Some(market_issue()),
        reason: "The source gives $30 billion.".into(),
        judged_at: at(4),
        draft_position: manifest.draft_position,
    };
    assert_valid(
        "claim_result.v1",
        &serde_json::to_value(&result).expect("serializes"),
    );

    let issues = vec![market_issue()];
    let decision = Decision {
        schema_version: DecisionV1,
        decision_id: decision_id("a-7", Some(0), &manifest.content_digest),
        article_id: "a-7".into(),
        revision: Some(0),
        outcome: Outcome::Block,
        reasons: vec![DecisionReason::HighSeverityIssue],
        decided_at: at(5),
        report: Report {
            recommendation: Recommendation::Reject,
            recommendation_reason: "1 high-severity issue: market size 67% off its source".into(),
            summary: Summary {
                total_claims: 1,
                sourced_claims: 1,
                unsourced_claims: 0,
                verification_results: VerificationResults {
                    verified_true: 0,
                    verified_false: 0,
                    unverifiable: 0,
                    contested: 1,
                },
                accuracy_score: 0.0,
                citations_checked: 1,
                citations_working: 1,
                cited_statements_checked: 1,
                severity_counts: SeverityCounts::of(&issues),
            },
            issues,
            verification_details: VerificationDetails {
                fetch_attempts: 2,
                fetch_successful: 1,
                processing_time_seconds: 5.0,
            },
            top_priorities: vec!["Priority 1: Correct market size to $30 billion (High)".into()],
            claims: vec![ClaimVerdict {
                claim_id: claim.id.clone(),
                text: claim.text.clone(),
                location: claim.location.to_string(),
                verdict: Some(ClaimStatus::Contested),
                support: Some(0.1),
                confidence: Some(0.06),
                source_url: Some(key.source_url.clone()),
                evidence_quote: Some("The market is worth $30 billion.".into()),
                evidence_page: Some(3),
                correction: Some("source says $30 billion".into()),
                severity: Some(Severity::High),
                source_credibility: Some(0.7),
                from_cache: Some(false),
                contested: true,
                supporting_source: Some(SupportingSource {
                    source_url: "https://stats.example/market".into(),
                    evidence_quote: Some("The market is worth $40 billion.".into()),
                    support: 0.9,
                    confidence: None,
                    source_credibility: 0.5,
                }),
                backed_by: Some("the article's source in paragraph 1".into()),
            }],
            changes_since_previous: Some(RevisionChanges {
                previous_revision: 2,
                previous_outcome: Outcome::Block,
                previous_issues: 2,
                fixed: vec![IssueChange {
                    issue_type: IssueType::Unverifiable,
                    severity: Severity::High,
                    claim: "The market is worth $40 billion.".into(),
                    claim_id: Some("c-1".into()),
                    problem: "Citation returns 404 error".into(),
                    claim_now: Some(claim.text.clone()),
                    resolution: Some(Resolution::ClaimEdited),
                }],
                still_open: Vec::new(),
                new: vec![IssueChange {
                    issue_type: IssueType::Contested,
                    severity: Severity::High,
                    claim: claim.text.clone(),
                    claim_id: Some(claim.id.clone()),
                    problem: "The cited sources disagree".into(),
                    claim_now: None,
                    resolution: None,
                }],
                citations_replaced: vec![CitationReplaced {
                    claim: claim.text.clone(),
                    previous_url: "https://gone.example/report".into(),
                    previous_problem: "Citation returns 404 error".into(),
                    replacements: vec![key.source_url.clone()],
                }],
                rechecked: vec![Rechecked {
                    claim: claim.text.clone(),
                    source_url: key.source_url.clone(),
                    from_cache: true,
                }],
                counts: ChangeCounts {
                    fixed: 1,
                    still_open: 0,
                    new: 1,
                    citations_replaced: 1,
                    rechecked: 1,
                },
            }),
            waived: vec![factgate_core::events::WaivedIssue {
                issue: market_issue(),
                waiver: factgate_core::events::Waiver {
                    kind: factgate_core::events::WaiverKind::Override,
                    editor: Some("Ana Editor".into()),
                    reason: "The $30 billion figure is the 2022 estimate; ours is 2024's.".into(),
                    override_id: Some("0123456789abcdef0123456789abcdef".into()),
                    waived_at: Some(at(6)),
                },
            }],
        },
        draft_position: None,
        content_digest: Some(manifest.content_digest.clone()),
        run_id: None,
        override_applied: Some(factgate_core::events::AppliedOverride {
            override_id: "0123456789abcdef0123456789abcdef".into(),
            overrides: "fedcba9876543210fedcba9876543210".into(),
            editor: "Ana Editor".into(),
            reason: "The $30 billion figure is the 2022 estimate; ours is 2024's.".into(),
            finding: factgate_core::events::FindingRef {
                issue_type: IssueType::FigureMismatch,
                claim_id: Some(claim.id.clone()),
            },
            overridden_at: at(6),
        }),
        arrived_late: Some(factgate_core::events::ArrivedLate {
            by_ms: 660_000,
            checking_began_at: at(660),
        }),
    }
    .for_publication(manifest.draft_position);
    let json = serde_json::to_value(&decision).expect("serializes");
    assert_valid("decision.v1", &json);
    assert_eq!(json["report"]["summary"]["severity_counts"]["high"], 1);
    assert_eq!(json["report"]["issues"][0]["type"], "figure_mismatch");
}

fn unreadable_draft_decision(bytes: &[u8]) -> Decision {
    let recovered = recover_article_id(bytes).expect("id recoverable");
    let err = DraftEvent::from_json(bytes).expect_err("unreadable");
    let issue = Issue {
        severity: Severity::High,
        issue_type: IssueType::Error,
        claim: String::new(),
        location: "draft event".into(),
        problem: "The draft event could not be read".into(),
        evidence: err.to_string(),
        recommendation: "Republish the draft with the missing field".into(),
        claim_id: None,
        source_url: None,
        element: None,
        difference: None,
    };
    Decision {
        schema_version: DecisionV1,
        decision_id: decision_id(
            &recovered.article_id,
            recovered.revision,
            &content_digest(bytes),
        ),
        article_id: recovered.article_id,
        revision: recovered.revision,
        outcome: Outcome::Block,
        reasons: vec![DecisionReason::DraftUnreadable],
        decided_at: at(1),
        report: Report::not_checked("The draft event could not be read.", issue, 1.0),
        draft_position: None,
        content_digest: Some(content_digest(bytes)),
        run_id: None,
        override_applied: None,
        arrived_late: None,
    }
}

#[test]
fn a_block_for_an_unreadable_draft_satisfies_the_schema() {
    let no_revision = br#"{"article_id": "a-9", "revision": "three", "body": "x"}"#;
    let decision = unreadable_draft_decision(no_revision);
    assert_eq!(decision.revision, None);
    let json = serde_json::to_value(&decision).expect("serializes");
    assert_valid("decision.v1", &json);
    assert!(json["revision"].is_null());

    let no_body = br#"{"article_id": "a-9", "revision": 4}"#;
    let decision = unreadable_draft_decision(no_body);
    assert_eq!(decision.revision, Some(4));
    assert_valid(
        "decision.v1",
        &serde_json::to_value(&decision).expect("serializes"),
    );
}

#[test]
fn a_failed_extraction_manifest_satisfies_the_schema_only_without_claims() {
    let mut manifest: ArticleManifest =
        serde_json::from_value(example("manifest.v1")).expect("fits");
    manifest.extraction = ExtractionOutcome::Failed {
        reason: ExtractionFailure::UnreadableBody,
        message: "the body is not readable text: NUL byte at 12".into(),
    };
    let with_claims = serde_json::to_value(&manifest).expect("serializes");
    assert_eq!(with_claims["extraction"]["status"], "failed");
    assert_invalid(
        "manifest.v1",
        &with_claims,
        "a failed extraction lists no claims",
    );
    manifest.claims.clear();
    manifest.pending.clear();
    assert_valid(
        "manifest.v1",
        &serde_json::to_value(&manifest).expect("serializes"),
    );
}

#[test]
fn schemas_reject_what_the_contracts_forbid() {
    let mut pass_with_reasons = example("decision.v1");
    pass_with_reasons["outcome"] = json!("pass");
    pass_with_reasons["report"]["recommendation"] = json!("accept");
    assert_invalid(
        "decision.v1",
        &pass_with_reasons,
        "a pass carries no reasons",
    );

    let mut block_without_reasons = example("decision.v1");
    block_without_reasons["reasons"] = json!([]);
    assert_invalid(
        "decision.v1",
        &block_without_reasons,
        "a block carries a reason",
    );

    let mut null_revision = example("decision.v1");
    null_revision["revision"] = json!(null);
    assert_invalid(
        "decision.v1",
        &null_revision,
        "null revision needs draft_unreadable",
    );

    let mut unknown_reason = example("decision.v1");
    unknown_reason["reasons"] = json!(["looked_wrong"]);
    assert_invalid("decision.v1", &unknown_reason, "reasons are a closed list");

    let mut dead_but_supported = example("claim_result.v1");
    dead_but_supported["fetch_status"] = json!("not_found");
    assert_invalid(
        "claim_result.v1",
        &dead_but_supported,
        "an unread source cannot support",
    );

    let mut support_over_one = example("claim_result.v1");
    support_over_one["support"] = json!(1.5);
    assert_invalid("claim_result.v1", &support_over_one, "support is in [0, 1]");

    let mut extra_field = example("verify_request.v1");
    extra_field["priority"] = json!(1);
    assert_invalid(
        "verify_request.v1",
        &extra_field,
        "factgate's own events are closed",
    );

    let mut bad_deadline = example("verify_request.v1");
    bad_deadline["deadline"] = json!("in five minutes");
    assert_invalid("verify_request.v1", &bad_deadline, "deadline is RFC 3339");
}
