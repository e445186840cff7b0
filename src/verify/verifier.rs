//! One check: a claim against one cited source, from fetch to [`ClaimResult`].
//!
//! The fetch outcome decides first. A page is judged ([`factgate_core::judge`], and the LLM quorum when
//! configured); a dead, forbidden or paywalled citation is an editorial issue with its
//! severity (docs/severity.md); any other outcome leaves the source unjudged, which blocks at every strictness
//! (see [`FetchStatus::leaves_source_unjudged`]). A check never ends in silence: every path
//! returns a result with its reason.

use super::fetch::Fetcher;
use super::llm::LlmJudge;
use chrono::Utc;
use factgate_core::events::{ClaimResult, Evidence, FetchStatus, Issue, IssueType};
use factgate_core::fetched::{FetchOutcome, Page, RefusalReason};
use factgate_core::judge::{
    IssueKind, JudgeSettings, Judgment, PageIndex, Source, calibration, judge_page,
};
use factgate_core::model::{Claim, Severity, Span, Verdict};
use factgate_core::quorum::passages::Lead;
use factgate_core::quorum::votes::{QuorumOutcome, VoteOutcome};
use factgate_core::text::webpage::NotASourceKind;
use std::sync::Arc;

use crate::fair::{Budgets, FairGate, Owner};

/// Checks claims against their sources. Cheap to clone: clones share the fetcher and its cache.
#[derive(Clone)]
pub struct Verifier {
    fetcher: Fetcher,
    judge: JudgeSettings,
    llm: Option<LlmJudge>,
    /// Drafts take turns at the judge ([`crate::fair`]).
    turns: Arc<FairGate>,
    /// Each draft's judging time, against its budget.
    budgets: Arc<Budgets>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("judge", &self.judge)
            .field("llm", &self.llm.is_some())
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// A verifier that fetches with `fetcher`, judges with `judge`, and asks the LLM quorum too
    /// when `llm` is given.
    pub fn new(fetcher: Fetcher, judge: JudgeSettings, llm: Option<LlmJudge>) -> Verifier {
        Verifier {
            fetcher,
            judge,
            llm,
            turns: Arc::new(FairGate::new(crate::parse_pool::slots())),
            budgets: Arc::new(Budgets::new(std::time::Duration::from_millis(
                crate::config::DEFAULT_MAX_DRAFT_JUDGE_MS,
            ))),
        }
    }

    /// This verifier with each draft's judging time capped at `budget` (`judge.max_draft_judge_ms`).
    #[must_use]
    pub fn with_draft_budget(mut self, budget: std::time::Duration) -> Verifier {
        self.budgets = Arc::new(Budgets::new(budget));
        self
    }

