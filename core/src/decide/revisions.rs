//! Revision awareness (docs/revisions.md): when
//! revision N of an article is decided after revision N−1, the report says which of the previous
//! issues were fixed, which are still open, which are new, and which cited sources were replaced.
//!
//! Pure: a [`RevisionDigest`] keeps what the comparison needs of a decided revision (its claims
//! with their sources, its issues), [`compare`] sets a report's
//! [`RevisionChanges`](crate::events::RevisionChanges), and [`RevisionHistory`] keeps the
//! digests of the last decided revisions of many articles, bounded by bytes, least recently
//! decided forgotten first. The join role feeds it the decisions it publishes, and rebuilds it
//! from the decisions topic at start-up; `factgate check --previous` builds a digest from a file.
//!
//! # Matching an issue across revisions
//! An issue is the same issue when it is of the same type and about the same claim. Claims are
//! paired one to one: first those with the same id or the same text; then an edited sentence
//! with the claim it replaces, when they share enough content words. Content words are words
//! holding a digit (figures, years) or of four letters or more (shorter ones are mostly function
//! words): an edit that fixes a claim changes an element (a figure, a name, a verb) and keeps the
//! rest, while another claim shares few of them. The bar is the Dice coefficient of the two
//! sets: [`SAME_CLAIM_SIMILARITY`], or [`SAME_SOURCE_SIMILARITY`] when the two cite a source in
//! common, which is evidence of its own that they make the same statement. Pairs are taken best
//! first. An issue about the whole article (no claim) is the same when its type and problem are.

use std::collections::{BTreeMap, HashMap, HashSet};

use unicode_segmentation::UnicodeSegmentation;

use crate::events::{
    ChangeCounts, CitationReplaced, Decision, IssueChange, IssueType, Outcome, Rechecked, Report,
    Resolution, RevisionChanges,
};
use crate::model::Severity;

/// Dice coefficient of content words at which an edited claim is the claim it replaces.
pub(crate) const SAME_CLAIM_SIMILARITY: f64 = 0.5;
/// The same, for two claims that cite a source in common.
pub(crate) const SAME_SOURCE_SIMILARITY: f64 = 0.3;
/// Entries each list of a [`RevisionChanges`] keeps; `counts` holds the full sizes.
pub(crate) const MAX_LISTED: usize = 50;
/// Claims and issues a digest keeps of one revision.
const MAX_DIGEST_ITEMS: usize = 500;
/// Characters of a claim or a problem a digest keeps.
const MAX_TEXT_CHARS: usize = 300;
/// Default bytes of digests a [`RevisionHistory`] keeps (about 10,000 articles of 30 claims).
pub const DEFAULT_HISTORY_BYTES: usize = 64 * 1024 * 1024;

/// What the comparison needs of one decided revision.
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionDigest {
    pub article_id: String,
    pub revision: u64,
    pub outcome: Outcome,
    pub claims: Vec<ClaimDigest>,
    pub issues: Vec<IssueDigest>,
}

/// A claim of a digested revision and the sources it was checked against.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimDigest {
    pub claim_id: String,
    pub text: String,
    pub sources: Vec<String>,
}

/// An issue of a digested revision.
#[derive(Debug, Clone, PartialEq)]
pub struct IssueDigest {
    pub claim_id: Option<String>,
    pub claim: String,
    pub issue_type: IssueType,
    pub severity: Severity,
    pub problem: String,
    pub source_url: Option<String>,
}

fn cut(text: &str) -> String {
    text.chars().take(MAX_TEXT_CHARS).collect()
}

impl RevisionDigest {
    /// The digest of `decision`; `None` when it names no revision or checked nothing (an
    /// unreadable draft, a superseded revision…): such a decision is no basis for comparison.
    pub fn of(decision: &Decision) -> Option<RevisionDigest> {
        let revision = decision.revision?;
        let report = &decision.report;
        if report.claims.is_empty() && decision.reasons.iter().any(|r| r.is_not_checked()) {
            return None;
        }
        let claims = report
            .claims
            .iter()
            .take(MAX_DIGEST_ITEMS)
            .map(|c| {
                let mut sources: Vec<String> = c
                    .source_url
                    .iter()
                    .chain(c.supporting_source.as_ref().map(|s| &s.source_url))
                    .chain(
                        report
                            .issues
                            .iter()
                            .filter(|i| i.claim_id.as_deref() == Some(c.claim_id.as_str()))
                            .filter_map(|i| i.source_url.as_ref()),
                    )
                    .cloned()
                    .collect();
                sources.sort();
                sources.dedup();
                ClaimDigest {
                    claim_id: c.claim_id.clone(),
                    text: cut(&c.text),
                    sources,
                }
            })
            .collect();
        let issues = report
            .issues
            .iter()
            .take(MAX_DIGEST_ITEMS)
            .map(|i| IssueDigest {
                claim_id: i.claim_id.clone(),
                claim: cut(&i.claim),
                issue_type: i.issue_type,
                severity: i.severity,
                problem: cut(&i.problem),
                source_url: i.source_url.clone(),
            })
            .collect();
        Some(RevisionDigest {
            article_id: decision.article_id.clone(),
            revision,
            outcome: decision.outcome,
            claims,
            issues,
        })
    }

