//! Text analysis, one home for drafts and sources alike.
//!
//! - [`document`]: a draft body (Markdown, HTML or plain text) as blocks (headings, paragraphs,
//!   list items, table cells, captions) with their inline citation markers and reference list.
//! - [`webpage`]: a fetched page as text: charset decoding, HTML to visible text, paywall markers
//!   and the schema.org `ClaimReview` markup a fact-check page carries.
//! - [`interstitial`]: pages a site serves instead of the cited document: sign-in, access
//!   denied, bot checks, rate limits, consent and registration walls.
//! - [`html`]: the one table of HTML elements both readers agree on: what is never text, and
//!   what breaks a block.
//! - [`citations`]: links, reference links, numbered references, footnotes and bare URLs.
//! - [`sentences`]: a block's text split into sentences.
//! - [`tokens`]: words as the judge and extraction compare them: stop words, stems, numbers.
//! - [`cues`]: what a sentence signals: its claim kinds, quotes, attribution, change verbs,
//!   dates, superlatives; and the prejudgment of a claim that cites nothing.
//! - [`figures`]: the figures a sentence states, normalized to value, unit and scale.
//! - [`markup`]: bounded HTML and Markdown parsing: nesting checked before any tree is built.
//! - [`pdf`]: a cited PDF as text, bounded against hostile files: pages, paragraphs, and tables
//!   written as sentences as HTML tables are.
//! - [`csv_table`]: a cited CSV data file as text, its rows written as HTML tables' are.
//! - [`lexicon`]: the word lists (months, negations, change verbs, units…) every reader shares.

pub mod citations;
pub mod csv_table;
pub mod cues;
pub mod document;
pub mod figures;
pub mod html;
pub mod interstitial;
pub mod lexicon;
pub mod markup;
pub mod pdf;
pub mod sentences;
pub mod tokens;
pub mod webpage;
