//! The word lists drafts and sources are read with, in one place: the extractor uses them to find
//! check-worthy statements, the judge to compare a claim with its source element by element.
//!
//! Every list is closed and written out (no stemming), so what a word means here can be read off
//! the list, and a word that is ambiguous in news English is left out rather than guessed at:
//! "decline" is a fall ("sales declined") but also a refusal ("declined to comment"), so it
//! counts as a fall only where no "to" follows it; "up" and "down" count only before a figure or
//! "from", "by", "on" ("up 4%", "down from"), not in "set up" or "shut down".
//!
//! - **Direction** ([`directions`]): words that say which way something went on an *axis*:
//!   amount (rose/fell, more/fewer, higher/lower), extremes (largest/smallest), decisions
//!   (approved/rejected), provision (includes/scraps, kept/axed), access (opened/closed), contests
//!   (won/lost), staffing (hired/fired), permission (allowed/banned), stance (supports/opposes),
//!   balance (profit/loss), quality (improved/worsened), guilt (convicted/acquitted) and
//!   admission (confirmed/denied). Two words on one axis with opposite polarity contradict each
//!   other; words on different axes never do. [`PAIRS`] lists opposite forms pairwise, which
//!   also lets a contrast set swap a word for its opposite in the same inflection.
//! - **Negation** ([`is_negation`], [`NEGATING_VERBS`]): "not", "never", "n't", "no", "without",
//!   and verbs that negate what follows them ("failed to", "refused to", "has yet to").
//! - **Quantifiers** ([`quantifier`]): a scale from none to all, so "all of the teachers" can be
//!   told from "several of the teachers".
//! - **Records** ([`RECORD_PHRASES`]) and superlatives (`detect`): specifics a claim may add.
//! - **Roles** ([`role`]): the titles people hold, and the words that change a title's rank
//!   ("deputy", "acting", "former").
//! - **Wrongdoing** ([`WRONGDOING`]): what an allegation against a named person says.
//! - **Debunking** ([`DEBUNKING`]): words with which an article reports that a claim is false.

use std::sync::LazyLock;

/// The lexicon's lookup tables, keyed by its own words: foldhash, as the tokens' tables, for its
/// speed on short keys. Declared here, not taken from `tokens`, which reads the lexicon.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// What a direction word is about. Words on different axes never contradict each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// How much: rose/fell, more/fewer, higher/lower, gained/lost.
    Amount,
    /// The extremes of a ranking: largest/smallest, highest/lowest.
    Extreme,
    /// The extremes of quality: best/worst.
    Merit,
    /// A decision on a proposal: approved/rejected.
    Decision,
    /// Whether something is provided or kept: includes/scraps, keeps/axes, restores/abolishes.
    Provision,
    /// Whether a place is open: opened/closed.
    Access,
    /// A contest: won/lost, passed/failed.
    Contest,
    /// Jobs: hired/fired.
    Staffing,
    /// Whether something is allowed: allowed/banned.
    Permission,
    /// A position on something: supports/opposes.
    Stance,
    /// Accounts: profit/loss, surplus/deficit.
    Balance,
    /// Getting better or worse: improved/worsened.
    Quality,
    /// A verdict: convicted/acquitted.
    Guilt,
    /// Saying whether something is so: confirmed/denied.
    Admission,
    /// The outcome of an appeal, a claim, an application or a challenge: allowed/dismissed,
    /// upheld/rejected, won/lost. Read only where such a thing is named (see
    /// [`ruling`]).
    Ruling,
}