    /// Roughly the bytes the digest holds, for the history's budget.
    pub(crate) fn approx_bytes(&self) -> usize {
        let claims: usize = self
            .claims
            .iter()
            .map(|c| {
                64 + c.claim_id.len()
                    + c.text.len()
                    + c.sources.iter().map(|s| 24 + s.len()).sum::<usize>()
            })
            .sum();
        let issues: usize = self
            .issues
            .iter()
            .map(|i| {
                96 + i.claim.len()
                    + i.problem.len()
                    + i.claim_id.as_ref().map_or(0, String::len)
                    + i.source_url.as_ref().map_or(0, String::len)
            })
            .sum();
        128 + self.article_id.len() + claims + issues
    }
}

/// The content words of `text`: lower-cased words holding a digit or of four letters or more.
fn content_words(text: &str) -> HashSet<String> {
    text.unicode_words()
        .filter(|w| {
            w.chars().any(|c| c.is_numeric())
                || w.chars().filter(|c| c.is_alphabetic()).count() >= 4
        })
        .map(str::to_lowercase)
        .collect()
}

fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Dice coefficient of two word sets; 0 when both are empty.
fn dice(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    2.0 * a.intersection(b).count() as f64 / (a.len() + b.len()) as f64
}

/// Edited sentences: each text of `gone` paired, one to one, with the text of `added` it was
/// most likely edited into (content words' Dice coefficient of 0.5 or more, the rule claims are
/// paired by), as (index in `gone`, index in `added`).
pub fn paired_edits(gone: &[&str], added: &[&str]) -> Vec<(usize, usize)> {
    let added_words: Vec<HashSet<String>> = added.iter().map(|t| content_words(t)).collect();
    let mut taken: HashSet<usize> = HashSet::new();
    let mut pairs = Vec::new();
    for (g, text) in gone.iter().enumerate() {
        let words = content_words(text);
        let best = added_words
            .iter()
            .enumerate()
            .filter(|(a, _)| !taken.contains(a))
            .map(|(a, w)| (a, dice(&words, w)))
            .filter(|(_, d)| *d >= 0.5)
            .max_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((a, _)) = best {
            taken.insert(a);
            pairs.push((g, a));
        }
    }
    pairs
}

/// The current claims, as the comparison sees them.
struct Current<'a> {
    claim_id: &'a str,
    text: &'a str,
    sources: Vec<&'a str>,
    from_cache: Option<bool>,
}

/// Pairs previous claims with current ones (indices), one to one, by the rules of the module.
fn pair_claims(previous: &[ClaimDigest], current: &[Current<'_>]) -> HashMap<usize, usize> {
    let mut pairs: HashMap<usize, usize> = HashMap::new();
    let mut taken: HashSet<usize> = HashSet::new();
    for (p, claim) in previous.iter().enumerate() {
        let text = normalized(&claim.text);
        if let Some(c) = (0..current.len()).find(|c| {
            !taken.contains(c)
                && (current[*c].claim_id == claim.claim_id || normalized(current[*c].text) == text)
        }) {
            pairs.insert(p, c);
            taken.insert(c);
        }
    }
    let words_now: Vec<HashSet<String>> = current.iter().map(|c| content_words(c.text)).collect();
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for (p, claim) in previous.iter().enumerate() {
        if pairs.contains_key(&p) {
            continue;
        }
        let words = content_words(&claim.text);
        for (c, now) in current.iter().enumerate() {
            if taken.contains(&c) {
                continue;
            }
            let similarity = dice(&words, &words_now[c]);
            let shares_source = now
                .sources
                .iter()
                .any(|s| claim.sources.iter().any(|p| p == s));
            let bar = if shares_source {
                SAME_SOURCE_SIMILARITY
            } else {
                SAME_CLAIM_SIMILARITY
            };
            if similarity >= bar {
                candidates.push((similarity, p, c));
            }
        }
    }
    // Best first; ties in reading order.
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    for (_, p, c) in candidates {
        if !pairs.contains_key(&p) && !taken.contains(&c) {
            pairs.insert(p, c);
            taken.insert(c);
        }
    }
    pairs
}

/// Each claim of `current` with the sources it cites or has an issue about, sorted.
fn current_claims(current: &Report) -> Vec<Current<'_>> {
    current
        .claims
        .iter()
        .map(|c| {
            let mut sources: Vec<&str> = c
                .source_url
                .iter()
                .chain(c.supporting_source.as_ref().map(|s| &s.source_url))
                .map(String::as_str)
                .chain(
                    current
                        .issues
                        .iter()
                        .filter(|i| i.claim_id.as_deref() == Some(c.claim_id.as_str()))
                        .filter_map(|i| i.source_url.as_deref()),
                )
                .collect();
            sources.sort_unstable();
            sources.dedup();
            Current {
                claim_id: &c.claim_id,
                text: &c.text,
                sources,
                from_cache: c.from_cache,
            }
        })
        .collect()
}

