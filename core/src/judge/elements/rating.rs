//! A cited fact-check's rating of the claim: schema.org `ClaimReview` markup (read from the page
//! by `fetch::content`), or a rating the page states in words ("Rating: False").
//!
//! Fact-checkers publish `ClaimReview` so that search engines can show their verdicts: the
//! claim they reviewed (`claimReviewed`) and a `reviewRating` with a name (`alternateName`:
//! "False", "Mostly true", "Pants on Fire") and often a number between `worstRating` and
//! `bestRating`. When an article cites such a page for a claim the page reviewed, the page's
//! rating is the judgment: a claim the cited fact-check rates false is refuted by its own source.
//!
//! # Matching
//! A review applies to a claim when the reviewed claim and the article's claim say the same
//! thing: at least [`REVIEWED_COVERED`] of the reviewed claim's content words are in the
//! article's claim and at least [`CLAIM_COVERED`] of the claim's are in the reviewed one.
//!
//! # Polarity
//! An article may cite a fact-check to *report* that a claim is false ("a fact-check found the
//! claim that … is false"). A claim with a debunking word ([`lexicon::DEBUNKING`]) the reviewed
//! claim lacks, or with a negation the reviewed claim lacks (or the reverse), says the opposite
//! of the reviewed claim, so the rating applies reversed.
//!
//! # Ratings
//! The rating's name decides when it is one of [`FALSE_RATINGS`], [`MIXED_RATINGS`] or
//! [`TRUE_RATINGS`]; otherwise its number on the scale from worst to best (1 to 5 when the page
//! does not say): the bottom quarter is false, the top quarter true, the rest mixed.

use crate::text::tokens::FoldHashSet as HashSet;

use crate::judge::retrieve;
use crate::text::lexicon;
pub use crate::text::webpage::ClaimReview;

/// The share of the reviewed claim's words the article's claim must hold.
pub(crate) const REVIEWED_COVERED: f64 = 0.7;
/// The share of the article's claim's words the reviewed claim must hold.
pub(crate) const CLAIM_COVERED: f64 = 0.4;

/// What a rating says of the reviewed claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rating {
    False,
    Mixed,
    True,
}

/// Rating names, lower-case, that say the claim is false.
pub(crate) const FALSE_RATINGS: &[&str] = &[
    "false",
    "mostly false",
    "pants on fire",
    "pants on fire!",
    "fake",
    "incorrect",
    "inaccurate",
    "wrong",
    "untrue",
    "not true",
    "fabricated",
    "baseless",
    "unfounded",
    "four pinocchios",
    "three pinocchios",
    "falso",
    "faux",
    "falsch",
];
/// Rating names, lower-case, that say the claim is partly true or cannot be settled.
pub(crate) const MIXED_RATINGS: &[&str] = &[
    "half true",
    "half-true",
    "mixture",
    "mixed",
    "misleading",
    "missing context",
    "needs context",
    "exaggerated",
    "partly false",
    "partly true",
    "unproven",
    "unsupported",
    "unverified",
    "two pinocchios",
    "one pinocchio",
];
/// Rating names, lower-case, that say the claim is true.
pub(crate) const TRUE_RATINGS: &[&str] = &[
    "true",
    "mostly true",
    "correct",
    "accurate",
    "right",
    "verified",
    "geppetto checkmark",
];

impl ClaimReview {
    /// What the review's rating says, if it can be read.
    pub fn rating(&self) -> Option<Rating> {
        if let Some(name) = &self.rating_name
            && let Some(r) = rating_named(name)
        {
            return Some(r);
        }
        let number = |s: &Option<String>| s.as_deref().and_then(|v| v.trim().parse::<f64>().ok());
        let value = number(&self.rating_value)?;
        let best = number(&self.best_rating).unwrap_or(5.0);
        let worst = number(&self.worst_rating).unwrap_or(1.0);
        if best <= worst || !value.is_finite() {
            return None;
        }
        let share = ((value - worst) / (best - worst)).clamp(0.0, 1.0);
        Some(if share <= 0.25 {
            Rating::False
        } else if share >= 0.75 {
            Rating::True
        } else {
            Rating::Mixed
        })
    }