/// Opposite word forms on one axis, positive first, in the same inflection, so that each can be
/// swapped for the other.
pub(crate) const PAIRS: &[(&str, &str, Axis)] = &[
    ("rise", "fall", Axis::Amount),
    ("rises", "falls", Axis::Amount),
    ("rose", "fell", Axis::Amount),
    ("risen", "fallen", Axis::Amount),
    ("rising", "falling", Axis::Amount),
    ("increase", "decrease", Axis::Amount),
    ("increases", "decreases", Axis::Amount),
    ("increased", "decreased", Axis::Amount),
    ("increasing", "decreasing", Axis::Amount),
    ("grow", "shrink", Axis::Amount),
    ("grows", "shrinks", Axis::Amount),
    ("grew", "shrank", Axis::Amount),
    ("grown", "shrunk", Axis::Amount),
    ("growing", "shrinking", Axis::Amount),
    ("gain", "lose", Axis::Amount),
    ("gains", "loses", Axis::Amount),
    ("gained", "lost", Axis::Amount),
    ("climbed", "dropped", Axis::Amount),
    ("climbs", "drops", Axis::Amount),
    ("jumped", "slumped", Axis::Amount),
    ("soared", "plunged", Axis::Amount),
    ("raise", "lower", Axis::Amount),
    ("raises", "lowers", Axis::Amount),
    ("raised", "lowered", Axis::Amount),
    ("expanded", "contracted", Axis::Amount),
    ("more", "fewer", Axis::Amount),
    ("higher", "lower", Axis::Amount),
    ("larger", "smaller", Axis::Amount),
    ("bigger", "smaller", Axis::Amount),
    ("greater", "smaller", Axis::Amount),
    ("above", "below", Axis::Amount),
    ("up", "down", Axis::Amount),
    ("largest", "smallest", Axis::Extreme),
    ("biggest", "smallest", Axis::Extreme),
    ("highest", "lowest", Axis::Extreme),
    ("greatest", "smallest", Axis::Extreme),
    ("most", "least", Axis::Extreme),
    ("maximum", "minimum", Axis::Extreme),
    ("best", "worst", Axis::Merit),
    ("approve", "reject", Axis::Decision),
    ("approves", "rejects", Axis::Decision),
    ("approved", "rejected", Axis::Decision),
    ("approving", "rejecting", Axis::Decision),
    ("accepted", "rejected", Axis::Decision),
    ("include", "exclude", Axis::Provision),
    ("includes", "excludes", Axis::Provision),
    ("included", "excluded", Axis::Provision),
    ("keep", "scrap", Axis::Provision),
    ("keeps", "scraps", Axis::Provision),
    ("kept", "scrapped", Axis::Provision),
    ("retains", "scraps", Axis::Provision),
    ("retained", "scrapped", Axis::Provision),
    ("introduced", "abolished", Axis::Provision),
    ("introduces", "abolishes", Axis::Provision),
    ("restored", "removed", Axis::Provision),
    ("added", "removed", Axis::Provision),
    ("adds", "removes", Axis::Provision),
    ("saved", "axed", Axis::Provision),
    ("started", "stopped", Axis::Provision),
    ("open", "close", Axis::Access),
    ("opens", "closes", Axis::Access),
    ("opened", "closed", Axis::Access),
    ("reopened", "closed", Axis::Access),
    ("opening", "closing", Axis::Access),
    ("win", "lose", Axis::Contest),
    ("wins", "loses", Axis::Contest),
    ("won", "lost", Axis::Contest),
    ("winning", "losing", Axis::Contest),
    ("passed", "failed", Axis::Contest),
    ("succeeded", "failed", Axis::Contest),
    ("hired", "fired", Axis::Staffing),
    ("hires", "fires", Axis::Staffing),
    ("hiring", "firing", Axis::Staffing),
    ("allow", "ban", Axis::Permission),
    ("allows", "bans", Axis::Permission),
    ("allowed", "banned", Axis::Permission),
    ("permitted", "prohibited", Axis::Permission),
    ("legal", "illegal", Axis::Permission),
    ("support", "oppose", Axis::Stance),
    ("supports", "opposes", Axis::Stance),
    ("supported", "opposed", Axis::Stance),
    ("backed", "opposed", Axis::Stance),
    ("favour", "oppose", Axis::Stance),
    ("profit", "loss", Axis::Balance),
    ("profits", "losses", Axis::Balance),
    ("surplus", "deficit", Axis::Balance),
    ("improve", "worsen", Axis::Quality),
    ("improves", "worsens", Axis::Quality),
    ("improved", "worsened", Axis::Quality),
    ("better", "worse", Axis::Quality),
    ("strengthened", "weakened", Axis::Quality),
    ("convicted", "acquitted", Axis::Guilt),
    ("guilty", "innocent", Axis::Guilt),
    ("confirmed", "denied", Axis::Admission),
    ("confirms", "denies", Axis::Admission),
    ("admitted", "denied", Axis::Admission),
    ("admits", "denies", Axis::Admission),
];

