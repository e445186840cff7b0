//! What makes a sentence check-worthy, and the judgment of claims that cite nothing.
//!
//! [`analyze`] reads one sentence (markup removed) and reports what it states that could be
//! checked: its [`ClaimKind`]s, its figures ([`parse_figures`]), its quoted spans and who it is
//! attributed to. A sentence with at least one kind is a claim ([`SentenceFeatures::is_check_worthy`]).
//!
//! # Kinds
//! - **Percentage, Money, Count, Ratio**: from the figures; **Change** from a multiplier figure
//!   ("doubled", "3x", "halved") or a change verb followed by "by" or by a figure ("grew by",
//!   "rose 12 percent", "fell to $3"); **Date** from a year figure, a day with its month
//!   ("4 March", "March 4, 2024"), or a numeric date ("2024-03-04", "3/4/2024"). "Last year" is
//!   not a date claim. A count is a digit number or a scaled number word, so "one of them" or
//!   "three reasons" alone is no claim.
//! - **Quote**: a span of at least three words between “…”, "…", ‘…’, «…» or '…' (single
//!   straight quotes only where they open after a space and close before one, so apostrophes
//!   are not quotes).
//! - **Attribution**: "according to Y", "a study by Z" (also report, survey, data… by or from),
//!   "X said/says/reported/found/estimates/told…", "X, an appositive, said", "said X"; and
//!   without a name "he/she/they said", "studies show", "officials told", "experts say".
//!   `attributed_to` is the named source, in that order of preference; an unnamed speaker
//!   ("she said") is an attribution without a name.
//! - **Comparative**: "more/less/fewer/better/worse (adjective) than", "-er than" ("faster
//!   than", not "other than" or "rather than"), "compared with/to", "outperforms".
//! - **Superlative**: "the largest", "the first", "the most", "the best", "the company's
//!   fastest", any "-est" after "the" or a possessive (not "the rest", "the interest"…).
//! - **FirstPersonData**: "our pilot/survey/study/research/data/analysis/experiment/trial/
//!   results/findings…", "we measured/tested/surveyed/polled…", and "we found/observed/
//!   discovered" or "our team found" when "that" follows or the sentence states a figure
//!   ("we found ourselves lost" is a turn of phrase).
//!
//! `market` is set when the sentence speaks of a market, its size or share, TAM, revenue,
//! valuation, competitors or an industry's worth.
//!
//! # Prejudgment of a claim that cites nothing
//! After the severity levels and the claim hierarchy of the fact-checker spec, first rule
//! that applies wins ([`prejudge`]):
//! 1. FirstPersonData → **high**, [`UnsourcedKind::FirstPersonData`]: first-person data with no
//!    source cannot be verified and is likely fabricated; remove it or provide a source.
//! 2. Reported speech ([`SentenceFeatures::speech`]: a quotation, or "X said …" with a named
//!    speaker or a pronoun for one) → **low**, [`UnsourcedKind::ReportedSpeech`], figures inside
//!    it included: what the reporter heard is not a statistic a source can settle.
//! 3. `market` and a figure other than a year → **high**, [`UnsourcedKind::MarketFigure`].
//! 4. Allegation against a named person → **high**, [`UnsourcedKind::Allegation`].
//! 5. Percentage, Money, Count, Ratio or Change → **high**, [`UnsourcedKind::Statistic`].
//! 6. Anything else (attributions to documents, dates, comparatives, superlatives) → **low**,
//!    [`UnsourcedKind::Qualitative`]: acceptable without a citation, never blocks alone.
//!
//! # Cost
//! Every regex is compiled once. Word boundaries are ASCII (`(?-u:\b)`) so the regex engine
//! keeps to its fast automaton on non-ASCII text (typographic quotes are everywhere in news).

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

use crate::model::{ClaimKind, Figure, Prejudgment, Severity, Unit, UnsourcedKind};
use crate::text::figures::parse_figures;
use crate::text::lexicon;

/// What one sentence states that could be checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SentenceFeatures {
    /// Every kind the sentence shows, sorted, without duplicates.
    pub kinds: Vec<ClaimKind>,
    /// The figures it states, in order.
    pub figures: Vec<crate::model::Figure>,
    /// Quoted spans without their quote marks.
    pub quotes: Vec<String>,
    /// Who the sentence attributes its content to ("according to Gartner" → "Gartner").
    pub attributed_to: Option<String>,
    /// Whether it speaks of a market, revenue, share or competitors.
    pub market: bool,
    /// Whether it reports what someone said: a quotation, or a verb of speech ("said", "told",
    /// "warned") with a named speaker or a pronoun for one ("she said"). "Experts say" names no
    /// one; "according to the report" and "the study found" cite a document, not speech.
    pub speech: bool,
}

impl SentenceFeatures {
    /// Whether the sentence is a claim worth checking.
    pub(crate) fn is_check_worthy(&self) -> bool {
        !self.kinds.is_empty()
    }

    /// Whether the sentence shows `kind`.
    pub fn has(&self, kind: ClaimKind) -> bool {
        self.kinds.binary_search(&kind).is_ok()
    }

    /// Whether it states a market figure: speaks of a market and states a figure that is not
    /// merely a year.
    pub(crate) fn is_market_figure(&self) -> bool {
        self.market && self.figures.iter().any(|f| f.unit != Unit::Year)
    }
}

/// Reads one sentence (markup already removed).
pub fn analyze(sentence: &str) -> SentenceFeatures {
    let cues = Cues::of(sentence);
    let matches = |cue: Cue| cues.regex(cue).is_some_and(|re| re.is_match(sentence));
    let figures = parse_figures(sentence);
    let mut kinds: Vec<ClaimKind> = figures.iter().map(kind_of).collect();

    let quotes = quotes(sentence);
    if !quotes.is_empty() {
        kinds.push(ClaimKind::Quote);
    }
    let (attributed, attributed_to) = attribution(sentence, &cues);
    if attributed {
        kinds.push(ClaimKind::Attribution);
    }
    if matches(Cue::Change) {
        kinds.push(ClaimKind::Change);
    }
    if matches(Cue::Date) {
        kinds.push(ClaimKind::Date);
    }
    if comparative(sentence, &cues) {
        kinds.push(ClaimKind::Comparative);
    }
    if superlative(sentence, &cues) {
        kinds.push(ClaimKind::Superlative);
    }
    // "our study" inside a quotation is the speaker's, not the publisher's: reported speech.
    let unquoted = without_quotes(sentence, &quotes);
    if first_person_data(&unquoted, &cues, !figures.is_empty()) {
        kinds.push(ClaimKind::FirstPersonData);
    }
    if vague_count(sentence, &cues) {
        kinds.push(ClaimKind::Count);
    }
    if proportion(sentence, &cues) {
        kinds.push(ClaimKind::Proportion);
    }
    if cues.regex(Cue::Record).is_some() && lexicon::claims_record(&sentence.to_lowercase()) {
        kinds.push(ClaimKind::Record);
    }
    if allegation(sentence, &cues) {
        kinds.push(ClaimKind::Allegation);
    }
    kinds.sort_unstable();
    kinds.dedup();
    let speech = !quotes.is_empty()
        || (SPEECH_VERB.is_match(sentence)
            && (attributed_to.is_some() || matches(Cue::PronounSaid)));
    SentenceFeatures {
        kinds,
        figures,
        quotes,
        attributed_to,
        market: matches(Cue::Market),
        speech,
    }
}

