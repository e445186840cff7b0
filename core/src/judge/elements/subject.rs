//! Subject: a figure the page gives for something else. "The advertising business was the
//! standout, with sales up 18%" against a page that lists "Cloud Services revenue of $812
//! million, up 18%" and "Advertising revenue of $464 million, up 2%": the page has the claim's
//! value, but for another subject, and gives the claim's subject another value.
//!
//! Each figure of the page is read with its *label*: the words before it in its sentence, from
//! the figure before it (or from the sentence's start when the words between name nothing),
//! as a list, a table row ("Southern population, 2022 territories: 640.") or a run of
//! parenthesised figures ("the Caribbean (66%), … the Indian Ocean (58%)") gives them. The
//! claim's value is given for another subject when:
//! - every figure of the page with the claim's value has a label that names something the
//!   claim does not (the other subject), and none names the claim's subject;
//! - a figure of the same kind with another value has a label that names the claim's subject
//!   (a word of the claim that some label of the page names and the agreeing labels do not).
//!
//! A page that gives the claim's value to its subject anywhere, or never names the claim's
//! subject in a label, contradicts nothing here.

use super::figure::same_kind;
use super::presence::{self, Hedge};
use crate::judge::align::Alignment;
use crate::judge::retrieve::TokenId;
use crate::judge::text::{Text, is_calendar_word};
use crate::model::{Figure, Unit};
use crate::text::lexicon::Axis;

pub(crate) use super::figure::generic;

/// The page's figure that the claim's subject has, where the page gives the claim's value to
/// another subject.
#[derive(Debug, Clone, PartialEq)]
pub struct Swap {
    /// The page's figure for the claim's subject.
    pub theirs: Figure,
    /// Its sentence, as an index of the page's sentences.
    pub sentence: usize,
    /// The claim's subject, as the claim writes it.
    pub subject: String,
    /// What the page gives the claim's value to, as the page writes it.
    pub other: String,
}

/// The label of the figure at token `at` of `t`: see the module documentation. Stems, with the
/// first token of each (to show the word as written).
pub(crate) fn label(t: &Text, at: usize, a: &Alignment<'_>) -> Label {
    let numbers = t.figure_tokens_where(|f| f.unit != Unit::Year);
    let previous = t
        .figures
        .iter()
        .filter(|(f, first)| *first < at && f.unit != Unit::Year)
        // Past the figure and the period written after it ("4% in May and 6% in June": the
        // 6%'s label starts at "and", not at "May").
        .map(|(f, first)| super::figure::figure_and_period(t, f, *first).1.min(at))
        .max()
        .unwrap_or(0);
    let words = |from: usize| -> Label {
        (from..at)
            .filter(|&i| {
                t.toks[i].is_content()
                    && !numbers.contains(&i)
                    && !t.directions(i).iter().any(|d| d.0 == Axis::Amount)
            })
            .map(|i| (t.toks[i].stem, i))
            .collect()
    };
    let near = words(previous);
    let names = |ws: &[(TokenId, usize)]| ws.iter().any(|(s, _)| !generic(a.stem_text(*s)));
    if names(&near) { near } else { words(0) }
}

/// The most content words a label may have for it to be read as a figure's label: past it, the
/// figure sits in prose whose words are not all about it.
const MAX_LABEL_WORDS: usize = 8;
/// How alike the rest of two labels (their subjects left out) must be for the two figures to be
/// two entries of one list: a Jaccard index over their words.
const PARALLEL: f64 = 0.5;

pub(crate) type Label = Vec<(TokenId, usize)>;

/// Stems that say when a figure is for, or join two figures, not what it is of.
const PERIOD_WORDS: &[&str] = &[
    "last",
    "year",
    "first",
    "second",
    "third",
    "fourth",
    "half",
    "quarter",
    "month",
    "week",
    "while",
    "whilst",
    "and",
    "but",
    "financial",
    "fiscal",
    "previous",
    "earlier",
    "same",
];

