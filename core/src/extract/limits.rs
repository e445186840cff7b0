//! Per-article limits: the work one draft may cost is bounded before the costly step, and an
//! article over a limit is refused whole (never checked in part), with the limit named.
//!
//! In order: the body's size and the title's (before anything is read), the body's nesting depth
//! (a linear scan before any tree is built; see [`crate::text::markup`]), its links and citation
//! markers (once parsed, before claims are looked for), then each sentence's words (before it is
//! read for figures and cues), each claim's figures, and the claims and the checks they ask for
//! (counted as they are found, so extraction stops at the first one over).
//!
//! The per-claim caps bound what one claim costs downstream: judging compares each of a claim's
//! figures and words with the passages of its page, so a claim of thousands of figures, inside
//! the body's size cap, cost minutes of a core where a real one costs milliseconds.

use crate::model::BodyFormat;
use crate::text::markup;

/// Default cap on a draft body (2 MiB).
pub const DEFAULT_EXTRACT_MAX_BODY_BYTES: u64 = 2 * 1024 * 1024;
/// Default cap on the claims of one article.
pub const DEFAULT_MAX_CLAIMS_PER_ARTICLE: usize = 1_000;
/// Default cap on the links, bare URLs and citation markers of one article.
pub const DEFAULT_MAX_LINKS_PER_ARTICLE: usize = 1_000;
/// Default cap on the (claim, cited source) checks one article may ask for.
pub const DEFAULT_MAX_CHECKS_PER_ARTICLE: usize = 1_000;
/// Default cap on how deep a draft's markup nests (HTML elements, Markdown quotes and lists).
pub const DEFAULT_EXTRACT_MAX_NESTING_DEPTH: usize = 256;
/// Default cap on the figures one claim states. A real sentence states a handful; a table
/// flattened into one sentence a few dozen.
pub const DEFAULT_MAX_FIGURES_PER_CLAIM: usize = 100;
/// Default cap on the words of one sentence read as a possible claim. Long legal or scientific
/// sentences run to a couple of hundred words.
pub const DEFAULT_MAX_WORDS_PER_CLAIM: usize = 1_000;
/// Default cap on each text field of a draft other than its body: the title, the URL, the
/// section, each author, the metadata (as JSON) and any field of the CMS's own (64 KiB).
pub const DEFAULT_MAX_FIELD_BYTES: u64 = 64 * 1024;

/// The limits of one article; see `[extract]` in `config/factgate.toml` for each key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    /// `extract.max_body_bytes`.
    pub max_body_bytes: u64,
    /// `extract.max_claims_per_article`.
    pub max_claims: usize,
    /// `extract.max_links_per_article`.
    pub max_links: usize,
    /// `extract.max_checks_per_article`.
    pub max_checks: usize,
    /// `extract.max_nesting_depth`.
    pub max_nesting_depth: usize,
    /// `extract.max_figures_per_claim`.
    pub max_figures_per_claim: usize,
    /// `extract.max_words_per_claim`.
    pub max_words_per_claim: usize,
    /// `extract.max_field_bytes`: the title here; the draft's other fields where it is read.
    pub max_field_bytes: u64,
}

impl Default for ExtractLimits {
    /// The configuration's defaults.
    fn default() -> Self {
        Self {
            max_body_bytes: DEFAULT_EXTRACT_MAX_BODY_BYTES,
            max_claims: DEFAULT_MAX_CLAIMS_PER_ARTICLE,
            max_links: DEFAULT_MAX_LINKS_PER_ARTICLE,
            max_checks: DEFAULT_MAX_CHECKS_PER_ARTICLE,
            max_nesting_depth: DEFAULT_EXTRACT_MAX_NESTING_DEPTH,
            max_figures_per_claim: DEFAULT_MAX_FIGURES_PER_CLAIM,
            max_words_per_claim: DEFAULT_MAX_WORDS_PER_CLAIM,
            max_field_bytes: DEFAULT_MAX_FIELD_BYTES,
        }
    }
}

impl ExtractLimits {
    /// No limit at all: what [`super::extract`] applies, for callers that bound their input
    /// themselves (tests, benches, `factgate extract` on a file already capped).
    pub(crate) const UNLIMITED: ExtractLimits = ExtractLimits {
        max_body_bytes: u64::MAX,
        max_claims: usize::MAX,
        max_links: usize::MAX,
        max_checks: usize::MAX,
        max_nesting_depth: usize::MAX,
        max_figures_per_claim: usize::MAX,
        max_words_per_claim: usize::MAX,
        max_field_bytes: u64::MAX,
    };

    /// Whether a draft field of `bytes` bytes (named `field` in the error) is within
    /// `extract.max_field_bytes`.
    ///
    /// # Errors
    /// [`LimitExceeded::FieldBytes`] naming the field and the key.
    pub fn check_field(&self, field: &'static str, bytes: usize) -> Result<(), LimitExceeded> {
        if bytes as u64 > self.max_field_bytes {
            return Err(LimitExceeded::FieldBytes {
                field,
                bytes,
                limit: self.max_field_bytes,
            });
        }
        Ok(())
    }
}

