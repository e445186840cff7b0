//! Claim extraction: a draft body in, check-worthy claims out, each mapped to its citations.
//!
//! Pure and synchronous: no I/O, no clock. The whole body is read, whatever its length.
//! Failure is loud: a body that cannot be read is an [`ExtractError`], never an empty list.
//! An article that was read and holds no check-worthy claim gives an [`Extraction`] with no
//! claims and the count of sentences that were read, so the caller can say so.
//!
//! # Layout
//! - `document`: parses Markdown, HTML or text into blocks (headings, paragraphs, list items,
//!   table cells) with their inline citations and the article's reference list.
//! - `segment`: splits a block's text into sentences.
//! - `citations`: resolves links, reference links, numbered references, footnotes and bare URLs.
//! - [`crate::text::cues`] (`detect` here): what makes a sentence check-worthy (kinds, quotes,
//!   attribution) and the prejudgment of claims that cite nothing.
//! - `figures`: finds the figures a sentence states, normalized to value, unit and scale.
//! - `limits`: the per-article limits [`extract_within`] enforces (size, nesting, links, claims,
//!   checks), each before the work it bounds.
//! - `view`: the article block by block and sentence by sentence, for a report that marks each
//!   claim where it is.
//!
//! # Which citations back a claim
//! 1. **Same sentence** ([`CitationRule::SameSentence`]): the citations written in the claim's own
//!    sentence. A marker written right after a sentence's full stop (`… gains. [2] Next …`) belongs
//!    to the sentence before it.
//! 2. **Paragraph** ([`CitationRule::Paragraph`]): when the sentence cites nothing, the citations
//!    of the nearest sentence *after* it in the same block (paragraph, list item, cell) that
//!    cites something, else of the nearest one *before* it. Writers put the citation at the end of
//!    the run of sentences it supports, so the next one is the better guess.
//! 3. **Section** ([`CitationRule::Section`]): when its block cites nothing, the sources linked in
//!    the paragraphs before it in its section, nearest first.
//! 4. **Article** ([`CitationRule::Article`]): else every source the article links, nearest
//!    first. A news story links its source once ("[the statistics office said](…)") and reports
//!    its figures over the paragraphs after; "according to the ONS" in paragraph one covers
//!    paragraph six.
//! 5. **None** ([`CitationRule::None`]): the article links no source at all. The claim carries
//!    `prejudgment = cues::prejudge(..)`: the issue it raises with no fetch.
//!
//! Rules 2–4 *borrow* sources: the statement is given its paragraph's, then its section's, then
//! the article's other sources (at most [`MAX_BORROWED_SOURCES`], the links of asides and footers
//! left out), is judged against each, and is backed by whichever states it
//! (`judge::backing`); its rule names the nearest that gave one. `unbacked` carries the issue it
//! raises when none of them states it, as `prejudgment` does for a claim that cites nothing: an
//! unsourced statistic is high, what a named person said is reported speech (low). Titles and
//! headings that state a fact borrow the same way. First-person data ("our survey found")
//! borrows nothing: only a source of its own backs it.
//!
//! A sentence whose markers all *dangle* (`[7]` with no 7th reference, a footnote with no
//! definition or no URL) cites nothing usable and does not borrow a neighbour's citation: it is
//! unsourced, its prejudgment says which marker dangles, and the marker is listed in
//! [`Extraction::unresolved`]. Only absolute http(s) URLs are citations; relative links, in-page
//! anchors that lead to no reference, and `mailto:` are ignored.
//!
//! # Claim text, ids and locations
//! A claim's text is its sentence as a reader sees it, with citation markers (`[2]`, `[^1]`,
//! bare URLs) removed and whitespace collapsed; that is also the text the detector reads, so a
//! marker's digits are never taken for a figure. The id is the first 16 hex digits of the
//! SHA-256 of the lower-cased text, the paragraph index and the sentence index. The span is in
//! characters of the body as received: from the parser's source offsets for Markdown and text,
//! and for HTML where the sentence's text occurs verbatim in the body (else absent).

mod limits;
mod view;

use crate::text::{citations, cues, document, sentences};

pub use view::{ViewBlock, ViewKind, article_view};

pub use limits::{
    DEFAULT_EXTRACT_MAX_BODY_BYTES, DEFAULT_EXTRACT_MAX_NESTING_DEPTH,
    DEFAULT_MAX_CHECKS_PER_ARTICLE, DEFAULT_MAX_CLAIMS_PER_ARTICLE, DEFAULT_MAX_FIELD_BYTES,
    DEFAULT_MAX_FIGURES_PER_CLAIM, DEFAULT_MAX_LINKS_PER_ARTICLE, DEFAULT_MAX_WORDS_PER_CLAIM,
    ExtractLimits, LimitExceeded,
};

use crate::model::{BlockRole, BodyFormat, Citation, CitationRule, Claim, Location, Span};
use citations::Target;
use cues::SentenceFeatures;
use document::BlockKind;
use regex::Regex;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::LazyLock;

/// What extraction found in one article.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extraction {
    /// The format the body was read as.
    pub format: BodyFormat,
    /// Check-worthy claims, in reading order.
    pub claims: Vec<Claim>,
    /// Every citation the article's prose contains (reference-list entries that nothing cites are
    /// not listed), in order of first appearance, one per URL.
    pub citations: Vec<Citation>,
    /// How many paragraphs (blocks other than headings, reference entries included) were read.
    pub paragraphs: usize,
    /// How many sentences were read: those of prose, and each title, heading or alt text that
    /// makes a claim; with no claims, shows the article was read.
    pub sentences: usize,
    /// Numbered and footnote markers that resolve to no URL, where they were written.
    pub unresolved: Vec<UnresolvedMarker>,
}

/// A citation marker that points at nothing fetchable: `[7]` with no 7th reference, a footnote
/// with no definition or a definition with no URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnresolvedMarker {
    /// The marker as written: "[7]", "[^src]".
    pub marker: String,
    pub location: Location,
}

