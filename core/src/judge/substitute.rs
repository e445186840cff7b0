//! What a claim changed in the sentence of its source it follows: the claim and the sentence
//! aligned word by word (their longest common subsequence), and the short spans that differ
//! between two words they share.
//!
//! A claim that follows its source closely and differs from it in one slot, with the same words
//! on both sides of the slot, changed that slot: "the Melvin R. **Yale** Curator of Chinese Art"
//! against "the Melvin R. **Seiden** Curator of Chinese Art", "published in December of
//! **1864**" against "… of **1865**", "it was **not** picked up by Paramount" against "it was
//! picked up by Paramount". Only slots that carry facts count: names (capitalized words past the
//! sentence's first), numbers, ordinals ("third", "3rd"), and a negation added or dropped; a
//! word swapped for a synonym ("said" for "told") is paraphrase and is left alone. A name
//! written a little differently ("Paterson", "Patterson") is the same name.

use super::text::{Text, TokKind};
use crate::text::lexicon;

/// The longest span, in words, that counts as a slot: longer differences are rewrites.
const MAX_SLOT: usize = 4;

/// One slot the claim fills differently from the sentence it follows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Substitution {
    pub kind: SlotKind,
    /// The claim's words in the slot, as written.
    pub claim: String,
    /// The source's words in the slot, as written (empty when the claim added words).
    pub source: String,
    /// The claim's slot, as a token range.
    pub claim_tokens: std::ops::Range<usize>,
    /// The matched claim words that enclose the slot (one or two before it and after it, or
    /// two on its inner side at the start or end of the texts).
    pub anchors: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotKind {
    /// A name: capitalized words.
    Name,
    /// A year: four digits, 1800 to 2100.
    Year,
    /// Another number.
    Number,
    /// A negation one side has and the other lacks.
    Negation,
    /// An ordinal, in words or in digits: "the **third** consecutive year" against "the
    /// **second** consecutive year", "the **3rd** largest" against "the **2nd** largest" or "the
    /// **second** largest".
    Ordinal,
}

/// The value of an ordinal written as a word, "first" to "twentieth", the tens to "ninetieth",
/// and "hundredth" ("twenty-first" is two words, "twenty" and "first", so its slot is "first").
pub(crate) fn ordinal(word: &str) -> Option<u32> {
    Some(match word {
        "first" => 1,
        "second" => 2,
        "third" => 3,
        "fourth" => 4,
        "fifth" => 5,
        "sixth" => 6,
        "seventh" => 7,
        "eighth" => 8,
        "ninth" => 9,
        "tenth" => 10,
        "eleventh" => 11,
        "twelfth" => 12,
        "thirteenth" => 13,
        "fourteenth" => 14,
        "fifteenth" => 15,
        "sixteenth" => 16,
        "seventeenth" => 17,
        "eighteenth" => 18,
        "nineteenth" => 19,
        "twentieth" => 20,
        "thirtieth" => 30,
        "fortieth" => 40,
        "fiftieth" => 50,
        "sixtieth" => 60,
        "seventieth" => 70,
        "eightieth" => 80,
        "ninetieth" => 90,
        "hundredth" => 100,
        _ => return None,
    })
}

/// The words of a text that take part in the alignment: words and numbers, by stem.
fn words(t: &Text) -> Vec<usize> {
    (0..t.toks.len())
        .filter(|&i| matches!(t.kind(i), Some(TokKind::Word | TokKind::Number)))
        .collect()
}

/// The largest word-by-word table [`align`] fills (1,000 × 1,000 words; 2 MB).
pub(crate) const MAX_ALIGNED_CELLS: usize = 1_000_000;