/// Which limit an article went over, with its figures; the message names the configuration key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LimitExceeded {
    #[error("the body is larger than extract.max_body_bytes ({limit} bytes)")]
    BodyBytes { limit: u64 },
    #[error("the body's markup nests deeper than extract.max_nesting_depth ({limit} levels)")]
    NestingDepth { limit: usize },
    #[error(
        "the article has more than extract.max_links_per_article ({limit}) links and citation markers ({count} found)"
    )]
    Links { count: usize, limit: usize },
    #[error("the article has more than extract.max_claims_per_article ({limit}) claims")]
    Claims { limit: usize },
    #[error(
        "the article's claims ask for more than extract.max_checks_per_article ({limit}) checks of cited sources"
    )]
    Checks { limit: usize },
    #[error(
        "the draft's {field} is larger than extract.max_field_bytes ({limit} bytes; it has {bytes})"
    )]
    FieldBytes {
        /// `title`, `section`, `metadata`…
        field: &'static str,
        bytes: usize,
        limit: u64,
    },
    #[error(
        "a sentence (paragraph {paragraph}) has more than extract.max_words_per_claim ({limit}) words ({count} found)"
    )]
    ClaimWords {
        paragraph: usize,
        count: usize,
        limit: usize,
    },
    #[error(
        "a claim (paragraph {paragraph}) states more than extract.max_figures_per_claim ({limit}) figures ({count} found)"
    )]
    ClaimFigures {
        paragraph: usize,
        count: usize,
        limit: usize,
    },
}

/// The checks that need no parse: the body's size and the title's, then nesting depth.
pub(super) fn check_before_parse(
    body: &str,
    format: BodyFormat,
    title: Option<&str>,
    limits: &ExtractLimits,
) -> Result<(), LimitExceeded> {
    if body.len() as u64 > limits.max_body_bytes {
        return Err(LimitExceeded::BodyBytes {
            limit: limits.max_body_bytes,
        });
    }
    if let Some(title) = title {
        limits.check_field("title", title.len())?;
    }
    let depth = match format {
        BodyFormat::Html => markup::check_html_depth(body, limits.max_nesting_depth),
        BodyFormat::Markdown => markup::check_markdown_depth(body, limits.max_nesting_depth),
        BodyFormat::Text => Ok(()),
    };
    depth.map_err(|e| LimitExceeded::NestingDepth { limit: e.limit })
}

/// Counts claims and checks as extraction finds them, and stops it at the first one over.
#[derive(Debug)]
pub(super) struct Budget<'a> {
    limits: &'a ExtractLimits,
    checks: usize,
}

impl<'a> Budget<'a> {
    pub(super) fn new(limits: &'a ExtractLimits) -> Self {
        Budget { limits, checks: 0 }
    }

    /// The parsed body holds `links` links and markers.
    pub(super) fn links(&self, links: usize) -> Result<(), LimitExceeded> {
        if links > self.limits.max_links {
            return Err(LimitExceeded::Links {
                count: links,
                limit: self.limits.max_links,
            });
        }
        Ok(())
    }

    /// A sentence of paragraph `paragraph` is about to be read for figures and cues: its words
    /// are counted first (a linear scan), so an endless sentence is refused before the reading
    /// whose cost grows with it.
    pub(super) fn sentence(&self, paragraph: usize, text: &str) -> Result<(), LimitExceeded> {
        let limit = self.limits.max_words_per_claim;
        let count = text.split_whitespace().count();
        if count > limit {
            return Err(LimitExceeded::ClaimWords {
                paragraph,
                count,
                limit,
            });
        }
        Ok(())
    }

    /// A claim of paragraph `paragraph` states `figures` figures.
    pub(super) fn figures(&self, paragraph: usize, figures: usize) -> Result<(), LimitExceeded> {
        let limit = self.limits.max_figures_per_claim;
        if figures > limit {
            return Err(LimitExceeded::ClaimFigures {
                paragraph,
                count: figures,
                limit,
            });
        }
        Ok(())
    }

    /// `extra` more checks: the sources a claim borrows from its section and article.
    pub(super) fn checks(&mut self, extra: usize) -> Result<(), LimitExceeded> {
        self.checks = self.checks.saturating_add(extra);
        if self.checks > self.limits.max_checks {
            return Err(LimitExceeded::Checks {
                limit: self.limits.max_checks,
            });
        }
        Ok(())
    }

    /// One more claim was found, the `claims`-th, citing `sources` distinct sources.
    pub(super) fn claim(&mut self, claims: usize, sources: usize) -> Result<(), LimitExceeded> {
        if claims > self.limits.max_claims {
            return Err(LimitExceeded::Claims {
                limit: self.limits.max_claims,
            });
        }
        self.checks = self.checks.saturating_add(sources);
        if self.checks > self.limits.max_checks {
            return Err(LimitExceeded::Checks {
                limit: self.limits.max_checks,
            });
        }
        Ok(())
    }
}