/// Verbs that report speech, as opposed to a finding or a document ("found", "according to").
static SPEECH_VERB: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?:said|says|say|told|tells|added|adds|explained|argued|claimed|warned|insisted|stated|noted|wrote|recalled|continued|asked|admitted|acknowledged|complained|urged|replied|agreed)(?-u:\b)",
    )
});

/// Who `sentence` attributes its statement to: [`SentenceFeatures::attributed_to`] of
/// [`analyze`], without reading the rest of its features.
pub fn attributed_to(sentence: &str) -> Option<String> {
    attribution(sentence, &Cues::of(sentence)).1
}

/// The issue a check-worthy claim raises when it cites nothing.
pub(crate) fn prejudge(features: &SentenceFeatures) -> Prejudgment {
    let (kind, severity, problem, recommendation) = if features.has(ClaimKind::FirstPersonData) {
        (
            UnsourcedKind::FirstPersonData,
            Severity::High,
            "No source provided for first-person data; it cannot be verified and appears to \
             be fabricated",
            "Remove claim or provide verifiable source",
        )
    } else if features.speech {
        (
            UnsourcedKind::ReportedSpeech,
            Severity::Low,
            "Reported speech: no source the article cites holds it, so it cannot be checked \
             against the sources",
            "Check it against the reporter's notes or recording",
        )
    } else if features.is_market_figure() {
        (
            UnsourcedKind::MarketFigure,
            Severity::High,
            "Market or competition figure lacks citation",
            "Add citation to a credible market source or qualify as estimate",
        )
    } else if features.has(ClaimKind::Allegation) {
        (
            UnsourcedKind::Allegation,
            Severity::High,
            "Allegation of wrongdoing against a named person lacks citation",
            "Cite the court record, charge or on-record source, or remove the allegation",
        )
    } else if features.kinds.iter().any(|k| is_statistic(*k)) {
        (
            UnsourcedKind::Statistic,
            Severity::High,
            "Statistical claim lacks citation",
            "Add citation or qualify as estimate",
        )
    } else {
        (
            UnsourcedKind::Qualitative,
            Severity::Low,
            "Qualitative claim has no citation",
            "Consider adding a citation if the claim may be disputed",
        )
    };
    Prejudgment {
        kind,
        severity,
        problem: problem.to_string(),
        recommendation: recommendation.to_string(),
    }
}

/// Kinds that make a claim a statistic: a number must have a source, and so must a count,
/// a share or a record stated in words ("forty families", "most parents", "an all-time low").
fn is_statistic(kind: ClaimKind) -> bool {
    matches!(
        kind,
        ClaimKind::Percentage
            | ClaimKind::Money
            | ClaimKind::Count
            | ClaimKind::Ratio
            | ClaimKind::Change
            | ClaimKind::Proportion
            | ClaimKind::Record
    )
}

fn kind_of(figure: &Figure) -> ClaimKind {
    match figure.unit {
        Unit::Percent | Unit::PercentagePoints => ClaimKind::Percentage,
        Unit::Currency => ClaimKind::Money,
        Unit::Count => ClaimKind::Count,
        Unit::Ratio => ClaimKind::Ratio,
        Unit::Multiplier => ClaimKind::Change,
        Unit::Year => ClaimKind::Date,
    }
}

fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this module, covered by its tests; one that does not
    // compile is a defect found by the first test that runs.
    Regex::new(pattern).expect("detect patterns compile")
}

/// Quoted spans. Straight single quotes count only at word edges, so "students' scores" and
/// "don't" are not quotes; inside curly or single quotes an apostrophe before a letter is kept.
static QUOTE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#""([^"\n]+)"|“([^”\n]+)”|‘((?:[^’\n]|’\p{L})+)’|«([^»\n]+)»|(?:^|[\s(\[—–])'((?:[^'\n]|'\p{L})+)'(?:[\s.,;:!?)\]—–]|$)"#,
    )
});

fn quotes(sentence: &str) -> Vec<String> {
    // Fast exit: most sentences hold no quote mark at all.
    if !sentence.contains(['"', '“', '‘', '«', '\'']) {
        return Vec::new();
    }
    QUOTE
        .captures_iter(sentence)
        .filter_map(|c| (1..=5).find_map(|g| c.get(g)))
        .map(|m| {
            m.as_str()
                .trim()
                .trim_end_matches([',', '.', ';', ':'])
                .trim_end()
        })
        .filter(|q| q.split_whitespace().count() >= 3)
        .map(str::to_string)
        .collect()
}

/// A capitalized name: "Gartner", "Maria Lopez", "Bank of America", "U.S. Census Bureau".
const NAME: &str = r"\p{Lu}[\p{L}\p{N}'’&.-]*(?:\s+(?:(?:of|for|and|de|del|van|von|der|den|la|le|du|da|di|the|&)\s+)*\p{Lu}[\p{L}\p{N}'’&.-]*)*";

static ACCORDING_TO: LazyLock<Regex> = LazyLock::new(|| {
    // An initial's full stop ("U.S. Census Bureau") does not end the phrase.
    regex(r#"(?i:(?-u:\b)according\s+to)\s+((?:\p{Lu}\.|[^,;:!?()\[\]"“”.\n]|\.\S)+)"#)
});

static SOURCE_BY: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i:(?-u:\b)(?:study|studies|report|reports|survey|surveys|analysis|research|paper|poll|data|figures|estimates?|statistics|review|audit|census|index|ranking|forecast|published|released|conducted|commissioned)(?:\s+(?:published|released|conducted|carried\s+out|commissioned))?\s+(?:by|from))\s+(?:(?i:the)\s+)?({NAME})"
    ))
});

