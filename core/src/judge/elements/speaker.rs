//! Attribution: who the source says said the statement, and the office it gives them ("deputy
//! minister", not "minister").

use crate::text::tokens::FoldHashSet as HashSet;
use std::ops::Range;

use super::Finding;
use crate::judge::align::*;
use crate::judge::retrieve::{self};
use crate::judge::text::*;
use crate::model::ClaimElement;
use crate::text::cues;
use crate::text::lexicon::Role;
use crate::text::lexicon::{self};

impl Alignment<'_> {
    pub(crate) fn speaker(&self) -> Vec<Finding> {
        let claim = &self.claim;
        // A named speaker: "according to the survey" names no one to check.
        // Not a pronoun ("He said", whose referent is not read here) and not a day or month
        // ("scientists said on Thursday").
        let speakers: Vec<String> = speakers(claim)
            .into_iter()
            .filter(|n| {
                n.split_whitespace().any(|w| {
                    let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
                    let lower = bare.to_lowercase();
                    bare.starts_with(char::is_uppercase)
                        && !is_calendar_word(lower.trim_end_matches("'s").trim_end_matches("’s"))
                        && !matches!(
                            lower.as_str(),
                            "he" | "she" | "they" | "it" | "we" | "i" | "you"
                        )
                })
            })
            .collect();
        let Some(name) = speakers.first() else {
            // A speaker named by office alone: "the finance minister said".
            return self.role_speaker().into_iter().collect();
        };
        let ours: Vec<String> = name_words(name);
        if ours.is_empty() {
            return Vec::new();
        }
        let name_words = ours;
        // What was said: the claim without the speaker's name, title and reporting verb.
        let said_words = claim.stems(0..claim.toks.len(), &|j| {
            let w = claim.lower(j);
            name_words.iter().any(|n| n == w) || is_reporting_verb(w) || lexicon::role(w).is_some()
        });
        let Some((o, k)) = self.most_held(&said_words) else {
            return Vec::new();
        };
        if o < 0.5 {
            return Vec::new();
        }
        let s = &self.sentences[k];
        // The sentence names the claim's speaker: every word of the name, or its first two (the
        // person, whatever body the claim adds: "Dr Yusuf Demir of Carrowmore University").
        let in_sentence = |t: &Text| {
            let has = |n: &String| t.lowers().any(|w| w == n.as_str());
            name_words.iter().all(has)
                || (name_words.len() > 2 && name_words.iter().take(2).all(has))
        };
        if in_sentence(s) {
            return self.title(name, &name_words, k).into_iter().collect();
        }
        let theirs: Vec<String> = speakers_of(s)
            .into_iter()
            .filter(|n| person_like(n))
            .filter(|n| {
                let theirs = self::name_words(n);
                !theirs.iter().any(|w| name_words.contains(w))
            })
            .collect();
        if let Some(other) = theirs.first() {
            return vec![Finding {
                element: ClaimElement::Speaker,
                contradiction: true,
                strong: false,
                review_only: false,
                problem: format!("The source attributes this to {other}, not to {name}"),
                correction: Some(self.said(k)),
                sentence: Some(k),
            }];
        }
        // A page that names no other speaker for the words contradicts nothing: the speaker may
        // be its publisher, named only in its masthead, or the reporter's own source.
        Vec::new()
    }

    /// A claim that gives its speaker by office alone ("the finance minister said", "said the
    /// police chief") against the sentence that says the same: a contradiction when that
    /// sentence gives the words to someone in another office ("the opposition leader said"), at
    /// another rank ("the deputy mayor"), or in the same office of another portfolio or service
    /// ("the health minister", "the fire chief"). A sentence that names no office for its
    /// speaker ("Tom Reed said") says nothing against it.
    pub(crate) fn role_speaker(&self) -> Option<Finding> {
        let claim = &self.claim;
        let ours = role_speakers(claim).into_iter().next()?;
        // What was said: the claim without its speaker's phrase and reporting verb.
        let said_words = claim.stems(0..claim.toks.len(), &|j| {
            ours.words.contains(&j) || is_reporting_verb(claim.lower(j))
        });
        let (o, k) = self.most_held(&said_words)?;
        if o < 0.5 {
            return None;
        }
        let s = self.sentences[k];
        let theirs = role_speakers(s);
        if theirs.is_empty() || theirs.iter().any(|r| ours.same_office(r, claim, s)) {
            return None;
        }
        // The claim's speaker stated in the sentence in a form not read as a speaker's.
        if ours.stated_in(s) {
            return None;
        }
        Some(Finding {
            element: ClaimElement::Speaker,
            contradiction: true,
            strong: false,
            review_only: false,
            problem: format!(
                "The source attributes this to \u{201C}{}\u{201D}, not to \u{201C}{}\u{201D}",
                theirs[0].text, ours.text
            ),
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    /// The office the claim gives the speaker against the one sentence `k` gives them.
    pub(crate) fn title(&self, name: &str, name_words: &[String], k: usize) -> Option<Finding> {
        let claim_role = role_near(&self.claim, name_words)?;
        let source_role = role_near(self.sentences[k], name_words)?;
        let offices_differ = !claim_role.offices.is_empty()
            && !source_role.offices.is_empty()
            && claim_role.offices.is_disjoint(&source_role.offices);
        let ranks_differ = !claim_role.offices.is_empty()
            && !source_role.offices.is_empty()
            && claim_role.ranks != source_role.ranks;
        (offices_differ || ranks_differ).then(|| Finding {
            element: ClaimElement::Title,
            contradiction: true,
            strong: false,
            review_only: false,
            problem: format!(
                "The claim calls {name} \u{201C}{}\u{201D} where the source says \u{201C}{}\u{201D}",
                claim_role.text, source_role.text
            ),
            correction: Some(self.said(k)),
            sentence: Some(k),
        })
    }

    // -----------------------------------------------------------------------------------------
    // Specifics the claim adds
}

/// Reporting verbs: the extractor's list of verbs that follow a name ("said", "told",
/// "estimates"), and "according".
pub(crate) fn is_reporting_verb(word: &str) -> bool {
    static VERBS: std::sync::LazyLock<HashSet<&'static str>> =
        std::sync::LazyLock::new(|| cues::NAME_VERBS.split('|').collect());
    word == "according" || VERBS.contains(word)
}

/// Names that the text attributes statements to: the extractor's attribution, else names next
/// to a reporting verb.
pub(crate) fn speakers(t: &Text) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(name) = cues::attributed_to(t.text())
        && name.chars().next().is_some_and(char::is_uppercase)
    {
        out.push(name);
    }
    for s in speakers_of(t) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Names within a few words of a reporting verb, or after "according to".
pub(crate) fn speakers_of(t: &Text) -> Vec<String> {
    let mut out = Vec::new();
    for (i, tok) in t.toks.iter().enumerate() {
        if !is_reporting_verb(t.lower_of(tok)) {
            continue;
        }
        if t.lower_of(tok) == "according" && t.lower(i + 1) == "to" {
            // The noun phrase after "according to", up to the next mark.
            let start = i + 2;
            let end = (start..t.toks.len())
                .find(|&j| t.toks[j].is_mark())
                .unwrap_or(t.toks.len());
            let phrase = t.span(start..end).trim().to_owned();
            if !phrase.is_empty() {
                out.push(phrase);
            }
            continue;
        }
        // Before the verb: "Tom Beck, said", "Mayor Tom Beck said".
        let mut j = i;
        while j > 0 && j + 3 > i && t.kind(j - 1) == Some(TokKind::Mark(',')) {
            j -= 1;
        }
        let before = capital_run_back(t, j);
        if !before.is_empty() {
            out.push(t.span(before).to_owned());
            continue;
        }
        // After the verb: "said councillor David Okafor".
        let mut j = i + 1;
        while j < t.toks.len() && j < i + 5 && t.toks[j].is_word() && !t.toks[j].capital() {
            j += 1;
        }
        let after = capital_run(t, j);
        if !after.is_empty() {
            out.push(t.span(after).to_owned());
        }
    }
    out
}

/// The lower-case words of a name that identify it: without titles, offices, connectors and
/// initials.
pub(crate) fn name_words(name: &str) -> Vec<String> {
    let t = Text::plain(name);
    t.toks
        .iter()
        .filter(|tok| tok.is_word())
        .map(|tok| t.lower_of(tok))
        .filter(|w| w.chars().count() > 1)
        .filter(|w| !retrieve::is_stop_word(w) && lexicon::role(w).is_none())
        .filter(|w| {
            !matches!(
                *w,
                "de" | "van"
                    | "von"
                    | "mr"
                    | "mrs"
                    | "ms"
                    | "miss"
                    | "dr"
                    | "doctor"
                    | "sir"
                    | "dame"
                    | "prof"
                    | "professor"
                    | "cllr"
                    | "councillor"
                    | "rev"
                    | "revd"
                    | "lord"
                    | "lady"
                    | "baroness"
                    | "sgt"
                    | "det"
                    | "insp"
                    | "supt"
            )
        })
        .map(str::to_owned)
        .collect()
}

/// Whether a name reads as a person's or a body's: two capitalized words or more ("Tom Beck",
/// "Road Safety Trust"), or a phrase after "according to" ("the county police").
pub(crate) fn person_like(name: &str) -> bool {
    let capitals = name
        .split_whitespace()
        .filter(|w| w.starts_with(char::is_uppercase))
        .count();
    capitals >= 2
        || name
            .split_whitespace()
            .next()
            .is_some_and(|w| w.starts_with(char::is_lowercase))
}

/// Capitalized words from `i` on: a name ("Thames Vale Water", "Bank of England").
pub(crate) fn capital_run(t: &Text, i: usize) -> Range<usize> {
    let mut j = i;
    while j < t.toks.len() {
        let tok = &t.toks[j];
        let connector = matches!(t.lower_of(tok), "of" | "de" | "upon" | "on")
            && j > i
            && t.toks
                .get(j + 1)
                .is_some_and(|n| n.capital() && n.is_word());
        if (tok.is_word() && tok.capital() && !is_calendar_word(t.lower_of(tok))) || connector {
            j += 1;
        } else {
            break;
        }
    }
    i..j
}

/// Capitalized words ending just before `i`, leaving out words that open sentences ("The").
pub(crate) fn capital_run_back(t: &Text, i: usize) -> Range<usize> {
    let mut j = i;
    while j > 0 {
        let tok = &t.toks[j - 1];
        if tok.is_word() && tok.capital() && !is_calendar_word(t.lower_of(tok)) {
            j -= 1;
        } else {
            break;
        }
    }
    while j < i && (retrieve::is_stop_word(t.lower(j)) || lexicon::role(t.lower(j)).is_some()) {
        j += 1;
    }
    j..i
}

/// A person's title as the text gives it next to their name.
pub(crate) struct RoleNear {
    offices: HashSet<String>,
    ranks: HashSet<String>,
    text: String,
}

/// The title words next to the name: before it ("Deputy transport minister Paul Reed", "the
/// club's chairman, Tom Arden") or in an appositive after it ("Tom Arden, the club's chairman,").
pub(crate) fn role_near(t: &Text, name_words: &[String]) -> Option<RoleNear> {
    let surname = name_words.last()?;
    let at = t.lowers().position(|w| w == surname.as_str())?;
    let first = (0..=at)
        .rev()
        .take_while(|&j| t.toks[j].is_word() && (t.toks[j].capital() || j == at))
        .last()
        .unwrap_or(at);
    let mut words: Vec<usize> = Vec::new();
    // Before the name, over one comma: a run of title words and their qualifiers.
    let mut j = first;
    let mut commas = 0;
    while j > 0 && first - j < 7 {
        let tok = &t.toks[j - 1];
        match t.kind_of(tok) {
            TokKind::Mark(',') if commas == 0 && j == first => commas += 1,
            TokKind::Word if !is_reporting_verb(t.lower_of(tok)) => words.push(j - 1),
            _ => break,
        }
        j -= 1;
    }
    // After the name: ", the club's chairman,".
    if t.toks
        .get(at + 1)
        .is_some_and(|n| t.kind_of(n) == TokKind::Mark(','))
    {
        let mut j = at + 2;
        while j < t.toks.len() && j < at + 9 && t.toks[j].is_word() {
            words.push(j);
            j += 1;
        }
    }
    let mut offices = HashSet::default();
    let mut ranks = HashSet::default();
    for &j in &words {
        match lexicon::role(t.lower(j)) {
            Some(Role::Office) => {
                offices.insert(t.lower(j).to_owned());
            }
            Some(Role::Rank) => {
                ranks.insert(t.lower(j).to_owned());
            }
            None => {}
        }
    }
    if offices.is_empty() {
        return None;
    }
    let lo = words.iter().copied().min()?;
    let hi = words.iter().copied().max()?;
    let text = if hi < first {
        t.span(lo..hi + 1).to_owned()
    } else {
        t.span(at + 2..hi + 1).to_owned()
    };
    Some(RoleNear {
        offices,
        ranks,
        text,
    })
}

/// A speaker's office as a text gives it beside a reporting verb, with or without a name.
#[derive(Debug)]
pub(crate) struct RoleSpeaker {
    /// The offices, each in one form for its variants ("spokesman" and "spokesperson" are one).
    offices: HashSet<&'static str>,
    ranks: HashSet<String>,
    /// The word just before the office that says which one it is: its portfolio or service
    /// ("health" minister, "police" chief, "council" spokesman), lower-case.
    modifier: Option<String>,
    /// The tokens of the phrase, and the phrase as written.
    words: Vec<usize>,
    text: String,
}

/// Words before an office that describe its holder's standing or time rather than say which
/// office it is ("the new minister", "a senior official"): no portfolio to compare.
pub(crate) const HOLDER_WORDS: &[&str] = &[
    "new",
    "newly",
    "current",
    "then",
    "senior",
    "top",
    "previous",
    "own",
    "longtime",
    "long-serving",
    "veteran",
    "local",
];

/// Determiners that open the noun phrase naming a speaker.
pub(crate) const SPEAKER_DETERMINERS: &[&str] =
    &["the", "a", "an", "its", "their", "his", "her", "our"];

/// One form for an office's variants: by gender ("spokeswoman"), by spelling ("councilor"), by
/// abbreviation ("CEO", the chief executive).
pub(crate) fn office_form(word: &str) -> Option<&'static str> {
    Some(match word {
        "spokesman" | "spokeswoman" | "spokesperson" => "spokesperson",
        "chair" | "chairman" | "chairwoman" | "chairperson" => "chair",
        "councillor" | "councilor" => "councillor",
        "congressman" | "congresswoman" | "representative" => "representative",
        "ceo" | "executive" => "executive",
        "headteacher" | "principal" => "principal",
        w => lexicon::OFFICES.iter().copied().find(|o| *o == w)?,
    })
}

impl RoleSpeaker {
    /// Whether `other` can be the same speaker: an office in common at the same rank, and no
    /// two different portfolios. A portfolio only one side names, or one that the other side's
    /// text names elsewhere, is no difference.
    pub(crate) fn same_office(&self, other: &RoleSpeaker, ours: &Text, theirs: &Text) -> bool {
        if self.offices.is_disjoint(&other.offices) || self.ranks != other.ranks {
            return false;
        }
        match (&self.modifier, &other.modifier) {
            (Some(a), Some(b)) => {
                a == b || theirs.lowers().any(|w| w == a) || ours.lowers().any(|w| w == b)
            }
            _ => true,
        }
    }

    /// Whether `t` names this office (and its portfolio, when given) anywhere, even in a
    /// possessive: "the opposition leader said the minister's claim was false" may report the
    /// minister's words.
    pub(crate) fn stated_in(&self, t: &Text) -> bool {
        let office = t.lowers().any(|w| {
            let w = w
                .strip_suffix("'s")
                .or_else(|| w.strip_suffix("\u{2019}s"))
                .unwrap_or(w);
            office_form(w).is_some_and(|o| self.offices.contains(o))
        });
        office
            && self
                .modifier
                .as_ref()
                .is_none_or(|m| t.lowers().any(|w| w == m.as_str()))
    }
}

/// The speakers `t` gives by office, each beside a reporting verb: before it ("the finance
/// minister said", "Health Minister Ana Ruiz said", "Ana Ruiz, the health minister, said"), after
/// it ("said the police chief", "said a spokesperson for the council"), or after "according to".
pub(crate) fn role_speakers(t: &Text) -> Vec<RoleSpeaker> {
    let mut out = Vec::new();
    let n = t.toks.len();
    for i in 0..n {
        let verb = t.lower(i);
        if !t.toks[i].is_word() || !is_reporting_verb(verb) {
            continue;
        }
        let phrase: Vec<usize> = if verb == "according" {
            if t.lower(i + 1) != "to" {
                continue;
            }
            words_after(t, i + 2)
        } else {
            let before = words_before(t, i);
            if before.iter().any(|&j| office_form(t.lower(j)).is_some()) {
                before
            } else if INVERTED_VERBS.contains(&verb) {
                words_after(t, i + 1)
            } else {
                continue;
            }
        };
        if let Some(role) = role_of(t, phrase) {
            out.push(role);
        }
    }
    out
}

/// The noun phrase ending before the reporting verb at `i`: back over "has", "had" or "also"
/// and one comma (an appositive), to a determiner, a mark or seven words; a determiner after
/// "for", "of" or "at" is read past ("a spokesperson for the council said").
pub(crate) fn words_before(t: &Text, i: usize) -> Vec<usize> {
    let mut j = i;
    while j > 0 && matches!(t.lower(j - 1), "has" | "have" | "had" | "also") {
        j -= 1;
    }
    if j > 0 && t.kind(j - 1) == Some(TokKind::Mark(',')) {
        j -= 1;
    }
    let mut words = Vec::new();
    while j > 0 && words.len() < 7 {
        let tok = &t.toks[j - 1];
        if !tok.is_word() {
            break;
        }
        if SPEAKER_DETERMINERS.contains(&t.lower_of(tok))
            && !(j >= 2 && matches!(t.lower(j - 2), "for" | "of" | "at"))
        {
            break;
        }
        words.push(j - 1);
        j -= 1;
    }
    words.reverse();
    words
}

/// Reporting verbs that may come before their speaker ("…, said the police chief"). After
/// "told" or "warned" comes whom they spoke to; after "found", what was found.
pub(crate) const INVERTED_VERBS: &[&str] = &[
    "said",
    "says",
    "added",
    "explained",
    "noted",
    "wrote",
    "argued",
    "stated",
];

/// The noun phrase after a reporting verb or "according to": past a determiner, the words up to
/// the office and the name or offices right after it ("the police chief", "councillor David
/// Okafor", "a spokesperson"), where the clause ends or a preposition follows ("a spokesperson
/// for the council"): "said the minister had resigned" reports something of the minister.
pub(crate) fn words_after(t: &Text, start: usize) -> Vec<usize> {
    let mut j = start;
    if SPEAKER_DETERMINERS.contains(&t.lower(j)) {
        j += 1;
    }
    let Some(office) = (j..(j + 4).min(t.toks.len()))
        .take_while(|&k| t.toks[k].is_word())
        .find(|&k| office_form(t.lower(k)).is_some())
    else {
        return Vec::new();
    };
    let mut end = office + 1;
    while end < t.toks.len()
        && t.toks[end].is_word()
        && (t.toks[end].capital() || office_form(t.lower(end)).is_some())
    {
        end += 1;
    }
    let closes = t.toks.get(end).is_none_or(|next| {
        !next.is_word()
            || matches!(
                t.lower_of(next),
                "for" | "of" | "at" | "on" | "in" | "to" | "from" | "with" | "and"
            )
    });
    if closes {
        (j..end).collect()
    } else {
        Vec::new()
    }
}

/// The office, rank and portfolio a phrase gives, when it names an office.
pub(crate) fn role_of(t: &Text, words: Vec<usize>) -> Option<RoleSpeaker> {
    let mut offices = HashSet::default();
    let mut ranks = HashSet::default();
    for (n, &j) in words.iter().enumerate() {
        let w = t.lower(j);
        // "Chief" before another office only ranks it ("chief executive", "chief inspector").
        let chief_of = w == "chief"
            && words
                .get(n + 1)
                .is_some_and(|&k| office_form(t.lower(k)).is_some());
        if let Some(office) = office_form(w).filter(|_| !chief_of) {
            offices.insert(office);
        } else if lexicon::role(w) == Some(Role::Rank) {
            ranks.insert(w.to_owned());
        }
    }
    if offices.is_empty() {
        return None;
    }
    let office_at = words
        .iter()
        .position(|&j| office_form(t.lower(j)).is_some())?;
    let modifier = office_at
        .checked_sub(1)
        .map(|n| t.lower(words[n]))
        .filter(|w| {
            lexicon::role(w).is_none()
                && !HOLDER_WORDS.contains(w)
                && !retrieve::is_stop_word(w)
                && !w.ends_with("'s")
                && !w.ends_with("\u{2019}s")
        })
        .map(str::to_owned);
    let (lo, hi) = (*words.first()?, *words.last()?);
    Some(RoleSpeaker {
        offices,
        ranks,
        modifier,
        text: t.span(lo..hi + 1).to_owned(),
        words,
    })
}