/// Why a body could not be read. Every variant blocks the draft.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExtractError {
    /// The body holds nothing but whitespace.
    #[error("the body is empty")]
    EmptyBody,
    /// The body is not text: invalid UTF-8, binary data, control characters, or markup with no
    /// visible text.
    #[error("the body is not readable text: {reason}")]
    Unreadable { reason: String },
    /// The body format named by the draft or the command line is not one factgate reads.
    #[error("unknown body format {0:?}: expected markdown, html or text")]
    UnknownFormat(String),
    /// The article is over one of the limits [`extract_within`] enforces.
    #[error(transparent)]
    Limit(#[from] LimitExceeded),
}

/// The share of control or U+FFFD replacement characters above which a body is not text: one in
/// fifty. Real articles hold none; mis-decoded binaries hold many.
const MAX_BAD_CHAR_SHARE: usize = 50;

/// Extracts the check-worthy claims of a body written in `format`.
///
/// # Errors
/// [`ExtractError::EmptyBody`] or [`ExtractError::Unreadable`] when the body cannot be read.
pub fn extract(body: &str, format: BodyFormat) -> Result<Extraction, ExtractError> {
    extract_titled(body, format, None)
}

/// [`extract`] for a draft with a title of its own (the draft event's `title`), which is read as
/// a claim like a heading is. Without one, the title the body gives itself is read (HTML
/// `<title>`, Markdown front matter).
///
/// # Errors
/// As [`extract`].
pub fn extract_titled(
    body: &str,
    format: BodyFormat,
    title: Option<&str>,
) -> Result<Extraction, ExtractError> {
    extract_with(body, format, title, &cues::analyze)
}

/// [`extract`] within `limits`: an article over one is refused whole, each limit checked before
/// the work it bounds (see `limits`).
///
/// # Errors
/// [`ExtractError::Limit`] naming the limit, and whatever [`extract`] returns.
pub fn extract_within(
    body: &str,
    format: BodyFormat,
    limits: &ExtractLimits,
) -> Result<Extraction, ExtractError> {
    extract_titled_within(body, format, None, limits)
}

/// [`extract_titled`] within `limits`. What `factgate run` and `factgate check` both call.
///
/// # Errors
/// As [`extract_within`].
pub fn extract_titled_within(
    body: &str,
    format: BodyFormat,
    title: Option<&str>,
    limits: &ExtractLimits,
) -> Result<Extraction, ExtractError> {
    limits::check_before_parse(body, format, title, limits)?;
    extract_limited(body, format, title, &cues::analyze, limits)
}

/// Whether `body` is within the limits checked before it is parsed: its size and its nesting
/// depth. A body that passes can be parsed again safely (the HTTP board holds only those, for
/// the decision pages).
///
/// # Errors
/// [`LimitExceeded`] naming the limit.
pub fn within_parse_limits(
    body: &str,
    format: BodyFormat,
    limits: &ExtractLimits,
) -> Result<(), LimitExceeded> {
    limits::check_before_parse(body, format, None, limits)
}

/// A cited sentence, as a heading, title or alt text that restates it may borrow its citations.
struct CitedSentence {
    /// The heading section it is in (0 before the first heading).
    section: usize,
    /// The block it is in.
    block: usize,
    text: String,
    /// Its content words, read when a title, heading or alt text is compared with it.
    stems: std::cell::OnceCell<HashSet<String>>,
    citations: Vec<Citation>,
}

/// A title, heading or alt text waiting for the cited sentences it may restate.
struct Restating {
    /// Where in `claims` it goes.
    at: usize,
    text: String,
    /// Citations written in the block itself (a link in a heading).
    own: Vec<Citation>,
    /// The section a heading opens, or the blocks an alt text may borrow from; `None` for the
    /// title (the whole article).
    scope: Scope,
    location: Location,
    /// An alt text or heading that repeats a sentence of its neighbour adds nothing.
    repeats: bool,
}

enum Scope {
    Article,
    Section(usize),
    Blocks(Vec<usize>),
}

/// The fewest content words a restating block must share with a cited sentence to borrow its
/// citations: one shared word is a topic, two are a statement about it.
const MIN_SHARED_WORDS: usize = 2;

/// [`extract_titled`] with the sentence detector given, so the document side can be tested on its
/// own.
fn extract_with(
    body: &str,
    format: BodyFormat,
    title: Option<&str>,
    analyze: &dyn Fn(&str) -> SentenceFeatures,
) -> Result<Extraction, ExtractError> {
    extract_limited(body, format, title, analyze, &ExtractLimits::UNLIMITED)
}

/// [`extract_with`], stopping at the first claim or check over `limits`.
fn extract_limited(
    body: &str,
    format: BodyFormat,
    title: Option<&str>,
    analyze: &dyn Fn(&str) -> SentenceFeatures,
    limits: &ExtractLimits,
) -> Result<Extraction, ExtractError> {
    check_readable(body)?;
    let doc = document::parse(body, format);
    let mut budget = limits::Budget::new(limits);
    budget.links(doc.blocks.iter().map(|b| b.markers.len()).sum())?;
    if doc.blocks.is_empty() {
        return Err(ExtractError::Unreadable {
            reason: format!("no visible text in the {format} body once markup is removed"),
        });
    }
    let mut reader = Reader::new(body, format, analyze, &doc);
    // The title first: the draft's, else the body's own.
    reader.restating.extend(title_restating(title, &doc));
    for (block_index, block) in doc.blocks.iter().enumerate() {
        reader.block(block_index, block, &mut budget)?;
    }
    reader.finish(&mut budget)
}

/// The draft's title (else the body's own) as a block that may restate the article.
fn title_restating(title: Option<&str>, doc: &document::Document) -> Option<Restating> {
    let text = title
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty())
        .or_else(|| doc.title.clone())?;
    Some(Restating {
        at: 0,
        own: Vec::new(),
        scope: Scope::Article,
        location: Location {
            section: None,
            paragraph: 0,
            sentence: 0,
            span: None,
            block: Some(BlockRole::Title),
        },
        repeats: doc
            .blocks
            .iter()
            .any(|b| b.kind == BlockKind::Heading && same_words(&b.text, &text)),
        text,
    })
}