/// For each pair of claims (previous, now): the sources with an issue before that the claim no
/// longer cites, with what replaced them; and the unchanged claims checked again.
fn sources_changed(
    previous: &RevisionDigest,
    now: &[Current<'_>],
    current: &Report,
    pairs: &HashMap<usize, usize>,
) -> (Vec<CitationReplaced>, Vec<Rechecked>) {
    // Sources with an issue before that the paired claim no longer cites.
    let mut citations_replaced = Vec::new();
    let mut rechecked = Vec::new();
    let mut ordered: Vec<(usize, usize)> = pairs.iter().map(|(p, c)| (*p, *c)).collect();
    ordered.sort_unstable();
    for (p, c) in ordered {
        let before = &previous.claims[p];
        let after = &now[c];
        let added: Vec<String> = after
            .sources
            .iter()
            .filter(|s| !before.sources.iter().any(|b| b == *s))
            .map(|s| (*s).to_owned())
            .collect();
        for url in before
            .sources
            .iter()
            .filter(|s| !after.sources.contains(&s.as_str()))
        {
            let problem = previous.issues.iter().find(|i| {
                i.claim_id.as_deref() == Some(before.claim_id.as_str())
                    && i.source_url.as_deref() == Some(url.as_str())
            });
            if let Some(problem) = problem {
                citations_replaced.push(CitationReplaced {
                    claim: after.text.to_owned(),
                    previous_url: url.clone(),
                    previous_problem: problem.problem.clone(),
                    replacements: added.clone(),
                });
            }
        }
        let unchanged = normalized(&before.text) == normalized(after.text);
        if let (true, Some(from_cache), Some(url)) = (
            unchanged,
            after.from_cache,
            current.claims[c].source_url.as_ref(),
        ) {
            rechecked.push(Rechecked {
                claim: after.text.to_owned(),
                source_url: url.clone(),
                from_cache,
            });
        }
    }
    (citations_replaced, rechecked)
}

/// What changed from `previous` to `current` (the report of a later revision, or a re-decision
/// of the same content).
pub fn compare(previous: &RevisionDigest, current: &Report) -> RevisionChanges {
    let now = current_claims(current);
    let pairs = pair_claims(&previous.claims, &now);
    let previous_index: HashMap<&str, usize> = previous
        .claims
        .iter()
        .enumerate()
        .map(|(i, c)| (c.claim_id.as_str(), i))
        .collect();

    let mut used: HashSet<usize> = HashSet::new();
    let (mut fixed, mut still_open) = (Vec::new(), Vec::new());
    for issue in &previous.issues {
        let claim = issue
            .claim_id
            .as_deref()
            .and_then(|id| previous_index.get(id).copied());
        let paired = claim.and_then(|p| pairs.get(&p).copied());
        let same = |i: usize| -> bool {
            let c = &current.issues[i];
            if used.contains(&i) || c.issue_type != issue.issue_type {
                return false;
            }
            match (claim, paired) {
                (Some(_), Some(now_claim)) => {
                    c.claim_id.as_deref() == Some(now[now_claim].claim_id)
                }
                (Some(_), None) => false,
                // An issue about the whole article, or about a claim the report did not list.
                (None, _) => {
                    c.claim_id.is_none() == issue.claim_id.is_none()
                        && normalized(&c.problem) == normalized(&issue.problem)
                        && normalized(&c.claim) == normalized(&issue.claim)
                }
            }
        };
        let found = (0..current.issues.len()).find(|i| same(*i));
        let edited = paired
            .filter(|c| normalized(now[*c].text) != normalized(&issue.claim))
            .map(|c| now[c].text.to_owned());
        let mut change = IssueChange {
            issue_type: issue.issue_type,
            severity: issue.severity,
            claim: issue.claim.clone(),
            claim_id: issue.claim_id.clone(),
            problem: issue.problem.clone(),
            claim_now: edited.clone(),
            resolution: None,
        };
        match found {
            Some(i) => {
                used.insert(i);
                // Still open: reported with its severity and problem as they are now.
                change.severity = current.issues[i].severity;
                change.problem = current.issues[i].problem.clone();
                still_open.push(change);
            }
            None => {
                change.resolution = Some(match (claim, paired) {
                    (Some(_), None) => Resolution::ClaimRemoved,
                    _ if edited.is_some() => Resolution::ClaimEdited,
                    _ => Resolution::Resolved,
                });
                fixed.push(change);
            }
        }
    }
    let new: Vec<IssueChange> = current
        .issues
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(i))
        .map(|(_, i)| IssueChange {
            issue_type: i.issue_type,
            severity: i.severity,
            claim: i.claim.clone(),
            claim_id: i.claim_id.clone(),
            problem: i.problem.clone(),
            claim_now: None,
            resolution: None,
        })
        .collect();

    let (citations_replaced, rechecked) = sources_changed(previous, &now, current, &pairs);

    let counts = ChangeCounts {
        fixed: fixed.len() as u32,
        still_open: still_open.len() as u32,
        new: new.len() as u32,
        citations_replaced: citations_replaced.len() as u32,
        rechecked: rechecked.len() as u32,
    };
    RevisionChanges {
        previous_revision: previous.revision,
        previous_outcome: previous.outcome,
        previous_issues: previous.issues.len() as u32,
        fixed: listed(fixed),
        still_open: listed(still_open),
        new: listed(new),
        citations_replaced: listed(citations_replaced),
        rechecked: listed(rechecked),
        counts,
    }
}

