//! Measures decisions on hand-written article/source cases (`tests/fixtures/claims/<set>/`), each
//! checked as `factgate check` checks it, with its sources served on 127.0.0.1.
//!
//! Usage: `cargo run --release --example cases_eval -- SET [SET…] [--verbose [--all-issues]]
//! [--only KIND] [--strictness S]` where SET is a folder under `tests/fixtures/claims/`
//! (`tuning`, `heldout`, `blind-dev`, `blind-test`) or `tests/fixtures/news/` (the news
//! stories, one folder per writer: `w2`, `w4`…), or a path to one.
//!
//! Prints per kind of case: clean articles that pass, and wrong articles blocked *because of
//! their wrong statement* (an issue of medium or high severity about the claim the case names)
//! whose clean twin, when the case names one, passes; with several sets, the same per set.
//! `--verbose` lists every case that is not decided as expected, with the issues that block it
//! (`--all-issues`: every issue), `--only KIND` those of one kind.

#[path = "../tests/support/cases.rs"]
mod cases;

use cases::{Case, Expect, load_set, serve};
use factgate::check::{CheckOptions, Document, NoProgress, check_article_with_progress};
use factgate::config::Config;
use factgate::verify::Verifier;
use factgate::verify::fetch::Fetcher;
use factgate_core::decide::Strictness;
use factgate_core::events::Outcome;
use factgate_core::model::Severity;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::time::Duration;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// What one case came to.
struct Outcome1 {
    blocked: bool,
    /// A medium or high issue concerns the claim the case names.
    about_claim: bool,
    /// Some issue, of any severity, concerns the claim the case names (listed for review).
    listed: bool,
    /// Each issue in words, and whether it is of medium or high severity (what blocks).
    issues: Vec<(String, bool)>,
}

/// What `factgate check` decided of `case`: blocked, and whether a finding of medium or higher
/// names the claim the case is about (or any finding lists it).
fn outcome_of(case: &Case, decision: &factgate_core::events::Decision) -> Outcome1 {
    let report = &decision.report;
    let about = case.claim_contains.as_deref().map(str::to_lowercase);
    let about_claim = about.as_ref().is_some_and(|about| {
        report
            .issues
            .iter()
            .any(|i| i.severity >= Severity::Medium && i.claim.to_lowercase().contains(about))
    });
    let listed = about.as_ref().is_some_and(|about| {
        report
            .issues
            .iter()
            .any(|i| i.claim.to_lowercase().contains(about))
    });
    let issues = report
        .issues
        .iter()
        .map(|i| {
            let line = format!(
                "[{:?} {:?} {:?}] {} | {} | {}",
                i.severity, i.issue_type, i.element, i.claim, i.problem, i.evidence
            );
            (line, i.severity >= Severity::Medium)
        })
        .collect();
    Outcome1 {
        blocked: decision.outcome == Outcome::Block,
        about_claim,
        listed,
        issues,
    }
}

/// The sets named on the command line: its arguments that are neither options nor their values.
fn sets_named() -> Vec<String> {
    let mut sets: Vec<String> = Vec::new();
    let mut skip = false;
    for a in std::env::args().skip(1) {
        if skip {
            skip = false;
            continue;
        }
        if a == "--strictness" || a == "--medium-below" || a == "--only" {
            skip = true;
            continue;
        }
        if !a.starts_with("--") {
            sets.push(a);
        }
    }
    sets
}