/// The reading of a draft's blocks in order: the claims and citations found so far, and where
/// the reading is (paragraph, section, heading).
struct Reader<'a> {
    body: &'a str,
    format: BodyFormat,
    analyze: &'a dyn Fn(&str) -> SentenceFeatures,
    doc: &'a document::Document,
    chars: CharIndex<'a>,
    html_cursor: usize,
    out: Extraction,
    listed: HashSet<String>,
    cited: Vec<CitedSentence>,
    restating: Vec<Restating>,
    paragraph: usize,
    section: usize,
    heading: Option<String>,
    /// A "Source: …" line lends its citations to the block before it.
    source_lines: SourceLines,
    /// The links each prose block of the body writes, for the claims that borrow them.
    block_links: Vec<BlockLinks>,
    /// The claims whose sources are borrowed (by id), and where each is.
    borrowing: std::collections::HashMap<String, Borrowing>,
}

/// The links one prose block writes, and where it is.
struct BlockLinks {
    section: usize,
    paragraph: usize,
    citations: Vec<Citation>,
}

/// Where a claim that borrows its sources is, and the issue it raises when none states it.
struct Borrowing {
    section: usize,
    paragraph: usize,
    unbacked: crate::model::Prejudgment,
}

/// One sentence of a prose block, with the citations that may source it.
struct SentenceAt<'b> {
    block: &'b document::Block,
    block_index: usize,
    /// The paragraph's index.
    index: usize,
    /// The sentence's index in its paragraph.
    i: usize,
    /// Its text in the block, markers masked.
    text: &'b str,
    range: std::ops::Range<usize>,
    own: &'b [Citation],
    dangling: &'b [String],
    /// The nearest citing sentences after and before it in its block.
    next: Option<&'b Vec<Citation>>,
    prev: Option<&'b Vec<Citation>>,
}

