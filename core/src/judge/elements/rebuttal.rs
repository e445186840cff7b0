//! Rebuttal: a page that repeats a claim in order to deny it ("A post on social media claims the
//! council banned dogs from its parks. That is false: …") does not back the claim, however many of
//! its words it repeats. A fact-check's rating given as data or as a "Rating:" line is
//! [`super::rating`]'s; this reads the prose.
//!
//! A sentence of the page that states something as *reported* (a report word: "claims", "a
//! post", "rumour", "viral"…), followed in it or in one of the next two sentences by a verdict of
//! falsehood ("That is false", "There is no evidence", "This is not true"), is read as a review of
//! that statement rated false. An article that itself reports the denial ("the claim that … is
//! false") agrees with such a page; one that states the claim as true is refuted by it.

use super::rating::ClaimReview;
use crate::judge::text::Text;

/// Words that mark a statement as something reported, not asserted.
const REPORT_WORDS: &[&str] = &[
    "claim",
    "claims",
    "claimed",
    "claiming",
    "post",
    "posts",
    "posted",
    "rumour",
    "rumours",
    "rumor",
    "rumors",
    "viral",
    "circulating",
    "circulated",
    "alleges",
    "alleged",
    "allegation",
    "allegations",
    "suggests",
    "suggested",
    "asserts",
    "asserted",
    "purports",
    "purported",
    "meme",
    "video",
    "videos",
    "myth",
    "misconception",
];

/// Phrases that say the reported statement is false.
const FALSE_VERDICTS: &[&str] = &[
    "that is false",
    "this is false",
    "that's false",
    "is false",
    "are false",
    "was false",
    "is untrue",
    "is not true",
    "isn't true",
    "is not correct",
    "is incorrect",
    "is wrong",
    "is misleading",
    "no evidence",
    "not supported by",
    "baseless",
    "unfounded",
    "debunked",
    "fabricated",
    "a hoax",
    "is a myth",
    "not the case",
    "did not happen",
    "never happened",
    "rating: false",
    "verdict: false",
    "false.",
];

/// How many sentences after a report its verdict may come.
const VERDICT_REACH: usize = 2;

fn lower_words(t: &Text) -> String {
    format!(" {} ", t.lowers().collect::<Vec<_>>().join(" "))
}

fn says_false(t: &Text) -> bool {
    let words = lower_words(t);
    let text = format!(" {} ", t.text().to_lowercase());
    FALSE_VERDICTS
        .iter()
        .any(|v| words.contains(&format!(" {v} ")) || text.contains(&format!(" {v}")))
}

/// The rebuttals a page makes in prose, as reviews rated false: each sentence that reports a
/// claim (a report word) followed, in it or the next two sentences, by a verdict of falsehood.
/// [`super::rating::applicable`] then rates an article's claim by them as by a fact-check's
/// data: an article that states the rebutted claim is refuted, one that reports the rebuttal
/// agrees.
pub(crate) fn prose_reviews(sentences: &[Text]) -> Vec<ClaimReview> {
    let mut out = Vec::new();
    for (i, s) in sentences.iter().enumerate() {
        if !s.lowers().any(|w| REPORT_WORDS.contains(&w)) {
            continue;
        }
        let last = (i + VERDICT_REACH).min(sentences.len().saturating_sub(1));
        if (i..=last).any(|k| says_false(&sentences[k])) {
            out.push(ClaimReview {
                claim_reviewed: reported_statement(s),
                rating_name: Some("False".to_owned()),
                ..ClaimReview::default()
            });
        }
        if out.len() >= MAX_PROSE_REVIEWS {
            break;
        }
    }
    out
}

/// What a reporting sentence says is claimed: its words after the reporting verb ("A post shared
/// widely claims | the council has banned dogs…"), or the whole sentence when there is none or
/// it ends the sentence ("…, a viral post claims.").
fn reported_statement(s: &Text) -> String {
    let text = s.text();
    const VERBS: &[&str] = &[
        "claim",
        "claims",
        "claimed",
        "claiming",
        "alleges",
        "alleged",
        "suggests",
        "suggested",
        "asserts",
        "asserted",
        "purports",
        "purported",
    ];
    let at = (0..s.toks.len()).find(|&i| VERBS.contains(&s.lower(i)));
    let rest = at
        .and_then(|i| s.toks.get(i + 1))
        .map(|t| text[t.start as usize..].trim())
        .map(|r| r.strip_prefix("that ").unwrap_or(r));
    match rest {
        Some(r) if r.split_whitespace().count() >= 3 => r.trim_end_matches('.').to_owned(),
        _ => text.trim().to_owned(),
    }
}

/// The most rebuttals read from one page's prose.
const MAX_PROSE_REVIEWS: usize = 16;

#[cfg(test)]
mod tests {
    use crate::judge::PageIndex;
    use crate::judge::elements::rating::{Rating, applicable};

    fn rated(claim: &str, page: &str) -> Option<Rating> {
        let page = PageIndex::new(page);
        applicable(claim, page.reviews()).map(|a| a.rating)
    }

    const PAGE: &str = "A post shared widely on social media claims the council has banned dogs from all of its parks. That is false. The ban applies only to the fenced children's play areas.";

    #[test]
    fn a_claim_reported_to_be_rebutted_does_not_stand() {
        assert_eq!(
            rated("The council has banned dogs from all of its parks.", PAGE),
            Some(Rating::False)
        );
        assert_eq!(
            rated(
                "The claim that the council has banned dogs from all of its parks is false.",
                PAGE
            ),
            Some(Rating::True)
        );
        // Reported, not asserted: the page neither backs nor refutes it.
        assert_eq!(
            rated(
                "A post claimed the council had banned dogs from all of its parks.",
                PAGE
            ),
            None
        );
    }

    #[test]
    fn a_page_that_states_the_claim_is_no_rebuttal() {
        let page = "The council has banned dogs from all of its parks. The ban starts in May.";
        assert_eq!(
            rated("The council has banned dogs from all of its parks.", page),
            None
        );
    }
}