    /// The fetcher, for its counters.
    pub fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    /// Verifies `claim` of (`article_id`, `revision`) against `source_url`: fetches the source
    /// (through the cache) and judges the claim against it; every failure is a result, never an
    /// error.
    pub async fn verify_claim(
        &self,
        article_id: &str,
        revision: u64,
        claim: &Claim,
        source_url: &str,
    ) -> ClaimResult {
        let fetched = self.fetcher.fetch(source_url).await;
        let attempts = u32::from(!fetched.from_cache);
        let mut result = ClaimResult {
            schema_version: Default::default(),
            article_id: article_id.to_owned(),
            revision,
            claim_id: claim.id.clone(),
            source_url: source_url.to_owned(),
            fetch_status: fetch_status(&fetched.outcome),
            http_status: http_status(&fetched.outcome),
            fetch_attempts: attempts,
            verdict: Verdict::Unconfirmed,
            support: 0.0,
            confidence: None,
            source_credibility: 0.0,
            evidence: None,
            correction: None,
            issue: None,
            reason: String::new(),
            judged_at: Utc::now(),
            draft_position: None,
        };
        let owner: Owner = (article_id.to_owned(), revision);
        match fetched.outcome.as_ref() {
            FetchOutcome::Ok(page) => {
                let started = tokio::time::Instant::now();
                // The fetcher indexes every page it reads; indexing here only keeps a check
                // whole should that ever change.
                let index = fetched.index.clone().unwrap_or_else(|| {
                    Arc::new(PageIndex::of(Source {
                        text: &page.text,
                        reviews: &page.claim_reviews,
                        furniture: &page.furniture,
                    }))
                });
                let judgment = {
                    // This draft's turn: its judgments alternate with every other draft's. Its
                    // budget is looked at once the turn comes, when every judgment queued
                    // before has been charged.
                    let turn = self.turns.admit(&owner).await;
                    if self.budgets.spent(&owner) {
                        drop(turn);
                        let limit = self.budgets.limit();
                        result.reason = format!(
                            "{} ({} ms)",
                            factgate_core::events::JUDGING_BUDGET_REASON,
                            limit.as_millis()
                        );
                        result.issue = Some(over_budget_issue(claim, source_url, limit));
                        crate::internal_events::draft_judging_budget_spent(
                            article_id, revision, limit,
                        );
                        result.judged_at = Utc::now();
                        return result;
                    }
                    let (judgment, took) =
                        self.judge_off_runtime(claim, &index, &page.final_url).await;
                    self.budgets.charge(&owner, took);
                    judgment
                };
                // A refuted claim stays refuted whatever the panel says: it is not asked.
                let quorum = match &self.llm {
                    Some(llm) if judgment.verdict != Verdict::Refuted => {
                        Some(ask_quorum(llm, claim, source_url, &index, &judgment).await)
                    }
                    _ => None,
                };
                apply_judgment(&mut result, claim, &judgment, quorum.as_ref(), page);
                if self.llm.is_some() && quorum.is_none() {
                    result
                        .reason
                        .push_str("; not sent to the llm panel: refuted already");
                }
                crate::internal_events::claim_judged(
                    article_id,
                    &claim.id,
                    result.verdict,
                    started.elapsed(),
                );
            }
            outcome => {
                result.reason = format!("source not read: {}", outcome.class());
                result.issue = Some(fetch_issue(claim, source_url, outcome));
            }
        }
        result.judged_at = Utc::now();
        result
    }
}

impl Verifier {
    /// [`judge_page`] on the bounded pool ([`crate::parse_pool`]): judging is CPU work whose time
    /// grows with the claim and the page, and on the async threads one long judgment would stall
    /// every other check, the consumers and the HTTP probes.
    async fn judge_off_runtime(
        &self,
        claim: &Claim,
        index: &Arc<PageIndex>,
        url: &str,
    ) -> (Judgment, std::time::Duration) {
        let (claim, index, url, settings) = (
            claim.clone(),
            Arc::clone(index),
            url.to_owned(),
            self.judge.clone(),
        );
        // Timed on the pool's thread: the judging itself, not the wait for a slot.
        match crate::parse_pool::run_bounded(move |_| {
            let started = std::time::Instant::now();
            let judgment = judge_page(&claim, &index, &url, &settings);
            (judgment, started.elapsed())
        })
        .await
        {
            Ok(done) => done,
            // Only a panic in the judge (or a runtime shutting down) gets here: the check fails
            // as a panic in it always did, and the verify role answers it with a block.
            Err(err) => panic!("judging the claim failed: {err}"),
        }
    }
}

/// The LLM quorum on the best few passages of the source, the judge's own passage first.
async fn ask_quorum(
    llm: &LlmJudge,
    claim: &Claim,
    source_url: &str,
    page: &PageIndex,
    judgment: &Judgment,
) -> QuorumOutcome {
    let lead = judgment.evidence.as_ref().map(|e| Lead {
        text: &e.quote,
        start: e.start,
        end: e.end,
    });
    llm.judge_source(&claim.text, source_url, page, lead).await
}

