//! The article as a reader sees it, block by block and sentence by sentence, so a report can show
//! the text with each claim marked where it is.
//!
//! It walks the body exactly as [`super::extract`] does (the same parser, paragraph numbering and
//! sentence splitting), so a claim's [`Location`](crate::model::Location) (paragraph, sentence)
//! names one sentence here. Citation markers stay in the text: the reader wrote them.

use super::{ExtractError, check_readable, mask_markers};
use crate::model::BodyFormat;
use crate::text::document::{self, BlockKind};
use crate::text::sentences;
use serde::Serialize;

/// What a block of the article is, for its presentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    Heading,
    Paragraph,
    ListItem,
    Quote,
    /// A table cell, a caption, an image's alternative text: shown as a paragraph.
    Other,
    /// An entry of the reference list or a footnote definition: never holds claims.
    Reference,
}

/// One block of the article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ViewBlock {
    pub kind: ViewKind,
    /// The paragraph index claims use; `None` for headings, which are not counted.
    pub paragraph: Option<usize>,
    /// The block's visible text (markup removed, citation markers kept).
    pub text: String,
    /// Byte ranges of the block's sentences in `text`, in order; the index is the sentence index
    /// claims use. Empty for headings and references.
    pub sentences: Vec<std::ops::Range<usize>>,
}

/// The blocks of `body`, read as `format`.
///
/// # Errors
/// The same as [`super::extract`]: a body that is empty or not text.
pub fn article_view(body: &str, format: BodyFormat) -> Result<Vec<ViewBlock>, ExtractError> {
    check_readable(body)?;
    let doc = document::parse(body, format);
    let mut paragraph = 0;
    let mut blocks = Vec::with_capacity(doc.blocks.len());
    for block in &doc.blocks {
        let kind = match &block.kind {
            BlockKind::Heading => ViewKind::Heading,
            BlockKind::Paragraph => ViewKind::Paragraph,
            BlockKind::ListItem => ViewKind::ListItem,
            BlockKind::Quote => ViewKind::Quote,
            BlockKind::TableCell | BlockKind::Caption | BlockKind::AltText => ViewKind::Other,
            BlockKind::ReferenceEntry | BlockKind::FootnoteDefinition(_) => ViewKind::Reference,
        };
        let index = (kind != ViewKind::Heading).then(|| {
            paragraph += 1;
            paragraph - 1
        });
        let sentences = if block.is_prose() {
            sentences::sentences(&mask_markers(block))
                .into_iter()
                .map(|s| s.text)
                .collect()
        } else {
            Vec::new()
        };
        blocks.push(ViewBlock {
            kind,
            paragraph: index,
            text: block.text.clone(),
            sentences,
        });
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;

    #[test]
    fn every_claim_names_a_sentence_of_the_view_that_holds_its_words() {
        let body = "# Pricing\n\nThe plan costs $4/month [1]. It launched in 2021.\n\n\
                    - Sales grew 40% in 2023, the company said.\n\n\
                    ## Sources\n\n1. https://example.com/pricing\n";
        let extraction = extract(body, BodyFormat::Markdown).expect("readable");
        let view = article_view(body, BodyFormat::Markdown).expect("readable");
        assert!(!extraction.claims.is_empty());
        for claim in &extraction.claims {
            let block = view
                .iter()
                .find(|b| b.paragraph == Some(claim.location.paragraph))
                .expect("the claim's paragraph");
            let range = block.sentences[claim.location.sentence].clone();
            let first_word = claim.text.split_whitespace().next().expect("words");
            assert!(
                block.text[range].starts_with(first_word),
                "{claim:?} in {block:?}"
            );
        }
        assert_eq!(view[0].kind, ViewKind::Heading);
        assert_eq!(view[0].paragraph, None);
        assert!(view.iter().any(|b| b.kind == ViewKind::Reference));
    }

    #[test]
    fn html_markup_is_gone_and_an_empty_body_is_an_error() {
        let view = article_view(
            "<h1>T</h1><p>Revenue was <b>$5m</b> in 2020.</p>",
            BodyFormat::Html,
        )
        .expect("readable");
        assert_eq!(view[1].text, "Revenue was $5m in 2020.");
        assert!(article_view("  ", BodyFormat::Text).is_err());
    }
}