impl<'a> Reader<'a> {
    fn new(
        body: &'a str,
        format: BodyFormat,
        analyze: &'a dyn Fn(&str) -> SentenceFeatures,
        doc: &'a document::Document,
    ) -> Reader<'a> {
        Reader {
            body,
            format,
            analyze,
            doc,
            chars: CharIndex::new(body),
            html_cursor: 0,
            out: Extraction {
                format,
                claims: Vec::new(),
                citations: Vec::new(),
                paragraphs: 0,
                sentences: 0,
                unresolved: Vec::new(),
            },
            listed: HashSet::new(),
            cited: Vec::new(),
            restating: Vec::new(),
            paragraph: 0,
            section: 0,
            heading: None,
            source_lines: source_line_citations(doc),
            block_links: Vec::new(),
            borrowing: std::collections::HashMap::new(),
        }
    }

    /// Lists `citations` among the article's, each URL once.
    fn list(&mut self, citations: impl IntoIterator<Item = Citation>) {
        for c in citations {
            if self.listed.insert(c.url.clone()) {
                self.out.citations.push(c);
            }
        }
    }

    fn block(
        &mut self,
        block_index: usize,
        block: &'a document::Block,
        budget: &mut limits::Budget,
    ) -> Result<(), ExtractError> {
        if block.kind == BlockKind::Heading {
            self.heading_block(block);
            return Ok(());
        }
        let index = self.paragraph;
        self.paragraph += 1;
        if block.kind == BlockKind::AltText {
            self.alt_text(block_index, block, index);
            return Ok(());
        }
        if block.is_prose() {
            self.prose(block_index, block, index, budget)?;
        }
        Ok(())
    }

    /// A heading opens a section, and may restate it.
    fn heading_block(&mut self, block: &document::Block) {
        self.section += 1;
        let text = collapse_whitespace(&mask_markers(block));
        let own = block_citations(block, &self.doc.references);
        self.restating.push(Restating {
            at: self.out.claims.len(),
            text,
            own,
            scope: Scope::Section(self.section),
            location: Location {
                section: self.heading.clone(),
                paragraph: self.paragraph,
                sentence: 0,
                span: None,
                block: Some(BlockRole::Heading),
            },
            repeats: false,
        });
        self.heading = Some(block.text.split_whitespace().collect::<Vec<_>>().join(" "));
    }

    /// An image's alternative text restates its caption (the block after it) when it is in a
    /// figure, else the paragraph it is in (the block before it).
    fn alt_text(&mut self, block_index: usize, block: &document::Block, index: usize) {
        let doc = self.doc;
        let text = collapse_whitespace(&block.text);
        let next_is_caption = doc
            .blocks
            .get(block_index + 1)
            .is_some_and(|b| b.kind == BlockKind::Caption);
        let neighbour = if next_is_caption {
            Some(block_index + 1)
        } else {
            block_index.checked_sub(1)
        };
        let repeats = neighbour.is_some_and(|n| {
            let nb = &doc.blocks[n];
            sentences::sentences(&nb.text)
                .iter()
                .any(|s| same_words(&nb.text[s.text.clone()], &text))
        });
        self.restating.push(Restating {
            at: self.out.claims.len(),
            text,
            own: Vec::new(),
            scope: Scope::Blocks(neighbour.into_iter().collect()),
            location: Location {
                section: block.section.clone(),
                paragraph: index,
                sentence: 0,
                span: None,
                block: Some(BlockRole::AltText),
            },
            repeats,
        });
    }

    /// A prose block: its sentences, what each cites, and the claims among them.
    fn prose(
        &mut self,
        block_index: usize,
        block: &'a document::Block,
        index: usize,
        budget: &mut limits::Budget,
    ) -> Result<(), ExtractError> {
        let masked = mask_markers(block);
        let sentences = sentences::sentences(&masked);
        if sentences.is_empty() {
            return Ok(());
        }
        self.out.sentences += sentences.len();
        if self.source_lines.lines.contains(&block_index) {
            // "Source: [link]": not a statement; its citations went to the block before.
            let cites = block_citations(block, &self.doc.references);
            self.record_links(block, index, &cites);
            self.list(cites);
            return Ok(());
        }
        let (cites, dangling) = sentence_citations(block, &sentences, &self.doc.references);
        let written: Vec<Citation> = cites.iter().flatten().cloned().collect();
        self.record_links(block, index, &written);
        self.list(written);
        // For the paragraph rule: the nearest citing sentence after and before each sentence. A
        // source line after the block cites after its last sentence.
        let trailing = self.source_lines.lent.get(&block_index).cloned();
        let (next_citing, prev_citing) = nearest_citing(&cites, trailing.as_ref());
        // Asides and footers: only what they cite is judged; their other sentences are the
        // page's furniture, not the article's claims.
        let block_cites = cites.iter().any(|c| !c.is_empty()) || trailing.is_some();
        if block.peripheral.is_some() && !block_cites {
            return Ok(());
        }
        for (i, sentence) in sentences.iter().enumerate() {
            let at = SentenceAt {
                block,
                block_index,
                index,
                i,
                text: &masked[sentence.text.clone()],
                range: sentence.text.clone(),
                own: &cites[i],
                dangling: &dangling[i],
                next: next_citing[i],
                prev: prev_citing[i],
            };
            self.sentence(&at, budget)?;
        }
        Ok(())
    }

    /// A sentence: a claim when it is check-worthy, or a statement a citation covers, with the
    /// citations that source it (its own, else the nearest in its block) and the rule that chose
    /// them.
    fn sentence(
        &mut self,
        at: &SentenceAt<'_>,
        budget: &mut limits::Budget,
    ) -> Result<(), ExtractError> {
        let location = |span| Location {
            section: at.block.section.clone(),
            paragraph: at.index,
            sentence: at.i,
            span,
            block: block_role(at.block),
        };
        for written in at.dangling {
            self.out.unresolved.push(UnresolvedMarker {
                marker: written.clone(),
                location: location(None),
            });
        }
        let text = collapse_whitespace(at.text);
        // A dateline or byline ("VARELL, 13 May 2025", "By Priya Mistry, 21 March 2025") says
        // where and when the story was filed, and by whom: no claim a source could back.
        if is_dateline(&text) {
            return Ok(());
        }
        let features = (self.analyze)(&text);
        let worthy = features.is_check_worthy();
        // Only a sentence a citation could cover needs reading as a statement.
        let statement = !worthy && (!at.own.is_empty() || at.next.is_some()) && is_statement(&text);
        // Every statement a citation covers is a claim: one in its own sentence, or later in
        // the run of sentences it ends. A check-worthy sentence is a claim wherever it is,
        // sourced by the nearest citation of its block, or by none.
        let (citations, rule) = if !at.own.is_empty() {
            (at.own.to_vec(), CitationRule::SameSentence)
        } else if !at.dangling.is_empty() {
            (Vec::new(), CitationRule::None)
        } else if let Some(c) = at.next.filter(|_| worthy || statement) {
            (c.clone(), CitationRule::Paragraph)
        } else if let Some(c) = at.prev.filter(|_| worthy) {
            (c.clone(), CitationRule::Paragraph)
        } else {
            (Vec::new(), CitationRule::None)
        };
        let is_claim = match rule {
            CitationRule::SameSentence => worthy || statement,
            CitationRule::Paragraph | CitationRule::Section | CitationRule::Article => true,
            CitationRule::None => worthy && at.block.peripheral.is_none(),
        };
        if !is_claim {
            return Ok(());
        }
        let prejudgment = (rule == CitationRule::None).then(|| {
            let mut judged = cues::prejudge(&features);
            if !at.dangling.is_empty() {
                judged.problem = format!(
                    "{} (cites {}, which the article does not define)",
                    judged.problem,
                    at.dangling.join(", ")
                );
            }
            judged
        });
        let span = self.span(at.block, at.range.clone());
        if !citations.is_empty() {
            self.cited.push(CitedSentence {
                section: self.section,
                block: at.block_index,
                text: text.clone(),
                stems: std::cell::OnceCell::new(),
                citations: citations.clone(),
            });
        }
        budget.sentence(at.index, &text)?;
        budget.figures(at.index, features.figures.len())?;
        budget.claim(self.out.claims.len() + 1, citations.len())?;
        let id = claim_id(&text, at.index, at.i);
        // A statement without a source of its own may be backed by its paragraph's, its
        // section's or its article's: unless its own markers lead nowhere, or it reports the
        // publisher's own data, which only a source of its own can back.
        if !rule.is_own()
            && at.dangling.is_empty()
            && !features.has(crate::model::ClaimKind::FirstPersonData)
        {
            self.borrowing.insert(
                id.clone(),
                Borrowing {
                    section: self.section,
                    paragraph: at.index,
                    unbacked: cues::prejudge(&features),
                },
            );
        }
        self.out.claims.push(Claim {
            id,
            text,
            kinds: features.kinds.clone(),
            figures: features.figures.clone(),
            quotes: features.quotes.clone(),
            attributed_to: features.attributed_to.clone(),
            location: location(span),
            citations,
            citation_rule: rule,
            prejudgment,
            unbacked: None,
        });
        Ok(())
    }

    /// Notes the links a prose block writes (not an aside's or a footer's: those point
    /// elsewhere), and where the article first links each.
    fn record_links(&mut self, block: &document::Block, paragraph: usize, cites: &[Citation]) {
        if cites.is_empty() || block.peripheral.is_some() {
            return;
        }
        self.block_links.push(BlockLinks {
            section: self.section,
            paragraph,
            citations: cites.to_vec(),
        });
    }

    /// Where the sentence at `range` of `block` is in the draft's own text, in characters.
    fn span(&mut self, block: &document::Block, range: std::ops::Range<usize>) -> Option<Span> {
        match self.format {
            BodyFormat::Html => html_span(
                self.body,
                &block.text[range],
                &mut self.html_cursor,
                &self.chars,
            ),
            BodyFormat::Markdown | BodyFormat::Text => {
                let start = block.source_offset(range.start, false);
                let end = block.source_offset(range.end, true);
                match (start, end) {
                    (Some(s), Some(e)) if s < e => self.chars.span(s, e),
                    _ => None,
                }
            }
        }
    }

    /// Titles, headings and alt text, in reading order among the body's claims: each judged
    /// against what it restates.
    fn finish(mut self, budget: &mut limits::Budget) -> Result<Extraction, ExtractError> {
        let paragraph = self.paragraph;
        self.out.paragraphs = paragraph;
        let mut claims = std::mem::take(&mut self.out.claims).into_iter();
        let mut merged = Vec::new();
        let mut taken = 0;
        let body_claims = claims.len();
        let mut restated = 0;
        for r in std::mem::take(&mut self.restating) {
            while taken < r.at {
                if let Some(c) = claims.next() {
                    merged.push(c);
                }
                taken += 1;
            }
            if let Some(mut claim) = restated_claim(&r, &self.cited, self.analyze) {
                if let Some(unbacked) = claim.unbacked.take() {
                    self.borrowing.insert(
                        claim.id.clone(),
                        Borrowing {
                            // The title and headings stand for the whole article.
                            section: usize::MAX,
                            paragraph: claim.location.paragraph,
                            unbacked,
                        },
                    );
                }
                restated += 1;
                // A title, heading or alt text that makes a claim was read as a sentence too.
                self.out.sentences += 1;
                budget.sentence(claim.location.paragraph, &claim.text)?;
                budget.figures(claim.location.paragraph, claim.figures.len())?;
                budget.claim(body_claims + restated, claim.citations.len())?;
                self.list(claim.citations.iter().cloned());
                merged.push(claim);
            }
        }
        merged.extend(claims);
        // A heading after the last paragraph stands before none: it is placed at the last.
        for claim in &mut merged {
            claim.location.paragraph = claim.location.paragraph.min(paragraph.saturating_sub(1));
        }
        // An article that links no source keeps its unsourced claims as they are.
        for claim in &mut merged {
            if let Some(at) = self.borrowing.get(&claim.id)
                && (!self.block_links.is_empty() || !claim.citations.is_empty())
            {
                let before = claim.citations.len();
                borrow_sources(claim, at, &self.block_links);
                budget.checks(claim.citations.len().saturating_sub(before))?;
            }
        }
        self.out.claims = merged;
        Ok(self.out)
    }
}