/// The verdict of the rules and of the LLM quorum together. A contradiction the rules
/// established stands; what the rules leave unconfirmed the quorum settles (it may confirm
/// support, or with a quorum a contradiction); a claim the rules support that the quorum
/// refutes is unconfirmed: the two disagree, and an editor decides. A panel that could not vote
/// (fewer than two valid votes: timeouts, a server down) has not checked the claim, so a claim
/// the rules support is unconfirmed too: the check fails closed.
fn settle(rules: Verdict, quorum: &QuorumOutcome) -> Verdict {
    let voted = quorum
        .votes
        .iter()
        .filter(|v| matches!(v.outcome, VoteOutcome::Voted { .. }))
        .count();
    match (rules, quorum.verdict) {
        (Verdict::Refuted, _) => Verdict::Refuted,
        (Verdict::Unconfirmed, q) => q,
        (Verdict::Supported, Verdict::Refuted) => Verdict::Unconfirmed,
        (Verdict::Supported, Verdict::Unconfirmed) if voted < 2 => Verdict::Unconfirmed,
        (Verdict::Supported, _) => Verdict::Supported,
    }
}

/// Fills `result` from the judgment of `claim` against `page` (and the quorum's, when it
/// voted): the verdict, the scores, the evidence with its page for a document, and the issue.
fn apply_judgment(
    result: &mut ClaimResult,
    claim: &Claim,
    judgment: &Judgment,
    quorum: Option<&QuorumOutcome>,
    page: &Page,
) {
    result.verdict = quorum.map_or(judgment.verdict, |q| settle(judgment.verdict, q));
    result.support = judgment.support.clamp(0.0, 1.0);
    result.confidence = Some(calibration::confidence(result.support));
    result.source_credibility = judgment.credibility.score.clamp(0.0, 1.0);
    result.correction = judgment.correction.clone();
    result.evidence = judgment.evidence.as_ref().map(|e| Evidence {
        quote: e.quote.clone(),
        span: Some(Span {
            start: e.start,
            end: e.end,
        }),
        sentence: None,
        page: page.page_of(e.start),
    });
    result.reason = format!(
        "judged {:?} (support {:.2})",
        judgment.verdict, judgment.support
    )
    .to_lowercase();
    // Every vote, with the reason of each abstention, and any cut of the evidence.
    if let Some(q) = quorum {
        result.reason = format!("{}; {}", result.reason, q.summary());
    }
    // The judge's severity stands: a refuted claim is high, an unconfirmed one medium where the
    // evidence that the source does not state it is strong, else low (for review). A claim the
    // judge accepted that the quorum refutes or could not check is at least medium (fails
    // closed); one the quorum refutes that the judge left unconfirmed is high.
    let severity = match (judgment.verdict, result.verdict) {
        (Verdict::Supported, Verdict::Supported) => judgment.severity,
        // The quorum confirmed what the rules left unconfirmed.
        (_, Verdict::Supported) => None,
        (Verdict::Supported, _) => judgment.severity.max(Some(Severity::Medium)),
        // A refutation is a finding that blocks, whatever severity came with it.
        (_, Verdict::Refuted) => judgment.severity.max(Some(Severity::High)),
        // `None < Some(_)`: a claim that is not supported carries an issue.
        _ => judgment.severity.max(Some(Severity::Low)),
    };
    if let Some(severity) = severity {
        let mut issue = judgment_issue(claim, result, judgment, severity);
        if let Some(q) = quorum
            && judgment.verdict != result.verdict
        {
            // The quorum changed the rules' verdict: say who decided it.
            issue.problem = match result.verdict {
                Verdict::Refuted => format!(
                    "The LLM panel found the source contradicts the claim ({})",
                    q.tally()
                ),
                _ => format!("The LLM panel did not confirm the claim ({})", q.tally()),
            };
        }
        result.issue = Some(issue);
    }
}

