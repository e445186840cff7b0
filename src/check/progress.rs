//! `factgate check`'s progress on stderr: a line when an article's claims are found, one per
//! source as its check finishes, one with the article's outcome, and a closing summary, so a long
//! check is never silent and a CI log shows where the time went. stdout keeps only the report.
//!
//! Colour (the outcome words, in red and green) only when stderr is a terminal and `NO_COLOR` is
//! not set; a CI log or a file gets plain text.

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use super::CheckProgress;
use crate::render::{one_line, serde_name};
use factgate_core::events::{ClaimResult, Outcome};
use factgate_core::extract::Extraction;
use factgate_core::model::Verdict;

/// How much is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// Nothing but errors (`-q`).
    Quiet,
    /// The closing summary only (`--no-progress`).
    Summary,
    /// Each article and each source (the default).
    Normal,
    /// Also each check's claim and why it got its verdict (`-v`).
    Verbose,
}

/// Writes progress lines to a writer (stderr in `factgate check`).
pub struct Progress<W: Write + Send> {
    out: Mutex<State<W>>,
    verbosity: Verbosity,
    colour: bool,
}

struct State<W> {
    writer: W,
    /// Position of the current article (1-based) and how many there are, when that is known
    /// (not for standard input, read as it arrives).
    index: usize,
    total: Option<usize>,
    /// Checks of the current article: done, and to do.
    done: usize,
    checks: usize,
    passed: usize,
    blocked: usize,
}

impl<W> State<W> {
    /// `[2/5]`, or `[2]` when the total is not known.
    fn position(&self) -> String {
        match self.total {
            Some(total) => format!("[{}/{total}]", self.index),
            None => format!("[{}]", self.index),
        }
    }
}