/// Words with a direction that have no single opposite form above: (word, axis, positive).
const MORE_DIRECTIONS: &[(&str, Axis, bool)] = &[
    ("jump", Axis::Amount, true),
    ("jumps", Axis::Amount, true),
    ("surge", Axis::Amount, true),
    ("surged", Axis::Amount, true),
    ("surges", Axis::Amount, true),
    ("soar", Axis::Amount, true),
    ("soars", Axis::Amount, true),
    ("climb", Axis::Amount, true),
    ("climbing", Axis::Amount, true),
    ("rocketed", Axis::Amount, true),
    ("swelled", Axis::Amount, true),
    ("expand", Axis::Amount, true),
    ("expands", Axis::Amount, true),
    ("boost", Axis::Amount, true),
    ("boosted", Axis::Amount, true),
    ("boosts", Axis::Amount, true),
    ("hike", Axis::Amount, true),
    ("hiked", Axis::Amount, true),
    ("hikes", Axis::Amount, true),
    ("doubled", Axis::Amount, true),
    ("tripled", Axis::Amount, true),
    ("quadrupled", Axis::Amount, true),
    ("upturn", Axis::Amount, true),
    ("growth", Axis::Amount, true),
    ("drop", Axis::Amount, false),
    ("plunge", Axis::Amount, false),
    ("plunges", Axis::Amount, false),
    ("plummeted", Axis::Amount, false),
    ("plummets", Axis::Amount, false),
    ("slump", Axis::Amount, false),
    ("slumps", Axis::Amount, false),
    ("slid", Axis::Amount, false),
    ("slides", Axis::Amount, false),
    ("slipped", Axis::Amount, false),
    ("slips", Axis::Amount, false),
    ("tumbled", Axis::Amount, false),
    ("tumbles", Axis::Amount, false),
    ("sank", Axis::Amount, false),
    ("sinks", Axis::Amount, false),
    ("dipped", Axis::Amount, false),
    ("dips", Axis::Amount, false),
    ("eased", Axis::Amount, false),
    ("cut", Axis::Amount, false),
    ("cuts", Axis::Amount, false),
    ("cutting", Axis::Amount, false),
    ("reduce", Axis::Amount, false),
    ("reduced", Axis::Amount, false),
    ("reduces", Axis::Amount, false),
    ("reducing", Axis::Amount, false),
    ("halved", Axis::Amount, false),
    ("downturn", Axis::Amount, false),
    ("less", Axis::Amount, false),
    ("decline", Axis::Amount, false),
    ("declined", Axis::Amount, false),
    ("declines", Axis::Amount, false),
    ("declining", Axis::Amount, false),
    ("dearer", Axis::Amount, true),
    ("costlier", Axis::Amount, true),
    ("pricier", Axis::Amount, true),
    ("cheaper", Axis::Amount, false),
    ("fewest", Axis::Extreme, false),
    ("top", Axis::Extreme, true),
    ("endorsed", Axis::Decision, true),
    ("adopted", Axis::Decision, true),
    ("ratified", Axis::Decision, true),
    ("go-ahead", Axis::Decision, true),
    ("greenlit", Axis::Decision, true),
    ("deferred", Axis::Decision, false),
    ("postponed", Axis::Decision, false),
    ("shelved", Axis::Decision, false),
    ("vetoed", Axis::Decision, false),
    ("blocked", Axis::Decision, false),
    ("refused", Axis::Decision, false),
    ("overturned", Axis::Decision, false),
    ("extends", Axis::Provision, true),
    ("extended", Axis::Provision, true),
    ("restores", Axis::Provision, true),
    ("continues", Axis::Provision, true),
    ("maintained", Axis::Provision, true),
    ("launched", Axis::Provision, true),
    ("scrapping", Axis::Provision, false),
    ("axe", Axis::Provision, false),
    ("axes", Axis::Provision, false),
    ("abolish", Axis::Provision, false),
    ("cancelled", Axis::Provision, false),
    ("canceled", Axis::Provision, false),
    ("cancels", Axis::Provision, false),
    ("ended", Axis::Provision, false),
    ("ends", Axis::Provision, false),
    ("eliminated", Axis::Provision, false),
    ("eliminates", Axis::Provision, false),
    ("dropped", Axis::Provision, false),
    ("drops", Axis::Provision, false),
    ("halted", Axis::Provision, false),
    ("suspended", Axis::Provision, false),
    ("discontinued", Axis::Provision, false),
    ("withdrew", Axis::Provision, false),
    ("withdrawn", Axis::Provision, false),
    ("shut", Axis::Access, false),
    ("shuts", Axis::Access, false),
    ("shuttered", Axis::Access, false),
    ("reopens", Axis::Access, true),
    ("victory", Axis::Contest, true),
    ("beat", Axis::Contest, true),
    ("defeat", Axis::Contest, false),
    ("recruited", Axis::Staffing, true),
    ("sacked", Axis::Staffing, false),
    ("dismissed", Axis::Staffing, false),
    ("laid", Axis::Staffing, false),
    ("legalised", Axis::Permission, true),
    ("legalized", Axis::Permission, true),
    ("prohibits", Axis::Permission, false),
    ("outlawed", Axis::Permission, false),
    ("forbids", Axis::Permission, false),
    ("forbidden", Axis::Permission, false),
    ("favours", Axis::Stance, true),
    ("favors", Axis::Stance, true),
    ("backs", Axis::Stance, true),
    ("welcomed", Axis::Stance, true),
    ("against", Axis::Stance, false),
    ("criticised", Axis::Stance, false),
    ("criticized", Axis::Stance, false),
    ("condemned", Axis::Stance, false),
    ("deteriorated", Axis::Quality, false),
    ("weakened", Axis::Quality, false),
    ("recovered", Axis::Quality, true),
    ("cleared", Axis::Guilt, false),
    ("acknowledged", Axis::Admission, true),
    ("disputed", Axis::Admission, false),
];