fn judgment_issue(
    claim: &Claim,
    result: &ClaimResult,
    judgment: &Judgment,
    severity: Severity,
) -> Issue {
    let correction = judgment.correction.as_deref();
    let (issue_type, problem, recommendation) = match judgment.issue {
        Some(IssueKind::ContradictedFigure) | Some(IssueKind::FigureDiscrepancy) => (
            IssueType::FigureMismatch,
            "A figure differs from the source".to_owned(),
            match correction {
                Some(c) => format!("Correct the figure: {c}"),
                None => "Correct the figure to match the source".to_owned(),
            },
        ),
        Some(IssueKind::Contradicted) => (
            IssueType::VerifiedFalse,
            "The claim contradicts its source".to_owned(),
            match correction {
                Some(c) => format!("Correct the claim to match the source: {c}"),
                None => "Correct the claim to match the source".to_owned(),
            },
        ),
        Some(IssueKind::Misattributed) => (
            IssueType::Misattributed,
            "The source does not attribute this to whom the claim does".to_owned(),
            match correction {
                Some(c) => format!("Attribute the statement as the source does: {c}"),
                None => "Attribute the statement as the source does".to_owned(),
            },
        ),
        Some(IssueKind::UnsupportedDetail) => (
            IssueType::UnsupportedDetail,
            "The claim adds a detail its source does not state".to_owned(),
            match correction {
                Some(c) => format!("Remove the detail or cite a source that states it; {c}"),
                None => "Remove the detail or cite a source that states it".to_owned(),
            },
        ),
        Some(IssueKind::RatedByFactCheck) => (
            if judgment.verdict == Verdict::Refuted {
                IssueType::VerifiedFalse
            } else {
                IssueType::Unverifiable
            },
            "The cited fact-check does not rate the claim true".to_owned(),
            match correction {
                Some(c) => format!("Remove or correct the claim: {c}"),
                None => "Remove or correct the claim".to_owned(),
            },
        ),
        Some(IssueKind::QuoteNotFound) => (
            IssueType::QuoteMismatch,
            "The quoted words are not in the source".to_owned(),
            "Quote the source exactly, or cite where the words come from".to_owned(),
        ),
        Some(IssueKind::NotInSource) => (
            IssueType::Unsourced,
            "The source never gives this: it does not come from the cited source".to_owned(),
            "Cite the source the figure comes from, or remove it".to_owned(),
        ),
        Some(IssueKind::UnclearSupport) | Some(IssueKind::EmptySource) | None => (
            IssueType::Unverifiable,
            "The source does not clearly state the claim".to_owned(),
            "Check the claim against the source, or cite a clearer one".to_owned(),
        ),
    };
    let problem = judgment.problem.clone().unwrap_or(problem);
    // A document's evidence names its page, where an editor turns to check it.
    let quoted = |e: &Evidence| match e.page {
        Some(page) => format!("{} (p. {page}): \"{}\"", result.source_url, e.quote),
        None => format!("{}: \"{}\"", result.source_url, e.quote),
    };
    let evidence = match (&judgment.correction, &result.evidence) {
        (Some(c), Some(e)) => format!("{} ({c})", quoted(e)),
        (None, Some(e)) => quoted(e),
        (Some(c), None) => format!("{}: {c}", result.source_url),
        (None, None) => format!("{}: no matching passage", result.source_url),
    };
    Issue {
        severity,
        issue_type,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem,
        evidence,
        recommendation,
        claim_id: Some(claim.id.clone()),
        source_url: Some(result.source_url.clone()),
        element: judgment.element,
        difference: judgment.difference.clone(),
    }
}