/// The most sources a statement without its own is judged against: its paragraph's, then its
/// section's before it, then the article's others, nearest first. News stories cite a handful;
/// past this many the nearest are the likeliest.
pub const MAX_BORROWED_SOURCES: usize = 8;

/// Gives a claim without a source of its own the sources that may back it, in order: its
/// paragraph's (already its citations), the sources linked in the paragraphs before it in its
/// section (nearest first), then every other source the article links, nearest first. Its rule
/// names the nearest that gave one, and `unbacked` the issue it raises when none states it.
fn borrow_sources(claim: &mut Claim, at: &Borrowing, links: &[BlockLinks]) {
    let first_linked = |url: &str| {
        links
            .iter()
            .find(|b| b.citations.iter().any(|c| c.url == url))
            .map(|b| b.paragraph)
    };
    let mut chosen: Vec<Citation> = std::mem::take(&mut claim.citations);
    let mut rule = claim.citation_rule;
    let add = |c: &Citation, chosen: &mut Vec<Citation>| {
        if chosen.len() < MAX_BORROWED_SOURCES && !chosen.iter().any(|have| have.url == c.url) {
            chosen.push(c.clone());
            true
        } else {
            false
        }
    };
    // The section's paragraphs before it, nearest first.
    for b in links
        .iter()
        .rev()
        .filter(|b| b.section == at.section && b.paragraph < at.paragraph)
    {
        for c in &b.citations {
            if add(c, &mut chosen) && rule == CitationRule::None {
                rule = CitationRule::Section;
            }
        }
    }
    // The rest of the article, nearest first (before it on a tie).
    let mut rest: Vec<&BlockLinks> = links.iter().collect();
    rest.sort_by_key(|b| {
        (
            b.paragraph.abs_diff(at.paragraph),
            b.paragraph > at.paragraph,
        )
    });
    for b in rest {
        for c in &b.citations {
            if add(c, &mut chosen) && rule == CitationRule::None {
                rule = CitationRule::Article;
            }
        }
    }
    for c in &mut chosen {
        c.paragraph = first_linked(&c.url);
    }
    claim.citations = chosen;
    claim.citation_rule = rule;
    claim.unbacked = Some(at.unbacked.clone());
    claim.prejudgment = None;
}

/// The citations of each of a block's `sentences`, each URL once per sentence, and the
/// citation markers it writes that the article does not define.
fn sentence_citations(
    block: &document::Block,
    sentences: &[sentences::Sentence],
    references: &citations::References,
) -> (Vec<Vec<Citation>>, Vec<Vec<String>>) {
    let mut cites: Vec<Vec<Citation>> = vec![Vec::new(); sentences.len()];
    let mut dangling: Vec<Vec<String>> = vec![Vec::new(); sentences.len()];
    // The URLs each sentence cites so far: a set, so a sentence with thousands of links
    // stays linear.
    let mut cited_urls: Vec<HashSet<String>> = vec![HashSet::new(); sentences.len()];
    for marker in &block.markers {
        let owner = sentences
            .partition_point(|s| s.owned.end <= marker.range.start)
            .min(sentences.len() - 1);
        match citations::resolve(marker, &block.text, references) {
            citations::Resolved::Cites(found) => {
                for c in found {
                    if cited_urls[owner].insert(c.url.clone()) {
                        cites[owner].push(c);
                    }
                }
            }
            citations::Resolved::Dangling(written) => dangling[owner].push(written),
            citations::Resolved::Ignored => {}
        }
    }
    (cites, dangling)
}