/// Direction words that only count in a given context; see the module documentation.
const BEFORE_NOT_TO: &[&str] = &["decline", "declined", "declines", "declining", "refused"];
const BEFORE_FIGURE: &[&str] = &["up", "down"];

static DIRECTIONS: LazyLock<HashMap<&'static str, Vec<(Axis, bool)>>> = LazyLock::new(|| {
    let mut map: HashMap<&'static str, Vec<(Axis, bool)>> = HashMap::default();
    let mut add = |word: &'static str, axis: Axis, positive: bool| {
        let entry = map.entry(word).or_default();
        if !entry.contains(&(axis, positive)) {
            entry.push((axis, positive));
        }
    };
    for &(up, down, axis) in PAIRS {
        add(up, axis, true);
        add(down, axis, false);
    }
    for &(word, axis, positive) in MORE_DIRECTIONS {
        add(word, axis, positive);
    }
    map
});

/// The axes and polarities (true: up, more, yes) of a lower-case word, in context: `next` is the
/// word after it (lower-case), `next_is_figure` whether a figure follows. Empty for a word
/// without a direction, or one whose context takes its direction away ("declined to comment",
/// "set up").
pub fn directions(word: &str, next: Option<&str>, next_is_figure: bool) -> &'static [(Axis, bool)] {
    if BEFORE_NOT_TO.contains(&word) && next == Some("to") {
        return &[];
    }
    if BEFORE_FIGURE.contains(&word)
        && !next_is_figure
        && !matches!(
            next,
            Some("from" | "by" | "on" | "sharply" | "slightly" | "again")
        )
    {
        return &[];
    }
    DIRECTIONS.get(word).map_or(&[], Vec::as_slice)
}

/// What an appeal, a claim, an application or a challenge can end in.
pub(crate) const RULING_NOUNS: &[&str] = &[
    "appeal",
    "appeals",
    "claim",
    "claims",
    "case",
    "application",
    "applications",
    "challenge",
    "challenges",
    "complaint",
    "complaints",
    "petition",
    "bid",
    "motion",
    "request",
    "lawsuit",
    "suit",
    "objection",
    "objections",
];