/// Whether the page writes the claim's value `c` (at token `at`; to the rounding of how the
/// claim writes it) for what the claim may be saying it of: a figure whose label the claim mostly
/// shares, that counts the same things and is of the same period ("aged 4, 9 and 12" for
/// "aged four, nine and 12"; "£318,000 towards local healthcare"). A value the page gives only
/// to another subject ("Rents rose 8%" for wages, "30 shops" for homes, "3% in 2023" for 2024)
/// is not.
pub(crate) fn written_for_claim(a: &Alignment<'_>, c: &Figure, at: usize) -> bool {
    if c.unit == Unit::Year {
        return false;
    }
    // A label word that is a number ("the family of five") says how many, not of what; nor does
    // a word that only says what kind of figure it is, or when ("last year", "May").
    let telling = |w: TokenId| {
        let text = a.stem_text(w);
        !generic(text)
            && !crate::judge::retrieve::is_number(text)
            && crate::text::figures::number_word(text).is_none()
            && !crate::text::lexicon::MONTHS
                .iter()
                .any(|(m, _)| m.starts_with(text))
            && !PERIOD_WORDS.contains(&text)
    };
    let kind_word = |w: TokenId| {
        let text = a.stem_text(w);
        generic(text) && !PERIOD_WORDS.contains(&text)
    };
    let ours_noun = super::figure::counted(&a.claim, c);
    let ours_period = super::figure::claim_period(&a.claim, c, at);
    a.page.sentences().iter().any(|s| {
        s.figures.len() <= super::figure::MAX_SENTENCE_FIGURES
            && s.figures.iter().any(|(f, ft)| {
                // A table's figure whose scale its label gives ("(million tonnes) 9.6") is read
                // at the claim's scale.
                let f = &super::figure::in_named_scale(f, c, s.text());
                let scale = c.value.abs().max(f.value.abs());
                let nouns_agree = match (&ours_noun, super::figure::counted(s, f)) {
                    (Some(o), Some(t)) => *o == t,
                    _ => true,
                };
                same_kind(c, f)
                    && (scale == 0.0 || (c.value - f.value).abs() / scale <= 0.005)
                    && nouns_agree
                    && !ours_period.differs(&super::figure::page_period(s, f, *ft))
                    && {
                        // Most of what the page says the figure is of, the claim says too; where
                        // the label only names a kind of figure ("Sales grew 12%"), that kind.
                        let all: Vec<TokenId> = label(s, *ft, a).iter().map(|(w, _)| *w).collect();
                        let mut words: Vec<TokenId> =
                            all.iter().copied().filter(|w| telling(*w)).collect();
                        if words.is_empty() {
                            words = all.into_iter().filter(|w| kind_word(*w)).collect();
                        }
                        let shared = words.iter().filter(|w| a.claim_stems.contains(**w)).count();
                        shared * 2 >= words.len()
                    }
            })
    })
}