/// Reporting verbs after a name: "Gartner estimates".
pub(crate) const NAME_VERBS: &str = "said|says|told|tells|reported|reports|found|finds|estimated|estimates|estimate|announced|announces|stated|states|noted|notes|wrote|writes|added|explained|argued|argues|claimed|claims|predicted|predicts|projected|projects|concluded|concludes|forecast|forecasts|revealed|reveals|warned|warns|confirmed|confirms";

static NAME_VERB: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"({NAME})\s+(?:(?:has|have|had|also)\s+)?(?:{NAME_VERBS})(?-u:\b)"
    ))
});

/// "Mr. Smith, the company's chief executive, said…": a name, an appositive, the verb.
static NAME_APPOSITIVE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r#"({NAME}),\s+[^,"“”\n]+,\s+(?:{APPOSITIVE_VERBS})(?-u:\b)"#
    ))
});

/// Reporting verbs after a name and its appositive.
const APPOSITIVE_VERBS: &str = "said|says|told|added|explained|wrote|noted|argued|estimated|estimates|reported|found|warned|claimed|predicted";

/// Unnamed groups as sources: "Studies show", "Officials told", "experts say".
static GROUP_VERB: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)(?-u:\b)(?:{GROUPS})\s+(?:have\s+)?(?:show|shows|showed|shown|suggest|suggests|suggested|indicate|indicates|indicated|found|find|finds|say|says|said|told|tell|estimate|estimates|estimated|warn|warns|warned|predict|predicts|predicted)(?-u:\b)"
    ))
});

/// Unnamed groups that can be a source.
const GROUPS: &str = "studies|research|evidence|surveys|polls|experts|scientists|researchers|analysts|economists|officials|authorities|critics|sources";

static VERB_NAME: LazyLock<Regex> =
    LazyLock::new(|| regex(&format!(r"(?-u:\b)(?:{VERBS_BEFORE_NAME})\s+({NAME})")));

/// Reporting verbs before a name: "said Dana Whitfield".
const VERBS_BEFORE_NAME: &str =
    "said|says|added|explained|wrote|noted|argued|asked|continued|recalled";

static PRONOUN_SAID: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)(?-u:\b)(?:he|she|they)\s+(?:{PRONOUN_VERBS})(?-u:\b)"
    ))
});

/// Reporting verbs after a pronoun.
const PRONOUN_VERBS: &str = "said|says|told|added|wrote|explained";

/// Capitalized words that open sentences or name no one: dropped from the front of a name, and
/// a name made only of them is none ("We found" is first-person data, not an attribution).
const NOT_A_NAME: &[&str] = &[
    "The",
    "This",
    "That",
    "These",
    "Those",
    "A",
    "An",
    "It",
    "Its",
    "We",
    "I",
    "You",
    "He",
    "She",
    "They",
    "Our",
    "Their",
    "His",
    "Her",
    "My",
    "Your",
    "Yesterday",
    "Today",
    "Tomorrow",
    "Last",
    "Next",
    "On",
    "In",
    "At",
    "But",
    "And",
    "So",
    "Also",
    "However",
    "Meanwhile",
    "Now",
    "Then",
    "When",
    "While",
    "After",
    "Before",
    "As",
    "If",
    "Since",
    "Still",
    "Earlier",
    "Later",
    "Here",
    "There",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Data",
    "Research",
    "Studies",
    "Evidence",
    "Analysis",
    "Everyone",
    "Nobody",
    "Someone",
    "Many",
    "Some",
    "Most",
    "Few",
    "All",
    "Critics",
    "Officials",
    "Experts",
];

/// Trims a matched name to the part that names someone; `None` when nothing is left.
fn clean_name(raw: &str) -> Option<String> {
    let mut words: Vec<&str> = raw.split_whitespace().collect();
    while let Some(first) = words.first() {
        let lowercase_connector = first.chars().next().is_some_and(char::is_lowercase);
        if lowercase_connector || NOT_A_NAME.contains(first) {
            words.remove(0);
        } else {
            break;
        }
    }
    while words
        .last()
        .is_some_and(|w| w.chars().next().is_some_and(char::is_lowercase) || NOT_A_NAME.contains(w))
    {
        words.pop();
    }
    let name = words.join(" ");
    let name = name.trim_end_matches([',', ';', ':', '\'', '’', '-']);
    let name = name
        .strip_suffix("'s")
        .or_else(|| name.strip_suffix("’s"))
        .unwrap_or(name);
    // A trailing full stop belongs to the sentence unless the last word is an initialism
    // ("U.S.", "Inc.").
    let name = match name.strip_suffix('.') {
        Some(stem)
            if !stem
                .rsplit(' ')
                .next()
                .is_some_and(|w| w.contains('.') || w == "Inc") =>
        {
            stem
        }
        _ => name,
    };
    (!name.is_empty()).then(|| name.to_string())
}