    /// The rating as the page shows it: its name, else its number on its scale.
    pub(crate) fn rating_text(&self) -> String {
        match (&self.rating_name, &self.rating_value) {
            (Some(name), _) => name.trim().to_owned(),
            (None, Some(value)) => format!(
                "{} on a scale of {} to {}",
                value.trim(),
                self.worst_rating.as_deref().unwrap_or("1"),
                self.best_rating.as_deref().unwrap_or("5")
            ),
            (None, None) => "unrated".to_owned(),
        }
    }
}

/// The rating a name says, if it is one of the known names.
pub(crate) fn rating_named(name: &str) -> Option<Rating> {
    let name = name
        .trim()
        .trim_end_matches(['.', '!'])
        .trim()
        .to_lowercase();
    if FALSE_RATINGS.contains(&name.as_str()) {
        Some(Rating::False)
    } else if MIXED_RATINGS.contains(&name.as_str()) {
        Some(Rating::Mixed)
    } else if TRUE_RATINGS.contains(&name.as_str()) {
        Some(Rating::True)
    } else {
        None
    }
}

/// Lines that state a rating in words ("Rating: False", "Our verdict: Mostly false").
const RATING_LABELS: &[&str] = &[
    "rating:",
    "our rating:",
    "verdict:",
    "our verdict:",
    "ruling:",
    "our ruling:",
    "conclusion:",
];

/// A rating the page states in words, with the claim it rates: the page's "Claim: …" line, else
/// its first line (a fact-check's headline names the claim).
pub(crate) fn review_in_text(text: &str) -> Option<ClaimReview> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let rating = lines.iter().find_map(|line| {
        let lower = line.to_lowercase();
        RATING_LABELS.iter().find_map(|label| {
            lower
                .strip_prefix(label)
                .map(|_| line[label.len()..].trim().to_owned())
        })
    })?;
    let labelled_claim = lines.iter().find_map(|line| {
        let lower = line.to_lowercase();
        lower
            .starts_with("claim:")
            .then(|| line["claim:".len()..].trim().to_owned())
    });
    // A rating in words not known here ("Conclusion: this is incorrect…", "Lie of the Year")
    // still makes a page with a "Claim:" line a fact-check of that claim: [`applicable`] then
    // keeps the claim from passing on the page's repeating it. Without such a line, an unknown
    // "Conclusion:" is more likely a report's own conclusion than a rating.
    if rating_named(&rating).is_none() && labelled_claim.is_none() {
        return None;
    }
    let claim = labelled_claim.or_else(|| lines.first().map(|l| (*l).to_owned()))?;
    Some(ClaimReview {
        claim_reviewed: claim,
        rating_name: Some(rating),
        ..ClaimReview::default()
    })
}

/// How a review bears on a claim.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied<'a> {
    pub review: &'a ClaimReview,
    /// What the rating says of the article's claim, polarity applied.
    pub rating: Rating,
}

/// Where an article stands on a claim a fact-check reviewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stance {
    /// It states the claim as true, or says it was found true ("… is accurate, X found").
    Asserts,
    /// It says the claim is false ("… is false, fact-checkers found"), or states its negation.
    Denies,
    /// It says the claim is misleading or partly true.
    Mixed,
    /// It reports that someone claims it, and says nothing of its truth ("a video that purported
    /// to show …"): the rating neither backs nor refutes it.
    Reports,
}

/// Words with which an article says a reviewed claim is true.
const TRUE_VERDICTS: &[&str] = &[
    "accurate",
    "true",
    "correct",
    "genuine",
    "confirmed",
    "legitimate",
    "valid",
    "factual",
];
/// Words with which an article says a reviewed claim is partly true.
const MIXED_VERDICTS: &[&str] = &[
    "misleading",
    "half true",
    "half-true",
    "exaggerated",
    "partly true",
    "partly false",
    "lacks context",
    "missing context",
    "out of context",
    "mostly false",
];
/// Words that report a claim as someone's, without asserting it.
/// Verbs of speech: a claim that says who said the rated claim reports it.
const SPEECH: &[&str] = &[
    "said", "says", "told", "tells", "telling", "added", "argued",
];

