//! Domain types shared by every stage: body formats, claims, figures, citations, locations,
//! severities and verdicts.
//!
//! These are data, not behaviour: extraction produces them, events carry them, verification and
//! the join read them. They serialize to the shapes described by the schemas in `schemas/`.

use serde::{Deserialize, Serialize};

/// How a draft's body is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyFormat {
    Markdown,
    Html,
    Text,
}

impl BodyFormat {
    /// The name used in events, config and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            BodyFormat::Markdown => "markdown",
            BodyFormat::Html => "html",
            BodyFormat::Text => "text",
        }
    }
}

impl std::fmt::Display for BodyFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for BodyFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "markdown" | "md" => Ok(BodyFormat::Markdown),
            "html" | "htm" => Ok(BodyFormat::Html),
            "text" | "txt" | "plain" => Ok(BodyFormat::Text),
            other => Err(format!(
                "unknown body format {other:?}: expected markdown, html or text"
            )),
        }
    }
}

/// What makes a sentence worth checking. A claim has one or more kinds.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ClaimKind {
    /// "73%", "12 percent".
    Percentage,
    /// "$4.2 billion", "€300m", "$9/month".
    Money,
    /// "500 students", "1.2 million users".
    Count,
    /// "one in five", "3:1", "3x".
    Ratio,
    /// "doubled", "tripled", "halved", "grew 3x".
    Change,
    /// "in 2023", "on 4 March 2024".
    Date,
    /// A quoted span: "…".
    Quote,
    /// "X said", "according to Y".
    Attribution,
    /// "more than", "faster than".
    Comparative,
    /// "the largest", "the first".
    Superlative,
    /// "our pilot with 500 students showed…", "we found", "our survey".
    FirstPersonData,
    /// A share of a population in words: "most parents", "the vast majority of residents".
    Proportion,
    /// A record: "an all-time low", "a record high", "the highest since records began".
    Record,
    /// Wrongdoing alleged against a named person: "Councillor Smith embezzled funds".
    Allegation,
}

/// The unit a figure is expressed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Percent,
    /// "3 percentage points".
    PercentagePoints,
    /// Money; the currency code is in [`Figure::currency`].
    Currency,
    /// A plain count of things.
    Count,
    /// "3x", "doubled" (2), "halved" (0.5).
    Multiplier,
    /// "one in five" (0.2), "3:1" (3).
    Ratio,
    /// A calendar year.
    Year,
}

/// A number stated in a claim, normalized so it can be compared with a source's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The figure as written: "$4.2 billion".
    pub text: String,
    /// The value with its scale applied: 4.2e9 for "$4.2 billion", 73 for "73%".
    pub value: f64,
    pub unit: Unit,
    /// ISO 4217 code for money ("USD", "EUR", "GBP"…), absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// The multiplier the text applied: 1e9 for "billion", 1e6 for "m", 1 when none.
    pub scale: f64,
    /// The period a rate is per: "month" for "$4/month", "year" for "$44 per year".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<String>,
}

/// Half-open range of character (Unicode scalar value) offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// Where a claim is in its article, so an editor can find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The nearest heading above the claim; absent before the first heading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Index of the paragraph (block: paragraph, list item, table cell, quote) in the article,
    /// counting from 0.
    pub paragraph: usize,
    /// Index of the sentence within its paragraph, counting from 0.
    pub sentence: usize,
    /// What kind of block the claim is in, when it is not a plain paragraph: the title, a
    /// heading, a list item, a caption or alt text, an aside or footer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<BlockRole>,
    /// Character offsets of the sentence in the body as received, when it can be located there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.section, self.block) {
            (_, Some(BlockRole::Title)) => f.write_str("title"),
            (Some(section), Some(BlockRole::Heading)) => write!(f, "{section}, heading"),
            (None, Some(BlockRole::Heading)) => f.write_str("heading"),
            (Some(section), _) => write!(f, "{section}, paragraph {}", self.paragraph + 1),
            (None, _) => write!(f, "paragraph {}", self.paragraph + 1),
        }?;
        match self.block {
            Some(BlockRole::Title | BlockRole::Heading) | None => Ok(()),
            Some(role) => write!(f, " ({})", role.as_str()),
        }
    }
}