/// The source named after "according to": the capitalized name in it ("a 2023 report by
/// McKinsey" → "McKinsey"), or its first words when it names no one ("researchers").
fn according_to_name(phrase: &str) -> Option<String> {
    static NAME_IN: LazyLock<Regex> = LazyLock::new(|| regex(NAME));
    if let Some(name) = NAME_IN
        .find_iter(phrase)
        .filter(|m| {
            // A name starts at a word's start, not inside "iPhone".
            !phrase[..m.start()]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        })
        .find_map(|m| clean_name(m.as_str()))
    {
        return Some(name);
    }
    let mut words: Vec<&str> = phrase.split_whitespace().take(6).collect();
    while words
        .first()
        .is_some_and(|w| ["the", "a", "an"].iter().any(|a| w.eq_ignore_ascii_case(a)))
    {
        words.remove(0);
    }
    // Stop at the clause the source's words introduce.
    if let Some(cut) = words.iter().position(|w| {
        [
            "that", "which", "who", "is", "are", "was", "were", "has", "have", "will", "the",
        ]
        .iter()
        .any(|s| w.eq_ignore_ascii_case(s))
    }) {
        words.truncate(cut);
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// Whether the sentence attributes its content, and to whom when it says.
fn attribution(sentence: &str, cues: &Cues) -> (bool, Option<String>) {
    let starts_word = |start: usize| {
        !sentence[..start]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
    };
    let mut attributed = false;
    if let Some(c) = cues
        .regex(Cue::AccordingTo)
        .and_then(|re| re.captures(sentence))
    {
        attributed = true;
        if let Some(name) = c.get(1).and_then(|m| according_to_name(m.as_str())) {
            return (true, Some(name));
        }
    }
    let named = [
        Cue::SourceBy,
        Cue::NameAppositiveVerb,
        Cue::NameVerb,
        Cue::VerbName,
    ];
    for re in named.into_iter().filter_map(|cue| cues.regex(cue)) {
        for c in re.captures_iter(sentence) {
            let Some(m) = c.get(1) else { continue };
            // The source verb alone ("a study by our team") attributes nothing to a name, and
            // "Our data found" is not someone else's claim.
            if !starts_word(m.start()) {
                continue;
            }
            if let Some(name) = clean_name(m.as_str()) {
                return (true, Some(name));
            }
        }
    }
    if [Cue::PronounSaid, Cue::GroupVerb]
        .into_iter()
        .filter_map(|cue| cues.regex(cue))
        .any(|re| re.is_match(sentence))
    {
        attributed = true;
    }
    (attributed, None)
}

/// "grew by", "rose 12 percent", "fell to $3": a change verb with "by" or a figure after it.
static CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    let change_verbs = CHANGE_VERBS.as_str();
    regex(&format!(
        r"(?i)(?-u:\b)(?:{change_verbs})\s+(?:by(?-u:\b)|(?:to\s+)?(?:(?:about|around|nearly|almost|roughly|some|over|more\s+than|less\s+than|up\s+to|an\s+estimated|approximately)\s+)?(?:[$€£¥₹]|US\$|[0-9]))"
    ))
});

/// Verbs of change ([`lexicon::CHANGE_VERBS`]) as a regex alternation.
static CHANGE_VERBS: LazyLock<String> = LazyLock::new(|| lexicon::CHANGE_VERBS.join("|"));

/// A month's name or abbreviation ([`lexicon::MONTHS`]), capitalized, as a regex group: lower
/// case, "may" and "march" are likelier verbs.
static MONTH: LazyLock<String> = LazyLock::new(|| {
    let names: Vec<String> = lexicon::MONTHS
        .iter()
        .map(|(name, _)| {
            let mut chars = name.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or_default()
        })
        .collect();
    format!("(?:{})", names.join("|"))
});

/// A day with its month ("4 March", "March 4", "the 4th of March") or a numeric date.
static DATE: LazyLock<Regex> = LazyLock::new(|| {
    let month = MONTH.as_str();
    regex(&format!(
        r"(?-u:\b)(?:[0-3]?[0-9](?:st|nd|rd|th)?\s+(?:of\s+)?{month}|{month}\.?\s+[0-3]?[0-9](?:st|nd|rd|th)?|[12][0-9]{{3}}-[01][0-9]-[0-3][0-9]|[0-3]?[0-9]/[0-3]?[0-9]/(?:[12][0-9])?[0-9]{{2}})(?-u:\b)"
    ))
});

static COMPARATIVE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?:(?:more|less|fewer|better|worse)(?:\s+[a-z]+)?|([a-z]+er))\s+than(?-u:\b)|(?-u:\b)(?:compared\s+(?:to|with)|outperform(?:s|ed|ing)?)(?-u:\b)",
    )
});

/// "-er than" words that compare nothing.
const NOT_COMPARATIVE: &[&str] = &["other", "rather", "whether", "either", "neither"];

fn comparative(sentence: &str, cues: &Cues) -> bool {
    let Some(re) = cues.regex(Cue::Comparative) else {
        return false;
    };
    re.captures_iter(sentence).any(|c| {
        c.get(1).is_none_or(|w| {
            !NOT_COMPARATIVE
                .iter()
                .any(|x| w.as_str().eq_ignore_ascii_case(x))
        })
    })
}

static SUPERLATIVE: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?:(?-u:\b)(?i:the)\s+(?:[\p{{L}}\p{{N}}]+(?:'s|’s)\s+)?|(?:'s|’s)\s+)(?:(?i:{SUPERLATIVE_WORDS})(?-u:\b)|([a-z]+est)(?-u:\b))"
    ))
});

/// Superlatives that do not end in "-est".
const SUPERLATIVE_WORDS: &str = "most|least|best|worst|first|top|leading|biggest|largest";

/// "-est" words that are not superlatives.
const NOT_SUPERLATIVE: &[&str] = &[
    // "the latest figures": the most recent, not a rank.
    "latest",
    "rest",
    "interest",
    "test",
    "west",
    "forest",
    "request",
    "contest",
    "guest",
    "quest",
    "protest",
    "chest",
    "nest",
    "harvest",
    "digest",
    "manifest",
    "pest",
    "vest",
    "crest",
    "arrest",
    "conquest",
    "inquest",
    "behest",
    "bequest",
    "unrest",
    "midwest",
    "northwest",
    "southwest",
    "priest",
    "earnest",
    "honest",
    "modest",
    "invest",
    "suggest",
    "zest",
    "jest",
    "tempest",
    "interest",
    "pretest",
    "retest",
    "fest",
    "alkahest",
    "everest",
    "est",
];

/// The superlatives a sentence states, as written: "largest", "first", "most dangerous".
pub(crate) fn superlatives(sentence: &str) -> Vec<String> {
    let cues = Cues::of(sentence);
    let Some(re) = cues.regex(Cue::Superlative) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in re.captures_iter(sentence) {
        if c.get(1)
            .is_some_and(|w| NOT_SUPERLATIVE.contains(&w.as_str()))
        {
            continue;
        }
        let Some(m) = c.get(0) else { continue };
        let Some(word) = m.as_str().split_whitespace().last() else {
            continue;
        };
        // "the most", "the least": the superlative is the word they grade.
        if word.eq_ignore_ascii_case("most") || word.eq_ignore_ascii_case("least") {
            let rest = &sentence[m.end()..];
            if let Some(next) = rest.split_whitespace().next() {
                let next = next.trim_matches(|ch: char| !ch.is_alphanumeric());
                out.push(format!("{word} {next}"));
                continue;
            }
        }
        out.push(word.to_owned());
    }
    out
}

fn superlative(sentence: &str, cues: &Cues) -> bool {
    let Some(re) = cues.regex(Cue::Superlative) else {
        return false;
    };
    re.captures_iter(sentence).any(|c| {
        c.get(1)
            .is_none_or(|w| !NOT_SUPERLATIVE.contains(&w.as_str()))
    })
}