/// The issue a citation raises when its source could not be read (docs/severity.md): dead or
/// forbidden is high, paywalled medium; a technical failure is medium and blocks on its own as
/// an unjudged source.
fn fetch_issue(claim: &Claim, source_url: &str, outcome: &FetchOutcome) -> Issue {
    let (severity, problem, recommendation) = match outcome {
        FetchOutcome::NotFound { status } => (
            Severity::High,
            format!("Citation returns {status} error"),
            "Find alternative source or remove claim",
        ),
        FetchOutcome::NotASource { kind, marker, .. } => (
            Severity::High,
            match kind {
                NotASourceKind::ErrorPage => format!(
                    "The citation leads to an error page, not the source (\"{marker}\", served \
                     as a success)"
                ),
                NotASourceKind::SearchResults => format!(
                    "The citation leads to a site search's results, not the source ({marker})"
                ),
            },
            match kind {
                NotASourceKind::ErrorPage => "Find the page that states the claim, or remove claim",
                NotASourceKind::SearchResults => {
                    "Cite the article or document itself, not a search for it"
                }
            },
        ),
        FetchOutcome::Forbidden { status } => (
            Severity::High,
            format!("Citation returns {status}: the source refuses access"),
            "Cite a source readers can open, or remove claim",
        ),
        FetchOutcome::Paywalled { marker } => (
            Severity::Medium,
            format!("Source is paywalled ({marker})"),
            "Cite an open source, or check the claim by hand",
        ),
        FetchOutcome::RefusedByPolicy(reason) => (
            Severity::Medium,
            format!("Source was not fetched: {}", describe(outcome)),
            match reason {
                RefusalReason::Address { .. } | RefusalReason::NoAllowedAddress { .. } => {
                    "Cite a source on a public address; a source on this network is checked \
                     once its addresses are in `fetch.address_allowlist`"
                }
                RefusalReason::TooManyRedirects { .. } => {
                    "Cite the page the redirects lead to, or raise `fetch.max_redirects`"
                }
                RefusalReason::RedirectLoop => "Cite a page that does not redirect in a loop",
                RefusalReason::Scheme(_) => "Cite an http or https source",
                RefusalReason::InvalidUrl(_) => "Correct the citation's URL",
            },
        ),
        // What could not be read says why, and what to cite instead: "The PDF is scanned images
        // with no text layer: cite a text version of the document".
        FetchOutcome::Unreadable { reason, advice } => (
            Severity::Medium,
            format!("{}: {advice}", capitalized(reason)),
            *advice,
        ),
        other => (
            Severity::Medium,
            format!("Source could not be checked: {}", describe(other)),
            "Check the source is reachable, then publish again",
        ),
    };
    Issue {
        severity,
        issue_type: IssueType::Unverifiable,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem,
        evidence: format!("{source_url} - {}", describe(outcome)),
        // The advice of an unreadable source is written to follow a colon.
        recommendation: capitalized(recommendation),
        claim_id: Some(claim.id.clone()),
        source_url: Some(source_url.to_owned()),
        element: None,
        difference: None,
    }
}

/// The finding of a claim left unjudged because its draft spent its judging time.
fn over_budget_issue(claim: &Claim, source_url: &str, limit: std::time::Duration) -> Issue {
    Issue {
        severity: Severity::High,
        issue_type: IssueType::Error,
        claim: claim.text.clone(),
        location: claim.location.to_string(),
        problem: format!(
            "The draft used up its judging time ({} ms, judge.max_draft_judge_ms) before this \
             claim was judged: it is over a limit of what one draft may ask factgate to do",
            limit.as_millis()
        ),
        evidence: format!("{source_url}: not judged"),
        recommendation: "Split the article, or cite pages that state its figures more briefly; \
                         the platform team can raise judge.max_draft_judge_ms"
            .to_owned(),
        claim_id: Some(claim.id.clone()),
        source_url: Some(source_url.to_owned()),
        element: None,
        difference: None,
    }
}

