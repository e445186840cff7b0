//! Which passages of the source the voters are shown: the best few for the claim, by the same
//! retrieval the lexical judge uses ([`crate::judge::retrieve`]), so the panel and the
//! judge look at the same parts of the page.
//!
//! One passage is often not enough: the figure may sit in one sentence and what it measures in
//! the next window, or the page may say the opposite further down. The passage the judge based
//! its verdict on comes first when there is one (it may be the passage that states the source's
//! figure rather than the best-scoring one); the next best passages that do not overlap it
//! follow, best first, up to `max` in all. The prompt budget ([`super::budget`]) then keeps as
//! many as fit.

use crate::judge::retrieve::{MAX_WINDOW, SourceIndex, tokenize};
use crate::judge::strip_citation_markers;

/// A passage already chosen by the judge: its text and character offsets in the source.
#[derive(Debug, Clone, Copy)]
pub struct Lead<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

/// The best `max` passages of `source_text` (indexed as `index`, the index the judge read) for
/// `claim_text`, `lead` first; see the module doc.
pub fn best_passages(
    claim_text: &str,
    source_text: &str,
    index: &SourceIndex,
    lead: Option<Lead<'_>>,
    max: usize,
) -> Vec<String> {
    if max == 0 {
        return Vec::new();
    }
    let query = tokenize(&strip_citation_markers(claim_text));
    // Retrieved passages do not overlap one another, so at most one per sentence of the lead
    // (a window of up to MAX_WINDOW sentences) overlaps it: retrieve that many more.
    let retrieved = index.retrieve(source_text, &query, max + MAX_WINDOW);
    let mut chosen: Vec<(usize, usize, String)> = Vec::with_capacity(max);
    if let Some(lead) = lead
        && !lead.text.trim().is_empty()
    {
        chosen.push((lead.start, lead.end, lead.text.to_owned()));
    }
    for passage in retrieved {
        if chosen.len() >= max {
            break;
        }
        let overlaps = chosen
            .iter()
            .any(|(start, end, _)| passage.start < *end && *start < passage.end);
        if !overlaps {
            chosen.push((passage.start, passage.end, passage.text));
        }
    }
    chosen.into_iter().map(|(_, _, text)| text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "The transit authority published its annual report on Monday.\n\
        Ridership on city buses rose 4% in 2023, to 41 million trips.\n\
        The weather was mild for most of the year.\n\
        Subway ridership, by contrast, fell 2% over the same period.\n\
        Fares were unchanged for the third year running.\n\
        The board meets again in March.";

    #[test]
    fn the_best_few_passages_are_returned_best_first_without_overlap() {
        let passages = best_passages(
            "Bus ridership rose 4% in 2023.",
            SOURCE,
            &SourceIndex::new(SOURCE),
            None,
            3,
        );
        assert!(passages.len() >= 2, "{passages:?}");
        assert!(passages[0].contains("rose 4%"), "{passages:?}");
        // Each passage is text of the source, and no sentence appears twice.
        for p in &passages {
            assert!(SOURCE.contains(p.as_str()), "{p:?}");
        }
        let mentions = passages.iter().filter(|p| p.contains("rose 4%")).count();
        assert_eq!(mentions, 1, "{passages:?}");
        assert!(
            best_passages(
                "Bus ridership rose 4%.",
                SOURCE,
                &SourceIndex::new(SOURCE),
                None,
                1
            )
            .len()
                == 1
        );
        assert!(
            best_passages(
                "Bus ridership rose 4%.",
                SOURCE,
                &SourceIndex::new(SOURCE),
                None,
                0
            )
            .is_empty()
        );
    }

    #[test]
    fn the_judges_passage_leads_and_is_not_repeated() {
        let sentence = "Subway ridership, by contrast, fell 2% over the same period.";
        let start = SOURCE[..SOURCE.find(sentence).unwrap()].chars().count();
        let lead = Lead {
            text: sentence,
            start,
            end: start + sentence.chars().count(),
        };
        let passages = best_passages(
            "Subway ridership rose 4% in 2023.",
            SOURCE,
            &SourceIndex::new(SOURCE),
            Some(lead),
            3,
        );
        assert_eq!(passages[0], sentence);
        // The other sentence that speaks of ridership in 2023 follows; the lead is not repeated.
        assert!(passages.len() >= 2, "{passages:?}");
        assert!(
            passages[1..].iter().any(|p| p.contains("rose 4%")),
            "{passages:?}"
        );
        assert!(
            passages[1..].iter().all(|p| !p.contains(sentence)),
            "{passages:?}"
        );
    }

    #[test]
    fn a_source_with_nothing_in_common_gives_no_passage() {
        assert!(
            best_passages(
                "Prices fell.",
                "Unrelated words only here.",
                &SourceIndex::new("Unrelated words only here."),
                None,
                3
            )
            .is_empty()
        );
        assert!(best_passages("Prices fell.", "", &SourceIndex::new(""), None, 3).is_empty());
    }
}
