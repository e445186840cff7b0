//! `factgate check`'s batch: every input read as it is checked, each article checked and
//! reported, and the run's exit status. The command line gives a [`Batch`]; [`run`] does the rest
//! in named steps.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use factgate_core::decide::{self, Strictness};
use factgate_core::events::{self, Decision, DecisionReason, Outcome};
use factgate_core::extract::{self, Extraction};
use factgate_core::model::BodyFormat;

use super::progress::{Progress, Verbosity};
use super::{CheckOptions, Document, check_article_with_progress};
use crate::cli::{EXIT_BLOCK, EXIT_ERROR};
use crate::config::Config;
use crate::inputs::{self, Article, Content};
use crate::render::{self, CheckedArticle, Format};
use crate::verify::Verifier;
use crate::verify::fetch::Fetcher;
use crate::verify::llm::LlmJudge;

/// Checks run at once by `factgate check`; the fetcher's per-host limits apply within this.
pub const CHECK_CONCURRENCY: usize = 16;

/// What `factgate check` was asked to do.
#[derive(Debug, Clone)]
pub struct Batch {
    /// Files, directories, glob patterns, or `-` for standard input.
    pub inputs: Vec<String>,
    /// The body format of inputs that are not draft events; detected when absent.
    pub input_format: Option<BodyFormat>,
    /// The report's format.
    pub format: Format,
    /// The name standard input's article goes by.
    pub stdin_name: Option<String>,
    /// Where the report goes; standard output when absent.
    pub output: Option<PathBuf>,
    /// The configuration file.
    pub config: Option<PathBuf>,
    /// Overrides `policy.strictness`.
    pub strictness: Option<Strictness>,
    /// An earlier report (`--format json`) to say what changed since.
    pub previous: Option<PathBuf>,
    /// A waivers file: findings the newsroom accepts, listed as waived and no longer blocking.
    pub waivers: Option<PathBuf>,
    /// How much goes to standard error.
    pub verbosity: Verbosity,
}

/// Runs the batch: 0 when every article passes, 1 ([`EXIT_BLOCK`]) when any is blocked, 2
/// ([`EXIT_ERROR`]) when an input could not be read (the others are still checked and
/// reported).
///
/// # Errors
/// A configuration that does not load, an earlier report that does not read, a report that
/// cannot be written, or several HTML pages with nowhere to go.
pub fn run(batch: &Batch) -> anyhow::Result<ExitCode> {
    let config = load_config(batch)?;
    // Logs go to stderr, so stdout stays the report.
    let _telemetry = crate::telemetry::init(&config).context("setting up logs and traces")?;
    let previous = read_previous(batch.previous.as_deref())?;
    // Read as they are checked: a large export, or a pipe from kcat, is never held whole.
    let max_body_bytes = config.extract.max_body_bytes;
    let total = count_inputs(batch, max_body_bytes);
    let mut stdin = std::io::stdin().lock();
    let mut articles = inputs::read_named(
        &batch.inputs,
        batch.input_format,
        &mut stdin,
        batch.stdin_name.as_deref(),
        max_body_bytes,
    )
    .peekable();
    // Several HTML pages need a place to go (refused before checking anything), and only a
    // lone article may be compared with a lone decision of another name. From standard input,
    // whether a second comes is read ahead only when that matters.
    let mut first = None;
    let several = match total {
        Some(total) => total > 1,
        None if (batch.format == Format::Html && batch.output.is_none())
            || !previous.is_empty() =>
        {
            first = articles.next();
            articles.peek().is_some()
        }
        None => true,
    };
    if batch.format == Format::Html && several && batch.output.is_none() {
        anyhow::bail!(
            "--format html with several articles writes an index and one page per article: \
             give --output FILE (the pages go in a folder beside it)"
        );
    }
    let progress = Progress::new(
        std::io::stderr(),
        total,
        batch.verbosity,
        crate::telemetry::stderr_wants_colour(),
    );
    let mut sink = open_sink(batch.output.as_deref())?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let verifier = build_verifier(&runtime, &config)?;
    let options = CheckOptions {
        strictness: batch.strictness.unwrap_or(config.policy.strictness),
        deadline: config.join.deadline(),
        concurrency: CHECK_CONCURRENCY,
        limits: config.extract.limits(),
    };
    let waivers = match &batch.waivers {
        Some(path) => crate::waivers::WaiversFile::read(path)?,
        None => crate::waivers::WaiversFile::default(),
    };
    let checker = Checker {
        waivers: &waivers,
        runtime: &runtime,
        verifier: &verifier,
        options: &options,
        progress: &progress,
        previous: &previous,
        lone: !several,
    };
    // Kept for the reports written at the end; a report written as it goes keeps none.
    let mut done: Vec<Done> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut blocked = false;
    for article in first.into_iter().chain(articles) {
        let article = match article {
            Ok(article) => article,
            Err(err) => {
                progress.input_error(&err);
                errors.push(err.to_string());
                continue;
            }
        };
        let finished = checker.check(article);
        blocked |= finished.decision.outcome == Outcome::Block;
        if batch.format.streams() {
            // Written as each article is decided, so `kcat … | factgate check -` answers as it
            // reads; a closed pipe ends the run.
            write_report(&mut sink, &render::render(batch.format, &[finished.view()]))?;
        } else {
            done.push(finished);
        }
    }
    if !batch.format.streams() {
        let report = final_report(batch, &done, &errors)?;
        write_report(&mut sink, &report)?;
    }
    progress.summary(errors.len());
    Ok(exit_code(&errors, blocked))
}