/// Per sentence of a block, the citations of a citing sentence near it.
type Nearest<'c> = Vec<Option<&'c Vec<Citation>>>;

/// Citations of the nearest citing sentence after each sentence (`trailing`, a source line's,
/// after the last), and before it.
fn nearest_citing<'c>(
    cites: &'c [Vec<Citation>],
    trailing: Option<&'c Vec<Citation>>,
) -> (Nearest<'c>, Nearest<'c>) {
    let n = cites.len();
    let mut next_citing: Nearest<'c> = vec![None; n];
    let mut prev_citing: Nearest<'c> = vec![None; n];
    let mut last = trailing;
    for i in (0..n).rev() {
        next_citing[i] = last;
        if !cites[i].is_empty() {
            last = Some(&cites[i]);
        }
    }
    last = None;
    for i in 0..n {
        prev_citing[i] = last;
        if !cites[i].is_empty() {
            last = Some(&cites[i]);
        }
    }
    (next_citing, prev_citing)
}

/// Whether a headline says what happened or what holds, with a word that has an opposite or a
/// direction ("Council scraps weekly bin collections", "Ferry service suspended for the
/// winter"), a ruling ("Judge dismisses …") or a negation: a statement, not a label.
fn says_what_happened(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        let next = words.get(i + 1).map(String::as_str);
        crate::text::lexicon::opposite(w).is_some()
            || !crate::text::lexicon::directions(w, next, false).is_empty()
            || crate::text::lexicon::ruling(w).is_some()
            || crate::text::lexicon::is_negation(w)
    })
}

/// The claim a title, heading or alt text makes, if any: with its own citations; else with the
/// citations of the cited sentence in its scope it restates (sharing at least
/// [`MIN_SHARED_WORDS`] content words, and at least half of its own); else, when it is
/// check-worthy, a claim that cites nothing (a title or heading; an alt text describes an
/// image and is not prejudged).
fn restated_claim(
    r: &Restating,
    cited: &[CitedSentence],
    analyze: &dyn Fn(&str) -> SentenceFeatures,
) -> Option<Claim> {
    if r.repeats || r.text.trim().ends_with('?') {
        return None;
    }
    let features = analyze(&r.text);
    let words = stems(&r.text);
    let (citations, rule) = if !r.own.is_empty() {
        (r.own.clone(), CitationRule::SameSentence)
    } else {
        let in_scope = |c: &&CitedSentence| match &r.scope {
            Scope::Article => true,
            Scope::Section(s) => c.section == *s,
            Scope::Blocks(blocks) => blocks.contains(&c.block),
        };
        let best = cited
            .iter()
            .filter(in_scope)
            .map(|c| {
                let theirs = c.stems.get_or_init(|| stems(&c.text));
                (theirs.intersection(&words).count(), c)
            })
            .filter(|(shared, _)| *shared >= MIN_SHARED_WORDS && shared * 2 >= words.len())
            .max_by_key(|(shared, _)| *shared);
        match best {
            Some((_, c)) => (c.citations.clone(), CitationRule::Paragraph),
            None => (Vec::new(), CitationRule::None),
        }
    };
    let restates = rule != CitationRule::None && words.len() >= MIN_SHARED_WORDS;
    let alt_text = r.location.block == Some(BlockRole::AltText);
    // A title, heading or alt text is a label unless it states a checkable fact of its own: a
    // figure other than a year, a quotation, an attribution, a comparison or record. "Eastport
    // budget" or "Flu vaccine uptake 2023-24" names what follows; judged against a source, a
    // label is "not clearly stated" and, worse, can read as a contradiction.
    let states_a_fact = features
        .figures
        .iter()
        .any(|f| f.unit != crate::model::Unit::Year)
        || features
            .kinds
            .iter()
            .any(|k| *k != crate::model::ClaimKind::Date)
        || says_what_happened(&r.text);
    if !states_a_fact {
        return None;
    }
    // Kept when it restates a cited sentence, or is check-worthy and not an image's description.
    if !restates && alt_text {
        return None;
    }
    let judged = cues::prejudge(&features);
    let prejudgment = (rule == CitationRule::None).then(|| judged.clone());
    let role = r.location.block.map_or("", BlockRole::as_str);
    Some(Claim {
        id: claim_id(
            &format!("{role}\u{1f}{}", r.text),
            r.location.paragraph,
            r.location.sentence,
        ),
        text: r.text.clone(),
        kinds: features.kinds,
        figures: features.figures,
        quotes: features.quotes,
        attributed_to: features.attributed_to,
        location: r.location.clone(),
        citations,
        citation_rule: rule,
        prejudgment,
        // Read by `finish`: the issue it raises if it borrows sources and none states it.
        unbacked: (!rule.is_own()).then_some(judged),
    })
}

/// The content words of a text, as the judge compares them (stemmed, stop words dropped).
fn stems(text: &str) -> HashSet<String> {
    crate::text::tokens::tokenize(text).into_iter().collect()
}

/// Whether two texts have the same words, whatever their case and punctuation.
fn same_words(a: &str, b: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    words(a) == words(b)
}

/// Words that open a sentence pointing at a link rather than stating anything: "See the report
/// [1]", "Read more", "Source: [2]".
const LINK_LEADS: &[&str] = &[
    "see",
    "read",
    "click",
    "visit",
    "download",
    "watch",
    "listen",
    "follow",
    "subscribe",
    "sign",
    "learn",
    "find",
    "more",
    "source",
    "sources",
    "via",
    "photo",
    "photograph",
    "image",
    "picture",
    "credit",
    "credits",
    "pictured",
    "courtesy",
    "related",
    "contact",
    "email",
    "share",
    "data",
    "figures",
];