/// The outcome a word gives a ruling noun of [`RULING_NOUNS`] ("allowed his appeal", "the claim
/// was dismissed", "lost her challenge"): true when it succeeds. `None` for other words.
pub(crate) fn ruling(word: &str) -> Option<bool> {
    match word {
        "allowed" | "allows" | "allow" | "upheld" | "upholds" | "granted" | "grants" | "won"
        | "wins" | "win" | "succeeded" | "succeeds" | "accepted" | "accepts" | "successful" => {
            Some(true)
        }
        "dismissed" | "dismisses" | "dismiss" | "rejected" | "rejects" | "reject" | "refused"
        | "refuses" | "lost" | "loses" | "lose" | "failed" | "fails" | "denied" | "denies"
        | "unsuccessful" | "struck" | "thrown" => Some(false),
        _ => None,
    }
}

/// The opposite of `word` (lower-case) in the same inflection, from [`PAIRS`].
pub fn opposite(word: &str) -> Option<&'static str> {
    PAIRS.iter().find_map(|&(up, down, _)| {
        if up == word {
            Some(down)
        } else if down == word {
            Some(up)
        } else {
            None
        }
    })
}

/// Month names and their abbreviations, lower case, with the month's number: the one list the
/// date rules of extraction and of judging read.
pub(crate) const MONTHS: &[(&str, u8)] = &[
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];

/// The number (1–12) of a month's name or abbreviation, lower case ("sept" and "sep" both
/// September; "may" is May, so callers where "may" is likelier the verb check its case).
pub fn month_number(word: &str) -> Option<u8> {
    MONTHS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|&(_, n)| n)
}

/// Verbs of change in amount, every inflection: what makes "grew by 12%" a claim of change.
pub(crate) const CHANGE_VERBS: &[&str] = &[
    "grew",
    "grow",
    "grows",
    "growing",
    "rose",
    "rise",
    "rises",
    "rising",
    "increased",
    "increases",
    "increasing",
    "fell",
    "fall",
    "falls",
    "falling",
    "declined",
    "declines",
    "declining",
    "decreased",
    "decreases",
    "dropped",
    "drops",
    "jumped",
    "jumps",
    "surged",
    "surges",
    "soared",
    "soars",
    "climbed",
    "climbs",
    "plunged",
    "plunges",
    "plummeted",
    "shrank",
    "shrunk",
    "shrinks",
    "slid",
    "slumped",
    "gained",
    "gains",
    "lost",
    "cut",
    "reduced",
    "reduces",
    "boosted",
    "boosts",
    "improved",
    "improves",
    "expanded",
    "expands",
    "spiked",
    "tumbled",
];

/// Single words that negate: "not", "never", "no", "without", and every "…n't".
pub(crate) fn is_negation(word: &str) -> bool {
    matches!(
        word,
        "not"
            | "no"
            | "never"
            | "none"
            | "nor"
            | "neither"
            | "nobody"
            | "nothing"
            | "without"
            | "cannot"
            | "nowhere"
    ) || word.ends_with("n't")
        || word.ends_with("n\u{2019}t")
}

/// Verbs that negate the verb after "to": "failed to win", "refused to approve", "has yet to
/// decide" (the word before "to").
pub(crate) const NEGATING_VERBS: &[&str] = &[
    "failed", "fails", "fail", "refused", "refuses", "refuse", "declined", "declines", "yet",
];

/// Where a quantifier sits on the scale from none to all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Quantity {
    None,
    Few,
    Some,
    Most,
    All,
}