/// `list` cut to [`MAX_LISTED`] entries.
fn listed<T>(mut list: Vec<T>) -> Vec<T> {
    list.truncate(MAX_LISTED);
    list
}

/// The report's first line about revisions: "Revision 3: 2 of 3 issues fixed; 1 still open; 1
/// new", with the citations replaced when there are any.
pub fn headline(revision: Option<u64>, changes: &RevisionChanges) -> String {
    let c = &changes.counts;
    let of = c.fixed + c.still_open;
    // A later revision is named; the same one checked again (a file checked with `--previous`,
    // whose revision is not counted) is "the previous check".
    let later = revision.filter(|r| *r > changes.previous_revision);
    let mut line = format!(
        "{}: {} of {} {} fixed; {} still open; {} new",
        later.map_or_else(
            || "Since the previous check".to_owned(),
            |r| format!("Revision {r}")
        ),
        c.fixed,
        of,
        if of == 1 { "issue" } else { "issues" },
        c.still_open,
        c.new
    );
    if c.citations_replaced > 0 {
        line.push_str(&format!(
            "; {} {} replaced",
            c.citations_replaced,
            if c.citations_replaced == 1 {
                "citation"
            } else {
                "citations"
            }
        ));
    }
    let was = match changes.previous_outcome {
        Outcome::Pass => "passed",
        Outcome::Block => "blocked",
    };
    match later {
        Some(_) => line.push_str(&format!(
            " (since revision {}, {was})",
            changes.previous_revision
        )),
        None => line.push_str(&format!(" (the previous check {was})")),
    }
    line
}

/// Sets `decision`'s `changes_since_previous` from `previous` when it is an earlier revision of
/// the same article.
pub(crate) fn annotate(decision: &mut Decision, previous: &RevisionDigest) {
    let later = decision
        .revision
        .is_some_and(|r| r > previous.revision && decision.article_id == previous.article_id);
    if later && RevisionDigest::of(decision).is_some() {
        decision.report.changes_since_previous = Some(compare(previous, &decision.report));
    }
}

/// Why a file of previous decisions could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PreviousError {
    #[error("line {line}: not a factgate decision: {source}")]
    Line {
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("not a factgate decision or a list of them: {0}")]
    Document(#[source] serde_json::Error),
}

/// Reads decisions as `factgate check --format json` writes them (one per line), or as one JSON
/// document (a decision or an array of them).
///
/// # Errors
/// [`PreviousError`] naming the line that is not a decision.
pub fn parse_decisions(text: &str) -> Result<Vec<Decision>, PreviousError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return serde_json::from_str(trimmed).map_err(PreviousError::Document);
    }
    if let Ok(one) = serde_json::from_str::<Decision>(trimmed) {
        return Ok(vec![one]);
    }
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l).map_err(|source| PreviousError::Line {
                line: n + 1,
                source,
            })
        })
        .collect()
}