const REPORTING: &[&str] = &[
    "claim",
    "claims",
    "claimed",
    "claiming",
    "purported",
    "purporting",
    "purports",
    "alleged",
    "allegedly",
    "supposedly",
    "rumour",
    "rumours",
    "rumor",
    "rumors",
    "posts",
    "post",
    "warns",
    "warned",
    "warning",
    "said that",
    "says that",
    "suggested",
    "suggests",
    "suggesting",
    "asserted",
    "asserts",
    "insisted",
    "insists",
];

fn words_of(t: &str) -> Vec<String> {
    t.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Where `claim` stands on `reviewed` (see [`Stance`]): a verdict word the reviewed claim does
/// not itself hold decides, a negation before it turning it round; else a word that reports the
/// claim as someone's; else the article asserts it (or, negated, denies it).
pub(crate) fn stance(claim: &str, reviewed: &str) -> Stance {
    let ours = words_of(claim);
    let theirs = words_of(reviewed);
    let joined = format!(" {} ", ours.join(" "));
    let theirs_joined = format!(" {} ", theirs.join(" "));
    let has = |phrase: &str| {
        let p = format!(" {phrase} ");
        joined.contains(&p) && !theirs_joined.contains(&p)
    };
    let negated = |phrase: &str| {
        ["not", "never", "isn't", "wasn't", "aren't", "weren't", "no"]
            .iter()
            .any(|n| joined.contains(&format!(" {n} {phrase} ")))
    };
    if let Some(p) = MIXED_VERDICTS.iter().find(|p| has(p)) {
        let _ = p;
        return Stance::Mixed;
    }
    let false_word = lexicon::DEBUNKING.iter().find(|p| has(p));
    let true_word = TRUE_VERDICTS.iter().find(|p| has(p));
    match (false_word, true_word) {
        (Some(p), _) if !negated(p) => return Stance::Denies,
        (Some(_), _) => return Stance::Asserts,
        (None, Some(p)) if negated(p) => return Stance::Denies,
        (None, Some(_)) => return Stance::Asserts,
        (None, None) => {}
    }
    // What someone said ("… told the Commons: “…”", "she said one in five…") is reported, not
    // asserted: the article quotes the rated claim as theirs.
    let quoted = claim.contains(['"', '“', '”']) || SPEECH.iter().any(|w| has(w));
    if quoted || REPORTING.iter().any(|w| has(w)) {
        return Stance::Reports;
    }
    if opposite(claim, reviewed) {
        Stance::Denies
    } else {
        Stance::Asserts
    }
}

/// Whether a claim is about the claim a review rates: [`same_claim`], or, less closely, half the
/// reviewed claim's words and a quarter of the claim's own (an article that reports a fact-check
/// words the reviewed claim its own way: "a post claiming the research proved turbines cause
/// insomnia").
pub fn about_claim(claim: &str, reviewed: &str) -> bool {
    if same_claim(claim, reviewed) {
        return true;
    }
    let a = content(claim);
    let b = content(reviewed);
    if a.is_empty() || b.len() < 3 {
        return false;
    }
    let shared = a.intersection(&b).count() as f64;
    shared / b.len() as f64 >= 0.5 && shared / a.len() as f64 >= 0.25
}

/// The first review that rates `claim`, with what it says of it: the page's rating turned by
/// where the claim stands on the reviewed claim ([`stance`]). A claim that only reports the
/// reviewed claim is not rated.
pub(crate) fn applicable<'a>(claim: &str, reviews: &'a [ClaimReview]) -> Option<Applied<'a>> {
    reviews.iter().find_map(|review| {
        if !about_claim(claim, &review.claim_reviewed) {
            return None;
        }
        let stance = stance(claim, &review.claim_reviewed);
        if stance == Stance::Reports {
            return None;
        }
        // A fact-check of this very claim whose rating cannot be read: the page repeats the
        // claim it reviews, so reading it as an ordinary source would pass a claim it may
        // debunk. Taken as mixed: not supported, a medium issue naming the rating as shown.
        let Some(rating) = review.rating() else {
            return Some(Applied {
                review,
                rating: Rating::Mixed,
            });
        };
        let rating = match (stance, rating) {
            (Stance::Asserts | Stance::Reports, r) => r,
            (Stance::Denies, Rating::False | Rating::Mixed) => Rating::True,
            (Stance::Denies, Rating::True) => Rating::False,
            (Stance::Mixed, Rating::False | Rating::Mixed) => Rating::True,
            (Stance::Mixed, Rating::True) => Rating::Mixed,
        };
        Some(Applied { review, rating })
    })
}