/// Quantifier phrases, lower-case, longest first so that "the vast majority" is read before
/// "majority" and "a few" before "few".
pub(crate) const QUANTIFIERS: &[(&str, Quantity)] = &[
    ("without exception", Quantity::All),
    ("every single", Quantity::All),
    ("every one of", Quantity::All),
    ("each one of", Quantity::All),
    ("all of", Quantity::All),
    ("the vast majority of", Quantity::Most),
    ("the overwhelming majority of", Quantity::Most),
    ("the majority of", Quantity::Most),
    ("a majority of", Quantity::Most),
    ("nearly all", Quantity::Most),
    ("almost all", Quantity::Most),
    ("virtually all", Quantity::Most),
    ("the bulk of", Quantity::Most),
    ("more than half", Quantity::Most),
    ("a minority of", Quantity::Few),
    ("a handful of", Quantity::Few),
    ("hardly any", Quantity::Few),
    ("a few", Quantity::Few),
    ("a number of", Quantity::Some),
    ("not a single", Quantity::None),
    ("no one", Quantity::None),
    ("all", Quantity::All),
    ("every", Quantity::All),
    ("everyone", Quantity::All),
    ("everybody", Quantity::All),
    ("entire", Quantity::All),
    ("unanimous", Quantity::All),
    ("unanimously", Quantity::All),
    ("always", Quantity::All),
    ("most", Quantity::Most),
    ("majority", Quantity::Most),
    ("some", Quantity::Some),
    ("several", Quantity::Some),
    ("many", Quantity::Some),
    ("numerous", Quantity::Some),
    ("various", Quantity::Some),
    ("few", Quantity::Few),
    ("minority", Quantity::Few),
    ("none", Quantity::None),
    ("nobody", Quantity::None),
];

/// [`QUANTIFIERS`] by their first word: the rest of each phrase and its quantity, in the
/// table's order.
static QUANTIFIERS_BY_FIRST_WORD: LazyLock<HashMap<&'static str, Vec<(&'static str, Quantity)>>> =
    LazyLock::new(|| {
        let mut by_first: HashMap<&'static str, Vec<(&'static str, Quantity)>> = HashMap::default();
        for &(phrase, q) in QUANTIFIERS {
            let (first, rest) = phrase.split_once(' ').unwrap_or((phrase, ""));
            by_first.entry(first).or_default().push((rest, q));
        }
        by_first
    });

/// The quantifier that starts at word `i` of `words` (lower-case), with how many words it spans:
/// the first phrase of [`QUANTIFIERS`] that starts there. Most words start none, so the phrases
/// are looked up by their first word (this runs for every word of a claim and of the sentence
/// it is compared with).
pub fn quantifier(words: &[&str], i: usize) -> Option<(Quantity, usize)> {
    let first = *words.get(i)?;
    QUANTIFIERS_BY_FIRST_WORD
        .get(first)?
        .iter()
        .find_map(|&(rest, q)| {
            let parts = rest.split(' ').filter(|_| !rest.is_empty());
            let n = 1 + parts.clone().count();
            (i + n <= words.len() && parts.zip(&words[i + 1..i + n]).all(|(p, w)| p == *w))
                .then_some((q, n))
        })
}

/// Phrases that claim a record, lower-case: a specific a claim may add that its source does not
/// state. "record" counts only as an adjective before one of [`RECORD_NOUNS`] ("a record low"),
/// not as a noun ("a criminal record", "the record label").
pub(crate) const RECORD_PHRASES: &[&str] = &[
    "all-time",
    "since records began",
    "on record",
    "ever recorded",
    "ever seen",
    "unprecedented",
    "highest-ever",
    "lowest-ever",
    "biggest-ever",
    "largest-ever",
    "best-ever",
    "worst-ever",
    "record-breaking",
    "never before",
];