/// The kind of block a claim sits in, when it is not a plain paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockRole {
    /// The article's title (the draft's `title`, an HTML `<title>`, Markdown front matter).
    Title,
    Heading,
    ListItem,
    TableCell,
    Quote,
    /// A figure or table caption.
    Caption,
    /// The alternative text of an image.
    AltText,
    /// An `<aside>` paragraph.
    Aside,
    /// A `<footer>` paragraph.
    Footer,
}

impl BlockRole {
    /// The name used in events and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockRole::Title => "title",
            BlockRole::Heading => "heading",
            BlockRole::ListItem => "list item",
            BlockRole::TableCell => "table cell",
            BlockRole::Quote => "quote",
            BlockRole::Caption => "caption",
            BlockRole::AltText => "alt text",
            BlockRole::Aside => "aside",
            BlockRole::Footer => "footer",
        }
    }
}

/// How a citation is written in the article.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CitationStyle {
    /// `[text](url)` or `<a href>`.
    InlineLink,
    /// `[text][ref]` with `[ref]: url` elsewhere.
    ReferenceLink,
    /// `[2]` resolved against the article's numbered reference list.
    NumberedReference,
    /// `[^1]` with a footnote definition.
    Footnote,
    /// A URL written out in the text.
    BareUrl,
}

/// A source an article cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    /// The absolute http(s) URL the citation points to.
    pub url: String,
    pub style: CitationStyle,
    /// The marker or anchor text as written: "2" for `[2]`, the link text for a link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// For a source a claim borrows from elsewhere in the article (rules `section` and
    /// `article`): the paragraph where the article first links it, counting from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paragraph: Option<usize>,
}

/// How a claim's citations were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CitationRule {
    /// A citation in the claim's own sentence.
    SameSentence,
    /// No citation in the sentence; the paragraph's citations back it, then the article's other
    /// sources (see `extract` docs).
    Paragraph,
    /// No citation in the paragraph; the sources linked in the paragraphs before it in its
    /// section back it, then the article's other sources.
    Section,
    /// No citation in the section before it; the sources the article cites elsewhere back it.
    Article,
    /// No citation backs the claim: the article cites no source (or the sentence's own markers
    /// lead nowhere).
    None,
}

impl CitationRule {
    /// Whether the claim's sources are its own sentence's: every other rule borrows them from
    /// its paragraph, section or article, and the claim is backed by whichever of them states it.
    pub fn is_own(self) -> bool {
        self == CitationRule::SameSentence
    }
}

/// The element of a claim its source states otherwise, as each writes it: what an editor needs
/// to see to judge that the comparison is fair ("17%" in the claim, "7%" in the source).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// The claim's words for the element, as in the claim's text.
    pub claim: String,
    /// The source's words for it, as in the evidence quoted.
    pub source: String,
}

/// How serious an issue is: docs/severity.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Low,
    Medium,
    High,
}

/// Why a claim with no citation is an issue, judged at extraction without any fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnsourcedKind {
    /// A statistic or figure with no source: high.
    Statistic,
    /// A market size, share or competitor figure with no source: high.
    MarketFigure,
    /// "Our pilot showed…" with no source: high, likely fabricated.
    FirstPersonData,
    /// Wrongdoing alleged against a named person with no source: high.
    Allegation,
    /// A qualitative claim with no source: low.
    Qualitative,
    /// What a named person or body said ("…," she said; the union said …): something the
    /// reporter heard, which no source the article cites holds. Low: listed as not checkable
    /// against the sources, never a block.
    ReportedSpeech,
}

