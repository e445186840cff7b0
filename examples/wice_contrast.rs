//! A contrast set: WiCE dev claims annotators judged supported, each edited minimally so that
//! its cited page no longer backs it, one kind of edit at a time; and how many edits the judge
//! catches.
//!
//! Usage: `cargo run --release --example wice_contrast -- ../shared/data/wice/dev.jsonl
//! [--show CATEGORY] [--seed S]`
//!
//! The edits, each made where the claim allows it (a claim without a year gets no year shift):
//! - **direction**: a direction word swapped for its opposite ("rose" → "fell", "won" → "lost",
//!   "largest" → "smallest"), from the judge's own word list;
//! - **negation**: "not" after the first auxiliary ("was" → "was not");
//! - **subject**: a figure of the claim replaced by another figure of the same kind that the page
//!   gives for something else;
//! - **date**: a year shifted by one to three years, to one the page never states;
//! - **unit**: a percentage made percentage points, or a currency swapped ($ → €, € → £, £ → $);
//! - **attribution**: a person's name replaced by another name the page gives;
//! - **superlative**: "a" or "an" made "the largest";
//! - **place**: "in Leeds" (or another city the page never names) added at the end.
//!
//! An edit is *caught* when the edited claim would block under `normal`: a verdict other than
//! supported, or an issue of medium or high severity. Edits are judged against the page as text,
//! as `wice_quality` does without `--http`. Catch rates count the edits of claims whose original
//! passes; the originals that block are the false-block rate, printed first.
//!
//! `--show CATEGORY` lists that category's edits the judge misses, with the reasons it gave.

#[path = "support/wice.rs"]
mod wice;

use factgate_core::judge::{JudgeSettings, Judgment, judge, strip_citation_markers};
use factgate_core::model::{Severity, Unit, Verdict};
use factgate_core::text::figures::parse_figures;
use factgate_core::text::lexicon;
use std::collections::BTreeMap;
use wice::{Rng, cited_claim};

/// Cities added by the place edit, the first the page never names.
const CITIES: &[&str] = &[
    "Leeds", "Swindon", "Tampere", "Winnipeg", "Dunedin", "Rosario",
];

const CATEGORIES: &[&str] = &[
    "direction",
    "negation",
    "subject",
    "date",
    "unit",
    "attribution",
    "superlative",
    "place",
];

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: wice_contrast DEV.jsonl [--show CATEGORY]"))?;
    let args: Vec<String> = std::env::args().collect();
    let show = args
        .iter()
        .position(|a| a == "--show")
        .and_then(|i| args.get(i + 1).cloned());
    let seed: u64 = args
        .iter()
        .position(|a| a == "--seed")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(9), |s| s.parse())?;
    let settings = JudgeSettings::default();
    let supported: Vec<(usize, wice::Example)> = wice::load(&path)?
        .into_iter()
        .filter(|(_, ex)| ex.label == "supported")
        .collect();

    let mut rng = Rng::new(seed);
    let mut originals_blocked = 0;
    // category → (edits, caught, edits skipped because their original blocks, edits of an
    // element the page states, of which caught)
    let mut tally: BTreeMap<&str, (usize, usize, usize, usize, usize)> = BTreeMap::new();
    let mut misses: Vec<(String, String, String)> = Vec::new();
    for (line, ex) in &supported {
        let page = ex.evidence.join("\n");
        let text = strip_citation_markers(&ex.claim).trim().to_owned();
        let url = "http://127.0.0.1/wice";
        let check = |claim: &str| judge(&cited_claim(*line, claim, url), &page, url, &settings);
        let original_blocks = blocks(&check(&text));
        originals_blocked += usize::from(original_blocks);
        for &category in CATEGORIES {
            let Some(Edit {
                text: edited,
                stated,
            }) = edit(category, &text, &page, &mut rng)
            else {
                continue;
            };
            let entry = tally.entry(category).or_default();
            if original_blocks {
                entry.2 += 1;
                continue;
            }
            entry.0 += 1;
            let j = check(&edited);
            let caught = blocks(&j);
            entry.1 += usize::from(caught);
            if stated {
                entry.3 += 1;
                entry.4 += usize::from(caught);
            }
            if caught {
            } else if show.as_deref() == Some(category) {
                misses.push((format!("line {line}"), edited, j.reasons.join("; ")));
            }
        }
    }
    println!(
        "contrast set from WiCE dev supported claims ({}), judged against their pages; seed {seed}",
        supported.len()
    );
    println!(
        "unedited originals that would block: {:.1}% ({originals_blocked} of {})",
        100.0 * originals_blocked as f64 / supported.len() as f64,
        supported.len()
    );
    println!(
        "category      edits  caught  share  | element stated by the page: edits  caught  share | left out"
    );
    let (mut all, mut caught, mut all_stated, mut caught_stated) = (0, 0, 0, 0);
    let pct = |c: usize, n: usize| 100.0 * c as f64 / n.max(1) as f64;
    for category in CATEGORIES {
        let (n, c, skipped, ns, cs) = tally.get(category).copied().unwrap_or_default();
        all += n;
        caught += c;
        all_stated += ns;
        caught_stated += cs;
        println!(
            "{category:12} {n:6} {c:7}  {:5.1}% |                             {ns:5} {cs:7}  {:5.1}% | {skipped}",
            pct(c, n),
            pct(cs, ns)
        );
    }
    println!(
        "all          {all:6} {caught:7}  {:5.1}% |                             {all_stated:5} {caught_stated:7}  {:5.1}% |",
        pct(caught, all),
        pct(caught_stated, all_stated)
    );
    for (at, edited, reasons) in misses {
        println!("\nmissed ({at}): {edited}\n    {reasons}");
    }
    Ok(())
}