/// Whether a lower-case sentence claims a record: one of [`RECORD_PHRASES`], "record" before one
/// of [`RECORD_NOUNS`] ("a record low"), or a superlative followed by "since" ("the highest since
/// 1990", "the lowest level since the war").
pub(crate) fn claims_record(lower: &str) -> bool {
    if RECORD_PHRASES.iter().any(|p| lower.contains(p)) {
        return true;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    let superlative = |w: &str| {
        matches!(
            w,
            "highest"
                | "lowest"
                | "biggest"
                | "largest"
                | "smallest"
                | "worst"
                | "best"
                | "fastest"
                | "slowest"
                | "strongest"
                | "weakest"
                | "warmest"
                | "coldest"
                | "hottest"
                | "wettest"
                | "driest"
        )
    };
    let number = |w: &str| w.chars().next().is_some_and(|c| c.is_ascii_digit());
    // "in its history", "the largest … ever", "a first-ever", "course-record 2:05:41".
    let history = lower.contains("in its history")
        || lower.contains("in their history")
        || lower.contains("in history")
        || lower.contains("first-ever")
        || lower.contains("first ever")
        || lower.contains("never before");
    let superlative_ever = words
        .iter()
        .enumerate()
        .any(|(i, w)| superlative(w) && words[i + 1..].iter().take(7).any(|x| *x == "ever"));
    history
        || superlative_ever
        || words
            .iter()
            .any(|w| w.ends_with("-record") || w.ends_with("-best"))
        || words.windows(2).any(|w| {
            (w[0] == "record" && (RECORD_NOUNS.contains(&w[1]) || number(w[1])))
                || w[0].starts_with("record-")
        })
        || words.windows(3).any(|w| {
            superlative(w[0]) && (w[1] == "since" || (w[2] == "since" && !superlative(w[1])))
        })
}

/// Nouns "record" qualifies when it claims a record: "a record high", "record turnout".
pub(crate) const RECORD_NOUNS: &[&str] = &[
    "high",
    "low",
    "level",
    "levels",
    "number",
    "numbers",
    "year",
    "amount",
    "sum",
    "turnout",
    "temperature",
    "temperatures",
    "profit",
    "profits",
    "sales",
    "heat",
    "rainfall",
    "demand",
    "prices",
    "price",
    "growth",
    "losses",
    "figures",
    "attendance",
    "crowd",
    "time",
];

/// What a word does in a person's title: the office itself, or a word that changes its rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// "minister", "chairman", "chief executive" (as "executive").
    Office,
    /// "deputy", "acting", "former": the same office at another rank or time.
    Rank,
}

/// Offices people hold, lower-case.
pub(crate) const OFFICES: &[&str] = &[
    "minister",
    "secretary",
    "president",
    "chancellor",
    "governor",
    "mayor",
    "senator",
    "congressman",
    "congresswoman",
    "representative",
    "councillor",
    "councilor",
    "chair",
    "chairman",
    "chairwoman",
    "chairperson",
    "director",
    "executive",
    "ceo",
    "cfo",
    "coo",
    "officer",
    "manager",
    "head",
    "leader",
    "spokesperson",
    "spokesman",
    "spokeswoman",
    "professor",
    "lecturer",
    "principal",
    "commissioner",
    "judge",
    "justice",
    "general",
    "colonel",
    "captain",
    "coach",
    "editor",
    "founder",
    "owner",
    "treasurer",
    "superintendent",
    "chief",
    "inspector",
    "sergeant",
    "constable",
    "ambassador",
    "premier",
    "king",
    "queen",
    "prince",
    "princess",
    "bishop",
    "mp",
    "mep",
    "dean",
    "trustee",
    "economist",
    "analyst",
    "teacher",
    "headteacher",
    "doctor",
    "surgeon",
    "nurse",
];

/// Words that change an office's rank or time.
const RANKS: &[&str] = &[
    "deputy",
    "vice",
    "assistant",
    "acting",
    "interim",
    "former",
    "junior",
    "shadow",
    "associate",
    "under",
    "co",
    "ex",
    "outgoing",
    "incoming",
];

/// The role a lower-case word plays in a title, if any.
pub fn role(word: &str) -> Option<Role> {
    if OFFICES.contains(&word) {
        Some(Role::Office)
    } else if RANKS.contains(&word) {
        Some(Role::Rank)
    } else {
        None
    }
}

