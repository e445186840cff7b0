//! Rebuttal: a page that repeats a claim in order to deny it ("A post on social media claims the
//! council banned dogs from its parks. That is false: …") does not back the claim, however many of
//! its words it repeats. A fact-check's rating given as data or as a "Rating:" line is
//! [`super::rating`]'s; this reads the prose.
//!
//! A sentence of the page rebuts the claim when it states most of the claim
//! ([`REPORTED_SHARE`] of its weighted words) as something *reported* (a report word: "claims",
//! "a post", "rumour", "viral"…) and a verdict of falsehood follows in it or in one of the next
//! two sentences ("That is false", "There is no evidence", "This is not true"). An article that
//! itself reports the denial ("the claim that … is false") agrees with such a page; one that
//! states the claim as true is refuted by it.

use super::rating;
use crate::judge::align::Alignment;
use crate::judge::text::Text;

/// The share of the claim's weighted words a page sentence must state to be a report of it.
pub const REPORTED_SHARE: f64 = 0.6;

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

/// A page sentence that rebuts the claim, and the words of the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebuttal {
    /// The sentence that reports the claim, as an index of the page's sentences.
    pub sentence: usize,
    /// The sentence that says it is false, as written.
    pub verdict: String,
    /// The claim itself reports the denial: the page backs it.
    pub claim_agrees: bool,
}

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

/// The page's rebuttal of the claim, if it has one (see the module documentation).
pub fn rebuts(a: &Alignment<'_>) -> Option<Rebuttal> {
    let claim = &a.claim;
    let words = claim.stems(0..claim.toks.len(), &|_| false);
    let total = a.weight_of(&words);
    if total <= 0.0 || words.len() < 3 {
        return None;
    }
    let sentences = a.page.sentences();
    for (i, s) in sentences.iter().enumerate() {
        let held: f64 = words
            .iter()
            .filter(|&w| s.holds(0..s.toks.len(), w))
            .map(|w| a.weight(w))
            .sum::<f64>()
            / total;
        if held < REPORTED_SHARE {
            continue;
        }
        let reported = s.lowers().any(|w| REPORT_WORDS.contains(&w));
        if !reported {
            continue;
        }
        let Some(verdict) = (i..=(i + VERDICT_REACH).min(sentences.len().saturating_sub(1)))
            .find(|&k| says_false(&sentences[k]))
        else {
            continue;
        };
        let claim_agrees =
            rating::opposite(claim.text(), s.text()) || rating::debunks(claim.text());
        return Some(Rebuttal {
            sentence: i,
            verdict: sentences[verdict].text().trim().to_owned(),
            claim_agrees,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::PageIndex;
    use crate::text::figures::parse_figures;

    fn rebuttal(claim: &str, page: &str) -> Option<Rebuttal> {
        let page = PageIndex::new(page);
        let windows: Vec<std::ops::Range<usize>> = vec![0..page.sentences().len()];
        let a = Alignment::new(claim, parse_figures(claim), &page, &windows, 0.1, 0.2);
        rebuts(&a)
    }

    #[test]
    fn a_claim_reported_to_be_rebutted_does_not_stand() {
        let page = "A post shared widely on social media claims the council has banned dogs from all of its parks. That is false. The ban applies only to the fenced children's play areas.";
        let r =
            rebuttal("The council has banned dogs from all of its parks.", page).expect("rebutted");
        assert!(!r.claim_agrees);
        assert_eq!(r.verdict, "That is false.");
        let r = rebuttal(
            "The claim that the council has banned dogs from all of its parks is false.",
            page,
        )
        .expect("the page is about it");
        assert!(r.claim_agrees);
    }

    #[test]
    fn a_page_that_states_the_claim_is_no_rebuttal() {
        let page = "The council has banned dogs from all of its parks. The ban starts in May.";
        assert_eq!(
            rebuttal("The council has banned dogs from all of its parks.", page),
            None
        );
    }
}