fn content(text: &str) -> HashSet<String> {
    retrieve::tokenize(text).into_iter().collect()
}

/// Whether the two texts state the same claim (see the module documentation).
pub(crate) fn same_claim(claim: &str, reviewed: &str) -> bool {
    let a = content(claim);
    let b = content(reviewed);
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let shared = a.intersection(&b).count() as f64;
    shared / b.len() as f64 >= REVIEWED_COVERED && shared / a.len() as f64 >= CLAIM_COVERED
}

/// Whether the claim says the opposite of the reviewed claim: it debunks it, or one of the two
/// is negated and the other not.
pub(crate) fn opposite(claim: &str, reviewed: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.to_lowercase()
            .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (a, b) = (words(claim), words(reviewed));
    let debunks = |w: &[String]| {
        let joined = format!(" {} ", w.join(" "));
        lexicon::DEBUNKING
            .iter()
            .any(|d| joined.contains(&format!(" {d} ")))
    };
    // A negation counts only where it negates what is stated: the "not" of a debunking phrase
    // ("is not true") is the debunking itself, already counted once, and "not just" or "not
    // only" adds to a statement rather than denying it.
    let negated = |w: &[String]| {
        let mut joined = format!(" {} ", w.join(" "));
        for phrase in lexicon::DEBUNKING.iter().chain(ADDITIVE_NOT) {
            let spaced = format!(" {phrase} ");
            while joined.contains(&spaced) {
                joined = joined.replace(&spaced, " ");
            }
        }
        joined
            .split(' ')
            .filter(|x| lexicon::is_negation(x))
            .count()
            % 2
            == 1
    };
    (debunks(&a) && !debunks(&b)) != (negated(&a) != negated(&b))
}

/// "not" that adds rather than denies: "not just in older homes".
const ADDITIVE_NOT: &[&str] = &["not just", "not only", "not merely", "not simply"];

#[cfg(test)]
mod tests {
    use super::*;

    fn review(
        claim: &str,
        name: Option<&str>,
        value: Option<&str>,
        best: Option<&str>,
    ) -> ClaimReview {
        ClaimReview {
            claim_reviewed: claim.into(),
            rating_name: name.map(String::from),
            rating_value: value.map(String::from),
            best_rating: best.map(String::from),
            worst_rating: None,
        }
    }

    #[test]
    fn a_debunking_not_and_an_additive_not_do_not_turn_the_claim_around() {
        let reviewed = "The town tap water contains lead above the legal limit";
        // The claim calls the reviewed claim untrue in words whose "not" is the debunking.
        assert!(opposite(
            "A fact-check found that the claim that the town's tap water contains lead above \
             the legal limit is not true",
            reviewed
        ));
        // "not just" adds to the claim; it states the reviewed claim.
        assert!(!opposite(
            "The town's tap water contains lead above the legal limit, not just in older homes",
            reviewed
        ));
        // A plain negation still turns it around, and a debunked negation turns it back.
        assert!(opposite(
            "The town tap water does not contain lead above the legal limit",
            reviewed
        ));
        assert!(!opposite(reviewed, reviewed));
    }

    #[test]
    fn ratings_by_name_then_by_number() {
        assert_eq!(
            review("x", Some("Pants on Fire!"), None, None).rating(),
            Some(Rating::False)
        );
        assert_eq!(
            review("x", Some("Mostly True"), None, None).rating(),
            Some(Rating::True)
        );
        assert_eq!(
            review("x", Some("Half True"), None, None).rating(),
            Some(Rating::Mixed)
        );
        assert_eq!(
            review("x", None, Some("1"), Some("5")).rating(),
            Some(Rating::False)
        );
        assert_eq!(
            review("x", None, Some("5"), Some("5")).rating(),
            Some(Rating::True)
        );
        assert_eq!(
            review("x", None, Some("3"), Some("5")).rating(),
            Some(Rating::Mixed)
        );
        assert_eq!(review("x", Some("Our take"), None, None).rating(), None);
    }