/// Verbs and phrases of wrongdoing, lower-case: with a named person, an allegation that needs a
/// source (spec: allegations, like statistics, must be sourced).
pub(crate) const WRONGDOING: &[&str] = &[
    "embezzled",
    "embezzles",
    "embezzling",
    "defrauded",
    "defrauds",
    "defrauding",
    "stole",
    "steals",
    "stealing",
    "stolen",
    "bribed",
    "bribes",
    "bribery",
    "laundered",
    "laundering",
    "extorted",
    "blackmailed",
    "smuggled",
    "trafficked",
    "forged",
    "falsified",
    "plagiarised",
    "plagiarized",
    "misappropriated",
    "siphoned",
    "pocketed",
    "rigged",
    "assaulted",
    "harassed",
    "abused",
    "murdered",
    "raped",
    "lied",
    "cheated",
    "fraud",
    "fraudulently",
    "corruption",
    "corruptly",
    "kickbacks",
    "evaded",
    "evasion",
    "covered up",
    "cooked the books",
    "accused of",
    "charged with",
    "arrested",
    "indicted",
    "convicted of",
];

/// Words with which a sentence reports that a claim is false ("the claim is false", "debunked",
/// "there is no evidence"), lower-case.
pub(crate) const DEBUNKING: &[&str] = &[
    "false",
    "untrue",
    "not true",
    "debunked",
    "no evidence",
    "misleading",
    "fake",
    "hoax",
    "myth",
    "incorrect",
    "inaccurate",
    "baseless",
    "unfounded",
    "wrong",
    "fabricated",
    "disproved",
];

/// Whether a word after a quantity names things counted ("families", "people"), not a span of
/// time or a word of argument ([`NOT_COUNTED`]).
pub(crate) fn counted_noun(word: &str) -> bool {
    let lower = word.to_lowercase();
    let plural = (lower.ends_with('s') && !lower.ends_with("ss") && lower.len() > 2)
        || matches!(
            lower.as_str(),
            "people" | "children" | "men" | "women" | "staff" | "police" | "cattle" | "sheep"
        );
    plural && !NOT_COUNTED.contains(&lower.as_str())
}

/// Nouns a number word counts without making a claim of it: spans of time ("three years"),
/// and the words of argument ("two reasons", "three ways").
pub(crate) const NOT_COUNTED: &[&str] = &[
    "seconds",
    "minutes",
    "hours",
    "days",
    "nights",
    "weeks",
    "weekends",
    "months",
    "years",
    "decades",
    "centuries",
    "seasons",
    "times",
    "reasons",
    "ways",
    "things",
    "steps",
    "points",
    "sides",
    "questions",
    "ideas",
    "examples",
    "words",
    "options",
    "aspects",
    "factors",
    "parts",
    "stages",
    "phases",
    "kinds",
    "types",
    "sorts",
    "categories",
    "lessons",
    "tips",
    "rules",
    "goals",
    "chapters",
    "sections",
    "pages",
    "ones",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_is_a_pair_of_opposites_on_its_axis() {
        for &(up, down, axis) in PAIRS {
            assert!(
                directions(up, Some("by"), true).contains(&(axis, true)),
                "{up}"
            );
            assert!(
                directions(down, Some("by"), true).contains(&(axis, false)),
                "{down}"
            );
            assert_ne!(up, down);
        }
        assert_eq!(opposite("rose"), Some("fell"));
        assert_eq!(opposite("rejected"), Some("approved"));
    }

    #[test]
    fn context_takes_a_direction_away() {
        assert!(directions("declined", Some("to"), false).is_empty());
        assert!(!directions("declined", Some("by"), true).is_empty());
        assert!(directions("up", Some("the"), false).is_empty());
        assert!(!directions("up", None, true).is_empty());
        assert!(directions("table", None, false).is_empty());
    }

    #[test]
    fn quantifiers_read_the_longest_phrase() {
        let words = ["the", "vast", "majority", "of", "residents"];
        assert_eq!(quantifier(&words, 0), Some((Quantity::Most, 4)));
        let words = ["a", "few", "residents"];
        assert_eq!(quantifier(&words, 0), Some((Quantity::Few, 2)));
        let words = ["several", "teachers"];
        assert_eq!(quantifier(&words, 0), Some((Quantity::Some, 1)));
        assert_eq!(quantifier(&words, 1), None);
    }

    #[test]
    fn negation_and_roles() {
        assert!(is_negation("didn't") && is_negation("never") && !is_negation("note"));
        assert_eq!(role("deputy"), Some(Role::Rank));
        assert_eq!(role("minister"), Some(Role::Office));
        assert_eq!(role("transport"), None);
    }
}