/// The configuration, with logs down to errors under `--quiet`: the warnings of a check (a
/// source that failed) are in its report.
fn load_config(batch: &Batch) -> anyhow::Result<Config> {
    let mut config = Config::load(batch.config.as_deref()).context("loading the configuration")?;
    if batch.verbosity == Verbosity::Quiet {
        config.log.level = "error".to_owned();
    }
    Ok(config)
}

/// The most an earlier report given to `--previous` may hold: the JSON decisions of tens of
/// thousands of articles; `--previous /dev/zero` fails at once.
pub const MAX_PREVIOUS_BYTES: u64 = 256 << 20;

/// The decisions of an earlier report, none without one.
fn read_previous(path: Option<&Path>) -> anyhow::Result<Vec<Decision>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = crate::config::load::read_text_capped(path, MAX_PREVIOUS_BYTES, "a previous report")
        .with_context(|| format!("reading {}", path.display()))?;
    decide::revisions::parse_decisions(&text).with_context(|| format!("reading {}", path.display()))
}

/// How many articles there are, for the progress lines: counted in a first pass over the files,
/// which holds none of them; unknown when standard input is one, as it can be read only once.
fn count_inputs(batch: &Batch, max_body_bytes: u64) -> Option<usize> {
    (!batch.inputs.iter().any(|i| i == "-")).then(|| {
        inputs::read(
            &batch.inputs,
            batch.input_format,
            &mut std::io::empty(),
            max_body_bytes,
        )
        .filter(Result::is_ok)
        .count()
    })
}

/// Where the report goes: the `--output` file, or standard output.
fn open_sink(output: Option<&Path>) -> anyhow::Result<Box<dyn Write>> {
    Ok(match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    })
}

/// The verifier of every check: the fetcher, the judge, and the LLM quorum when configured.
fn build_verifier(runtime: &tokio::runtime::Runtime, config: &Config) -> anyhow::Result<Verifier> {
    runtime.block_on(async {
        let fetcher = Fetcher::new(config.fetch_settings()).context("building the fetcher")?;
        let llm = match config.llm_settings() {
            Some(settings) => Some(LlmJudge::new(settings).context("building the LLM judge")?),
            None => None,
        };
        anyhow::Ok(
            Verifier::new(fetcher, config.judge_settings(), llm)
                .with_draft_budget(config.judge.max_draft_judge()),
        )
    })
}