/// `text` with its first letter a capital.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn describe(outcome: &FetchOutcome) -> String {
    match outcome {
        FetchOutcome::Ok(_) => "read".to_owned(),
        FetchOutcome::NotFound { status } => format!("page not found ({status})"),
        FetchOutcome::NotASource { kind, status, .. } => match kind {
            NotASourceKind::ErrorPage => format!("an error page served as {status}"),
            NotASourceKind::SearchResults => format!("search results served as {status}"),
        },
        FetchOutcome::Forbidden { status } => format!("access forbidden ({status})"),
        FetchOutcome::Paywalled { marker } => format!("paywall ({marker})"),
        FetchOutcome::RateLimited { .. } => "rate limited (429) after retries".to_owned(),
        FetchOutcome::ServerError { status, .. } => {
            format!("server error ({status}) after retries")
        }
        FetchOutcome::UnexpectedStatus { status } => format!("unexpected HTTP status {status}"),
        FetchOutcome::Timeout => "timed out".to_owned(),
        FetchOutcome::TooLarge { limit } => format!("larger than the {limit}-byte cap"),
        FetchOutcome::RefusedByPolicy(reason) => match reason.allowed_by() {
            Some(key) => format!("refused: {} (allow it with `{key}`)", reason.what()),
            None => format!("refused: {}", reason.what()),
        },
        FetchOutcome::UnsupportedContent { content_type } => {
            format!("unsupported content type {content_type}")
        }
        FetchOutcome::Unreadable { reason, .. } => reason.clone(),
        FetchOutcome::NetworkError { reason } => format!("network error: {reason}"),
    }
}

/// The event's status for a fetch outcome. A status no other outcome covers (400, a 3xx without
/// a Location) is a server-side failure to answer: unjudged, so it blocks.
fn fetch_status(outcome: &FetchOutcome) -> FetchStatus {
    match outcome {
        FetchOutcome::Ok(_) => FetchStatus::Ok,
        // Not found where the citation points, whatever the status said.
        FetchOutcome::NotFound { .. } | FetchOutcome::NotASource { .. } => FetchStatus::NotFound,
        FetchOutcome::Forbidden { .. } => FetchStatus::Forbidden,
        FetchOutcome::Paywalled { .. } => FetchStatus::Paywalled,
        FetchOutcome::RateLimited { .. } => FetchStatus::RateLimited,
        FetchOutcome::ServerError { .. } | FetchOutcome::UnexpectedStatus { .. } => {
            FetchStatus::ServerError
        }
        FetchOutcome::Timeout => FetchStatus::Timeout,
        FetchOutcome::TooLarge { .. } => FetchStatus::TooLarge,
        FetchOutcome::RefusedByPolicy(_) => FetchStatus::RefusedByPolicy,
        // A source that could not be read is content factgate does not read, on the wire: the
        // status every reader of claim results already knows leaves the source unjudged.
        FetchOutcome::UnsupportedContent { .. } | FetchOutcome::Unreadable { .. } => {
            FetchStatus::UnsupportedContent
        }
        FetchOutcome::NetworkError { .. } => FetchStatus::NetworkError,
    }
}

