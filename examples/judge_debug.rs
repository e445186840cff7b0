//! Shows how the judge reads one claim of a hand-written case against the pages it cites: the
//! claim as extracted, each page's text as the judge reads it, and the judgment with its reasons.
//! For finding out why a case is decided as it is.
//!
//! Usage: `cargo run --example judge_debug -- SET CASE-ID [CLAIM-TEXT-PART] [--text]`
//! (CASE-ID as `cases_eval` prints it: `<file>-<name>`; `--text` prints each page's text).

#[path = "../tests/support/cases.rs"]
mod cases;

use factgate_core::extract::extract_titled_within;
use factgate_core::judge::{JudgeSettings, Source, judge_source};
use factgate_core::text::webpage::html_to_text;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show_text = args.iter().any(|a| a == "--text");
    let args: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let (Some(set), Some(id)) = (args.first(), args.get(1)) else {
        anyhow::bail!("usage: judge_debug SET CASE-ID [CLAIM-TEXT-PART] [--text]");
    };
    let part = args.get(2).map(|s| s.to_lowercase());
    let all = cases::load_set(set)?;
    let case = all
        .iter()
        .find(|c| &c.id() == *id)
        .ok_or_else(|| anyhow::anyhow!("no case {id} in {set}"))?;
    let origin = "http://127.0.0.1:9";
    let body = case.body(origin);
    let extraction = extract_titled_within(
        &body,
        case.body_format(),
        case.title.as_deref(),
        &Default::default(),
    )?;
    let settings = JudgeSettings::default();
    for claim in &extraction.claims {
        if part
            .as_ref()
            .is_some_and(|p| !claim.text.to_lowercase().contains(p))
        {
            continue;
        }
        println!("\nCLAIM {:?} {:?}", claim.text, claim.location.block);
        println!(
            "  kinds {:?} figures {:?}",
            claim.kinds,
            claim
                .figures
                .iter()
                .map(|f| format!("{} = {} {:?}", f.text, f.value, f.unit))
                .collect::<Vec<_>>()
        );
        if let Some(p) = &claim.prejudgment {
            println!("  prejudgment {p:?}");
        }
        let base = format!("{}/", case.base(origin));
        for c in &claim.citations {
            // The source's path under the case's base URL ("council/news/budget").
            let path = c.url.strip_prefix(&base).unwrap_or("");
            let Some(html) = case.sources.get(path) else {
                println!("  cites {} (not served)", c.url);
                continue;
            };
            let page = html_to_text(html);
            if show_text {
                println!("  --- page text ---\n{}\n  ---", page.text);
            }
            let j = judge_source(
                claim,
                Source {
                    text: &page.text,
                    reviews: &page.claim_reviews,
                    furniture: &page.furniture,
                },
                &c.url,
                &settings,
            );
            println!(
                "  vs {path}: {:?} {:?} {:?} support {:.3} conf {:.3}\n    problem: {}\n    evidence: {}\n    reasons: {}",
                j.verdict,
                j.severity,
                j.issue,
                j.support,
                j.confidence(),
                j.problem.unwrap_or_default(),
                j.evidence.map(|e| e.quote).unwrap_or_default(),
                j.reasons.join(" | ")
            );
        }
    }
    Ok(())
}