/// Writes (part of) the report and flushes it.
fn write_report(sink: &mut dyn Write, report: &str) -> anyhow::Result<()> {
    sink.write_all(report.as_bytes())
        .and_then(|()| sink.flush())
        .context("writing the report")
}

/// The report of a format written once at the end: every article's, and the inputs that could
/// not be read; for HTML with several articles, the index, their pages written beside it.
fn final_report(batch: &Batch, done: &[Done], errors: &[String]) -> anyhow::Result<String> {
    let views: Vec<CheckedArticle<'_>> = done.iter().map(Done::view).collect();
    Ok(match (batch.format, batch.output.as_deref()) {
        (Format::Html, Some(index)) if views.len() > 1 => write_html_pages(index, &views, errors)?,
        _ => render::render_with_unreadable(batch.format, &views, errors),
    })
}

/// 2 when an input could not be read, else 1 when an article is blocked, else 0.
fn exit_code(errors: &[String], blocked: bool) -> ExitCode {
    if !errors.is_empty() {
        ExitCode::from(EXIT_ERROR)
    } else if blocked {
        ExitCode::from(EXIT_BLOCK)
    } else {
        ExitCode::SUCCESS
    }
}

/// What checking one article needs, the same for every article of the batch.
struct Checker<'a> {
    waivers: &'a crate::waivers::WaiversFile,
    runtime: &'a tokio::runtime::Runtime,
    verifier: &'a Verifier,
    options: &'a CheckOptions,
    progress: &'a Progress<std::io::Stderr>,
    previous: &'a [Decision],
    /// Whether the batch is one article, which may then be compared with a lone earlier
    /// decision of another name.
    lone: bool,
}

impl Checker<'_> {
    /// The decision with the findings waived in the draft (`<!-- factgate-waive TYPE: reason
    /// -->`) or in the waivers file moved to its waived list; a waiver that names nothing is
    /// logged and ignored.
    fn waive(
        &self,
        decision: Decision,
        extraction: &extract::Extraction,
        body: &str,
        format: factgate_core::model::BodyFormat,
        name: &str,
        article_id: &str,
    ) -> Decision {
        let (inline, unknown) = crate::waivers::inline_waivers(body, format);
        let (waived, unmatched) =
            crate::waivers::resolve(extraction, &inline, self.waivers, name, article_id);
        for note in unknown
            .iter()
            .map(|c| format!("the comment <!-- {c} --> names no finding type and reason"))
        {
            crate::internal_events::waiver_ignored(name, &note);
        }
        for note in &unmatched {
            crate::internal_events::waiver_ignored(name, note);
        }
        if waived.is_empty() {
            return decision;
        }
        let (refs, origins): (Vec<_>, Vec<_>) = waived
            .into_iter()
            .map(|(finding, waiver, origin)| ((finding, waiver), origin))
            .unzip();
        let (decision, unused) =
            decide::waive::waive_findings(&decision, &refs, self.options.strictness);
        // How many findings each waiver matched, said once per waiver.
        let mut matched: Vec<(crate::waivers::WaiverOrigin, usize)> = Vec::new();
        for (i, origin) in origins.iter().enumerate() {
            let hit = usize::from(!unused.contains(&i));
            match matched.iter_mut().find(|(o, _)| o == origin) {
                Some((_, count)) => *count += hit,
                None => matched.push((*origin, hit)),
            }
        }
        for (origin, count) in matched {
            let what = match origin {
                crate::waivers::WaiverOrigin::Inline(i) => {
                    format!("inline waiver {} ({})", i + 1, inline[i].finding.as_str())
                }
                crate::waivers::WaiverOrigin::File(i) => {
                    let w = &self.waivers.waivers[i];
                    format!(
                        "waiver {} of the waivers file ({}, claim {:?})",
                        i + 1,
                        w.finding.as_str(),
                        w.claim
                    )
                }
            };
            self.progress.note(&format!(
                "{name}: {what} waived {count} finding{}",
                if count == 1 { "" } else { "s" }
            ));
        }
        decision
    }

    /// Checks `article` (or blocks an unreadable draft without checking it), compared with the
    /// earlier report when there is one.
    fn check(&self, article: Article) -> Done {
        self.progress.article_started(&article.name);
        let started = std::time::Instant::now();
        let (mut decision, extraction) = match &article.content {
            Content::Body {
                article_id,
                revision,
                body,
                format,
                title,
            } => {
                let format = format.unwrap_or_else(|| extract::detect_format(body));
                let checked = self.runtime.block_on(check_article_with_progress(
                    article_id,
                    *revision,
                    Document {
                        body,
                        format,
                        title: title.as_deref(),
                    },
                    self.verifier,
                    self.options,
                    self.progress,
                ));
                let mut decision = checked.decision;
                if let Some(extraction) = &checked.extraction {
                    decision = self.waive(
                        decision,
                        extraction,
                        body,
                        format,
                        &article.name,
                        article_id,
                    );
                }
                (decision, checked.extraction)
            }
            Content::UnreadableDraft { id, error, bytes } => {
                let decision = decide::decide_not_checked(
                    &id.article_id,
                    id.revision,
                    &events::content_digest(bytes),
                    DecisionReason::DraftUnreadable,
                    error,
                    None,
                    chrono::Utc::now(),
                );
                (decision, None)
            }
        };
        if !self.previous.is_empty() {
            decide::revisions::annotate_from(&mut decision, self.previous, self.lone);
        }
        let seconds = started.elapsed().as_secs_f64();
        self.progress.article_finished(
            &article.name,
            decision.outcome,
            &render::reason_names(&decision.reasons),
            started.elapsed(),
        );
        Done {
            article,
            decision,
            extraction,
            seconds,
        }
    }
}