/// Where the page gives the claim's figure `c` to another subject and the claim's subject another
/// value, in a parallel entry of the same list or table; see the module documentation.
pub fn swapped(a: &Alignment<'_>, c: &Figure, at: usize, hedge: Hedge) -> Option<Swap> {
    if c.unit == Unit::Year {
        return None;
    }
    let claim = &a.claim;
    // A gap between two figures ("leaving the Nationals 11 short of a majority", "six points
    // ahead of Labour") is no value the page gives to anyone.
    if (at + 1..(at + 4).min(claim.toks.len())).any(|j| {
        matches!(
            claim.lower(j),
            "short" | "ahead" | "behind" | "clear" | "adrift" | "shy"
        )
    }) {
        return None;
    }
    // The words the claim says its figure is of.
    let ours = super::figure::said_of(claim, at);
    let specific = |w: TokenId| !generic(a.stem_text(w));
    let mut agreeing: Vec<(usize, Label)> = Vec::new();
    let mut others: Vec<(usize, &Figure, Label)> = Vec::new();
    for (i, s) in a.page.sentences().iter().enumerate() {
        if s.figures.len() > super::figure::MAX_SENTENCE_FIGURES {
            continue;
        }
        for (f, ft) in s.figures.iter() {
            if !same_kind(c, f) || presence::counts_time(s.text(), f) {
                continue;
            }
            let l = label(s, *ft, a);
            if l.is_empty() || l.len() > MAX_LABEL_WORDS {
                continue;
            }
            if super::figure::states(c, hedge, f.value) {
                agreeing.push((i, l));
            } else {
                others.push((i, f, l));
            }
        }
    }
    if agreeing.is_empty() {
        return None;
    }
    // The page gives the claim's value to the claim's subject somewhere: nothing swapped.
    let names_ours = |l: &Label| l.iter().any(|(w, _)| specific(*w) && ours.contains(*w));
    if agreeing.iter().any(|(_, l)| names_ours(l)) {
        return None;
    }
    let words = |l: &Label| -> Vec<TokenId> {
        let mut w: Vec<TokenId> = l.iter().map(|(w, _)| *w).collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    let jaccard = |x: &[TokenId], y: &[TokenId]| -> f64 {
        let union = x
            .iter()
            .chain(y)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        if union == 0 {
            return 1.0;
        }
        x.iter().filter(|w| y.contains(w)).count() as f64 / union as f64
    };
    // A word the claim uses anywhere names something it speaks of: not another subject.
    let in_claim = |w: TokenId| a.claim_stems.contains(w);
    let calendar = |w: TokenId| is_calendar_word(a.stem_text(w));
    // The claim's subject stands before its figure ("Harrowvale lost 37", "Exports rose 6%"); a
    // word after it says what the figure counts or where ("42 flats", "in the county").
    let before_figure = |w: TokenId| (0..at).any(|j| a.claim.toks[j].stem == w);
    for (i1, l1) in &agreeing {
        // What the page gives the claim's value to: words of its label the claim lacks.
        let foreign: Vec<TokenId> = words(l1)
            .into_iter()
            .filter(|w| specific(*w) && !ours.contains(*w) && !in_claim(*w) && !calendar(*w))
            .collect();
        if foreign.is_empty() {
            continue;
        }
        let rest1: Vec<TokenId> = words(l1)
            .into_iter()
            .filter(|w| !foreign.contains(w))
            .collect();
        for (i2, f2, l2) in &others {
            let subject: Vec<TokenId> = words(l2)
                .into_iter()
                .filter(|w| specific(*w) && ours.contains(*w) && !calendar(*w))
                .collect();
            if subject.is_empty() || !subject.iter().any(|w| before_figure(*w)) {
                continue;
            }
            // The other entry names nothing the claim lacks but what the agreeing one does.
            let stray = words(l2).into_iter().any(|w| {
                specific(w) && !ours.contains(w) && !foreign.contains(&w) && !rest1.contains(&w)
            });
            if stray {
                continue;
            }
            let rest2: Vec<TokenId> = words(l2)
                .into_iter()
                .filter(|w| !subject.contains(w))
                .collect();
            let parallel = if rest1.is_empty() && rest2.is_empty() {
                i1 == i2
            } else {
                jaccard(&rest1, &rest2) >= PARALLEL
            };
            if !parallel {
                continue;
            }
            let shown = |t: &Text, w: TokenId| {
                t.toks
                    .iter()
                    .find(|tok| tok.stem == w)
                    .map_or_else(String::new, |tok| {
                        t.text()[tok.start as usize..tok.end as usize].to_owned()
                    })
            };
            let s1 = &a.page.sentences()[*i1];
            return Some(Swap {
                theirs: (*f2).clone(),
                sentence: *i2,
                subject: shown(claim, subject[0]),
                other: shown(s1, foreign[0]),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::PageIndex;
    use crate::text::figures::parse_figures;

    fn swap(claim: &str, page: &str) -> Option<Swap> {
        let page = PageIndex::new(page);
        // One window: the whole page.
        let whole = 0..page.sentences().len();
        let windows = std::slice::from_ref(&whole);
        let a = Alignment::new(claim, parse_figures(claim), &page, windows, 0.1, 0.2);
        let (c, at) = a.claim.figures.first().cloned()?;
        let hedge = presence::hedge_before(claim, &c);
        swapped(&a, &c, at, hedge)
    }

    const RESULTS: &str = "Cloud Services revenue of $812 million, up 18% year over year.\n\nAdvertising revenue of $464 million, up 2% year over year.\n\nDevices revenue of $694 million, down 4% year over year.";

    #[test]
    fn a_gap_between_figures_is_no_value_of_anyone() {
        const SEATS: &str = "The National Party, Seats won 2025: 24.\n\nForward, Seats won 2025: 19.\n\nThe Liberal Party, Seats won 2025: 11.\n\nThe Green Party, Seats won 2025: 6.";
        for claim in [
            "Forward won 19 seats, leaving the Nationals 11 short of a majority.",
            "The Nationals finished 11 ahead of the Greens, with the Liberals on 11.",
            "The Greens were 11 seats behind the Nationals.",
            "With 24 seats the Nationals are 11 shy of a majority.",
        ] {
            assert!(swap(claim, SEATS).is_none(), "{claim}");
        }
    }

    #[test]
    fn a_value_the_page_gives_to_another_subject() {
        let s = swap(
            "The advertising business was the standout, with sales up 18%.",
            RESULTS,
        )
        .expect("swapped");
        assert_eq!(s.theirs.text, "2%");
        assert_eq!(s.subject, "advertising");
        assert_eq!(s.other, "Cloud");
        let s = swap(
            "In the Caribbean the figure was lower, at 58%.",
            "Prevalence was highest in the western Pacific (71%) and the Caribbean (66%), intermediate in the Indian Ocean (58%) and lowest in the Red Sea (39%).",
        )
        .expect("swapped");
        assert_eq!(s.theirs.text, "66%");
    }

    #[test]
    fn a_value_the_page_gives_to_the_claims_subject_is_no_swap() {
        assert_eq!(swap("Cloud revenue rose 18%.", RESULTS), None);
        // The claim's subject named in no label: nothing to compare.
        assert_eq!(swap("Sales of the firm rose 18%.", RESULTS), None);
    }
}