/// The matched pairs (claim token, source token) of the longest common subsequence of the two
/// texts' words, in order.
pub(crate) fn align(claim: &Text, source: &Text) -> Vec<(usize, usize)> {
    let a = words(claim);
    let b = words(source);
    let (n, m) = (a.len(), b.len());
    // The table is n × m: prose sentences are aligned in a few thousand cells; a "sentence" of
    // thousands of words (a table run together, a hostile draft) is not aligned word by word.
    if n == 0 || m == 0 || n.saturating_mul(m) > MAX_ALIGNED_CELLS {
        return Vec::new();
    }
    let same = |i: usize, j: usize| claim.toks[a[i]].stem == source.toks[b[j]].stem;
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![0u16; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if same(i, j) {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if same(i, j) && lcs[at(i, j)] == lcs[at(i + 1, j + 1)] + 1 {
            pairs.push((a[i], b[j]));
            i += 1;
            j += 1;
        } else if lcs[at(i + 1, j)] >= lcs[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

/// The slots that the claim fills differently from `source`: between two matched words, and
/// before the first or after the last one when both texts end there.
pub(crate) fn substitutions(
    claim: &Text,
    source: &Text,
    pairs: &[(usize, usize)],
) -> Vec<Substitution> {
    let (Some(&first), Some(&last)) = (pairs.first(), pairs.last()) else {
        return Vec::new();
    };
    let (cw, sw) = (words(claim), words(source));
    let before = |t: &[usize], at: usize| t.iter().copied().filter(|&i| i < at).collect::<Vec<_>>();
    let after = |t: &[usize], at: usize| t.iter().copied().filter(|&i| i > at).collect::<Vec<_>>();
    let inner = |t: &[usize], a: usize, b: usize| {
        t.iter()
            .copied()
            .filter(|&i| i > a && i < b)
            .collect::<Vec<_>>()
    };
    let mut slots: Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> = Vec::new();
    slots.push((
        before(&cw, first.0),
        before(&sw, first.1),
        pairs.iter().take(2).map(|p| p.0).collect(),
    ));
    for w in pairs.windows(2) {
        let ((ca, sa), (cb, sb)) = (w[0], w[1]);
        slots.push((inner(&cw, ca, cb), inner(&sw, sa, sb), vec![ca, cb]));
    }
    slots.push((
        after(&cw, last.0),
        after(&sw, last.1),
        pairs.iter().rev().take(2).map(|p| p.0).collect(),
    ));
    let mut out = Vec::new();
    for (claim_slot, source_slot, anchors) in slots {
        if claim_slot.len() > MAX_SLOT || source_slot.len() > MAX_SLOT {
            continue;
        }
        if claim_slot.is_empty() && source_slot.is_empty() {
            continue;
        }
        if let Some(kind) = slot_kind(claim, &claim_slot, source, &source_slot) {
            let at = anchors.first().map_or(0, |a| a + 1);
            out.push(Substitution {
                kind,
                claim: span(claim, &claim_slot),
                source: span(source, &source_slot),
                claim_tokens: claim_slot
                    .first()
                    .zip(claim_slot.last())
                    .map_or(at..at, |(f, l)| *f..l + 1),
                anchors,
            });
        }
    }
    out
}

fn span(t: &Text, slot: &[usize]) -> String {
    match (slot.first(), slot.last()) {
        (Some(&f), Some(&l)) => {
            t.text()[t.toks[f].start as usize..t.toks[l].end as usize].to_owned()
        }
        _ => String::new(),
    }
}

/// Whether two words are one title, short and in full.
fn same_title(a: &str, b: &str) -> bool {
    const TITLES: &[(&str, &str)] = &[
        ("prof", "professor"),
        ("dr", "doctor"),
        ("cllr", "councillor"),
        ("sgt", "sergeant"),
        ("insp", "inspector"),
        ("supt", "superintendent"),
        ("det", "detective"),
        ("gov", "governor"),
        ("sen", "senator"),
        ("rep", "representative"),
        ("capt", "captain"),
        ("lt", "lieutenant"),
        ("col", "colonel"),
        ("gen", "general"),
        ("rev", "reverend"),
        ("st", "saint"),
        ("mt", "mount"),
    ];
    let (a, b) = (a.trim_end_matches('.'), b.trim_end_matches('.'));
    a == b
        || TITLES
            .iter()
            .any(|(short, full)| (a == *short && b == *full) || (a == *full && b == *short))
}

/// What kind of fact the two slots hold differently, if any.
fn slot_kind(claim: &Text, c: &[usize], source: &Text, s: &[usize]) -> Option<SlotKind> {
    // A capital that opens a quotation ("“We will …”") or a day or month names no one, nor does
    // a pronoun or an article written at a sentence's start.
    let is_name = |t: &Text, i: usize| {
        let tok = &t.toks[i];
        let opens_quote = i > 0
            && matches!(
                t.span(i - 1..i).trim(),
                "\"" | "\u{201C}" | "'" | "\u{2018}"
            );
        let lower = t.lower(i);
        t.kind_of(tok) == TokKind::Word
            && tok.capital()
            && i > 0
            && lower.chars().count() > 1
            && !opens_quote
            && !super::text::is_calendar_word(lower)
            && !matches!(
                lower,
                "we" | "he"
                    | "she"
                    | "they"
                    | "it"
                    | "you"
                    | "our"
                    | "their"
                    | "his"
                    | "her"
                    | "its"
                    | "the"
                    | "this"
                    | "that"
                    | "these"
                    | "those"
                    | "there"
            )
    };
    let is_number = |t: &Text, i: usize| t.kind(i) == Some(TokKind::Number);
    // "1,826" is a count, not the year 1826.
    let is_year = |t: &Text, i: usize| {
        let w = t.lower(i);
        w.len() == 4
            && w.parse::<u32>().is_ok_and(|y| (1800..=2100).contains(&y))
            && !t.span(i..i + 1).contains(',')
    };
    let negation =
        |t: &Text, slot: &[usize]| slot.iter().any(|&i| lexicon::is_negation(t.lower(i)));
    // A negation added or dropped between the same words.
    if negation(claim, c) != negation(source, s) {
        let rest_c = c
            .iter()
            .filter(|&&i| !lexicon::is_negation(claim.lower(i)))
            .count();
        let rest_s = s
            .iter()
            .filter(|&&i| !lexicon::is_negation(source.lower(i)))
            .count();
        if rest_c == 0 && rest_s == 0 {
            return Some(SlotKind::Negation);
        }
    }
    if c.is_empty() || s.is_empty() {
        return None;
    }
    // A title written short or in full ("Prof" for "Professor", "Cllr" for "Councillor").
    if c.len() == 1 && s.len() == 1 && same_title(claim.lower(c[0]), source.lower(s[0])) {
        return None;
    }
    // Both slots hold a year, each absent from the other text: a date changed.
    let years_c: Vec<&str> = c
        .iter()
        .filter(|&&i| is_year(claim, i))
        .map(|&i| claim.lower(i))
        .collect();
    let years_s: Vec<&str> = s
        .iter()
        .filter(|&&i| is_year(source, i))
        .map(|&i| source.lower(i))
        .collect();
    if !years_c.is_empty() && !years_s.is_empty() && years_c.iter().all(|y| !years_s.contains(y)) {
        return Some(SlotKind::Year);
    }
    // Ordinals: a rank, a time or a run counted differently ("the third consecutive year" where
    // the source has "the second"), in either form ("third", "3rd"). Read before numbers, so
    // "3rd" is compared as the ordinal it is, with "third" as with "2nd".
    let (ordinals_c, ordinals_s) = (ordinals(claim, c), ordinals(source, s));
    if !ordinals_c.is_empty()
        && !ordinals_s.is_empty()
        && ordinals_c.iter().all(|n| !ordinals_s.contains(n))
    {
        return Some(SlotKind::Ordinal);
    }
    let numbers_c: Vec<&str> = c
        .iter()
        .filter(|&&i| is_number(claim, i) && !is_year(claim, i))
        .map(|&i| claim.lower(i))
        .collect();
    let numbers_s: Vec<&str> = s
        .iter()
        .filter(|&&i| is_number(source, i) && !is_year(source, i))
        .map(|&i| source.lower(i))
        .collect();
    if !numbers_c.is_empty()
        && !numbers_s.is_empty()
        && numbers_c.iter().all(|n| !numbers_s.contains(n))
    {
        return Some(SlotKind::Number);
    }
    // Names: the claim's slot names someone or somewhere the source's slot does not, and the
    // other way round, and the names are not spellings of each other.
    let names_c: Vec<&str> = c
        .iter()
        .filter(|&&i| is_name(claim, i))
        .map(|&i| claim.lower(i))
        .collect();
    let names_s: Vec<&str> = s
        .iter()
        .filter(|&&i| is_name(source, i))
        .map(|&i| source.lower(i))
        .collect();
    let differ = |a: &str, b: &str| !(a == b || same_spelling(a, b));
    if !names_c.is_empty()
        && !names_s.is_empty()
        && names_c.iter().all(|a| names_s.iter().all(|b| differ(a, b)))
        && names_c
            .iter()
            .all(|a| !source.lowers().any(|w| !differ(a, w)))
    {
        return Some(SlotKind::Name);
    }
    None
}

/// The ordinals in a slot: words ("third"; capitalized ones past the first word, as in "Third
/// Avenue", are names) and numbers with their suffix written on ("3rd", "21st").
fn ordinals(t: &Text, slot: &[usize]) -> Vec<u32> {
    slot.iter()
        .filter_map(|&i| {
            let tok = &t.toks[i];
            if t.kind(i) == Some(TokKind::Number) {
                let suffixed = t.toks.get(i + 1).is_some_and(|next| {
                    next.start == tok.end && matches!(t.lower(i + 1), "st" | "nd" | "rd" | "th")
                });
                return if suffixed {
                    t.lower(i).parse().ok()
                } else {
                    None
                };
            }
            if tok.capital() && i > 0 {
                return None;
            }
            ordinal(t.lower(i))
        })
        .collect()
}

/// Whether two names are spellings of one ("Paterson", "Patterson"): the same first three
/// letters and at most two edits apart.
fn same_spelling(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() < 4 || b.len() < 4 || a[..3] != b[..3] {
        return false;
    }
    // Levenshtein distance, bounded: names are short.
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            row[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(row[j] + 1);
        }
        prev = row;
    }
    prev[b.len()] <= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subs(claim: &str, source: &str) -> Vec<(SlotKind, String, String)> {
        let mut words = crate::judge::retrieve::Vocabulary::default();
        let c = Text::new(claim, &mut |w| words.intern(w));
        let s = Text::new(source, &mut |w| words.intern(w));
        substitutions(&c, &s, &align(&c, &s))
            .into_iter()
            .map(|x| (x.kind, x.claim, x.source))
            .collect()
    }

    #[test]
    fn a_changed_name_year_number_or_negation_is_a_substitution() {
        assert_eq!(
            subs(
                "She is the Melvin R. Yale Curator of Chinese Art.",
                "She is the Melvin R. Seiden Curator of Chinese Art."
            ),
            [(SlotKind::Name, "Yale".into(), "Seiden".into())]
        );
        assert_eq!(
            subs(
                "It was published in December of 1864.",
                "It was published in December of 1865."
            ),
            [(SlotKind::Year, "1864".into(), "1865".into())]
        );
        assert_eq!(
            subs(
                "It was not picked up by Paramount.",
                "It was picked up by Paramount."
            ),
            [(SlotKind::Negation, "not".into(), String::new())]
        );
        assert_eq!(
            subs("Her first role in 30 years.", "Her first role in 40 years."),
            [(SlotKind::Number, "30".into(), "40".into())]
        );
    }

    #[test]
    fn an_ordinal_changed_is_a_substitution() {
        assert_eq!(
            subs(
                "Exports fell for the third consecutive year, the ministry said.",
                "Exports fell for a second consecutive year, the ministry said."
            ),
            [(SlotKind::Ordinal, "the third".into(), "a second".into())]
        );
        assert_eq!(
            subs(
                "The team finished fifth in the league this season.",
                "The team finished fourth in the league this season."
            ),
            [(SlotKind::Ordinal, "fifth".into(), "fourth".into())]
        );
        assert_eq!(
            subs(
                "It is the 3rd largest port in the region.",
                "It is the 2nd largest port in the region."
            ),
            [(SlotKind::Ordinal, "3rd".into(), "2nd".into())]
        );
        // The two forms against each other.
        assert_eq!(
            subs(
                "It is the third largest port in the region.",
                "It is the 2nd largest port in the region."
            ),
            [(SlotKind::Ordinal, "third".into(), "2nd".into())]
        );
        assert!(
            subs(
                "It is the 3rd largest port in the region.",
                "It is the third largest port in the region."
            )
            .is_empty()
        );
        // The same ordinal, or one side without any, is no change of count.
        assert!(
            subs(
                "Exports fell for a third straight year.",
                "Exports fell for the third consecutive year."
            )
            .is_empty()
        );
        assert!(subs("It was the first time.", "It was the very first time.").is_empty());
    }

    #[test]
    fn paraphrase_and_spelling_are_not_substitutions() {
        assert!(
            subs(
                "The mayor told reporters it was over.",
                "The mayor said it was over."
            )
            .is_empty()
        );
        assert!(subs("Rita Paterson died in May.", "Rita Patterson died in May.").is_empty());
    }
}
