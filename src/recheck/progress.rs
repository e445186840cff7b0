//! A run's progress on standard error: a bar redrawn in place on a terminal, a plain line every
//! few seconds otherwise (a CI log, a file), nothing with `--no-progress`.
//!
//! ```text
//! [##########··········]  120/250 decided · 12.3/s · ETA 11s · 7 blocked
//! recheck 2026-11: 120/250 decided, 7 blocked, 12.3/s, ETA 11s
//! ```

use std::io::Write;
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressStyle {
    /// A bar redrawn in place: stderr is a terminal.
    Bar,
    /// A line now and then: stderr is a file or a pipe.
    Lines,
    /// Nothing.
    Off,
}

impl ProgressStyle {
    /// [`ProgressStyle::Bar`] on a terminal, else [`ProgressStyle::Lines`]; `Off` when asked.
    pub fn for_stderr(no_progress: bool) -> ProgressStyle {
        use std::io::IsTerminal;
        if no_progress {
            ProgressStyle::Off
        } else if std::io::stderr().is_terminal() {
            ProgressStyle::Bar
        } else {
            ProgressStyle::Lines
        }
    }
}

/// Where the run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    pub total: usize,
    pub decided: usize,
    pub blocked: usize,
}

/// Between two plain lines.
const LINE_EVERY: Duration = Duration::from_secs(5);
/// Between two redraws of the bar.
const BAR_EVERY: Duration = Duration::from_millis(200);
const BAR_WIDTH: usize = 20;

/// Draws the progress of run `run_id` to `out`.
pub struct ProgressDisplay<W: Write> {
    out: W,
    style: ProgressStyle,
    run_id: String,
    started: Instant,
    /// Decided when this instance started watching: a resumed run's rate counts only its own.
    decided_at_start: Option<usize>,
    last_drawn: Option<Instant>,
    last: Tally,
}

impl<W: Write> ProgressDisplay<W> {
    pub fn new(out: W, style: ProgressStyle, run_id: &str) -> Self {
        ProgressDisplay {
            out,
            style,
            run_id: run_id.to_owned(),
            started: Instant::now(),
            decided_at_start: None,
            last_drawn: None,
            last: Tally::default(),
        }
    }

    /// Takes the latest tally; draws when it is time.
    pub fn update(&mut self, tally: Tally) {
        if self.decided_at_start.is_none() {
            self.decided_at_start = Some(tally.decided);
            self.started = Instant::now();
        }
        let changed = tally != self.last;
        self.last = tally;
        let every = match self.style {
            ProgressStyle::Off => return,
            ProgressStyle::Bar => BAR_EVERY,
            ProgressStyle::Lines => LINE_EVERY,
        };
        let due = self.last_drawn.is_none_or(|at| at.elapsed() >= every);
        if due && (changed || self.style == ProgressStyle::Bar) {
            self.draw(false);
        }
    }

    /// Draws the last tally once more, for good (the bar ends its line).
    pub fn finish(&mut self) {
        if self.style != ProgressStyle::Off {
            self.draw(true);
        }
    }

    fn draw(&mut self, last: bool) {
        self.last_drawn = Some(Instant::now());
        let t = self.last;
        let (rate, eta) = self.rate_and_eta();
        let rate = rate.map_or_else(|| "-".to_owned(), |r| format!("{r:.1}/s"));
        let eta = eta.map_or_else(|| "-".to_owned(), format_duration);
        // Progress is a courtesy: a closed stderr does not stop the run.
        let _ = match self.style {
            ProgressStyle::Bar => {
                let filled = (t.decided * BAR_WIDTH)
                    .checked_div(t.total)
                    .unwrap_or(BAR_WIDTH)
                    .min(BAR_WIDTH);
                let bar = "#".repeat(filled) + &"·".repeat(BAR_WIDTH - filled);
                let end = if last { "\n" } else { "" };
                write!(
                    self.out,
                    "\r\x1b[2K[{bar}] {:>5}/{} decided · {rate} · ETA {eta} · {} blocked{end}",
                    t.decided, t.total, t.blocked
                )
            }
            ProgressStyle::Lines => writeln!(
                self.out,
                "recheck {}: {}/{} decided, {} blocked, {rate}, ETA {eta}",
                self.run_id, t.decided, t.total, t.blocked
            ),
            ProgressStyle::Off => Ok(()),
        };
        let _ = self.out.flush();
    }

    /// Articles decided per second since this instance started watching, and the time left at
    /// that rate.
    fn rate_and_eta(&self) -> (Option<f64>, Option<Duration>) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let done = self
            .last
            .decided
            .saturating_sub(self.decided_at_start.unwrap_or(0));
        if elapsed < 0.5 || done == 0 {
            return (None, None);
        }
        let rate = done as f64 / elapsed;
        let left = self.last.total.saturating_sub(self.last.decided) as f64;
        (Some(rate), Some(Duration::from_secs_f64(left / rate)))
    }
}

fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_where_the_run_stands() {
        let mut out = Vec::new();
        {
            let mut display = ProgressDisplay::new(&mut out, ProgressStyle::Lines, "r1");
            display.update(Tally {
                total: 10,
                decided: 0,
                blocked: 0,
            });
            display.update(Tally {
                total: 10,
                decided: 4,
                blocked: 1,
            });
            display.finish();
        }
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "recheck r1: 0/10 decided, 0 blocked, -, ETA -");
        assert!(
            lines
                .last()
                .unwrap()
                .starts_with("recheck r1: 4/10 decided, 1 blocked"),
            "{text}"
        );
        assert!(!text.contains('\r'), "no terminal control in a log");
    }

    #[test]
    fn the_bar_redraws_in_place_and_nothing_is_written_when_off() {
        let mut out = Vec::new();
        {
            let mut display = ProgressDisplay::new(&mut out, ProgressStyle::Bar, "r1");
            display.update(Tally {
                total: 4,
                decided: 2,
                blocked: 1,
            });
            display.finish();
        }
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("\r\x1b[2K[##########··········]"),
            "{text:?}"
        );
        assert!(text.ends_with("1 blocked\n"), "{text:?}");

        let mut out = Vec::new();
        let mut display = ProgressDisplay::new(&mut out, ProgressStyle::Off, "r1");
        display.update(Tally::default());
        display.finish();
        assert!(out.is_empty());
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_secs(42)), "42s");
        assert_eq!(format_duration(Duration::from_secs(125)), "2m05s");
        assert_eq!(format_duration(Duration::from_secs(3 * 3600 + 60)), "3h01m");
    }
}