    #[test]
    fn a_review_applies_to_the_same_claim_with_its_polarity() {
        let reviews = [review(
            "The bypass will destroy 400 acres of ancient woodland",
            Some("False"),
            None,
            None,
        )];
        let applied = applicable(
            "The new bypass will destroy 400 acres of ancient woodland.",
            &reviews,
        );
        assert_eq!(applied.map(|a| a.rating), Some(Rating::False));
        let debunked = applicable(
            "The claim that the bypass will destroy 400 acres of ancient woodland is false.",
            &reviews,
        );
        assert_eq!(debunked.map(|a| a.rating), Some(Rating::True));
        assert!(applicable("The council approved the bypass route in May.", &reviews).is_none());
    }

    #[test]
    fn a_statement_that_shares_a_few_words_with_the_rated_claim_is_not_rated() {
        let reviews = [review(
            "The Lib Dems have put up your council tax by 40% since 2020",
            Some("False"),
            None,
            None,
        )];
        for other in [
            "Council tax in the borough rose by 22% over the period, the council's figures show.",
            "The Lib Dems took control of the borough in 2020.",
        ] {
            assert!(applicable(other, &reviews).is_none(), "{other}");
        }
        let stated = applicable(
            "The Lib Dems have put up council tax by 40% since 2020.",
            &reviews,
        );
        assert_eq!(stated.map(|a| a.rating), Some(Rating::False));
    }

    #[test]
    fn a_story_that_reports_the_rated_claim_as_someones_is_not_rated() {
        let reviews = [review(
            "NASA has confirmed Earth will be plunged into six days of darkness in December",
            Some("False"),
            None,
            None,
        )];
        for reported in [
            "A message circulating on WhatsApp warns that NASA has confirmed Earth will be plunged into six days of darkness in December.",
            "A viral video suggests NASA has confirmed Earth will be plunged into six days of darkness in December.",
            "Posts shared thousands of times claim NASA has confirmed Earth will be plunged into six days of darkness in December.",
            "The blogger insisted NASA has confirmed Earth will be plunged into six days of darkness in December.",
        ] {
            assert!(applicable(reported, &reviews).is_none(), "{reported}");
        }
        // Nor one that quotes or reports who said it.
        for said in [
            "The MP told the Commons: \"NASA has confirmed Earth will be plunged into six days of darkness in December.\"",
            "The influencer said NASA has confirmed Earth will be plunged into six days of darkness in December.",
        ] {
            assert!(applicable(said, &reviews).is_none(), "{said}");
        }
        // Stated as the article's own, it is rated false.
        let asserted = applicable(
            "NASA has confirmed that Earth will be plunged into six days of darkness in December.",
            &reviews,
        );
        assert_eq!(asserted.map(|a| a.rating), Some(Rating::False));
    }

    #[test]
    fn a_rating_stated_in_words_is_read_with_its_claim() {
        let text = "Fact check\nClaim: Response times are the worst in the country.\nRating: False\nDetails.";
        let r = review_in_text(text).expect("a rating");
        assert_eq!(
            r.claim_reviewed,
            "Response times are the worst in the country."
        );
        assert_eq!(r.rating(), Some(Rating::False));
        assert!(review_in_text("Rating: our take on it").is_none());
    }

    #[test]
    fn a_fact_check_of_the_claim_whose_rating_is_not_known_never_backs_it() {
        let text = "Did the council raise parking fees?\n\
                    Claim: The council raised parking fees in 2023.\n\
                    Conclusion: This is incorrect. The fees were set in 2019 and not changed.";
        let r = review_in_text(text).expect("a fact-check with a claim line");
        assert_eq!(r.rating(), None);
        let reviews = [r];
        let applied = applicable("The council raised parking fees in 2023.", &reviews);
        assert_eq!(applied.map(|a| a.rating), Some(Rating::Mixed));
        // Markup with a rating name not known here, the same way.
        let reviews = [review(
            "The mayor grew up in Leeds",
            Some("Misattributed"),
            None,
            None,
        )];
        let applied = applicable("The mayor grew up in Leeds.", &reviews);
        assert_eq!(applied.map(|a| a.rating), Some(Rating::Mixed));
        // A report's own conclusion, with no claim line, is not a rating.
        assert!(
            review_in_text("Annual report\nConclusion: ridership grew in every quarter.").is_none()
        );
    }
}