/// The judgment extraction makes for a claim that cites nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prejudgment {
    pub kind: UnsourcedKind,
    pub severity: Severity,
    /// What is wrong, for the editor: "Statistical claim lacks citation".
    pub problem: String,
    /// What to do about it: "Add citation or qualify as estimate".
    pub recommendation: String,
}

/// A check-worthy statement found in an article.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Stable id derived from the claim's content and position, unique within its article.
    /// Events identify a claim globally by (article_id, revision, claim id).
    pub id: String,
    /// The sentence as the reader sees it (markup removed).
    pub text: String,
    pub kinds: Vec<ClaimKind>,
    pub figures: Vec<Figure>,
    /// Quoted spans, without their quote marks.
    pub quotes: Vec<String>,
    /// Who the claim is attributed to ("according to Gartner" → "Gartner").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributed_to: Option<String>,
    pub location: Location,
    /// The citations that back this claim.
    pub citations: Vec<Citation>,
    pub citation_rule: CitationRule,
    /// Set when the claim cites nothing: the issue it raises without any fetch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prejudgment: Option<Prejudgment>,
    /// Set when the claim's sources are borrowed from its paragraph, section or article (not its
    /// own sentence's): the issue it raises when none of them states it, judged as `prejudgment`
    /// is for a claim that cites nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbacked: Option<Prejudgment>,
}

/// The element of a claim that disagrees with its source: what a judgment compared and found
/// contradicted or unsupported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimElement {
    /// A figure's value.
    Figure,
    /// Which way something went: rose/fell, approved/rejected, won/lost.
    Direction,
    /// A statement the source makes with the opposite polarity ("does not raise" vs "raises").
    Negation,
    /// A figure the source gives for something else ("imports rose 6%", not exports).
    Subject,
    /// Percent vs percentage points, or the period a rate is per.
    Unit,
    /// The currency of an amount.
    Currency,
    /// A year or date.
    Date,
    /// Who said it.
    Speaker,
    /// The title or office of the person named.
    Title,
    /// A superlative or record the source does not state.
    Superlative,
    /// A multiplier ("tripled") the source does not state.
    Multiplier,
    /// A quantifier ("all", "every one") the source does not state.
    Quantifier,
    /// A place the source does not name.
    Place,
    /// A name the source does not mention.
    Name,
    /// Quoted words.
    Quote,
    /// The rating a cited fact-check gives the claim.
    Rating,
}

impl ClaimElement {
    /// The name used in events and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimElement::Figure => "figure",
            ClaimElement::Direction => "direction",
            ClaimElement::Negation => "negation",
            ClaimElement::Subject => "subject",
            ClaimElement::Unit => "unit",
            ClaimElement::Currency => "currency",
            ClaimElement::Date => "date",
            ClaimElement::Speaker => "speaker",
            ClaimElement::Title => "title",
            ClaimElement::Superlative => "superlative",
            ClaimElement::Multiplier => "multiplier",
            ClaimElement::Quantifier => "quantifier",
            ClaimElement::Place => "place",
            ClaimElement::Name => "name",
            ClaimElement::Quote => "quote",
            ClaimElement::Rating => "rating",
        }
    }
}

/// A claim's verdict against its source (docs/design.md, "Verdicts, severity and the decision").
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Verdict {
    /// The source states the claim.
    Supported,
    /// The source plainly states the same fact otherwise (a contradiction the judge is confident
    /// of), or a cited fact-check rates the claim false.
    Refuted,
    /// The source does not clearly state the claim: listed for review, and blocking only where
    /// the evidence that the source does not state it is strong (its issue's severity says).
    /// Events written before this name said `inconclusive`, which reads as this.
    #[serde(alias = "inconclusive")]
    Unconfirmed,
}

impl Verdict {
    /// The verdict as the contracts and metrics spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Refuted => "refuted",
            Verdict::Unconfirmed => "unconfirmed",
        }
    }
}
