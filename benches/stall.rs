//! What one hostile draft costs the gate, step by step: the draft of issue 29 that stalled
//! `factgate run` (about 630 KB: six claims of about 5,000 figures each, every one citing a page
//! as full of figures) and smaller ones of the same shape.
//!
//! For each size it prints the time of:
//! - extraction without limits (`extract::extract_titled`), what the draft cost before the
//!   per-claim caps, and within the default limits (`extract_titled_within`, what `factgate run`
//!   and `factgate check` call), which refuses it (`limit_exceeded`, naming the key);
//! - indexing the cited page (`PageIndex::of`) and judging one claim against it
//!   (`judge::judge_page`): what each admitted claim would cost the verify role.
//!
//! `cargo bench --bench stall` runs the sizes of the reliability notes (docs/reliability.md);
//! `cargo bench --bench stall -- 1000` only claims of 1,000 figure pairs ("4.7% to $312": two
//! figures each). The cited page states the pairs of every claim, in sentences of
//! [`PAGE_SENTENCE`] pairs; `STALL_PAGE_CLAIMS=1` makes it state one claim's only, and
//! `STALL_PAGE_PAIRS=2000` that many pairs per claim (a page of a set size beside claims at the
//! caps). In test mode (`cargo test --benches`) it runs the smallest shape once, so it keeps
//! compiling and running.

use factgate_core::extract::{ExtractLimits, extract_titled, extract_titled_within};
use factgate_core::judge::{JudgeSettings, PageIndex, Source, judge_page};
use factgate_core::model::BodyFormat;
use std::time::{Duration, Instant};

/// Figures per claim measured by default: up to the draft that stalled the gate.
const FIGURES: &[usize] = &[100, 500, 1_000, 2_500, 5_000];
/// Claims in the draft, as in the report.
const CLAIMS: usize = 6;
/// Figure pairs per sentence of the cited page.
const PAGE_SENTENCE: usize = 5_000;

/// One claim sentence stating `n` figures, citing `url`.
fn claim(i: usize, n: usize, url: &str) -> String {
    let mut text = format!("In region {i} revenue rose");
    for k in 0..n {
        let sep = if k == 0 { " " } else { ", then " };
        text.push_str(&format!("{sep}{}.{}% to ${}", k % 97, k % 10, 3 * k + i));
    }
    format!("{text} million, according to [the report]({url}).")
}

/// The draft of [`CLAIMS`] claims of `n` figures each, one paragraph per claim.
pub fn stalling_body(n: usize, url: &str) -> String {
    (0..CLAIMS)
        .map(|i| claim(i, n, url))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The cited page: the claims' own figures, as a report would state them, in sentences of [`PAGE_SENTENCE`]
/// (every figure of a claim is then found on the page, the costliest case for the judge).
pub fn figure_page(n: usize) -> String {
    let mut page = String::new();
    let mut k_all = 0;
    let claims: usize = std::env::var("STALL_PAGE_CLAIMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CLAIMS);
    let per_claim: usize = std::env::var("STALL_PAGE_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n);
    for i in 0..claims {
        for k in 0..per_claim {
            if k_all % PAGE_SENTENCE == 0 {
                page.push_str("\nIn the region revenue rose");
            }
            page.push_str(&format!(
                " {}.{}% to ${} million,",
                k % 97,
                k % 10,
                3 * k + i
            ));
            if k_all % PAGE_SENTENCE == PAGE_SENTENCE - 1 {
                page.push_str(" in the year.");
            }
            k_all += 1;
        }
    }
    page.push_str(" in the year.\n");
    page
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let out = f();
    (out, started.elapsed())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let chosen: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes: Vec<usize> = if test_mode {
        vec![20]
    } else if chosen.is_empty() {
        FIGURES.to_vec()
    } else {
        chosen
    };
    let url = "https://example.com/report";
    let settings = JudgeSettings::default();
    println!(
        "{:>8} {:>9} {:>14} {:>14} {:>12} {:>16}",
        "figures", "draft_kb", "extract_s", "within_s", "index_s", "judge_claim_s"
    );
    for n in sizes {
        let body = stalling_body(n, url);
        let (unlimited, extract_time) =
            time(|| extract_titled(&body, BodyFormat::Markdown, Some("Regional revenue")));
        let (limited, within_time) = time(|| {
            extract_titled_within(
                &body,
                BodyFormat::Markdown,
                Some("Regional revenue"),
                &ExtractLimits::default(),
            )
        });
        let extraction = unlimited.expect("the draft extracts without limits");
        let claim = extraction
            .claims
            .iter()
            .max_by_key(|c| c.figures.len())
            .expect("a claim");
        let page = figure_page(n);
        println!("         page: {} KiB of text", page.len() / 1024);
        let (index, index_time) = time(|| PageIndex::of(Source::from(page.as_str())));
        let (judgment, judge_time) = time(|| judge_page(claim, &index, url, &settings));
        println!(
            "{:>8} {:>9.0} {:>14.3} {:>14.3} {:>12.3} {:>16.3}",
            claim.figures.len(),
            body.len() as f64 / 1024.0,
            extract_time.as_secs_f64(),
            within_time.as_secs_f64(),
            index_time.as_secs_f64(),
            judge_time.as_secs_f64(),
        );
        match limited {
            Ok(_) => println!("         within the default limits: admitted"),
            Err(err) => println!("         within the default limits: refused: {err}"),
        }
        std::hint::black_box(judgment);
    }
}