/// Whether a judgment would block the article under `normal`.
fn blocks(j: &Judgment) -> bool {
    j.verdict != Verdict::Supported || j.severity >= Some(Severity::Medium)
}

/// An edited claim, and whether the page states the element the edit changed (the direction
/// word, the negated verb, the year, the figure, the name), so that comparing claim and page can
/// tell the change at all. An added superlative or place changes nothing the page states: it is
/// counted as stated, since the page's silence is what tells it.
struct Edit {
    text: String,
    stated: bool,
}

/// The claim with one edit of `category`, or `None` when the claim offers no place for it.
fn edit(category: &str, claim: &str, page: &str, rng: &mut Rng) -> Option<Edit> {
    let (text, changed) = match category {
        "direction" => swap_direction(claim)?,
        "negation" => negate(claim)?,
        "subject" => move_figure(claim, page, rng)?,
        "date" => shift_year(claim, page, rng)?,
        "unit" => swap_unit(claim)?,
        "attribution" => swap_name(claim, page, rng)?,
        "superlative" => (add_superlative(claim)?, None),
        "place" => (add_place(claim, page)?, None),
        _ => return None,
    };
    let stated = changed.is_none_or(|word| states(page, &word));
    Some(Edit { text, stated })
}

/// Whether the page uses `word` (its first four letters, for the word's other forms).
fn states(page: &str, word: &str) -> bool {
    let lower = page.to_lowercase();
    let word = word.to_lowercase();
    let stem: String = word.chars().take(4).collect();
    words(&lower)
        .iter()
        .any(|&(s, e)| lower[s..e].starts_with(&stem))
}

/// Words of a text with their byte ranges.
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

fn replace(text: &str, range: (usize, usize), with: &str) -> String {
    format!("{}{with}{}", &text[..range.0], &text[range.1..])
}

/// `with` in the case `like` is written in: "Rose" → "Fell".
fn same_case(like: &str, with: &str) -> String {
    if like.chars().next().is_some_and(char::is_uppercase) {
        let mut c = with.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    } else {
        with.to_owned()
    }
}

fn swap_direction(claim: &str) -> Option<(String, Option<String>)> {
    let ws = words(claim);
    for (k, &(s, e)) in ws.iter().enumerate() {
        let word = claim[s..e].to_lowercase();
        let next = ws.get(k + 1).map(|&(a, b)| claim[a..b].to_lowercase());
        let next_is_number = next
            .as_deref()
            .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
        if lexicon::directions(&word, next.as_deref(), next_is_number).is_empty() {
            continue;
        }
        if let Some(opposite) = lexicon::opposite(&word) {
            return Some((
                replace(claim, (s, e), &same_case(&claim[s..e], opposite)),
                Some(word),
            ));
        }
    }
    None
}

fn negate(claim: &str) -> Option<(String, Option<String>)> {
    const AUXILIARIES: &[&str] = &[
        "is", "was", "were", "are", "has", "have", "had", "will", "would", "can", "could",
    ];
    let ws = words(claim);
    ws.iter().enumerate().find_map(|(k, &(s, e))| {
        AUXILIARIES
            .contains(&claim[s..e].to_lowercase().as_str())
            .then(|| {
                // The word the negation falls on.
                let negated = ws.get(k + 1).map(|&(a, b)| claim[a..b].to_owned());
                (format!("{} not{}", &claim[..e], &claim[e..]), negated)
            })
    })
}

/// A figure of the claim the page states, replaced by another figure of the same unit the page
/// gives with another value.
fn move_figure(claim: &str, page: &str, rng: &mut Rng) -> Option<(String, Option<String>)> {
    let page_figures = parse_figures(page);
    for f in parse_figures(claim) {
        if f.unit == Unit::Year
            || !page_figures
                .iter()
                .any(|p| p.unit == f.unit && p.value == f.value)
        {
            continue;
        }
        let others: Vec<_> = page_figures
            .iter()
            .filter(|p| {
                p.unit == f.unit
                    && p.currency == f.currency
                    && p.per == f.per
                    && (p.value - f.value).abs() > 0.05 * f.value.abs().max(1.0)
                    && p.text.chars().any(|c| c.is_ascii_digit())
                        == f.text.chars().any(|c| c.is_ascii_digit())
            })
            .collect();
        if others.is_empty() {
            continue;
        }
        let other = others[rng.below(others.len())];
        let at = claim.find(&f.text)?;
        return Some((replace(claim, (at, at + f.text.len()), &other.text), None));
    }
    None
}