/// Words a dateline or byline is made of, besides names, places and the date.
const DATELINE_WORDS: &[&str] = &[
    "by",
    "and",
    "staff",
    "reporter",
    "correspondent",
    "editor",
    "writer",
    "desk",
    "updated",
    "published",
    "posted",
    "filed",
    "last",
    "at",
    "on",
    "am",
    "pm",
    "gmt",
    "bst",
    "utc",
    "cet",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mon",
    "tue",
    "wed",
    "thu",
    "fri",
    "sat",
    "sun",
    "the",
    "of",
    "in",
    "our",
    "political",
    "health",
    "business",
    "economics",
    "science",
    "sports",
    "sport",
    "local",
    "court",
    "courts",
];

/// Whether a line is a dateline or byline: a date with at most a place, a name or a byline's
/// words around it ("VARELL, 13 May 2025", "By Ellie Carter, 11 June 2025", "Updated 14:05
/// GMT"), or "By" and a name. Nothing in it is lower-case but those words.
pub(crate) fn is_dateline(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.len() > 10 {
        return false;
    }
    let is_month = |w: &str| {
        crate::text::lexicon::MONTHS
            .iter()
            .any(|(m, _)| m.eq_ignore_ascii_case(w))
    };
    let dated = words.iter().any(|w| is_month(w));
    let byline = words[0].eq_ignore_ascii_case("by") && words.len() <= 6;
    if !dated && !byline {
        return false;
    }
    words.iter().all(|w| {
        w.chars().all(|c| c.is_ascii_digit())
            || is_month(w)
            || DATELINE_WORDS.contains(&w.to_lowercase().as_str())
            || w.chars().next().is_some_and(char::is_uppercase)
    })
}

/// Whether a sentence states something a source could back: not a question, not a pointer to a
/// link ("See the report [1]"), and with at least two content words ("Sales fell [1]").
fn is_statement(text: &str) -> bool {
    let trimmed = text.trim();
    if trimmed.ends_with('?') || trimmed.ends_with(':') {
        return false;
    }
    let first = trimmed
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .map(str::to_lowercase);
    if first.is_some_and(|w| LINK_LEADS.contains(&w.as_str())) {
        return false;
    }
    // Two content words, as the judge reads them (stop words left out), are enough.
    trimmed
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 1)
        .filter(|w| !crate::text::tokens::is_stop_word(&w.to_lowercase()))
        .take(2)
        .count()
        >= 2
}