/// First-person data: the article's own pilot, survey or measurements.
static FIRST_PERSON: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?:(?:our|my)\s+(?:[\p{L}\p{N}-]+\s+){0,3}?(?:pilot|pilots|survey|surveys|study|studies|research|data|dataset|analysis|analyses|experiment|experiments|trial|trials|tests|testing|findings|results|measurements|benchmark|benchmarks|poll|polls|metrics|evaluation|evaluations|assessment|observations)|our\s+(?:[\p{L}-]+\s+){0,2}?(?:team|researchers|analysts|engineers|scientists)\s+(?:measured|tested|surveyed|recorded|analy[sz]ed|calculated)|we\s+(?:(?:have|had|also|recently|then|first)\s+)?(?:measured|tested|surveyed|recorded|polled|interviewed|tracked|analy[sz]ed|calculated|estimated|estimate|counted|piloted|conducted)|i\s+(?:(?:have|had|also)\s+)?(?:measured|surveyed|tested|interviewed|polled|tracked|recorded|counted|piloted))(?-u:\b)",
    )
});

/// "We found", "our team observed": first-person data when "that" follows or the sentence
/// states a figure; otherwise as often a turn of phrase ("we found ourselves lost").
static FIRST_PERSON_WEAK: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?:we|our\s+(?:[\p{L}-]+\s+){0,2}?(?:team|researchers|analysts|engineers|scientists))\s+(?:(?:have|had|also|recently|then|first)\s+)?(?:found|observed|discovered)(?-u:\b)(\s+that(?-u:\b))?",
    )
});

/// The sentence with its quoted spans blanked.
fn without_quotes(sentence: &str, quotes: &[String]) -> String {
    let mut out = sentence.to_owned();
    for q in quotes {
        out = out.replace(q.as_str(), " ");
    }
    out
}

fn first_person_data(sentence: &str, cues: &Cues, has_figures: bool) -> bool {
    cues.regex(Cue::FirstPerson)
        .is_some_and(|re| re.is_match(sentence))
        || cues.regex(Cue::FirstPersonWeak).is_some_and(|re| {
            re.captures_iter(sentence)
                .any(|c| has_figures || c.get(1).is_some())
        })
}

/// A vague count of things: "hundreds of homes", "dozens of families", "tens of thousands of
/// people".
static VAGUE_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?:dozens|scores|hundreds|thousands|millions|billions|tens\s+of\s+thousands|hundreds\s+of\s+thousands)\s+of\s+(?:(?:the|their|its|local)\s+)?([a-z][a-z'’-]*)",
    )
});

fn vague_count(sentence: &str, cues: &Cues) -> bool {
    cues.regex(Cue::VagueCount).is_some_and(|re| {
        re.captures_iter(sentence)
            .any(|c| c.get(1).is_some_and(|w| lexicon::counted_noun(w.as_str())))
    })
}

/// A share of a group in words: "most parents", "the vast majority of residents", "nearly all
/// schools", "a minority of voters".
static PROPORTION: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(most(?:\s+of)?|(?:the|a)\s+(?:vast\s+|overwhelming\s+|large\s+|slim\s+|narrow\s+|clear\s+)?majority\s+of|a\s+minority\s+of|(?:nearly|almost|virtually)\s+all(?:\s+of)?|hardly\s+any|the\s+bulk\s+of)\s+(?:(?:the|their|our|its|his|her|local|young|older)\s+)?([a-z][a-z'’-]*)",
    )
});

fn proportion(sentence: &str, cues: &Cues) -> bool {
    let Some(re) = cues.regex(Cue::Proportion) else {
        return false;
    };
    re.captures_iter(sentence).any(|c| {
        let (Some(all), Some(noun)) = (c.get(0), c.get(2)) else {
            return false;
        };
        // "the most popular", "at most": a superlative or a bound, not a share.
        let before = sentence[..all.start()]
            .split_whitespace()
            .next_back()
            .map(str::to_lowercase);
        let bound = matches!(before.as_deref(), Some("the" | "at" | "at the"));
        !bound && lexicon::counted_noun(noun.as_str())
    })
}

/// An allegation of wrongdoing against a named person: a word of [`lexicon::WRONGDOING`] in a
/// sentence that names someone (two capitalized words, or one after a title).
fn allegation(sentence: &str, cues: &Cues) -> bool {
    if cues.regex(Cue::Wrongdoing).is_none() {
        return false;
    }
    let lower = sentence.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let wrongdoing = lexicon::WRONGDOING.iter().any(|w| {
        if w.contains(' ') {
            lower.contains(w)
        } else {
            words.contains(w)
        }
    });
    wrongdoing && names_a_person(sentence)
}

/// Whether a sentence names someone: two capitalized words in a row that are not sentence
/// openers ("Peter Mallory"), or a capitalized word after a title ("Councillor Whitley").
fn names_a_person(sentence: &str) -> bool {
    static NAME_IN: LazyLock<Regex> = LazyLock::new(|| regex(NAME));
    NAME_IN.find_iter(sentence).any(|m| {
        let Some(name) = clean_name(m.as_str()) else {
            return false;
        };
        let words: Vec<&str> = name.split_whitespace().collect();
        words.len() >= 2
            || sentence[..m.start()]
                .split_whitespace()
                .next_back()
                .is_some_and(|w| lexicon::role(&w.to_lowercase()).is_some())
    })
}

/// Market size or share, TAM, revenue, valuation, competitors, an industry's worth.
static MARKET: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?:markets?|marketplace|market\s+(?:size|share|cap)|total\s+addressable|revenues?|valuations?|valued\s+at|competitors?|competition|rivals?|(?:industry|sector)\s+(?:is\s+|was\s+)?(?:worth|valued)|(?-i:TAM|SAM|SOM|CAGR|ARR|MRR))(?-u:\b)",
    )
});

/// The detection regexes that run on every sentence, each with a cue: text that every match of
/// the regex contains (one of its verbs, its keyword), so that without the cue the regex cannot
/// match. The cues of a sentence are found in one pass of one [`RegexSet`], and a regex runs
/// only when its cue is there; most sentences hold few cues. Running every regex on every
/// sentence was a third of extraction time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    AccordingTo,
    SourceBy,
    NameVerb,
    NameAppositiveVerb,
    VerbName,
    PronounSaid,
    GroupVerb,
    Change,
    Date,
    Comparative,
    Superlative,
    FirstPerson,
    FirstPersonWeak,
    Market,
    VagueCount,
    Proportion,
    Record,
    Wrongdoing,
}