fn shift_year(claim: &str, page: &str, rng: &mut Rng) -> Option<(String, Option<String>)> {
    let year = parse_figures(claim)
        .into_iter()
        .find(|f| f.unit == Unit::Year && !f.text.ends_with('s'))?;
    let value = year.value as i64;
    let mut shifts = vec![1, 2, 3, -1, -2, -3];
    let first = rng.below(shifts.len());
    shifts.rotate_left(first);
    let to = shifts
        .into_iter()
        .map(|k| value + k)
        .find(|y| !page.contains(&y.to_string()))?;
    let at = claim.find(&year.text)?;
    Some((
        replace(claim, (at, at + year.text.len()), &to.to_string()),
        Some(year.text.clone()),
    ))
}

fn swap_unit(claim: &str) -> Option<(String, Option<String>)> {
    for f in parse_figures(claim) {
        let at = claim.find(&f.text)?;
        let range = (at, at + f.text.len());
        match f.unit {
            Unit::Percent => {
                let number: String = f
                    .text
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
                    .collect();
                if !number.is_empty() {
                    let edited = replace(claim, range, &format!("{number} percentage points"));
                    return Some((edited, Some(number)));
                }
            }
            Unit::Currency => {
                let swapped = if f.text.contains('$') {
                    f.text.replacen("US$", "€", 1).replacen('$', "€", 1)
                } else if f.text.contains('€') {
                    f.text.replacen('€', "£", 1)
                } else if f.text.contains('£') {
                    f.text.replacen('£', "$", 1)
                } else {
                    continue;
                };
                let number: String = f
                    .text
                    .chars()
                    .filter(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                return Some((replace(claim, range, &swapped), Some(number)));
            }
            _ => {}
        }
    }
    None
}

/// Runs of two or more capitalized words (not at the start of the text), with their ranges.
fn names(text: &str) -> Vec<(usize, usize)> {
    let ws = words(text);
    let capital = |&(s, e): &(usize, usize)| {
        let w = &text[s..e];
        w.chars().next().is_some_and(char::is_uppercase)
            && w.chars().count() > 1
            && ![
                "The",
                "A",
                "An",
                "In",
                "On",
                "At",
                "He",
                "She",
                "It",
                "They",
                "His",
                "Her",
                "January",
                "February",
                "March",
                "April",
                "May",
                "June",
                "July",
                "August",
                "September",
                "October",
                "November",
                "December",
            ]
            .contains(&w)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        if i > 0 && capital(&ws[i]) {
            let mut j = i;
            while j + 1 < ws.len()
                && capital(&ws[j + 1])
                && text[ws[j].1..ws[j + 1].0].trim().is_empty()
            {
                j += 1;
            }
            if j > i {
                out.push((ws[i].0, ws[j].1));
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

fn swap_name(claim: &str, page: &str, rng: &mut Rng) -> Option<(String, Option<String>)> {
    let ours = names(claim);
    let (s, e) = *ours.iter().find(|&&(s, e)| page.contains(&claim[s..e]))?;
    let theirs: Vec<&str> = names(page)
        .into_iter()
        .map(|(a, b)| &page[a..b])
        .filter(|n| !claim.contains(n) && n.split_whitespace().count() == 2)
        .collect();
    if theirs.is_empty() {
        return None;
    }
    Some((
        replace(claim, (s, e), theirs[rng.below(theirs.len())]),
        Some(claim[s..e].to_owned()),
    ))
}

fn add_superlative(claim: &str) -> Option<String> {
    let ws = words(claim);
    ws.iter().enumerate().find_map(|(k, &(s, e))| {
        let w = &claim[s..e];
        let next_lower = ws
            .get(k + 1)
            .is_some_and(|&(a, _)| claim[a..].starts_with(char::is_lowercase));
        (matches!(w, "a" | "an") && next_lower).then(|| replace(claim, (s, e), "the largest"))
    })
}

fn add_place(claim: &str, page: &str) -> Option<String> {
    let city = CITIES.iter().find(|c| !page.contains(*c))?;
    let trimmed = claim.trim_end();
    let (body, stop) = match trimmed.char_indices().last() {
        Some((at, '.' | '!' | '?')) => (&trimmed[..at], &trimmed[at..]),
        _ => (trimmed, ""),
    };
    Some(format!(
        "{} in {city}{stop}",
        body.trim_end_matches([' ', '"', '\u{201D}'])
    ))
}