/// Every citation written in a block, resolved, in order, one per URL.
fn block_citations(block: &document::Block, refs: &citations::References) -> Vec<Citation> {
    let mut out: Vec<Citation> = Vec::new();
    for marker in &block.markers {
        if let citations::Resolved::Cites(found) = citations::resolve(marker, &block.text, refs) {
            for c in found {
                if !out.iter().any(|have| have.url == c.url) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// "Source: [link]" lines: blocks that only name where the block before them comes from.
struct SourceLines {
    /// The source lines, by block index.
    lines: HashSet<usize>,
    /// The block before each source line → the line's citations.
    lent: std::collections::HashMap<usize, Vec<Citation>>,
}

/// Words that open a source line, lower-case.
const SOURCE_LINE_LEADS: &[&str] = &["source", "sources", "via", "data", "figures", "from"];

fn source_line_citations(doc: &document::Document) -> SourceLines {
    let mut lines = HashSet::new();
    let mut lent = std::collections::HashMap::new();
    for (i, block) in doc.blocks.iter().enumerate() {
        if !block.is_prose() || block.kind == BlockKind::AltText {
            continue;
        }
        // Most blocks open with another word: look before masking anything.
        let opening = block
            .text
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .map(str::to_lowercase);
        if !opening.is_some_and(|w| SOURCE_LINE_LEADS.contains(&w.as_str())) {
            continue;
        }
        let text = collapse_whitespace(&mask_markers(block));
        let first = text
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .map(str::to_lowercase);
        let leads =
            first.is_some_and(|w| SOURCE_LINE_LEADS.contains(&w.as_str())) && text.contains(':');
        let short = text.split_whitespace().count() <= 12;
        if !(leads && short) {
            continue;
        }
        let cites = block_citations(block, &doc.references);
        if cites.is_empty() {
            continue;
        }
        // The prose block just before it, in the same section.
        if let Some(prev) = i.checked_sub(1).filter(|&p| {
            let b = &doc.blocks[p];
            b.is_prose() && b.kind != BlockKind::AltText
        }) {
            lent.insert(prev, cites);
        }
        lines.insert(i);
    }
    SourceLines { lines, lent }
}

/// The kind of block a claim sits in, for its location.
fn block_role(block: &document::Block) -> Option<BlockRole> {
    block.peripheral.or(match block.kind {
        BlockKind::ListItem => Some(BlockRole::ListItem),
        BlockKind::TableCell => Some(BlockRole::TableCell),
        BlockKind::Quote => Some(BlockRole::Quote),
        BlockKind::Caption => Some(BlockRole::Caption),
        BlockKind::AltText => Some(BlockRole::AltText),
        _ => None,
    })
}

/// Fails loudly on a body that is empty or is not text.
fn check_readable(body: &str) -> Result<(), ExtractError> {
    if body.trim_start_matches('\u{feff}').trim().is_empty() {
        return Err(ExtractError::EmptyBody);
    }
    if body.contains('\0') {
        return Err(ExtractError::Unreadable {
            reason: "it contains NUL bytes: binary data, not text".into(),
        });
    }
    let (mut total, mut bad) = (0usize, 0usize);
    for c in body.chars() {
        total += 1;
        if c == '\u{fffd}' || (c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}')) {
            bad += 1;
        }
    }
    if bad * MAX_BAD_CHAR_SHARE > total {
        return Err(ExtractError::Unreadable {
            reason: format!(
                "{bad} of its {total} characters are control or replacement characters"
            ),
        });
    }
    Ok(())
}

/// The block text with numbered and footnote markers and bare URLs blanked to spaces (byte for
/// byte, so offsets hold): they are not prose, their dots must not end sentences, and their
/// digits must not read as figures. Link text stays: it is prose.
fn mask_markers(block: &document::Block) -> String {
    let mut bytes = block.text.clone().into_bytes();
    for m in &block.markers {
        let hide = match &m.target {
            Target::Numbered(_) | Target::Footnote(_) | Target::Anchor(_) => true,
            Target::Url { style, .. } => matches!(
                style,
                crate::model::CitationStyle::BareUrl
                    | crate::model::CitationStyle::NumberedReference
            ),
        };
        if hide && let Some(range) = bytes.get_mut(m.range.clone()) {
            range.fill(b' ');
        }
    }
    // Markers cover whole characters, so blanking their bytes leaves valid UTF-8; should one
    // not, the unmasked text is still correct, only noisier.
    String::from_utf8(bytes).unwrap_or_else(|_| block.text.clone())
}

/// Collapses whitespace runs to one space; no space is kept before closing punctuation, where a
/// blanked marker leaves one ("gains [2]." reads "gains.").
fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() && !word.starts_with(['.', ',', ';', ':', '!', '?', ')']) {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Stable across replays: the same text at the same place gets the same id.
fn claim_id(text: &str, paragraph: usize, sentence: usize) -> String {
    let mut hash = Sha256::new();
    hash.update(text.to_lowercase().as_bytes());
    hash.update([0x1f]);
    hash.update(paragraph.to_string().as_bytes());
    hash.update([0x1f]);
    hash.update(sentence.to_string().as_bytes());
    let digest = hash.finalize();
    hex::encode(&digest[..8])
}

/// How far ahead of the last found sentence an HTML sentence is first looked for; only when it is
/// not there is the rest of the body searched, so that locating stays linear in practice.
const HTML_SEARCH_WINDOW: usize = 16 * 1024;

/// Finds an HTML sentence verbatim in the body, searching forward from the last one found.
fn html_span(body: &str, sentence: &str, cursor: &mut usize, chars: &CharIndex) -> Option<Span> {
    let sentence = sentence.trim();
    if sentence.is_empty() {
        return None;
    }
    let rest = body.get(*cursor..)?;
    let mut window_end = (HTML_SEARCH_WINDOW + sentence.len()).min(rest.len());
    while !rest.is_char_boundary(window_end) {
        window_end -= 1;
    }
    let found = rest[..window_end]
        .find(sentence)
        .or_else(|| rest.find(sentence))?;
    let start = *cursor + found;
    let end = start + sentence.len();
    *cursor = end;
    chars.span(start, end)
}

/// Converts body byte offsets to character offsets without rescanning the body for each claim.
struct CharIndex<'a> {
    body: &'a str,
    ascii: bool,
    /// (byte, char) at every [`CharIndex::STRIDE`] bytes or so, on character boundaries.
    checkpoints: Vec<(usize, usize)>,
}

impl<'a> CharIndex<'a> {
    /// Short enough that counting from a checkpoint costs little per claim, long enough that
    /// the checkpoints of a long article stay few.
    const STRIDE: usize = 256;

    fn new(body: &'a str) -> Self {
        let ascii = body.is_ascii();
        let mut checkpoints = vec![(0, 0)];
        if !ascii {
            let mut next = Self::STRIDE;
            for (chars, (byte, _)) in body.char_indices().enumerate() {
                if byte >= next {
                    checkpoints.push((byte, chars));
                    next = byte + Self::STRIDE;
                }
            }
        }
        CharIndex {
            body,
            ascii,
            checkpoints,
        }
    }

    fn char_at(&self, byte: usize) -> Option<usize> {
        if !self.body.is_char_boundary(byte) {
            return None;
        }
        if self.ascii {
            return Some(byte);
        }
        let at = self
            .checkpoints
            .partition_point(|(b, _)| *b <= byte)
            .checked_sub(1)?;
        let (b, c) = self.checkpoints[at];
        Some(c + self.body[b..byte].chars().count())
    }

    fn span(&self, start: usize, end: usize) -> Option<Span> {
        Some(Span {
            start: self.char_at(start)?,
            end: self.char_at(end)?,
        })
    }
}

static HTML_OPENING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^<(?:!doctype|html|head|body|!--|(?:p|div|h[1-6]|article|section|main|header|ul|ol|li|table|blockquote|figure|span|a|em|strong|meta|title|link)[\s>/])",
    )
    .expect("static regex")
});
static MARKDOWN_SIGNS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^#{1,6}[ \t]+\S|\]\([^)\s]+\)|^[ \t]*\[[^\]]+\]:[ \t]*\S|^[ \t]{0,3}[-*+][ \t]+\S|^[ \t]{0,3}\d{1,3}\.[ \t]+\S|\*\*\S[^*\n]*\*\*|__\S[^_\n]*__|`[^`\n]+`|^>[ \t]|\[\^[^\]\s]+\]",
    )
    .expect("static regex")
});

/// Guesses a body's format from its content: HTML when it opens (after whitespace and a byte
/// order mark) with `<!doctype`, `<html` or a block-level tag and has closing tags; Markdown when
/// it has Markdown structure (headings, links, reference definitions, lists, emphasis, code,
/// footnotes); text otherwise.
pub fn detect_format(body: &str) -> BodyFormat {
    let head = body.trim_start_matches('\u{feff}').trim_start();
    if HTML_OPENING.is_match(head) && (head.contains("</") || head.contains("/>")) {
        return BodyFormat::Html;
    }
    if MARKDOWN_SIGNS.is_match(body) {
        return BodyFormat::Markdown;
    }
    BodyFormat::Text
}

/// Decodes raw bytes (a file, stdin) and extracts them; `format` `None` means detect.
///
/// # Errors
/// [`ExtractError::Unreadable`] for bytes that are not UTF-8 text, and whatever [`extract`]
/// returns.
pub fn extract_bytes(bytes: &[u8], format: Option<BodyFormat>) -> Result<Extraction, ExtractError> {
    let body = std::str::from_utf8(bytes).map_err(|e| ExtractError::Unreadable {
        reason: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
    })?;
    let format = format.unwrap_or_else(|| detect_format(body));
    extract(body, format)
}

#[cfg(test)]
mod tests;