impl Cue {
    /// Every cue, in declaration order: a cue's index in the set is `cue as usize`.
    const ALL: [Cue; 18] = [
        Cue::AccordingTo,
        Cue::SourceBy,
        Cue::NameVerb,
        Cue::NameAppositiveVerb,
        Cue::VerbName,
        Cue::PronounSaid,
        Cue::GroupVerb,
        Cue::Change,
        Cue::Date,
        Cue::Comparative,
        Cue::Superlative,
        Cue::FirstPerson,
        Cue::FirstPersonWeak,
        Cue::Market,
        Cue::VagueCount,
        Cue::Proportion,
        Cue::Record,
        Cue::Wrongdoing,
    ];

    /// Text every match of [`Cue::regex`] contains, with the same case rules as the regex.
    fn pattern(self) -> String {
        match self {
            Cue::AccordingTo => "(?i:according)".into(),
            Cue::SourceBy => r"(?i:\s(?:by|from)\s)".into(),
            Cue::NameVerb => format!("(?:{NAME_VERBS})"),
            Cue::NameAppositiveVerb => format!("(?:{APPOSITIVE_VERBS})"),
            Cue::VerbName => format!(r"(?:{VERBS_BEFORE_NAME})\s"),
            Cue::PronounSaid => format!("(?i:{PRONOUN_VERBS})"),
            Cue::GroupVerb => format!("(?i:{GROUPS})"),
            Cue::Change => format!("(?i:{})", *CHANGE_VERBS),
            // A day beside a month, or a numeric date ("2024-03-04", "4/3/24").
            Cue::Date => format!("{}|[0-9][-/]", *MONTH),
            Cue::Comparative => "(?i:than|compared|outperform)".into(),
            Cue::Superlative => format!("(?i:{SUPERLATIVE_WORDS})|[a-z]est"),
            Cue::FirstPerson => r"(?i:(?-u:\b)(?:our|my|we|i)\s)".into(),
            Cue::FirstPersonWeak => r"(?i:(?-u:\b)(?:we|our)\s)".into(),
            // "valu" covers "valuation" and "valued", "competi" "competitor" and "competition";
            // "worth" is the industry's worth.
            Cue::Market => {
                "(?i:market|addressable|revenue|valu|competi|rival|worth)|TAM|SAM|SOM|CAGR|ARR|MRR"
                    .into()
            }
            Cue::VagueCount => {
                "(?i:dozens|scores|hundreds|thousands|millions|billions)".into()
            }
            Cue::Proportion => {
                r"(?i:most|majority|minority|(?:nearly|almost|virtually)\s+all|hardly|bulk)".into()
            }
            // What [`lexicon::claims_record`] looks for.
            Cue::Record => {
                r"(?i:record|all-time|unprecedented|never before|ever recorded|ever seen|-ever|[a-z]est\s+(?:[a-z]+\s+)?since)"
                    .into()
            }
            Cue::Wrongdoing => format!(
                "(?i:{})",
                lexicon::WRONGDOING
                    .iter()
                    .map(|w| regex::escape(w))
                    .collect::<Vec<_>>()
                    .join("|")
            ),
        }
    }

    fn regex(self) -> &'static Regex {
        match self {
            Cue::AccordingTo => &ACCORDING_TO,
            Cue::SourceBy => &SOURCE_BY,
            Cue::NameVerb => &NAME_VERB,
            Cue::NameAppositiveVerb => &NAME_APPOSITIVE_VERB,
            Cue::VerbName => &VERB_NAME,
            Cue::PronounSaid => &PRONOUN_SAID,
            Cue::GroupVerb => &GROUP_VERB,
            Cue::Change => &CHANGE,
            Cue::Date => &DATE,
            Cue::Comparative => &COMPARATIVE,
            Cue::Superlative => &SUPERLATIVE,
            Cue::FirstPerson => &FIRST_PERSON,
            Cue::FirstPersonWeak => &FIRST_PERSON_WEAK,
            Cue::Market => &MARKET,
            Cue::VagueCount => &VAGUE_COUNT,
            Cue::Proportion => &PROPORTION,
            // Matched by [`lexicon::claims_record`] and [`allegation`], which need the cue only.
            Cue::Record | Cue::Wrongdoing => &ALWAYS,
        }
    }
}

/// Stands in for the regex of a cue whose matching is done in code.
static ALWAYS: LazyLock<Regex> = LazyLock::new(|| regex("(?:)"));

static CUES: LazyLock<RegexSet> = LazyLock::new(|| {
    // Constants of this module, covered by its tests (see `regex`).
    RegexSet::new(Cue::ALL.map(Cue::pattern)).expect("detect cues compile")
});

/// The cues one sentence holds.
struct Cues(regex::SetMatches);

impl Cues {
    fn of(sentence: &str) -> Self {
        Cues(CUES.matches(sentence))
    }