fn http_status(outcome: &FetchOutcome) -> Option<u16> {
    match outcome {
        FetchOutcome::Ok(page) => Some(page.status),
        FetchOutcome::NotFound { status }
        | FetchOutcome::NotASource { status, .. }
        | FetchOutcome::Forbidden { status }
        | FetchOutcome::ServerError { status, .. }
        | FetchOutcome::UnexpectedStatus { status } => Some(*status),
        FetchOutcome::RateLimited { .. } => Some(429),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factgate_core::judge::{Credibility, CredibilityLevel};
    use factgate_core::model::{CitationRule, Location};

    fn claim() -> Claim {
        Claim {
            id: "c1".into(),
            text: "Prices start at $9/month.".into(),
            kinds: Vec::new(),
            figures: Vec::new(),
            quotes: Vec::new(),
            attributed_to: None,
            location: Location {
                section: None,
                paragraph: 0,
                sentence: 0,
                span: None,
                block: None,
            },
            citations: Vec::new(),
            citation_rule: CitationRule::SameSentence,
            prejudgment: None,
            unbacked: None,
        }
    }

    fn judgment(verdict: Verdict, severity: Option<Severity>) -> Judgment {
        Judgment {
            verdict,
            support: 0.5,
            evidence: None,
            source_url: "https://s.example/p".into(),
            correction: None,
            figure_error: None,
            severity,
            issue: None,
            problem: None,
            credibility: Credibility {
                level: CredibilityLevel::Generic,
                score: 0.5,
            },
            reasons: Vec::new(),
            element: None,
            difference: None,
            passages: Vec::new(),
        }
    }

    /// A web page: no pages of its own.
    fn web_page() -> Page {
        Page {
            final_url: "https://s.example/p".into(),
            status: 200,
            content_type: "text/html".into(),
            text: String::new(),
            title: None,
            claim_reviews: Vec::new(),
            furniture: String::new(),
            page_starts: Vec::new(),
        }
    }

    fn quorum(verdict: Verdict) -> QuorumOutcome {
        QuorumOutcome {
            verdict,
            votes: Vec::new(),
            evidence: factgate_core::quorum::budget::EvidenceFit {
                budget_tokens: 100,
                passages_given: 1,
                tokens_given: 10,
                passages_sent: 1,
                tokens_sent: 10,
                cut_passage: None,
            },
            elapsed_ms: 0,
        }
    }

    fn result() -> ClaimResult {
        ClaimResult {
            schema_version: Default::default(),
            article_id: "a".into(),
            revision: 1,
            claim_id: "c1".into(),
            source_url: "https://s.example/p".into(),
            fetch_status: FetchStatus::Ok,
            http_status: Some(200),
            fetch_attempts: 1,
            verdict: Verdict::Unconfirmed,
            support: 0.0,
            confidence: None,
            source_credibility: 0.0,
            evidence: None,
            correction: None,
            issue: None,
            reason: String::new(),
            judged_at: Utc::now(),
            draft_position: None,
        }
    }

    #[test]
    fn a_claim_not_supported_always_carries_an_issue_and_a_refuted_one_blocks() {
        for (verdict, severity, quorum) in [
            (Verdict::Unconfirmed, None, None),
            (Verdict::Refuted, None, None),
            (Verdict::Supported, None, Some(Verdict::Unconfirmed)),
            (Verdict::Supported, None, Some(Verdict::Refuted)),
            // Supported by the lexical judge with a small figure discrepancy, doubted by the
            // quorum: the discrepancy's low severity must not carry over.
            (
                Verdict::Supported,
                Some(Severity::Low),
                Some(Verdict::Unconfirmed),
            ),
            (
                Verdict::Supported,
                Some(Severity::Low),
                Some(Verdict::Refuted),
            ),
        ] {
            let mut r = result();
            let quorum = quorum.map(super::tests::quorum);
            apply_judgment(
                &mut r,
                &claim(),
                &judgment(verdict, severity),
                quorum.as_ref(),
                &web_page(),
            );
            assert_ne!(r.verdict, Verdict::Supported);
            let issue = r.issue.expect("an issue the policy can see");
            // Unconfirmed by the rules alone is listed for review at least; a refutation, and a
            // claim the quorum doubts or could not check, is a finding that blocks.
            let least = if r.verdict == Verdict::Refuted || quorum.is_some() {
                Severity::Medium
            } else {
                Severity::Low
            };
            assert!(
                issue.severity >= least,
                "{verdict:?} {severity:?} {quorum:?}: {:?}",
                issue.severity
            );
        }
    }

    #[test]
    fn a_supported_claim_carries_no_issue() {
        let mut r = result();
        apply_judgment(
            &mut r,
            &claim(),
            &judgment(Verdict::Supported, None),
            Some(&quorum(Verdict::Supported)),
            &web_page(),
        );
        assert_eq!(r.verdict, Verdict::Supported);
        assert!(r.issue.is_none());
        // The raw score is kept; the confidence is the calibrated probability of the table.
        assert_eq!(r.support, 0.5);
        let table = calibration::table();
        assert_eq!(r.confidence, Some(table.apply(0.5)));
        assert_eq!(
            r.confidence,
            Some(judgment(Verdict::Supported, None).confidence())
        );
    }

    #[test]
    fn a_refused_source_says_what_was_refused_and_the_setting_that_allows_it() {
        let refused = FetchOutcome::RefusedByPolicy(RefusalReason::Address {
            address: "10.0.0.7".parse().expect("address"),
            range: "private",
        });
        let issue = fetch_issue(&claim(), "http://10.0.0.7/report", &refused);
        assert_eq!(
            issue.problem,
            "Source was not fetched: refused: private address 10.0.0.7 (allow it with \
             `fetch.address_allowlist`)"
        );
        assert!(
            issue.recommendation.contains("`fetch.address_allowlist`")
                && !issue.recommendation.contains("reachable"),
            "{}",
            issue.recommendation
        );
        let scheme = FetchOutcome::RefusedByPolicy(RefusalReason::Scheme("ftp".into()));
        let issue = fetch_issue(&claim(), "ftp://x/y", &scheme);
        assert!(!issue.problem.contains("allow it"), "{}", issue.problem);
    }

    #[test]
    fn a_supported_claim_keeps_its_low_discrepancy() {
        let mut r = result();
        apply_judgment(
            &mut r,
            &claim(),
            &judgment(Verdict::Supported, Some(Severity::Low)),
            Some(&quorum(Verdict::Supported)),
            &web_page(),
        );
        assert_eq!(r.verdict, Verdict::Supported);
        assert_eq!(r.issue.map(|i| i.severity), Some(Severity::Low));
    }

    #[test]
    fn a_documents_evidence_names_its_page_in_the_result_and_the_issue() {
        let mut refuted = judgment(Verdict::Refuted, Some(Severity::High));
        refuted.evidence = Some(factgate_core::judge::Evidence {
            quote: "Basic costs $9/month.".into(),
            start: 130,
            end: 151,
        });
        refuted.correction = Some("source says $9/month".into());
        let pdf = Page {
            content_type: "application/pdf".into(),
            page_starts: vec![0, 120, 400],
            ..web_page()
        };
        let mut r = result();
        apply_judgment(&mut r, &claim(), &refuted, None, &pdf);
        assert_eq!(r.evidence.as_ref().and_then(|e| e.page), Some(2));
        assert_eq!(
            r.issue.expect("a refuted claim's issue").evidence,
            "https://s.example/p (p. 2): \"Basic costs $9/month.\" (source says $9/month)"
        );
        // A web page's evidence names no page.
        let mut r = result();
        apply_judgment(&mut r, &claim(), &refuted, None, &web_page());
        assert_eq!(r.evidence.as_ref().and_then(|e| e.page), None);
        assert!(
            r.issue
                .expect("issue")
                .evidence
                .starts_with("https://s.example/p: ")
        );
    }

    #[test]
    fn an_unreadable_source_says_why_and_what_to_cite_and_is_left_unjudged() {
        let scanned = FetchOutcome::Unreadable {
            reason: "the PDF is scanned images with no text layer".into(),
            advice: "cite a text version of the document",
        };
        let issue = fetch_issue(&claim(), "https://s.example/r.pdf", &scanned);
        assert_eq!(
            issue.problem,
            "The PDF is scanned images with no text layer: cite a text version of the document"
        );
        assert_eq!(issue.recommendation, "Cite a text version of the document");
        assert_eq!(issue.severity, Severity::Medium);
        assert_eq!(
            issue.evidence,
            "https://s.example/r.pdf - the PDF is scanned images with no text layer"
        );
        assert!(fetch_status(&scanned).leaves_source_unjudged());
    }
}