/// One article's outcome, kept for the reports written at the end.
struct Done {
    article: Article,
    decision: Decision,
    extraction: Option<Extraction>,
    seconds: f64,
}

impl Done {
    fn view(&self) -> CheckedArticle<'_> {
        let body = match &self.article.content {
            Content::Body { body, .. } => Some(body.as_str()),
            Content::UnreadableDraft { .. } => None,
        };
        CheckedArticle {
            name: &self.article.name,
            file: self.article.file.as_deref(),
            body,
            decision: &self.decision,
            extraction: self.extraction.as_ref(),
            seconds: self.seconds,
        }
    }
}

/// Writes one page per article in the folder named after `index` (`report.html` → `report/`;
/// an index without an extension, `report` → `report.pages/`, as the folder cannot take the
/// index's own name) and returns the index page, which links to them.
fn write_html_pages(
    index: &Path,
    views: &[CheckedArticle<'_>],
    unreadable: &[String],
) -> anyhow::Result<String> {
    let stem = index
        .file_stem()
        .map(|s| render::file_slug(&s.to_string_lossy()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "report".to_owned());
    let index_name = index
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = if index.extension().is_some() {
        stem
    } else {
        format!("{stem}.pages")
    };
    let folder = index.with_file_name(&stem);
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let names = render::html_page_names(views);
    // The index's name is the user's: escape what a relative link cannot hold as written.
    const LINK: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'`')
        .add(b'{')
        .add(b'}');
    let back = format!(
        "../{}",
        percent_encoding::utf8_percent_encode(&index_name, LINK)
    );
    let mut hrefs = Vec::with_capacity(views.len());
    for (view, name) in views.iter().zip(&names) {
        let path = folder.join(name);
        std::fs::write(&path, render::html::article_page(view, Some(&back)))
            .with_context(|| format!("writing {}", path.display()))?;
        hrefs.push(format!("{stem}/{name}"));
    }
    Ok(render::html::index_page(views, &hrefs, unreadable))
}