impl<W: Write + Send> Progress<W> {
    /// A progress display of `total` articles (`None`: not known in advance).
    pub fn new(writer: W, total: Option<usize>, verbosity: Verbosity, colour: bool) -> Self {
        Self {
            out: Mutex::new(State {
                writer,
                index: 0,
                total,
                done: 0,
                checks: 0,
                passed: 0,
                blocked: 0,
            }),
            verbosity,
            colour,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State<W>> {
        // A panic while writing a line leaves nothing half-updated that matters.
        self.out.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn shows(&self, level: Verbosity) -> bool {
        self.verbosity >= level
    }

    /// The next article starts.
    pub fn article_started(&self, name: &str) {
        let mut s = self.state();
        s.index += 1;
        s.done = 0;
        s.checks = 0;
        if self.shows(Verbosity::Normal) {
            let position = s.position();
            // Progress is best effort: a closed stderr must not stop the check.
            let name = one_line(name);
            let _ = writeln!(s.writer, "{position} {name}: extracting claims");
        }
    }

    /// The article was decided.
    pub fn article_finished(
        &self,
        name: &str,
        outcome: Outcome,
        reasons: &[String],
        took: Duration,
    ) {
        let mut s = self.state();
        match outcome {
            Outcome::Pass => s.passed += 1,
            Outcome::Block => s.blocked += 1,
        }
        if self.shows(Verbosity::Normal) {
            let word = self.outcome(outcome);
            let why = if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            };
            let position = s.position();
            let name = one_line(name);
            let _ = writeln!(
                s.writer,
                "{position} {name}: {word}{why} in {:.1}s",
                took.as_secs_f64()
            );
        }
    }

    /// A line for the reader (what a waiver matched), at the normal verbosity.
    pub fn note(&self, line: &str) {
        if self.shows(Verbosity::Normal) {
            let mut s = self.state();
            let _ = writeln!(s.writer, "      {}", one_line(line));
        }
    }

    /// An input that gave no article.
    pub fn input_error(&self, error: &dyn std::fmt::Display) {
        let mut s = self.state();
        let label = self.paint("error", Colour::Red);
        let error = one_line(&error.to_string());
        let _ = writeln!(s.writer, "factgate: {label}: {error}");
    }

    /// The closing line: how many passed, were blocked, or could not be read.
    pub fn summary(&self, errors: usize) {
        let mut s = self.state();
        if !self.shows(Verbosity::Summary) {
            return;
        }
        let (passed, blocked) = (s.passed, s.blocked);
        let checked = passed + blocked;
        let noun = if checked == 1 { "article" } else { "articles" };
        let mut line = format!("{checked} {noun} checked: {passed} passed, {blocked} blocked");
        if errors > 0 {
            line.push_str(&format!(", {errors} input error{}", plural(errors)));
        }
        let _ = writeln!(s.writer, "{line}");
    }

    fn outcome(&self, outcome: Outcome) -> String {
        match outcome {
            Outcome::Pass => self.paint("PASS", Colour::Green),
            Outcome::Block => self.paint("BLOCK", Colour::Red),
        }
    }

    fn paint(&self, text: &str, colour: Colour) -> String {
        if self.colour {
            let code = match colour {
                Colour::Red => "31",
                Colour::Green => "32",
                Colour::Yellow => "33",
            };
            format!("\x1b[1;{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// The writer, once the check is over (tests read what was written).
    pub fn into_inner(self) -> W {
        self.out
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .writer
    }
}

#[derive(Clone, Copy)]
enum Colour {
    Red,
    Green,
    Yellow,
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl<W: Write + Send> CheckProgress for Progress<W> {
    fn extracted(&self, _article_id: &str, extraction: &Extraction, checks: usize) {
        let mut s = self.state();
        s.checks = checks;
        if self.shows(Verbosity::Normal) {
            let claims = extraction.claims.len();
            let sources: std::collections::BTreeSet<&str> = extraction
                .claims
                .iter()
                .flat_map(|c| c.citations.iter().map(|c| c.url.as_str()))
                .collect();
            let _ = writeln!(
                s.writer,
                "      {claims} claim{}, {} source{}, {checks} check{} to run",
                plural(claims),
                sources.len(),
                plural(sources.len()),
                plural(checks)
            );
        }
    }

    fn checked(&self, _article_id: &str, result: &ClaimResult) {
        let mut s = self.state();
        s.done += 1;
        if !self.shows(Verbosity::Normal) {
            return;
        }
        let verdict = match result.verdict {
            Verdict::Supported => self.paint("supported", Colour::Green),
            Verdict::Refuted => self.paint("refuted", Colour::Red),
            Verdict::Unconfirmed => self.paint("unconfirmed", Colour::Yellow),
        };
        let (done, checks) = (s.done, s.checks);
        let _ = writeln!(
            s.writer,
            "      [{done}/{checks}] {} {verdict} ({})",
            one_line(&result.source_url),
            serde_name(&result.fetch_status)
        );
        if self.shows(Verbosity::Verbose) && !result.reason.is_empty() {
            let _ = writeln!(s.writer, "            {}", one_line(&result.reason));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_say_where_the_check_is_without_colour_off_a_terminal() {
        let progress = Progress::new(Vec::new(), Some(2), Verbosity::Normal, false);
        progress.article_started("a.md");
        progress.article_finished(
            "a.md",
            Outcome::Block,
            &["high_severity_issue".to_owned()],
            Duration::from_millis(1500),
        );
        progress.article_started("b.md");
        progress.article_finished("b.md", Outcome::Pass, &[], Duration::ZERO);
        progress.summary(1);
        let text = String::from_utf8(progress.into_inner()).unwrap();
        assert!(
            text.contains("[1/2] a.md: BLOCK (high_severity_issue) in 1.5s"),
            "{text}"
        );
        assert!(text.contains("[2/2] b.md: PASS in 0.0s"), "{text}");
        assert!(
            text.ends_with("2 articles checked: 1 passed, 1 blocked, 1 input error\n"),
            "{text}"
        );
        assert!(!text.contains('\x1b'), "{text}");
    }

    #[test]
    fn without_a_total_the_position_is_a_count() {
        // Standard input, read as it arrives: how many will come is not known.
        let progress = Progress::new(Vec::new(), None, Verbosity::Normal, false);
        progress.article_started("-:1");
        progress.article_finished("-:1", Outcome::Pass, &[], Duration::ZERO);
        let text = String::from_utf8(progress.into_inner()).unwrap();
        assert!(text.contains("[1] -:1: PASS in 0.0s"), "{text}");
    }

    #[test]
    fn quiet_writes_errors_only_and_colour_is_ansi() {
        let progress = Progress::new(Vec::new(), Some(1), Verbosity::Quiet, true);
        progress.article_started("a.md");
        progress.article_finished("a.md", Outcome::Pass, &[], Duration::ZERO);
        progress.input_error(&"cannot read x.md");
        progress.summary(1);
        let text = String::from_utf8(progress.into_inner()).unwrap();
        assert_eq!(text, "factgate: \x1b[1;31merror\x1b[0m: cannot read x.md\n");
    }
}
