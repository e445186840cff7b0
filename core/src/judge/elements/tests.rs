//! The element rules, each on small claims and pages written for it.

use super::date::periods_of;
use super::findings as findings_of;
use super::*;
use crate::judge::PageIndex;
use crate::judge::align::Alignment;
use crate::judge::text::Text;
use crate::judge::text::denial_frame;
use crate::model::ClaimElement;
use crate::text::figures::parse_figures;
use std::ops::Range;

/// The verdict, severity and element the judge gives `claim` against `source`, as an article
/// cites it.
fn judged(
    claim: &str,
    source: &str,
) -> (
    crate::model::Verdict,
    Option<crate::model::Severity>,
    Option<ClaimElement>,
) {
    let body = format!(
        "{} [1].\n\n[1]: https://example.com/page\n",
        claim.trim_end_matches('.')
    );
    let extraction = crate::extract::extract(&body, crate::model::BodyFormat::Markdown)
        .expect("the claim reads");
    let c = extraction.claims.first().expect("a claim");
    let j = crate::judge::judge(
        c,
        source,
        "https://example.com/page",
        &crate::judge::JudgeSettings::default(),
    );
    (j.verdict, j.severity, j.element)
}

fn findings(claim: &str, source: &str) -> Vec<Finding> {
    let page = PageIndex::new(source);
    let all = 0..page.index().sentences.len();
    let windows = std::slice::from_ref(&all);
    let a = Alignment::new(claim, parse_figures(claim), &page, windows, 0.1, 0.2);
    findings_of(&a)
}

fn elements(claim: &str, source: &str) -> Vec<(ClaimElement, bool)> {
    findings(claim, source)
        .into_iter()
        .map(|f| (f.element, f.contradiction))
        .collect()
}

#[test]
fn clauses_split_where_each_part_states_something() {
    let t = Text::new(
        "Exports fell 3% in the first half of the year and imports rose 6%, the office said.",
        &mut |_| 0,
    );
    let parts: Vec<&str> = t.clauses.iter().map(|c| t.span(c.clone())).collect();
    assert_eq!(
        parts,
        [
            "Exports fell 3% in the first half of the year",
            "and imports rose 6%, the office said."
        ]
    );
    let t = Text::new("Sales of cars and trucks rose 5%.", &mut |_| 0);
    assert_eq!(t.clauses.len(), 1);
}

#[test]
fn opposite_directions_contradict() {
    let source = "Ridership on the city's buses rose 4% last year, the transit agency said.";
    let got = findings("Ridership on the city's buses fell 4% last year.", source);
    assert_eq!(got[0].element, ClaimElement::Direction, "{got:?}");
    assert!(got[0].problem.contains("fell") && got[0].problem.contains("rose"));
    assert!(elements("Ridership on the city's buses rose 4% last year.", source).is_empty());
    assert!(
        elements(
            "Ridership on the city's buses did not fall last year.",
            source
        )
        .is_empty()
    );
}

#[test]
fn a_negated_predicate_contradicts_a_plain_one() {
    let source = "The minister attended the summit in Oslo on Friday.";
    assert_eq!(
        elements("The minister did not attend the summit in Oslo.", source),
        [(ClaimElement::Negation, true)]
    );
    assert!(elements("The minister attended the summit in Oslo.", source).is_empty());
}

#[test]
fn a_figure_given_to_another_subject_is_found() {
    use crate::model::Verdict;
    let source = "Exports fell 3% in the first half of the year and imports rose 6%.";
    let (verdict, _, element) = judged("Imports rose 3% in the first half.", source);
    assert_eq!(verdict, Verdict::Refuted);
    assert!(
        matches!(element, Some(ClaimElement::Figure | ClaimElement::Subject)),
        "{element:?}"
    );
    let (verdict, _, _) = judged("Imports rose 6% in the first half of the year.", source);
    assert_eq!(verdict, Verdict::Supported);
}