/// Sets `current`'s changes since the matching decision of `previous`: the newest one of the
/// same article whose revision is not after `current`'s; when none matches, `current` is the only
/// article being checked (`lone`) and `previous` holds one decision only, that one (the earlier
/// check of the same article saved under another name). Among several articles an unmatched one
/// has no basis: another article's issues are not its own. A decision that checked nothing is
/// no basis. Returns whether one was found.
pub fn annotate_from(current: &mut Decision, previous: &[Decision], lone: bool) -> bool {
    let not_after = |d: &&Decision| match (d.revision, current.revision) {
        (Some(p), Some(c)) => p <= c,
        _ => true,
    };
    let same_article = previous
        .iter()
        .filter(|d| d.article_id == current.article_id)
        .filter(not_after)
        .max_by_key(|d| d.revision);
    let basis = same_article.or(match previous {
        [only] if lone => Some(only),
        _ => None,
    });
    let Some(digest) = basis.and_then(RevisionDigest::of) else {
        return false;
    };
    if RevisionDigest::of(current).is_none() {
        return false;
    }
    current.report.changes_since_previous = Some(compare(&digest, &current.report));
    true
}

/// The digests of the last decided revisions of many articles, bounded by bytes: for each
/// article its two newest revisions (a revision decided again is compared with the one before
/// it), the articles decided least recently forgotten first.
#[derive(Debug)]
pub struct RevisionHistory {
    budget: usize,
    bytes: usize,
    clock: u64,
    articles: HashMap<String, (u64, Vec<RevisionDigest>)>,
    /// Articles by last use, for eviction.
    order: BTreeMap<u64, String>,
}

impl RevisionHistory {
    /// An empty history that keeps at most about `budget` bytes of digests.
    pub fn new(budget: usize) -> RevisionHistory {
        RevisionHistory {
            budget,
            bytes: 0,
            clock: 0,
            articles: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    /// Articles remembered.
    pub fn len(&self) -> usize {
        self.articles.len()
    }

    /// Whether no article is remembered.
    pub fn is_empty(&self) -> bool {
        self.articles.is_empty()
    }

    /// Bytes of digests held, roughly.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The newest remembered revision of `article_id` before `revision`.
    pub fn previous(&self, article_id: &str, revision: u64) -> Option<&RevisionDigest> {
        self.articles
            .get(article_id)?
            .1
            .iter()
            .filter(|d| d.revision < revision)
            .max_by_key(|d| d.revision)
    }

    /// Sets `decision`'s changes since the article's previous remembered revision, then
    /// remembers it.
    pub fn annotate_and_record(&mut self, decision: &mut Decision) {
        if let Some(revision) = decision.revision
            && let Some(previous) = self.previous(&decision.article_id, revision)
        {
            let previous = previous.clone();
            annotate(decision, &previous);
        }
        self.record(decision);
    }

    /// Remembers `decision`'s revision (a decision that checked nothing is skipped).
    pub fn record(&mut self, decision: &Decision) {
        let Some(digest) = RevisionDigest::of(decision) else {
            return;
        };
        self.clock += 1;
        let size = digest.approx_bytes();
        let entry = self
            .articles
            .entry(digest.article_id.clone())
            .or_insert_with(|| (0, Vec::new()));
        self.order.remove(&entry.0);
        entry.0 = self.clock;
        self.order.insert(self.clock, digest.article_id.clone());
        let digests = &mut entry.1;
        for old in digests.iter().filter(|d| d.revision == digest.revision) {
            self.bytes -= old.approx_bytes();
        }
        digests.retain(|d| d.revision != digest.revision);
        digests.push(digest);
        self.bytes += size;
        digests.sort_by_key(|d| std::cmp::Reverse(d.revision));
        while digests.len() > 2 {
            if let Some(old) = digests.pop() {
                self.bytes -= old.approx_bytes();
            }
        }
        self.evict();
    }

    fn evict(&mut self) {
        while self.bytes > self.budget && self.articles.len() > 1 {
            let Some((_, article)) = self.order.pop_first() else {
                return;
            };
            if let Some((_, digests)) = self.articles.remove(&article) {
                self.bytes -= digests
                    .iter()
                    .map(RevisionDigest::approx_bytes)
                    .sum::<usize>();
            }
        }
    }
}