fn main() -> anyhow::Result<()> {
    let verbose = std::env::args().any(|a| a == "--verbose");
    // `--verbose` lists the issues that block (medium and high); `--all-issues` the low too.
    let all_issues = std::env::args().any(|a| a == "--all-issues");
    // `--only KIND` lists the misses of one kind of case ("clean", "figure", …).
    let only = arg("--only");
    let strictness: Strictness = arg("--strictness")
        .map_or(Ok(Strictness::Normal), |s| s.parse())
        .map_err(|e: String| anyhow::anyhow!(e))?;
    let sets = sets_named();
    anyhow::ensure!(!sets.is_empty(), "usage: cases_eval SET [SET…] [--verbose]");
    let mut all: Vec<Case> = Vec::new();
    for set in &sets {
        all.extend(load_set(set)?);
    }
    // `--medium-below P` sets `judge.unconfirmed_medium_below`, to see what a threshold does.
    let mut toml = String::from("[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n");
    if let Some(p) = arg("--medium-below") {
        toml.push_str(&format!("[judge]\nunconfirmed_medium_below = {p}\n"));
    }
    let config = Config::from_toml_str(&toml)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let outcomes: Vec<Outcome1> = runtime.block_on(async {
        let origin = serve(&all).await?;
        let verifier = Verifier::new(
            Fetcher::new(config.fetch_settings())?,
            config.judge_settings(),
            None,
        );
        let options = CheckOptions {
            strictness,
            deadline: Duration::from_secs(60),
            concurrency: 8,
            limits: config.extract.limits(),
        };
        let runs = all.iter().map(|case| {
            let (verifier, options, origin) = (&verifier, &options, &origin);
            async move {
                let body = case.body(origin);
                let checked = check_article_with_progress(
                    &case.id(),
                    1,
                    Document {
                        body: &body,
                        format: case.body_format(),
                        title: case.title.as_deref(),
                    },
                    verifier,
                    options,
                    &NoProgress,
                )
                .await;
                outcome_of(case, &checked.decision)
            }
        });
        let out: Vec<Outcome1> = futures::stream::iter(runs).buffered(8).collect().await;
        anyhow::Ok(out)
    })?;

    let passed: BTreeMap<(String, String), bool> = all
        .iter()
        .zip(&outcomes)
        .map(|(c, o)| ((c.set.clone(), c.id()), !o.blocked))
        .collect();
    // kind -> (as expected, all)
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut wrong_blocked_any = 0;
    let mut misses = Vec::new();
    // set -> (clean passing, clean, wrong caught, wrong)
    let mut by_set: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    for (case, o) in all.iter().zip(&outcomes) {
        let ok = match case.expect {
            Expect::Pass => !o.blocked,
            Expect::Review => !o.blocked && o.listed,
            Expect::Block => {
                wrong_blocked_any += usize::from(o.blocked);
                let twin_passes = case
                    .twin_id()
                    .is_none_or(|t| passed.get(&(case.set.clone(), t)).copied() == Some(true));
                o.blocked && o.about_claim && twin_passes
            }
        };
        let entry = by_kind.entry(case.kind_label()).or_default();
        entry.0 += usize::from(ok);
        entry.1 += 1;
        let set = by_set.entry(case.set.clone()).or_default();
        if case.expect == Expect::Block {
            set.2 += usize::from(ok);
            set.3 += 1;
        } else {
            set.0 += usize::from(ok);
            set.1 += 1;
        }
        if !ok {
            misses.push((case, o));
        }
    }
    println!("sets: {}; strictness {strictness:?}", sets.join(", "));
    println!("kind            as expected");
    let (mut clean_ok, mut clean_all, mut wrong_ok, mut wrong_all) = (0, 0, 0, 0);
    for (kind, (ok, n)) in &by_kind {
        println!(
            "{kind:14}  {ok:3}/{n:<3}  {:5.1}%",
            100.0 * *ok as f64 / *n as f64
        );
        if kind == "clean" {
            clean_ok += ok;
            clean_all += n;
        } else {
            wrong_ok += ok;
            wrong_all += n;
        }
    }
    println!(
        "clean articles that pass: {clean_ok}/{clean_all}; wrong articles blocked because of their wrong statement (twin passing): {wrong_ok}/{wrong_all}; wrong articles blocked at all: {wrong_blocked_any}/{wrong_all}"
    );
    if by_set.len() > 1 {
        for (set, (cp, c, wc, w)) in &by_set {
            println!("  {set}: clean {cp}/{c}, wrong caught {wc}/{w}");
        }
    }
    if verbose {
        for (case, o) in misses {
            if only.as_ref().is_some_and(|k| *k != case.kind_label()) {
                continue;
            }
            println!(
                "\n{} [{}] expected {:?}, {}:",
                case.id(),
                case.kind_label(),
                case.expect,
                if o.blocked { "blocked" } else { "passed" }
            );
            if let Some(about) = &case.claim_contains {
                println!("    about: {about}");
            }
            for (i, blocks) in &o.issues {
                if *blocks || all_issues {
                    println!("    {i}");
                }
            }
        }
    }
    Ok(())
}