#[test]
fn of_two_figures_in_a_sentence_the_claim_is_held_to_the_one_for_its_subject_and_period() {
    use crate::model::Verdict::{Refuted, Supported};
    // "while" and "and" join two statements: each figure is its own subject's.
    let rents = "Rents rose 8% last year, while wages rose 3%.";
    let trade = "Exports fell 3% in the first half, while imports rose 6%.";
    let sales = "Sales grew 12% in March, while profits grew 4%.";
    let months = "Rents rose 4% in May and 6% in June, the index showed.";
    let targets = "The city aims to cut emissions 40% by 2030 and 60% by 2040.";
    let prices = "Inflation rose to 5% in March from 3% in February.";
    let exports = "Exports rose 12% in 2021 and 4% in 2022, the ministry said on Monday.";
    let opening = "In 2024 online sales of books rose 5%, after 2% in 2023.";
    let cases = [
        ("Wages rose 8% last year.", rents, Refuted),
        ("Wages rose 3% last year.", rents, Supported),
        ("Rents rose 8% last year.", rents, Supported),
        (
            "House prices rose 8% last year.",
            "Rents in the city rose 8% last year and house prices rose 3%.",
            Refuted,
        ),
        ("Exports fell 3% in the first half.", trade, Supported),
        ("Imports rose 6% in the first half.", trade, Supported),
        ("Imports rose 3% in the first half.", trade, Refuted),
        ("Sales grew 12% in March.", sales, Supported),
        ("Profits grew 12% in March.", sales, Refuted),
        // Other phrasings of the same statements, and a sentence of counts.
        ("Rents rose 3% last year.", rents, Refuted),
        ("Wages were up 3% last year.", rents, Supported),
        ("Last year wages grew by 3%.", rents, Supported),
        ("Wages climbed 8% last year.", rents, Refuted),
        (
            "Imports rose 4% in May.",
            "In May, exports rose 4% and imports rose 2%, the office said.",
            Refuted,
        ),
        (
            "The council approved 30 homes.",
            "The council approved 120 homes and 30 shops on Tuesday.",
            Refuted,
        ),
        (
            "The council approved 120 homes and 30 shops.",
            "The council approved 120 homes and 30 shops on Tuesday.",
            Supported,
        ),
        // Figures told apart by the period written after each.
        (
            "Wages rose 5% in 2024.",
            "Wages rose 3% in 2023 and 5% in 2024.",
            Supported,
        ),
        (
            "Wages rose 3% in 2023.",
            "Wages rose 3% in 2023 and 5% in 2024.",
            Supported,
        ),
        (
            "Wages rose 3% in 2024.",
            "Wages rose 3% in 2023 and 5% in 2024.",
            Refuted,
        ),
        (
            "In 2024, wages rose 5%.",
            "Wages rose 3% in 2023 and 5% in 2024.",
            Supported,
        ),
        (
            "Unemployment fell to 3.1% in March.",
            "Unemployment was 4.3% in February and fell to 3.1% in March.",
            Supported,
        ),
        (
            "Unemployment fell to 4.3% in March.",
            "Unemployment was 4.3% in February and fell to 3.1% in March.",
            Refuted,
        ),
        (
            "Unemployment was 4.3% in February.",
            "Unemployment was 4.3% in February and fell to 3.1% in March.",
            Supported,
        ),
        // A claim with no period is held to the figure it gives, whichever period it is for.
        (
            "Wages rose 5%.",
            "Wages rose 3% in 2023 and 5% in 2024.",
            Supported,
        ),
        (
            "Wages rose 5% in 2024, up from 3% in 2023.",
            "Wages rose 3% in 2023 and 5% in 2024.",
            Supported,
        ),
        (
            "The city aims to cut emissions 60% by 2040.",
            targets,
            Supported,
        ),
        (
            "The city aims to cut emissions 40% by 2040.",
            targets,
            Refuted,
        ),
        ("Inflation was 3% in February.", prices, Supported),
        ("Inflation rose to 5% in March.", prices, Supported),
        ("Inflation rose to 3% in March.", prices, Refuted),
        (
            "Exports rose 12% in 2021, the ministry said.",
            exports,
            Supported,
        ),
        ("Exports rose 4% in 2021.", exports, Refuted),
        // A table row whose label gives the scale.
        (
            "Bulk cargo fell to 8.9 million tonnes from 9.6 million tonnes.",
            "Bulk cargo (million tonnes) 8.9 9.6 -7.3%",
            Supported,
        ),
        (
            "Bulk cargo fell to 8.9 billion tonnes.",
            "Bulk cargo (million tonnes) 8.9 9.6 -7.3%",
            Refuted,
        ),
        // The label of a figure after another's period starts past that period: "in May" is
        // not what the 6% is of.
        ("Rents rose 6% in June.", months, Supported),
        ("In June, rents were up 6%.", months, Supported),
        ("Rents rose 6% in May.", months, Refuted),
        (
            "Revenue was $4.2 million.",
            "Revenue ($ millions) 4.2 3.9 +7.7%",
            Supported,
        ),
        // "The 2024 report" is no period of the figure's.
        (
            "The 2024 report found that 5% of firms closed.",
            "5% of firms closed in 2023, against 2% of firms the year before, the 2024 report found.",
            Supported,
        ),
        (
            "Turnout was 60% in 2019.",
            "Turnout was 60% in the 2019 election and 55% in 2024.",
            Supported,
        ),
        // A sentence that opens with its period gives it to its figures that name none.
        ("Online sales of books rose 5% in 2023.", opening, Refuted),
        ("Online sales of books rose 5% in 2024.", opening, Supported),
        ("Online sales of books rose 2% in 2023.", opening, Supported),
        (
            "In 2024, online sales of books rose 5%.",
            opening,
            Supported,
        ),
        // A sentence that writes the claim's year as well does not contradict it word for word
        // ("in 2024" against its "in 2023").
        (
            "Sales rose 5% in 2024.",
            "In 2024 sales rose 5%, after 2% in 2023.",
            Supported,
        ),
        // But the claim's figure given for another year is still the year changed.
        (
            "Sales reached $7 million in 2019.",
            "Sales were $5 million in 2019 and reached $7 million in 2020.",
            Refuted,
        ),
        (
            "Exports fell 2% in March.",
            "In March, exports fell 2% and imports rose 1%.",
            Supported,
        ),
        (
            "Exports fell 2% in April.",
            "In March, exports fell 2% and imports rose 1%.",
            Refuted,
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(claim, source, expected)| {
            let (verdict, _, element) = judged(claim, source);
            (verdict != *expected).then(|| {
                format!(
                    "{claim:?} against {source:?}: {verdict:?} {element:?}, expected {expected:?}"
                )
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn units_currencies_and_years() {
    assert_eq!(
        elements(
            "Turnout rose by 5% at the election.",
            "Turnout rose by 5 percentage points at the election."
        ),
        [(ClaimElement::Unit, true)]
    );
    assert_eq!(
        elements(
            "The repairs will cost €45 million.",
            "The repairs will cost $45 million."
        ),
        [(ClaimElement::Currency, true)]
    );
    let (verdict, _, element) = judged(
        "The factory closed in 2009.",
        "The factory closed in 2011 after 80 years.",
    );
    assert_eq!(
        (verdict, element),
        (crate::model::Verdict::Refuted, Some(ClaimElement::Date))
    );
}

#[test]
fn a_statement_denied_on_one_side_and_stated_on_the_other() {
    // One contradiction: of polarity, or of direction when the statement denied has a
    // direction word ("cut"), which the denial flips.
    let contradicted = |got: Vec<(ClaimElement, bool)>| {
        matches!(
            got[..],
            [(ClaimElement::Negation | ClaimElement::Direction, true)]
        )
    };
    for (stated, negated, denied) in [
        (
            "The council cut the library budget by 12% in 2023.",
            "The council did not cut the library budget in 2023.",
            "the council cut the library budget in 2023.",
        ),
        (
            "The board approved the stadium plan in March.",
            "The board did not approve the stadium plan in March.",
            "the board approved the stadium plan in March.",
        ),
    ] {
        let plain = format!("{}{}", denied[..1].to_uppercase(), &denied[1..]);
        for frame in [
            "It is untrue that",
            "It's false that",
            "It isn't true that",
            "It is not the case that",
            "It was incorrect that",
        ] {
            let denial = format!("{frame} {denied}");
            let got = elements(&denial, stated);
            assert!(contradicted(got.clone()), "claim {denial:?}: {got:?}");
            let got = elements(&plain, &denial);
            assert!(contradicted(got.clone()), "source {denial:?}: {got:?}");
            // Denied on both sides, or denied and negated: they agree.
            assert_eq!(elements(&denial, &denial), [], "{denial:?}");
            assert_eq!(elements(&denial, negated), [], "{denial:?} / {negated:?}");
        }
    }
    // Said by someone, or a judgement rather than a denial: nothing denied.
    for not_denied in [
        "The mayor said it is untrue that the council cut the library budget in 2023.",
        "It is wrong that the council cut the library budget in 2023.",
        "It is true that the council cut the library budget in 2023.",
    ] {
        assert!(
            denial_frame(&Text::plain(not_denied)).is_none(),
            "{not_denied:?}"
        );
    }
}

#[test]
fn a_month_or_season_swapped() {
    let source = "The plant closed in May 2023 after a long dispute over pay.";
    assert_eq!(
        elements(
            "The plant closed in March 2023 after a long dispute over pay.",
            source
        ),
        [(ClaimElement::Date, true)]
    );
    assert_eq!(
        elements(
            "The plant closed in May 2023 after a long dispute over pay.",
            source
        ),
        []
    );
    let source = "Flooding hit the valley in the winter of 2023, closing the main road.";
    assert_eq!(
        elements(
            "Flooding hit the valley in the summer of 2023, closing the main road.",
            source
        ),
        [(ClaimElement::Date, true)]
    );
    assert_eq!(
        elements(
            "Flooding hit the valley in the winter of 2023, closing the main road.",
            source
        ),
        []
    );
    // "May" the verb and "June" the name are no months.
    assert!(periods_of(&Text::plain("Prices May rise, June Carter said.")).is_empty());
    // A sentence on one of the claim's months alone contradicts none of them.
    let got = elements(
        "The rule was passed in March 2023 and took effect in May 2023 across the county.",
        "The rule took effect in May 2023 across the county, the council said.",
    );
    assert!(!got.contains(&(ClaimElement::Date, true)), "{got:?}");
}

#[test]
fn speakers_and_titles() {
    let source = "\"We cannot keep the pool open,\" said councillor David Okafor.";
    let got = elements(
        "\"We cannot keep the pool open,\" said councillor Maria Hughes.",
        source,
    );
    assert_eq!(got, [(ClaimElement::Speaker, true)]);
    let got = elements(
        "Transport minister Paul Reed said the line would reopen.",
        "Deputy transport minister Paul Reed said the line would reopen.",
    );
    assert_eq!(got, [(ClaimElement::Title, true)]);
}

#[test]
fn a_record_high_against_a_record_low_is_a_direction_contradiction() {
    let got = elements(
        "Prices hit a record high in March.",
        "Prices hit a record low in March.",
    );
    assert_eq!(got, [(ClaimElement::Direction, true)]);
    let got = elements(
        "Bookings fell to an all-time low last winter.",
        "Bookings rose to an all-time high last winter.",
    );
    assert!(got.contains(&(ClaimElement::Direction, true)), "{got:?}");
    // Written otherwise: hyphenated, unhyphenated, over a span of years.
    for (claim, source) in [
        (
            "Prices hit a record-high in March.",
            "Prices hit a record low in March.",
        ),
        (
            "Prices hit an all time high in March.",
            "Prices hit an all time low in March.",
        ),
        (
            "Sterling hit a 20-year low against the dollar.",
            "Sterling hit a 20-year high against the dollar.",
        ),
        (
            "Sterling hit a five-year low against the dollar.",
            "Sterling hit a five-year high against the dollar.",
        ),
    ] {
        let got = elements(claim, source);
        assert_eq!(got, [(ClaimElement::Direction, true)], "{claim} / {source}");
    }
    // The same extreme in other words, and "low" or "high" with no record.
    for (claim, source) in [
        (
            "Prices hit a record high in March.",
            "Prices reached an all-time high in March.",
        ),
        (
            "Prices hit a record high in March.",
            "Prices hit their highest level on record in March.",
        ),
        (
            "Prices hit a record high in March.",
            "Prices hit a record high in March, while wages stayed low.",
        ),
        (
            "The high court sat for a year.",
            "The court sat for a year, with turnover of staff low.",
        ),
    ] {
        let got = elements(claim, source);
        assert!(
            !got.contains(&(ClaimElement::Direction, true)),
            "{claim} / {source}: {got:?}"
        );
    }
}

#[test]
fn an_ordinal_changed_in_a_followed_sentence_contradicts() {
    let figures = |claim: &str, source: &str| {
        elements(claim, source)
            .into_iter()
            .filter(|(e, _)| *e == ClaimElement::Figure)
            .collect::<Vec<_>>()
    };
    let contradicted = [(ClaimElement::Figure, true)];
    assert_eq!(
        figures(
            "Rents in the city rose for the third consecutive year, the council said.",
            "Rents in the city rose for a second consecutive year, the council said."
        ),
        contradicted
    );
    assert_eq!(
        figures(
            "The club finished the season in fifth place in the league.",
            "The club finished the season in seventh place in the league."
        ),
        contradicted
    );
    // On a page of several sentences, as a cited page is: the words a one-sentence page
    // lacks ("3", "rd") would otherwise outweigh the words the claim follows.
    assert_eq!(
        figures(
            "It is now the country's 3rd largest port by tonnage.",
            "The harbour opened in 1890. It is now the country's 2nd largest port by \
             tonnage. Cranes were added later. Ferries leave daily."
        ),
        contradicted
    );
    // The same count written otherwise, or no count on one side, is not a change.
    assert!(
        figures(
            "Rents in the city rose for a third straight year, the council said.",
            "Rents in the city rose for the third consecutive year, the council said."
        )
        .is_empty()
    );
    assert!(
        figures(
            "It is now the country's 3rd largest port by tonnage.",
            "The harbour opened in 1890. It is now the country's third largest port by \
             tonnage. Cranes were added later. Ferries leave daily."
        )
        .is_empty()
    );
}

#[test]
fn a_speaker_given_by_office_is_compared_with_the_office_the_source_gives() {
    let said = |claim: &str, source: &str| {
        elements(claim, source)
            .into_iter()
            .filter(|(e, _)| *e == ClaimElement::Speaker)
            .collect::<Vec<_>>()
    };
    let contradicted = [(ClaimElement::Speaker, true)];
    // Another office, before or after the verb.
    assert_eq!(
        said(
            "The finance minister said the scheme would cost more than planned.",
            "The opposition leader said the scheme would cost more than planned."
        ),
        contradicted
    );
    assert_eq!(
        said(
            "Arrests fell in the spring, said the police chief.",
            "Arrests fell in the spring, the fire chief said."
        ),
        contradicted
    );
    assert_eq!(
        said(
            "A spokesperson for the trust said waiting lists had fallen.",
            "The trust's chief executive said waiting lists had fallen."
        ),
        contradicted
    );
    // After "according to", and with a verb the rule was not written around.
    assert_eq!(
        said(
            "According to the finance minister, the scheme would cost more than planned.",
            "According to the opposition leader, the scheme would cost more than planned."
        ),
        contradicted
    );
    assert_eq!(
        said(
            "The scheme would cost more than planned, the finance minister warned.",
            "The scheme would cost more than planned, the opposition leader warned."
        ),
        contradicted
    );
    // The same office: named, in another variant, in an appositive, at no named portfolio.
    for (claim, source) in [
        (
            "The health minister said the clinics would open in March.",
            "Health Minister Ana Ruiz said the clinics would open in March.",
        ),
        (
            "A council spokesman said the bridge would reopen in May.",
            "A spokesperson for the council said the bridge would reopen in May.",
        ),
        (
            "The minister said the clinics would open in March.",
            "Ana Ruiz, the health minister, said the clinics would open in March.",
        ),
        (
            "The chief executive said profits would double.",
            "The company's CEO said profits would double.",
        ),
        (
            "The new minister said the clinics would open in March.",
            "The health minister said the clinics would open in March.",
        ),
    ] {
        assert_eq!(said(claim, source), [], "{claim} / {source}");
    }
    // No office to compare: a named speaker, or what was said of the office.
    for (claim, source) in [
        (
            "The club's manager said the stand would hold 4,000 fans.",
            "Tom Reed said the stand would hold 4,000 fans.",
        ),
        (
            "The inquiry found the minister had misled parliament.",
            "The committee chair said the minister had misled parliament.",
        ),
        (
            "The finance minister said the scheme would cost more than planned.",
            "The opposition leader said the finance minister's claim that the scheme would cost more than planned was false.",
        ),
    ] {
        assert_eq!(said(claim, source), [], "{claim} / {source}");
    }
}

#[test]
fn added_specifics_are_unsupported() {
    let source = "The storm brought heavy rainfall to the county, flooding several roads.";
    let got = elements(
        "The storm brought the heaviest rainfall to the county.",
        source,
    );
    assert_eq!(got, [(ClaimElement::Superlative, false)]);
    let source = "Several of the school's teachers joined the strike on Monday.";
    let got = elements(
        "All of the school's teachers joined the strike on Monday.",
        source,
    );
    assert_eq!(got, [(ClaimElement::Quantifier, false)]);
    let source = "The chain opened its first store in York in 1987.";
    let got = elements("The chain opened its first store in Leeds in 1987.", source);
    assert_eq!(got, [(ClaimElement::Place, false)]);
}

/// Rules that read a passage of several sentences, not one aligned clause.
fn windows(claim: &str, source: &str, passage: Range<usize>) -> Vec<(ClaimElement, bool)> {
    let page = PageIndex::new(source);
    let windows = std::slice::from_ref(&passage);
    let a = Alignment::new(claim, parse_figures(claim), &page, windows, 0.1, 0.2);
    findings_of(&a)
        .into_iter()
        .map(|f| (f.element, f.contradiction))
        .collect()
}

#[test]
fn a_slot_changed_in_a_sentence_the_claim_follows_is_found() {
    let source = "Wang joined the museum in 2009. \
                  She is the Melvin Seiden Curator of Chinese Art. \
                  Her exhibitions have toured Asia.";
    let got = elements("She is the Melvin Yale Curator of Chinese Art.", source);
    assert!(got.contains(&(ClaimElement::Name, true)), "{got:?}");
    let source = "The novel was first published in December of 1865 by a London house.";
    let (verdict, _, element) = judged(
        "The novel was first published in December of 1864 by a London house.",
        source,
    );
    assert_eq!(
        (verdict, element),
        (crate::model::Verdict::Refuted, Some(ClaimElement::Date))
    );
    // A fragment that shares two words with a sentence does not follow it.
    let source =
        "The revitalized Verve Records is home to imprints including Impulse! and Decca Records.";
    let got = elements("Records and Decca Records.", source);
    assert!(!got.contains(&(ClaimElement::Name, true)), "{got:?}");
    let source = "The novel was first published in December of 1865 by a London house.";
    // The same words said otherwise change nothing.
    assert!(
        elements(
            "The novel was first published by a London house in December of 1865.",
            source
        )
        .is_empty()
    );
}

#[test]
fn a_negation_is_compared_with_the_same_predicate_only() {
    // The same predicate negated on one side: a contradiction.
    let got = elements(
        "The company said it had found evidence that the stolen data had been misused.",
        "Our investigation found no evidence that any member information has been misused.",
    );
    assert!(got.contains(&(ClaimElement::Negation, true)), "{got:?}");
    // A claim with a negation whose stating sentence words it otherwise: the source does not
    // say the claim the other way, it says it in other words. No contradiction.
    let got = elements(
        "The tribunal rejected his argument, finding no breach of the testing standard.",
        "The tribunal was satisfied that the sample had been handled in line with the standard.",
    );
    assert!(
        !got.iter().any(|(_, contradiction)| *contradiction),
        "{got:?}"
    );
}

#[test]
fn a_year_stated_elsewhere_on_the_page_does_not_date_the_claim() {
    use crate::model::Verdict;
    let source = "The factory was sold to a new owner in 2009. The new owner kept the staff \
                  and modernised two of the lines over the following seasons. Orders from \
                  abroad grew for some time. The factory closed its doors in 2011, after 80 \
                  years of production.";
    assert_eq!(
        judged("The factory closed its doors in 2009.", source).2,
        Some(ClaimElement::Date)
    );
    assert_eq!(
        judged("The factory closed its doors in 2011.", source).0,
        Verdict::Supported
    );
}

#[test]
fn a_year_the_page_never_gives_does_not_come_from_it() {
    use crate::model::{Severity, Verdict};
    let source = "The museum reopened after a long renovation of its east wing, the city said.";
    let (verdict, severity, element) = judged(
        "The museum reopened in 2019 after a long renovation of its east wing.",
        source,
    );
    assert_eq!(
        (verdict, severity, element),
        (
            Verdict::Unconfirmed,
            Some(Severity::Medium),
            Some(ClaimElement::Date)
        )
    );
}

#[test]
fn a_place_named_by_its_adjective_is_stated() {
    let source = "The Italian festival drew thousands of visitors to its opening weekend.";
    let got = elements(
        "The festival in Italy drew thousands of visitors to its opening weekend.",
        source,
    );
    assert!(got.is_empty(), "{got:?}");
}

#[test]
fn a_direction_is_read_across_the_passage_that_states_the_claim() {
    let source = "The transit agency published its annual report on Monday. \
                  Passenger numbers on the buses declined over the year. \
                  The agency blamed the strikes.";
    let claim = "Passenger numbers on the transit agency's buses grew over the year, its annual report says.";
    let got = windows(claim, source, 0..3);
    assert!(got.contains(&(ClaimElement::Direction, true)), "{got:?}");
    let agreeing = "Passenger numbers on the transit agency's buses declined over the year, its annual report says.";
    let got = windows(agreeing, source, 0..3);
    assert!(!got.iter().any(|(_, c)| *c), "{got:?}");
}

/// A page with a table of a figure by district, as `webpage::table_text` writes one.
const DISTRICT_TABLE: &str = "Recorded crime by district, 2024-25\n\n\
    Kelbridge, Offences per 1,000: 122.5.\n\n\
    Ashworth, Offences per 1,000: 98.1.\n\n\
    Marbury, Offences per 1,000: 88.0.\n\n\
    Stainmoor, Offences per 1,000: 76.4.\n\n\
    County total, Offences per 1,000: 100.0.";

#[test]
fn a_ranking_the_pages_table_bears_out_is_stated() {
    use crate::model::Severity;
    for claim in [
        "Stainmoor had the lowest crime rate, at 76.4 offences per 1,000 residents.",
        "The lowest rate was Stainmoor's 76.4 offences per 1,000.",
        "At 76.4 offences per 1,000 people, Stainmoor recorded the smallest rate of any district.",
        "Kelbridge had the highest rate, 122.5 offences per 1,000.",
        "Kelbridge, which had the highest, recorded 122.5 offences per 1,000 residents.",
    ] {
        let (_, severity, element) = judged(claim, DISTRICT_TABLE);
        assert!(
            severity.is_none_or(|s| s == Severity::Low)
                && element != Some(ClaimElement::Superlative),
            "{claim}: {severity:?} {element:?}"
        );
    }
}

#[test]
fn a_ranking_the_pages_table_contradicts_is_unsupported() {
    use crate::model::Severity;
    for claim in [
        "Ashworth had the highest crime rate, at 98.1 offences per 1,000.",
        "The lowest rate was Marbury's 88.0 offences per 1,000.",
        "At 98.1 offences per 1,000, Ashworth recorded the largest rate of any district.",
        "Marbury had the fewest offences per 1,000, at 88.0.",
    ] {
        let (_, severity, element) = judged(claim, DISTRICT_TABLE);
        assert_eq!(
            (severity, element),
            (Some(Severity::Medium), Some(ClaimElement::Superlative)),
            "{claim}"
        );
    }
}

#[test]
fn a_ranking_read_from_a_claim_of_several_figures_is_for_review() {
    use crate::model::Severity;
    // Which column the superlative ranks is not plain where the claim gives several figures:
    // listed for review, never a block.
    for claim in [
        "Kelbridge had the highest rate at 122.5, followed by Ashworth with 98.1 and Marbury with 88.0.",
        "Marbury recorded the most offences per 1,000, 88.0, against Stainmoor's 76.4.",
        "Ashworth, at 98.1, had the largest rate, ahead of Marbury on 88.0.",
        "With 76.4 and 88.0 offences per 1,000, Stainmoor and Marbury had the highest rates.",
    ] {
        let (_, severity, _) = judged(claim, DISTRICT_TABLE);
        assert!(
            severity.is_none_or(|s| s == Severity::Low),
            "{claim}: {severity:?}"
        );
    }
}

#[test]
fn of_all_after_a_superlative_is_its_scope_not_a_quantifier() {
    use crate::model::Severity;
    let source = "The holly blue showed the largest fall of any species in 2024, down 71%.";
    for claim in [
        "The largest fall of all was for the holly blue, down 71%.",
        "Of all species, the holly blue had the largest fall, down 71%.",
        "The holly blue fared worst of all, down 71%.",
        "Biggest faller of all: the holly blue, down 71%.",
    ] {
        let (_, severity, element) = judged(claim, source);
        assert!(
            severity.is_none_or(|s| s == Severity::Low)
                || element != Some(ClaimElement::Quantifier),
            "{claim}: {severity:?} {element:?}"
        );
    }
}

#[test]
fn a_figure_compared_only_with_another_figure_the_claim_gives_is_not_refuted() {
    use crate::model::Verdict;
    let source = "An extra £334,000 for waste and recycling, covering higher fuel, vehicle and disposal costs.\n\nWaste and recycling, 2025-26 (£m): 5.1.";
    for claim in [
        "Waste and recycling spending rises by £334,000 to £5.1m to cover higher fuel costs.",
        "Spending on waste and recycling goes up £334,000, to £5.1m.",
        "The waste budget reaches £5.1m after an extra £334,000 for fuel and disposal costs.",
    ] {
        let (verdict, _, _) = judged(claim, source);
        assert_ne!(verdict, Verdict::Refuted, "{claim}");
    }
}

#[test]
fn a_superlatives_scope_is_what_follows_it_in_its_clause() {
    for (claim, word, beyond) in [
        (
            "the most widespread bird, its count the lowest since 2005",
            "most widespread",
            false,
        ),
        ("the lowest since the current method began", "lowest", true),
        (
            "251 officers for every 100,000 residents, the highest ratio in the region",
            "highest",
            false,
        ),
        ("the most potholes ever repaired in a year", "most", true),
        ("the wettest autumn on record", "wettest", true),
        (
            "the largest category, which has grown in every year since 2019",
            "largest",
            false,
        ),
        ("the highest rate in the country", "highest", true),
    ] {
        assert_eq!(
            super::specifics::beyond_the_page(claim, word),
            beyond,
            "{claim}"
        );
    }
}

#[test]
fn more_than_any_other_states_the_top_of_a_ranking() {
    use crate::model::Severity;
    let source = "The blackbird was seen in more gardens than any other species (85%), \
                  but its average count fell 6% to 2.11.";
    for claim in [
        "The blackbird was the most widespread bird, seen in 85% of gardens.",
        "Seen in 85% of gardens, the blackbird was the most common garden bird.",
        "The blackbird, spotted in 85% of gardens, was the biggest presence of any species.",
        "The blackbird had the highest share of gardens, at 85%.",
    ] {
        let (_, severity, element) = judged(claim, source);
        assert!(
            severity.is_none_or(|s| s == Severity::Low)
                || element != Some(ClaimElement::Superlative),
            "{claim}: {severity:?} {element:?}"
        );
    }
}

#[test]
fn a_superlative_the_page_neither_states_nor_ranks_is_for_review() {
    use crate::model::Severity;
    for (claim, source) in [
        (
            "The most serious offences fell by 4% in the year.",
            "Serious offences fell by 4% in the year, the force said.",
        ),
        (
            "The youngest defendant, Ellis Carr, 19, was sentenced to three years.",
            "Ellis Carr, 19, of Westford, was sentenced to three years in a young offender institution.",
        ),
        (
            "Even in the most pessimistic scenario, emissions were 29% lower.",
            "In a scenario in which all charging came from gas, emissions were 29% lower.",
        ),
    ] {
        let (_, severity, _) = judged(claim, source);
        assert!(
            severity.is_none_or(|s| s == Severity::Low),
            "{claim}: {severity:?}"
        );
    }
    // A superlative of all time is a record the page must state.
    let (_, severity, element) = judged(
        "Officers repaired 9,036 potholes, the most ever recorded in the district.",
        "Officers repaired 9,036 potholes in the district in 2024-25, up from 7,412.",
    );
    assert_eq!(
        (severity, element),
        (Some(Severity::Medium), Some(ClaimElement::Superlative))
    );
}

#[test]
fn a_figure_the_page_writes_is_never_refuted_on_its_value() {
    use crate::model::Verdict;
    for (claim, source) in [
        (
            "The family, two adults and three children aged four, nine and 12, were woken by their smoke alarm.",
            "The family of five, two adults and three children aged 4, 9 and 12, were woken by a smoke alarm shortly after 2am.",
        ),
        (
            "Had it gone ahead, the development would have included 51 affordable homes, along with £1.26m towards school places and £318,000 for local healthcare.",
            "Officers considered that the benefits of the scheme, including 51 affordable homes, contributions of £1.26 million towards primary school places and £318,000 towards local healthcare, outweighed the harm.",
        ),
        (
            "There were 3,412 households on the register on 1 April, up from 2,987 a year earlier.",
            "The register held 3,412 households on 1 April 2025, against 2,987 on 1 April 2024. Of these, 168 were in Band A.",
        ),
        (
            "Turnout was 24.6%, with 1,312 ballot papers counted from an electorate of 5,338.",
            "Electorate: 5,338. Ballot papers counted: 1,312. Turnout: 24.6%.",
        ),
    ] {
        let (verdict, _, element) = judged(claim, source);
        assert!(
            verdict != Verdict::Refuted && element != Some(ClaimElement::Figure),
            "{claim}: {verdict:?} {element:?}"
        );
    }
    // A figure the page does not write, for the same fact, still differs: far off, it blocks
    // (high); close, but no rounding of the page's (a transposed digit), it blocks (medium).
    let (_, severity, element) = judged(
        "There were 3,412 households on the register on 1 April, up from 1,987 a year earlier.",
        "The register held 3,412 households on 1 April 2025, against 2,987 on 1 April 2024.",
    );
    assert_eq!(
        (severity, element),
        (
            Some(crate::model::Severity::High),
            Some(ClaimElement::Figure)
        )
    );
    for (claim, source) in [
        (
            "There were 3,412 households on the register on 1 April, up from 2,897 a year earlier.",
            "The register held 3,412 households on 1 April 2025, against 2,987 on 1 April 2024.",
        ),
        (
            "The force had 1,826 officers on 31 March.",
            "The force had 1,862 full-time equivalent officers on 31 March 2025.",
        ),
        (
            "Unemployment rose to 4.4% in the third quarter.",
            "Unemployment rose to 4.7% in the third quarter, the office said.",
        ),
    ] {
        let (_, severity, element) = judged(claim, source);
        assert_eq!(
            (severity, element),
            (
                Some(crate::model::Severity::Medium),
                Some(ClaimElement::Figure)
            ),
            "{claim}"
        );
    }
    // A rounding is a rounding.
    for (claim, source) in [
        (
            "Almost 3,000 households were on the register a year earlier.",
            "The register held 2,987 households on 1 April 2024.",
        ),
        (
            "The register held 3,000 households a year earlier.",
            "The register held 2,987 households on 1 April 2024.",
        ),
        (
            "Unemployment rose to 4.7% in the third quarter.",
            "Unemployment rose to 4.66% in the third quarter, the office said.",
        ),
        (
            "The budget is £3.3m.",
            "The budget for 2025-26 is £3,287,000.",
        ),
    ] {
        let (verdict, _, element) = judged(claim, source);
        assert!(
            verdict != Verdict::Refuted && element != Some(ClaimElement::Figure),
            "{claim}: {verdict:?} {element:?}"
        );
    }
}

#[test]
fn a_negation_said_in_other_words_or_limiting_a_quantity_is_no_contradiction() {
    use crate::model::Verdict;
    for (claim, source) in [
        (
            "One of the three lifebuoy stations on the pier had no lifebuoy.",
            "Of the three lifebuoy stations on the North Pier, one had no lifebuoy.",
        ),
        (
            "He asked about sports pitches and allotments, and Cllr Nair told him none would be taken out of use.",
            "Cllr Nair confirmed that no sports pitches or allotments would be taken out of use.",
        ),
        (
            "About 1,480 of the 2,350 deaths would not have happened without climate change.",
            "Of the 2,350 deaths, about 1,480 happened because of climate change.",
        ),
        (
            "The 21% figure applies to children referred to mental health services, not all children.",
            "The 21% figure applies to children referred to mental health services.",
        ),
        (
            "There was no coal-fired generation at all in 2025.",
            "There was no coal generation in 2025, following the closure of the last coal-fired plant.",
        ),
        // Said without a negation: "empty", "missing", "lacked".
        (
            "An inquest heard one of three lifebuoy stations on the pier was empty.",
            "Of the three lifebuoy stations on the North Pier, one had no lifebuoy.",
        ),
        (
            "One of the pier's three lifebuoys was missing, the inquest heard.",
            "Of the three lifebuoy stations on the North Pier, one had no lifebuoy.",
        ),
        (
            "Two of the five wards lacked a defibrillator at the time of the inspection.",
            "At the time of the inspection two of the five wards had no defibrillator.",
        ),
        // A double negative said across the clause.
        (
            "About 1,480 of the estimated 2,350 heat-related deaths last summer would not have happened without climate change, a study found.",
            "An estimated 2,350 people died from the effects of heat last summer, of which 1,480 are attributable to climate change.",
        ),
    ] {
        let (verdict, _, element) = judged(claim, source);
        assert!(
            !(verdict == Verdict::Refuted
                && matches!(
                    element,
                    Some(ClaimElement::Negation | ClaimElement::Direction)
                )),
            "{claim}: {verdict:?} {element:?}"
        );
    }
    for (claim, source) in [
        (
            "The council approved the plan on Tuesday.",
            "The council did not approve the plan on Tuesday.",
        ),
        (
            "The council did not approve the plan on Tuesday.",
            "The council approved the plan on Tuesday.",
        ),
        (
            "The committee did not recommend the closure of the library.",
            "The committee recommended the closure of the library.",
        ),
        // A word of absence elsewhere in the claim does not word a verb's denial.
        (
            "The council approved the plan to fill the empty shops on Tuesday.",
            "The council did not approve the plan to fill the empty shops on Tuesday.",
        ),
    ] {
        let (verdict, _, _) = judged(claim, source);
        assert_eq!(verdict, Verdict::Refuted, "{claim}");
    }
}

#[test]
fn a_direction_word_that_moves_nothing_or_speaks_of_another_is_no_contradiction() {
    use crate::model::Verdict;
    for (claim, source) in [
        (
            "Researchers have built a solar cell that converts 34.2% of the sunlight falling on it into electricity.",
            "The cell converts 34.2% of incoming sunlight into electricity, more than any previous design.",
        ),
        (
            "Not every force grew over the year.",
            "Officer numbers increased in four of the five forces in the region.",
        ),
        (
            "Of the six districts, Felstead Bay was the only one where crime went up, rising by 4.4% to 7,611 offences.",
            "Recorded crime fell across the county. Felstead Bay, Offences 2024-25: 7,611.\n\nFelstead Bay, Change: +4.4%.\n\nThe drop was led by Kelbridge, where offences fell 9%.",
        ),
        (
            "The Progressives lost six seats, falling to eight.",
            "Progressive Party, Seats won 2021: 14.\n\nProgressive Party, Seats won 2025: 8.",
        ),
        // A word of a compound names a kind, not a direction.
        (
            "Children who missed out on a higher choice go on the waiting list automatically.",
            "Children who were not offered a higher-preference school are automatically placed on the waiting list.",
        ),
        (
            "The town has seen a rise in low-income households since 2020.",
            "The number of low-income households in the town has grown since 2020.",
        ),
        (
            "Demand for the up-front payment scheme has fallen, the council said.",
            "Demand for the scheme, which asks for payment up front, has fallen, the council said.",
        ),
        // What someone else claimed, which the cited fact-check rates.
        (
            "A leaflet claimed council tax had gone up 40% since 2020, a claim fact-checkers rated false.",
            "No, council tax has not gone up 40% since 2020.",
        ),
        (
            "The post, claiming that crime had risen sharply, was shared 4,000 times.",
            "Crime has not risen sharply: it fell 3% in the year, police figures show.",
        ),
        (
            "Campaigners alleged that waiting times had increased, which the trust denies.",
            "Waiting times have not increased, the trust said.",
        ),
    ] {
        let (verdict, _, element) = judged(claim, source);
        assert!(
            !(verdict == Verdict::Refuted && element == Some(ClaimElement::Direction)),
            "{claim}: {verdict:?} {element:?}"
        );
    }
    for (claim, source) in [
        (
            "Crime in Felstead Bay fell by 4.4% last year.",
            "Crime in Felstead Bay rose by 4.4% last year, the force said.",
        ),
        (
            "Exports rose 3% in the first half of the year.",
            "Exports fell 3% in the first half of the year, the office said.",
        ),
        (
            "The council rejected the plan for 42 flats.",
            "The council approved the plan for 42 flats on Wednesday.",
        ),
    ] {
        let (verdict, _, element) = judged(claim, source);
        assert_eq!(
            (verdict, element),
            (Verdict::Refuted, Some(ClaimElement::Direction)),
            "{claim}"
        );
    }
}

#[test]
fn an_ordinal_of_a_period_a_series_and_a_place_are_no_added_specifics() {
    use crate::model::Severity;
    for (claim, source) in [
        (
            "Funding supported 1,460 homes, rising every year from 188 in the first year to 529 in 2024-25.",
            "Completions: 188 in 2021-22, 301 in 2022-23, 442 in 2023-24 and 529 in 2024-25, a total of 1,460 homes.",
        ),
        (
            "Peak intensity rose from 1.6C in the first decade of the record to 2.3C in the most recent one.",
            "Average peak intensity rose from 1.6C above the seasonal norm in 1982-1991 to 2.3C in 2015-2024.",
        ),
        (
            "All ten of the warmest years on record have occurred since 2003.",
            "According to the institute, all ten of the warmest years in the series have occurred since 2003.",
        ),
        (
            "Across all homes, the median heat pump delivered 2.9 units of heat for each unit of electricity.",
            "The median heat pump delivered 2.9 units of heat for each unit of electricity across the 742 homes.",
        ),
    ] {
        let (_, severity, element) = judged(claim, source);
        assert!(
            severity.is_none_or(|s| s == Severity::Low),
            "{claim}: {severity:?} {element:?}"
        );
    }
}

#[test]
fn a_speaker_named_with_a_short_title_a_pronoun_or_a_day_is_no_misattribution() {
    use crate::model::Verdict;
    for (claim, source) in [
        (
            "\"For years people said perovskites would never survive on a roof,\" said Prof Ana Ribeiro, who leads the group.",
            "Professor Ana Ribeiro, who leads the Harwick Photovoltaics Group, said: \"For years people said perovskites would never survive on a roof.\"",
        ),
        (
            "Her co-author, Prof Hamish Drummond, said: \"These are not rare events any more.\"",
            "Professor Hamish Drummond, a co-author, said: \"These are not rare events any more.\"",
        ),
        (
            "\"We see the pattern you expect from water vapour in all three transits,\" said Dr Yusuf Demir of Carrowmore University, who led the study.",
            "Dr Yusuf Demir, who led the study published in Exoplanet Science, said: \"We see the pattern you expect from water vapour in all three transits.\"",
        ),
        (
            "Last year was the sixth-worst for butterflies since counting began, conservationists and university scientists said on Thursday.",
            "Last year was the sixth-worst for the country's butterflies since counting began in 1976, the Centre for Ecology said.",
        ),
        (
            "Last year was the sixth-worst for the country's butterflies since systematic counting began in 1976, a conservation charity and university scientists said on Thursday.",
            "2024 was the sixth worst year for butterflies since the National Butterfly Transect Monitoring Scheme began in 1976, according to results published today by the Butterfly Network and the Centre for Ecology and Hydrology.",
        ),
        (
            "He said Forward would \"talk to anyone\", but would not \"prop up a tired National administration\".",
            "\"We will talk to anyone about how the county is run, but we won't prop up a tired National administration that has failed on roads,\" said Forward leader Jo Marsh.",
        ),
        (
            "She said the Greens would \"keep pushing\" for a vote on the plan.",
            "\"We will keep pushing for a vote on the plan,\" said Green group leader Ann Cole.",
        ),
    ] {
        let (verdict, _, element) = judged(claim, source);
        assert!(
            !(verdict == Verdict::Refuted
                && matches!(element, Some(ClaimElement::Speaker | ClaimElement::Name))),
            "{claim}: {verdict:?} {element:?}"
        );
    }
    // A named speaker the source gives the words to someone else still is.
    assert!(
        elements(
            "Tom Reed said the scheme would cost more than planned.",
            "Ann Cole said the scheme would cost more than planned."
        )
        .contains(&(ClaimElement::Speaker, true))
    );
}

#[test]
fn a_value_is_given_to_another_subject_only_where_the_claim_names_its_subject_first() {
    use crate::model::Verdict;
    for (claim, source) in [
        (
            "Harrowvale lost 37 officers, and Aldmoor's numbers also dipped slightly.",
            "Officers by force\n\nHarrowvale, Change: -37.\n\nAldmoor, Change: -16.\n\nDunmere, Change: +58.",
        ),
        (
            "That's a rise of 21.9%, the biggest of any district in the county.",
            "Potholes repaired\n\nKettlebridge, Change: +21.9%.\n\nWexcombe City, Change: +9.1%.\n\nCounty total, Change: +10.8%.",
        ),
        (
            "MPs rejected the amendment by 343 votes to 205.",
            "Division 214: the amendment was rejected.\n\nAyes: 205.\n\nNoes: 343.\n\nMajority: 138.",
        ),
    ] {
        let (verdict, _, element) = judged(claim, source);
        assert!(
            !(verdict == Verdict::Refuted && element == Some(ClaimElement::Subject)),
            "{claim}: {verdict:?} {element:?}"
        );
    }
    for (claim, source) in [
        (
            "Marbury recorded 88.0 offences per 1,000 residents last year.",
            "Offences per 1,000 residents, 2024-25\n\nMarbury, Rate: 76.4.\n\nStainmoor, Rate: 88.0.\n\nKelbridge, Rate: 122.5.",
        ),
        (
            "The advertising business was the standout, with sales up 18%.",
            "Cloud Services revenue of $812 million, up 18%. Advertising revenue of $464 million, up 2%.",
        ),
    ] {
        let (verdict, _, _) = judged(claim, source);
        assert_eq!(verdict, Verdict::Refuted, "{claim}");
    }
}

const WARD_TABLE: &str = "Ward spending, 2020 and 2021.\n\n\
    Ward 0, 2020: $2.1 million.\n\n\
    Ward 0, 2021: $2.4 million.\n\n\
    Ward 7, 2020: $3 million.\n\n\
    Ward 7, 2021: $3.2 million.\n\n\
    Ward 9, 2020: $1.7 million.\n\n\
    Ward 9, 2021: $1.9 million.";

/// A table cell backs its own row only: a figure the table gives to another ward, where it
/// gives the claim's ward another value in that column, is a contradiction quoting the claim's
/// row; the ward's own figure is stated.
#[test]
fn a_figure_of_another_row_of_the_table_contradicts_the_claims_row() {
    use crate::model::Severity;
    let (verdict, severity, element) = judged("Ward 0 spent $3 million in 2020.", WARD_TABLE);
    assert_eq!(
        (verdict, severity, element),
        (
            crate::model::Verdict::Refuted,
            Some(Severity::High),
            Some(ClaimElement::Subject)
        )
    );
    for claim in [
        "Ward 7 spent $3 million in 2020.",
        "Ward 0 spent $2.1 million in 2020.",
        "In 2021, Ward 9 spent $1.9 million.",
    ] {
        let (verdict, _, element) = judged(claim, WARD_TABLE);
        assert_ne!(
            verdict,
            crate::model::Verdict::Refuted,
            "{claim}: {element:?}"
        );
        assert_ne!(element, Some(ClaimElement::Subject), "{claim}");
    }
}

/// A claim whose direction word goes against its own figures ("rose … from 214 to 171", "402,
/// up from 455") is wrong on its face where the source gives both figures: the direction is
/// refuted, whichever way the claim orders the two. The same figures said the right way, ranks,
/// and a sentence with two comparisons are left alone.
#[test]
fn a_direction_against_the_claims_own_figures_is_refuted() {
    let source = "The force employed 171 PCSOs in March 2025, compared with 214 a year earlier. \
        It let 402 homes in 2024-25 (455 in 2023-24). Spending is £2.36m, against £1.87m \
        last year. Turnout was 38.9% in 2021 and 41.2% in 2025. The club was 10th in 2024 \
        and 3rd in 2025. Sales were 12 in 2025, 8 in 2019 and 15 in 2024. \
        Newer homes reached 3.1; the rest were 2.9 and 3.0. Calls answered: 1,203,400 and \
        1,247,900.";
    for wrong in [
        "PCSO numbers rose by a fifth, from 214 to 171.",
        "The council let 402 homes in 2024-25, up from 455 the year before.",
        "Lettings increased to 402 from 455.",
        "Spending will be £2.36m, down from £1.87m last year.",
        "Turnout climbed from 41.2% to 38.9%.",
    ] {
        let got = findings(wrong, source);
        assert!(
            got.iter()
                .any(|f| f.element == ClaimElement::Direction && f.contradiction),
            "{wrong}: {got:?}"
        );
    }
    for right in [
        "PCSO numbers fell by a fifth, from 214 to 171.",
        "The council let 402 homes in 2024-25, down from 455 the year before.",
        "Lettings fell to 402 from 455.",
        "Spending will be £2.36m, up from £1.87m last year.",
        "Turnout climbed from 38.9% to 41.2%.",
        "The club rose from 10th to 3rd.",
        "Sales were 12, up from 8 in 2019 but down from 15 last year.",
        "Newer homes managed 3.1, and those in between fell in a narrow band from 2.9 to 3.0.",
        "The service answered 1.25 million 999 calls, up from 1.2 million.",
    ] {
        let got = findings(right, source);
        assert!(
            !got.iter().any(|f| f.element == ClaimElement::Direction),
            "{right}: {got:?}"
        );
    }
}

/// A table's signed change ("Drug offences, Change: +8.7%") says which way the row went: a
/// claim giving that row the change the other way is refuted; the row's own way, or another
/// row's change, is not.
#[test]
fn a_tables_signed_change_settles_the_direction() {
    let source = "Offences by type\n\n\
        Drug offences, 2023-24: 2,930.\n\n\
        Drug offences, 2024-25: 3,184.\n\n\
        Drug offences, Change: +8.7%.\n\n\
        Violence against the person, 2023-24: 20,118.\n\n\
        Violence against the person, 2024-25: 19,514.\n\n\
        Violence against the person, Change: -3.0%.";
    for wrong in [
        "Drug offences fell by 8.7 per cent.",
        "Drug offences were down 8.7%.",
        "There was an 8.7% decrease in drug offences.",
        "Violence against the person rose by 3 per cent.",
    ] {
        let got = findings(wrong, source);
        assert!(
            got.iter()
                .any(|f| f.element == ClaimElement::Direction && f.contradiction),
            "{wrong}: {got:?}"
        );
    }
    for right in [
        "Drug offences rose by 8.7 per cent.",
        "Drug offences were up 8.7%.",
        "Violence against the person fell by 3 per cent.",
        "Violence against the person was down 3.0%.",
    ] {
        let got = findings(right, source);
        assert!(
            !got.iter().any(|f| f.element == ClaimElement::Direction),
            "{right}: {got:?}"
        );
    }
}

/// A statement whose only predicate is which way something went ("Online tutoring grows")
/// is not backed by a page that names its subject but says nothing of it going either way: the
/// words it shares with the page are the subject's, not what is said of it. A page that says it
/// grew backs it.
#[test]
fn a_direction_the_page_never_states_is_not_supported() {
    use crate::model::Verdict;
    let silent = "In 2023, online tutoring accounted for 28% of all spending on private \
        tutoring, the survey of 4,000 families found. Spending on in-person centres fell for \
        the second year in a row.";
    for claim in [
        "Online tutoring grows.",
        "Online tutoring is growing fast.",
        "Spending on online tutoring rose.",
        "Online tutoring increased its share of spending.",
    ] {
        let (verdict, _, _) = judged(claim, silent);
        assert_ne!(verdict, Verdict::Supported, "{claim}");
    }
    let grew = "Spending on online tutoring grew by 12% in 2023, the survey found.";
    for claim in [
        "Online tutoring grows.",
        "Spending on online tutoring rose.",
    ] {
        let (verdict, _, _) = judged(claim, grew);
        assert_eq!(verdict, Verdict::Supported, "{claim}");
    }
}