    /// The regex of `cue` when the sentence holds its cue; `None` when it cannot match.
    fn regex(&self, cue: Cue) -> Option<&'static Regex> {
        self.0.matched(cue as usize).then(|| cue.regex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ClaimKind::*;
    use proptest::prelude::*;

    fn kinds(sentence: &str) -> Vec<ClaimKind> {
        analyze(sentence).kinds
    }

    #[test]
    fn kinds_table() {
        let table: &[(&str, &[ClaimKind])] = &[
            (
                "Our pilot with 500 students showed 73% improvement",
                &[Percentage, Count, FirstPersonData],
            ),
            ("AI tutoring doubles learning gains [2]", &[Change]),
            ("$4/month or $44/year [6]", &[Money]),
            (
                "87% of students use digital learning tools daily",
                &[Percentage],
            ),
            (
                "The global market for AI tutors is worth $50 billion",
                &[Money],
            ),
            ("Inflation reached 3.5% in March.", &[Percentage]),
            ("U.S. sales rose 12 percent", &[Percentage, Change]),
            ("The startup raised €300m", &[Money]),
            ("One in five adults cannot read well.", &[Ratio]),
            ("It is the largest provider in Europe.", &[Superlative]),
            ("Students learn faster than before.", &[Comparative]),
            (
                "According to Gartner, adoption will accelerate.",
                &[Attribution],
            ),
            (
                "\u{201c}This changes everything for our students,\u{201d} said Maria Lopez.",
                &[Quote, Attribution],
            ),
            (
                "\"This changes everything for our students,\" said Maria Lopez.",
                &[Quote, Attribution],
            ),
            // A change by a fraction is one in percent: "by a third" is "by 33%".
            ("Revenue grew by a third.", &[Percentage, Change]),
            ("Revenue grew by 33%.", &[Percentage, Change]),
            ("The school opened on 4 March 2024.", &[Date]),
            ("The school opened on March 4, 2024.", &[Date]),
            ("The law changed in March 2024.", &[Date]),
            ("The results arrive on 4 March.", &[Date]),
            ("The company was founded in 1998.", &[Date]),
            ("Last year was difficult for everyone.", &[]),
            (
                "We found that tutoring helps weaker readers.",
                &[FirstPersonData],
            ),
            ("Our survey shows strong demand.", &[FirstPersonData]),
            ("Our data suggests a shift.", &[FirstPersonData]),
            ("We measured reading speed every week.", &[FirstPersonData]),
            ("We found ourselves lost in the old town.", &[]),
            ("We observed 40 classes.", &[Count, FirstPersonData]),
            ("Our team found that pupils read more.", &[FirstPersonData]),
            ("Our results show a clear gain.", &[FirstPersonData]),
            (
                "It was the first school to adopt the method.",
                &[Superlative],
            ),
            (
                "More than 1.2 million users signed up.",
                &[Count, Comparative],
            ),
            (
                "Tutored pupils scored 3x higher than peers.",
                &[Change, Comparative],
            ),
            ("Its valuation tripled.", &[Change]),
            ("Costs were cut in half.", &[Change]),
            (
                "A study by Stanford University tracked the pupils.",
                &[Attribution],
            ),
            ("The minister told reporters nothing.", &[]),
            ("Gartner estimates the sector will grow.", &[Attribution]),
            ("She said the plan would work.", &[Attribution]),
            ("Studies show that tutoring helps.", &[Attribution]),
            (
                "Officials told the BBC that 300 schools had closed.",
                &[Count, Attribution],
            ),
            ("The app has been downloaded 10 million times.", &[Count]),
            ("It is the most popular app among teachers.", &[Superlative]),
            ("Two-thirds of parents approve.", &[Ratio]),
            // Negative cases: opinion, mundane counts and labels.
            ("I think this is important.", &[]),
            ("The weather was nice.", &[]),
            ("One of them stayed home.", &[]),
            ("See Section 3 for details.", &[]),
            ("The rest of the class agreed.", &[]),
            ("Other than that, nothing changed.", &[]),
            ("Tutoring works, we believe.", &[]),
            ("That is what the students' parents wanted.", &[]),
            ("I find it fascinating.", &[]),
        ];
        let mut failures = Vec::new();
        for (sentence, expected) in table {
            let got = kinds(sentence);
            if got != *expected {
                failures.push(format!("{sentence:?}: expected {expected:?}, got {got:?}"));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    #[test]
    fn spec_pilot_is_fabricated_first_person_data() {
        let f = analyze("Our pilot with 500 students showed 73% improvement");
        assert!(f.is_check_worthy());
        let values: Vec<_> = f.figures.iter().map(|x| (x.value, x.unit)).collect();
        assert_eq!(values, [(500.0, Unit::Count), (73.0, Unit::Percent)]);
        let p = prejudge(&f);
        assert_eq!(p.kind, UnsourcedKind::FirstPersonData);
        assert_eq!(p.severity, Severity::High);
        assert!(p.problem.contains("fabricated"), "{}", p.problem);
        assert_eq!(
            p.recommendation,
            "Remove claim or provide verifiable source"
        );
    }

    #[test]
    fn spec_doubles_is_a_change_and_the_marker_is_no_figure() {
        let f = analyze("AI tutoring doubles learning gains [2]");
        assert_eq!(f.figures.len(), 1, "{:?}", f.figures);
        assert_eq!(f.figures[0].unit, Unit::Multiplier);
        assert_eq!(f.figures[0].value, 2.0);
        assert_eq!(prejudge(&f).kind, UnsourcedKind::Statistic);
    }

    #[test]
    fn spec_prices_are_two_money_figures() {
        let f = analyze("$4/month or $44/year [6]");
        let got: Vec<_> = f
            .figures
            .iter()
            .map(|x| (x.value, x.currency.as_deref(), x.per.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (4.0, Some("USD"), Some("month")),
                (44.0, Some("USD"), Some("year"))
            ]
        );
    }

    #[test]
    fn spec_unsourced_percentage_is_a_high_statistic() {
        let p = prejudge(&analyze("87% of students use digital learning tools daily"));
        assert_eq!(p.kind, UnsourcedKind::Statistic);
        assert_eq!(p.severity, Severity::High);
        assert_eq!(p.problem, "Statistical claim lacks citation");
        assert_eq!(p.recommendation, "Add citation or qualify as estimate");
    }

    #[test]
    fn spec_market_size_is_a_high_market_figure() {
        let f = analyze("The global market for AI tutors is worth $50 billion");
        assert!(f.market);
        assert_eq!(f.figures.len(), 1);
        assert_eq!(f.figures[0].value, 5e10);
        let p = prejudge(&f);
        assert_eq!(
            (p.kind, p.severity),
            (UnsourcedKind::MarketFigure, Severity::High)
        );
    }

    #[test]
    fn market_without_a_figure_or_with_a_year_only_is_not_a_market_figure() {
        let f = analyze("Competitors entered the market in 2023.");
        assert!(f.market);
        assert_eq!(prejudge(&f).kind, UnsourcedKind::Qualitative);
        assert!(!analyze("The weather was nice.").market);
        assert!(analyze("Our competitors charge more.").market);
        assert!(analyze("The TAM is large.").market);
        assert!(analyze("Revenue rose.").market);
        let f = analyze("The edtech industry is worth ₹40 lakh crore.");
        assert!(f.market);
        assert_eq!(f.figures.len(), 1, "{:?}", f.figures);
        assert_eq!(f.figures[0].currency.as_deref(), Some("INR"));
        assert_eq!(prejudge(&f).kind, UnsourcedKind::MarketFigure);
        assert!(analyze("It is the world's largest market.").has(Superlative));
    }

    #[test]
    fn qualitative_claims_are_low() {
        for s in [
            "It is the largest provider in Europe.",
            "According to Gartner, adoption will accelerate.",
            "The school opened on 4 March 2024.",
            "Students learn faster than before.",
        ] {
            let p = prejudge(&analyze(s));
            assert_eq!(
                (p.kind, p.severity),
                (UnsourcedKind::Qualitative, Severity::Low),
                "{s}"
            );
        }
    }

    #[test]
    fn attributions_name_their_source() {
        let table: &[(&str, Option<&str>)] = &[
            (
                "According to Gartner, adoption will accelerate.",
                Some("Gartner"),
            ),
            ("according to Gartner the market is huge", Some("Gartner")),
            (
                "\u{201c}This changes everything for our students,\u{201d} said Maria Lopez.",
                Some("Maria Lopez"),
            ),
            (
                "According to the World Health Organization, cases fell.",
                Some("World Health Organization"),
            ),
            (
                "According to a 2023 report by McKinsey, spending grew.",
                Some("McKinsey"),
            ),
            (
                "According to the U.S. Census Bureau, 12% moved.",
                Some("U.S. Census Bureau"),
            ),
            ("according to researchers, it works", Some("researchers")),
            (
                "A study by Stanford University tracked the pupils.",
                Some("Stanford University"),
            ),
            ("Data from the OECD shows a gap.", Some("OECD")),
            ("Gartner estimates the sector will grow.", Some("Gartner")),
            ("Yesterday Maria Lopez said it works.", Some("Maria Lopez")),
            (
                "The New York Times reported the figure.",
                Some("New York Times"),
            ),
            (
                "Bank of America said profits rose.",
                Some("Bank of America"),
            ),
            ("She said the plan would work.", None),
            (
                "Mr. Smith, the company's chief executive, said sales were strong.",
                Some("Mr. Smith"),
            ),
            ("Officials told the BBC that 300 schools had closed.", None),
            ("We found that tutoring helps.", None),
            ("The weather was nice.", None),
        ];
        let mut failures = Vec::new();
        for (sentence, expected) in table {
            let got = analyze(sentence).attributed_to;
            if got.as_deref() != *expected {
                failures.push(format!("{sentence:?}: expected {expected:?}, got {got:?}"));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    #[test]
    fn first_person_words_inside_a_quotation_are_the_speakers() {
        for s in [
            "\"The idea that heat pumps don't work in old houses is simply not supported by our data,\" said Prof Ian Caldwell.",
            "Dr Lucía Romero told FactLine: \"The post takes one number from our study and presents it as the conclusion.\"",
            "“Our survey of 400 members found most were paid late,” the union's secretary said.",
        ] {
            let f = analyze(s);
            assert!(!f.has(ClaimKind::FirstPersonData), "{s}");
            assert!(f.speech, "{s}");
            assert_eq!(prejudge(&f).kind, UnsourcedKind::ReportedSpeech, "{s}");
        }
        // The publisher's own data, outside quotes, stays first-person data.
        let f = analyze("Our survey of 500 readers found 62% read the paper daily.");
        assert!(f.has(ClaimKind::FirstPersonData));
    }

    #[test]
    fn quotes_need_three_words_and_real_quote_marks() {
        let q = |s: &str| analyze(s).quotes;
        assert_eq!(
            q("\u{201c}This changes everything for our students,\u{201d} said Maria Lopez."),
            ["This changes everything for our students"]
        );
        assert_eq!(
            q("He called it 'a total game changer' on Monday."),
            ["a total game changer"]
        );
        assert_eq!(
            q("\u{2018}We don\u{2019}t have the staff\u{2019} she said."),
            ["We don\u{2019}t have the staff"]
        );
        assert!(q("The so-called \"reform\" failed.").is_empty());
        assert!(q("The students' scores and the teachers' pay rose.").is_empty());
        assert!(q("It's what they're doing.").is_empty());
    }

    #[test]
    fn a_cue_index_is_its_place_in_the_set() {
        for (i, cue) in Cue::ALL.into_iter().enumerate() {
            assert_eq!(cue as usize, i, "{cue:?}");
        }
    }

    /// Words that make the detection regexes match, in the spellings and cases writers use.
    fn cue_vocabulary() -> Vec<String> {
        let mut words: Vec<String> = [
            NAME_VERBS,
            APPOSITIVE_VERBS,
            VERBS_BEFORE_NAME,
            PRONOUN_VERBS,
            GROUPS,
            CHANGE_VERBS.as_str(),
            SUPERLATIVE_WORDS,
            "according|to|by|from|study|report|survey|published|the|The|than|more|compared|with|\
             outperformed|he|she|They|we|We|our|Our|my|I|i|pilot|team|measured|found|that|\
             Gartner|Maria|Lopez|Inc.|U.S.|Census|Bureau|market|share|valued|at|industry|worth|\
             revenue|competitors|TAM|CAGR|March|Jan|4th|of|2024-03-04|4/3/24|12|$5|3.5%|fastest|\
             rest|taller|other|'s|’s|,|.|\"|“|”|(|—|ſ|\u{212a}|é",
        ]
        .iter()
        .flat_map(|list| list.split('|'))
        .map(|w| w.trim().to_string())
        .collect();
        let upper: Vec<String> = words.iter().map(|w| w.to_uppercase()).collect();
        words.extend(upper);
        words
    }

    proptest! {
        #[test]
        fn every_detection_regex_match_holds_its_cue(
            picks in prop::collection::vec((0usize..1000, prop::sample::select(vec![" ", "  ", "", ", ", "\n"])), 0..30)
        ) {
            let vocabulary = cue_vocabulary();
            let sentence: String = picks
                .iter()
                .map(|(w, sep)| format!("{}{sep}", vocabulary[w % vocabulary.len()]))
                .collect();
            let cues = Cues::of(&sentence);
            for cue in Cue::ALL {
                // Record and wrongdoing are matched in code once their cue is found.
                if matches!(cue, Cue::Record | Cue::Wrongdoing) {
                    continue;
                }
                if cue.regex().is_match(&sentence) {
                    prop_assert!(cues.regex(cue).is_some(), "{:?} matches {:?} without its cue", cue, sentence);
                }
            }
        }

        #[test]
        fn analyze_never_panics_and_figures_are_finite(s in "\\PC{0,300}") {
            let f = analyze(&s);
            for fig in &f.figures {
                prop_assert!(fig.value.is_finite());
            }
            let mut sorted = f.kinds.clone();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(sorted, f.kinds.clone());
            let _ = prejudge(&f);
        }

        #[test]
        fn analyze_never_panics_on_claim_like_text(
            s in "([0-9]{1,4}|[$€%“”\"'‘’,.\\[\\]]|said|Maria|according|to|Our|we|found|the|largest|than|more|market|million|in|March| ){0,40}"
        ) {
            let f = analyze(&s);
            for fig in &f.figures {
                prop_assert!(fig.value.is_finite());
            }
        }
    }
}
