//! What `factgate check` reads: the articles named on its command line.
//!
//! An input is a file, a directory (read recursively: its Markdown, HTML, text and JSON files,
//! hidden entries skipped, in name order), a glob pattern (`articles/**/*.md`, expanded here when
//! the shell did not), or `-` for standard input. Each file holds either
//!
//! - an article body (Markdown, HTML or plain text, detected or given by `--input-format`), or
//! - `factgate.draft.v1` draft events as JSON: one object, an array of them, or JSON Lines (one
//!   per line), as `kcat -C -t drafts.published -e` prints them. A `.json`, `.jsonl` or `.ndjson`
//!   file, or standard input, whose content opens with `{` or `[` is read as drafts; a draft
//!   names its own article id, revision and body format.
//!
//! Reading is bounded and streams ([`read`]): a body is read up to `extract.max_body_bytes` and
//! one byte more (a larger one is then blocked as `limit_exceeded`, as `factgate run` blocks it,
//! without reading the rest); JSON Lines are read a line at a time, each line up to
//! [`MAX_DRAFTS_INPUT_BYTES`], so an export of any length costs one draft's memory and a pipe
//! (`kcat … | factgate check -`) is answered as it is read; a JSON document of drafts (an array,
//! an object over several lines) is read whole, up to [`MAX_DRAFTS_INPUT_BYTES`] (an error
//! beyond it: split the export, or write it as JSON Lines). `factgate check /dev/zero` reads a
//! few megabytes and blocks.
//!
//! Nothing is skipped silently: a draft event that cannot be read is blocked
//! (`draft_unreadable`) when its article id can be recovered, as the stream processor does, and is
//! an input error otherwise; a path that does not exist or a pattern matching nothing is an
//! input error.

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use factgate_core::events::{DraftEvent, RecoveredId, recover_article_id};
use factgate_core::model::BodyFormat;

/// Extensions of the files read from a directory.
pub const DIRECTORY_EXTENSIONS: [&str; 9] = [
    "md", "markdown", "html", "htm", "txt", "text", "json", "jsonl", "ndjson",
];

/// Most bytes of one JSON document of draft events, and of one line of JSON Lines: a larger one
/// is an input error (JSON Lines of any length are read a line at a time).
pub const MAX_DRAFTS_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// One article to check.
#[derive(Debug, Clone)]
pub struct Article {
    /// What the user calls it: the path, `path:3` for line 3 of a JSON Lines file (`path#2` for
    /// the second draft of a JSON array), `-` for standard input.
    pub name: String,
    /// The file whose whole content is the body, for locating claims by line; `None` for a draft
    /// event (its body sits inside JSON) and for standard input.
    pub file: Option<PathBuf>,
    pub content: Content,
}

/// What an article holds.
#[derive(Debug, Clone)]
pub enum Content {
    /// A body to check.
    Body {
        article_id: String,
        revision: u64,
        body: String,
        /// `None`: detect from the content.
        format: Option<BodyFormat>,
        /// A draft event's own title; `None` for a file (whose body may title itself).
        title: Option<String>,
    },
    /// A draft event that could not be read, whose article id could be recovered: blocked.
    UnreadableDraft {
        id: RecoveredId,
        /// Why it could not be read.
        error: String,
        /// The event's bytes, for the decision's content digest.
        bytes: Vec<u8>,
    },
}

/// An input that gives no article to check.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The path cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A file of draft events larger than [`MAX_DRAFTS_INPUT_BYTES`].
    #[error("{path} holds more than {limit} bytes of draft events: split it into several files")]
    TooLarge { path: String, limit: u64 },
    /// A glob pattern is malformed.
    #[error("invalid pattern {pattern}: {reason}")]
    Pattern { pattern: String, reason: String },
    /// A pattern or a directory gives no file to check.
    #[error("{input}: no file to check ({why})")]
    Nothing { input: String, why: &'static str },
    /// A draft event that cannot be read, nor its article id recovered.
    #[error("{name}: not a readable draft event: {reason}")]
    Draft { name: String, reason: String },
}

/// Reads every input, in order: articles to check, and the inputs that gave none. `stdin` is read
/// when an input is `-`; `format` is `--input-format`, for bodies only; `max_body_bytes` is
/// `extract.max_body_bytes`. Holds every article: [`read`] gives them one at a time.
pub fn collect(
    inputs: &[String],
    format: Option<BodyFormat>,
    stdin: &mut dyn Read,
    max_body_bytes: u64,
) -> (Vec<Article>, Vec<InputError>) {
    let mut articles = Vec::new();
    let mut errors = Vec::new();
    for item in read(inputs, format, stdin, max_body_bytes) {
        match item {
            Ok(article) => articles.push(article),
            Err(err) => errors.push(err),
        }
    }
    (articles, errors)
}

/// The articles of `inputs`, in order, as they are read: an input that gives none is an
/// [`InputError`] in its place. JSON Lines (a file or standard input) are read a line at a time,
/// so a stream of drafts (`kcat … | factgate check -`) is checked as it arrives and a large
/// export costs one draft's memory, not the file's. Arguments as for [`collect`].
pub fn read<'a>(
    inputs: &[String],
    format: Option<BodyFormat>,
    stdin: &'a mut dyn Read,
    max_body_bytes: u64,
) -> Articles<'a> {
    read_named(inputs, format, stdin, None, max_body_bytes)
}

/// [`read`], with standard input's content given a name (`--stdin-name`): the article read from
/// it, or the draft events in it (`name:3`, `name#2`), are called so, and a body read from it is
/// located by line and column as a file of that name would be. Without a name it is `-`.
pub fn read_named<'a>(
    inputs: &[String],
    format: Option<BodyFormat>,
    stdin: &'a mut dyn Read,
    stdin_name: Option<&str>,
    max_body_bytes: u64,
) -> Articles<'a> {
    Articles {
        inputs: inputs.iter().cloned().collect(),
        files: VecDeque::new(),
        ready: VecDeque::new(),
        lines: None,
        stdin: Some(stdin),
        stdin_name: stdin_name.map(str::to_owned),
        format,
        max_body_bytes,
    }
}

/// [`collect`], with standard input's content given a name, as [`read_named`] gives it.
pub fn collect_named(
    inputs: &[String],
    format: Option<BodyFormat>,
    stdin: &mut dyn Read,
    stdin_name: Option<&str>,
    max_body_bytes: u64,
) -> (Vec<Article>, Vec<InputError>) {
    let mut articles = Vec::new();
    let mut errors = Vec::new();
    for item in read_named(inputs, format, stdin, stdin_name, max_body_bytes) {
        match item {
            Ok(article) => articles.push(article),
            Err(err) => errors.push(err),
        }
    }
    (articles, errors)
}

/// The articles of the inputs, read as they are asked for (see [`read`]).
pub struct Articles<'a> {
    /// Inputs not yet opened.
    inputs: VecDeque<String>,
    /// Files of the current input (a directory's, a pattern's) not yet opened.
    files: VecDeque<PathBuf>,
    /// Articles and errors read from the current file and not yet given.
    ready: VecDeque<Result<Article, InputError>>,
    /// The JSON Lines file being read, when one is.
    lines: Option<DraftLines<'a>>,
    /// Standard input, until an input `-` reads it.
    stdin: Option<&'a mut dyn Read>,
    /// What standard input's content is called (`--stdin-name`), when given.
    stdin_name: Option<String>,
    format: Option<BodyFormat>,
    max_body_bytes: u64,
}

impl<'a> Iterator for Articles<'a> {
    type Item = Result<Article, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            if let Some(lines) = &mut self.lines {
                match lines.next() {
                    Some(item) => return Some(item),
                    None => {
                        self.lines = None;
                        continue;
                    }
                }
            }
            if let Some(file) = self.files.pop_front() {
                self.open_file(&file);
                continue;
            }
            let input = self.inputs.pop_front()?;
            if input == "-" {
                // Read once: a second `-` finds it at its end, as a read of a pipe would.
                let reader: Box<dyn BufRead + 'a> = match self.stdin.take() {
                    Some(stdin) => Box::new(std::io::BufReader::new(stdin)),
                    None => Box::new(std::io::empty()),
                };
                let name = self.stdin_name.clone();
                let path = name.as_deref().map(Path::new);
                self.open(
                    name.clone().unwrap_or_else(|| "-".to_owned()),
                    path,
                    reader,
                    true,
                );
                continue;
            }
            match files_of(&input) {
                Ok(files) => self.files.extend(files),
                Err(err) => return Some(Err(err)),
            }
        }
    }
}

impl<'a> Articles<'a> {
    fn open_file(&mut self, path: &Path) {
        let name = path.display().to_string();
        let may_hold_drafts = matches!(
            extension(path).as_deref(),
            Some("json" | "jsonl" | "ndjson") | None
        );
        match std::fs::File::open(path) {
            Ok(file) => self.open(
                name,
                Some(path),
                Box::new(std::io::BufReader::new(file)),
                may_hold_drafts,
            ),
            Err(source) => self
                .ready
                .push_back(Err(InputError::Read { path: name, source })),
        }
    }

    /// Starts reading one file (or standard input): a body, a JSON document of drafts, or JSON
    /// Lines, which are then read a line at a time.
    fn open(
        &mut self,
        name: String,
        path: Option<&Path>,
        mut reader: Box<dyn BufRead + 'a>,
        may_hold_drafts: bool,
    ) {
        let fail = |err: ReadError, name: &str| Err(err.into_input_error(name));
        // The leading blank space, kept: a body begins with it.
        let mut leading = Vec::new();
        let opening = match skip_blank(&mut reader, &mut leading, self.max_body_bytes) {
            Ok(opening) => opening,
            Err(err) => return self.ready.push_back(fail(ReadError::Io(err), &name)),
        };
        if !(may_hold_drafts && matches!(opening, Some(b'{' | b'['))) {
            let limit = self.max_body_bytes.saturating_add(1);
            let mut bytes = leading;
            let room = limit.saturating_sub(bytes.len() as u64);
            if let Err(err) = reader.take(room).read_to_end(&mut bytes) {
                return self.ready.push_back(fail(ReadError::Io(err), &name));
            }
            let article = body_article(&name, path, &bytes, self.format);
            return self.ready.push_back(Ok(article));
        }
        // Drafts. A first line that is a JSON value by itself opens JSON Lines, read on a line
        // at a time; anything else (an array, an object over several lines) is one document.
        let first_line = 1 + leading.iter().filter(|b| **b == b'\n').count();
        let mut bytes = leading;
        let start = bytes.len();
        match read_line(&mut reader, &mut bytes, MAX_DRAFTS_INPUT_BYTES) {
            Ok(_) => {}
            Err(err) => return self.ready.push_back(fail(err, &name)),
        }
        let line = &bytes[start..];
        if opening == Some(b'{') && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok() {
            let mut lines = DraftLines {
                name,
                reader,
                number: first_line,
            };
            self.ready.push_back(lines.draft(line));
            lines.number += 1;
            self.lines = Some(lines);
            return;
        }
        let room = (MAX_DRAFTS_INPUT_BYTES + 1).saturating_sub(bytes.len() as u64);
        if let Err(err) = reader.take(room).read_to_end(&mut bytes) {
            return self.ready.push_back(fail(ReadError::Io(err), &name));
        }
        if bytes.len() as u64 > MAX_DRAFTS_INPUT_BYTES {
            return self.ready.push_back(fail(ReadError::TooLarge, &name));
        }
        read_drafts(&name, &bytes, &mut self.ready);
    }
}

/// Moves the blank space at the start of `reader` into `into`; returns the first byte after it,
/// left unread, or `None` at the end or past `max` bytes of blank space.
fn skip_blank(
    reader: &mut dyn BufRead,
    into: &mut Vec<u8>,
    max: u64,
) -> std::io::Result<Option<u8>> {
    while into.len() as u64 <= max {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if blank < buf.len() {
            let first = buf[blank];
            into.extend_from_slice(&buf[..blank]);
            reader.consume(blank);
            return Ok(Some(first));
        }
        let n = buf.len();
        into.extend_from_slice(buf);
        reader.consume(n);
    }
    Ok(None)
}

/// Appends one line of `reader` (its line break included) to `into`; the byte count read, 0 at
/// the end. A line longer than `max` bytes is [`ReadError::TooLarge`].
fn read_line(reader: &mut dyn BufRead, into: &mut Vec<u8>, max: u64) -> Result<usize, ReadError> {
    let n = reader
        .take(max + 1)
        .read_until(b'\n', into)
        .map_err(ReadError::Io)?;
    if n as u64 > max {
        return Err(ReadError::TooLarge);
    }
    Ok(n)
}

/// A file of JSON Lines being read, a draft per line.
struct DraftLines<'a> {
    name: String,
    reader: Box<dyn BufRead + 'a>,
    /// The number of the next line, from 1.
    number: usize,
}

impl DraftLines<'_> {
    fn draft(&self, line: &[u8]) -> Result<Article, InputError> {
        draft_article(format!("{}:{}", self.name, self.number), line)
    }
}

impl Iterator for DraftLines<'_> {
    type Item = Result<Article, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_line(&mut *self.reader, &mut line, MAX_DRAFTS_INPUT_BYTES) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(err) => {
                    // Nothing after a line that cannot be read is read: the rest of the file is
                    // not split into lines it may not have.
                    self.reader = Box::new(std::io::empty());
                    return Some(Err(
                        err.into_input_error(&format!("{}:{}", self.name, self.number))
                    ));
                }
            }
            let number = self.number;
            self.number += 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(draft_article(format!("{}:{number}", self.name), &line));
        }
    }
}

/// The files an input names: itself, a directory's files, or a pattern's matches.
fn files_of(input: &str) -> Result<Vec<PathBuf>, InputError> {
    let path = Path::new(input);
    if path.is_dir() {
        let files = directory_files(path)?;
        if files.is_empty() {
            return Err(InputError::Nothing {
                input: input.to_owned(),
                why: "the directory holds no .md, .html, .txt or .json file",
            });
        }
        return Ok(files);
    }
    if path.exists() || !input.contains(['*', '?', '[']) {
        return Ok(vec![path.to_owned()]);
    }
    let matches = glob::glob(input).map_err(|e| InputError::Pattern {
        pattern: input.to_owned(),
        reason: e.to_string(),
    })?;
    let mut files = Vec::new();
    for entry in matches {
        let entry = entry.map_err(|e| InputError::Read {
            path: e.path().display().to_string(),
            source: std::io::Error::new(e.error().kind(), e.error().to_string()),
        })?;
        if entry.is_dir() {
            files.extend(directory_files(&entry)?);
        } else {
            files.push(entry);
        }
    }
    if files.is_empty() {
        return Err(InputError::Nothing {
            input: input.to_owned(),
            why: "the pattern matches nothing",
        });
    }
    Ok(files)
}

/// A directory's article files, recursively, hidden entries left out, in name order.
fn directory_files(dir: &Path) -> Result<Vec<PathBuf>, InputError> {
    let mut files = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walk {
        let entry = entry.map_err(|e| InputError::Read {
            path: e
                .path()
                .map_or_else(|| dir.display().to_string(), |p| p.display().to_string()),
            source: std::io::Error::other(e.to_string()),
        })?;
        if entry.file_type().is_file() && has_article_extension(entry.path()) {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}

fn has_article_extension(path: &Path) -> bool {
    extension(path).is_some_and(|e| DIRECTORY_EXTENSIONS.contains(&e.as_str()))
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// Why a bounded read gave nothing.
enum ReadError {
    Io(std::io::Error),
    TooLarge,
}

impl ReadError {
    fn into_input_error(self, path: &str) -> InputError {
        match self {
            ReadError::Io(source) => InputError::Read {
                path: path.to_owned(),
                source,
            },
            ReadError::TooLarge => InputError::TooLarge {
                path: path.to_owned(),
                limit: MAX_DRAFTS_INPUT_BYTES,
            },
        }
    }
}

/// A body read from a file or standard input.
fn body_article(
    name: &str,
    path: Option<&Path>,
    bytes: &[u8],
    format: Option<BodyFormat>,
) -> Article {
    Article {
        name: name.to_owned(),
        file: path.map(Path::to_owned),
        content: Content::Body {
            article_id: name.to_owned(),
            revision: 0,
            body: String::from_utf8_lossy(bytes).into_owned(),
            format,
            title: None,
        },
    }
}

/// Draft events held whole: one JSON document (an object, or an array of objects), else JSON
/// Lines.
fn read_drafts(name: &str, bytes: &[u8], out: &mut VecDeque<Result<Article, InputError>>) {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Array(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                let item_bytes = serde_json::to_vec(&item).unwrap_or_default();
                out.push_back(draft_article(format!("{name}#{}", i + 1), &item_bytes));
            }
        }
        Ok(_) => out.push_back(draft_article(name.to_owned(), bytes)),
        Err(_) => {
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                out.push_back(draft_article(format!("{name}:{}", i + 1), line));
            }
        }
    }
}

/// One draft event: an article, blocked when it cannot be read but its id can be recovered, an
/// input error when not even that.
fn draft_article(name: String, bytes: &[u8]) -> Result<Article, InputError> {
    match DraftEvent::from_json(bytes) {
        Ok(draft) => Ok(Article {
            name,
            file: None,
            content: Content::Body {
                article_id: draft.article_id,
                revision: draft.revision,
                body: draft.body,
                format: Some(draft.body_format),
                title: draft.title,
            },
        }),
        Err(err) => match recover_article_id(bytes) {
            Some(id) => Ok(Article {
                name,
                file: None,
                content: Content::UnreadableDraft {
                    id,
                    error: err.to_string(),
                    bytes: bytes.to_vec(),
                },
            }),
            None => Err(InputError::Draft {
                name,
                reason: err.to_string(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(id: &str, body: &str) -> String {
        serde_json::json!({
            "schema_version": "factgate.draft.v1",
            "article_id": id,
            "revision": 3,
            "published_at": "2026-01-01T00:00:00Z",
            "body_format": "markdown",
            "body": body,
        })
        .to_string()
    }

    fn collect_stdin(input: &str) -> (Vec<Article>, Vec<InputError>) {
        collect(&["-".to_owned()], None, &mut input.as_bytes(), 1 << 20)
    }

    #[test]
    fn a_body_is_read_one_byte_past_the_limit_and_no_further() {
        let mut endless = std::io::repeat(b'a');
        let (articles, errors) = collect(&["-".to_owned()], None, &mut endless, 1000);
        assert!(errors.is_empty(), "{errors:?}");
        match &articles[0].content {
            Content::Body { body, .. } => assert_eq!(body.len(), 1001),
            other => panic!("expected a body, got {other:?}"),
        }
    }

    #[test]
    fn drafts_are_read_past_the_body_limit_but_not_without_end() {
        let text = format!(
            "{}\n{}\n",
            draft("a-1", &"x".repeat(600)),
            draft("a-2", "Two.")
        );
        let (articles, errors) = collect(&["-".to_owned()], None, &mut text.as_bytes(), 700);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(articles.len(), 2);
        let mut endless = std::io::Read::chain(&b"[ "[..], std::io::repeat(b' '));
        let (articles, errors) = collect(&["-".to_owned()], None, &mut endless, 700);
        assert!(articles.is_empty());
        assert!(
            matches!(errors.as_slice(), [InputError::TooLarge { .. }]),
            "{errors:?}"
        );
    }

    #[test]
    fn json_lines_on_stdin_are_draft_events() {
        let text = format!("{}\n\n{}\n", draft("a-1", "One."), draft("a-2", "Two."));
        let (articles, errors) = collect_stdin(&text);
        assert!(errors.is_empty(), "{errors:?}");
        let ids: Vec<(&str, &str)> = articles
            .iter()
            .map(|a| match &a.content {
                Content::Body { article_id, .. } => (a.name.as_str(), article_id.as_str()),
                Content::UnreadableDraft { .. } => panic!("readable"),
            })
            .collect();
        assert_eq!(ids, [("-:1", "a-1"), ("-:3", "a-2")]);
        assert!(articles.iter().all(|a| a.file.is_none()));
    }

    /// Standard input that gives one chunk, then fails as a pipe whose writer has not written
    /// more yet would block: what was given must be checked without waiting for the rest.
    struct ThenStuck(Option<Vec<u8>>);

    impl Read for ThenStuck {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self.0.take() {
                Some(chunk) => {
                    buf[..chunk.len()].copy_from_slice(&chunk);
                    Ok(chunk.len())
                }
                None => Err(std::io::Error::other("nothing more yet")),
            }
        }
    }

    #[test]
    fn json_lines_are_given_a_line_at_a_time() {
        let mut stdin = ThenStuck(Some(format!("\n{}\n", draft("first", "One.")).into_bytes()));
        let mut articles = read(&["-".to_owned()], None, &mut stdin, 1 << 20);
        let first = articles.next().expect("an item").expect("the first draft");
        assert_eq!(first.name, "-:2");
        assert!(
            matches!(&first.content, Content::Body { article_id, .. } if article_id == "first")
        );
        // Only now is the input read further.
        assert!(matches!(
            articles.next(),
            Some(Err(InputError::Read { .. }))
        ));
        assert!(articles.next().is_none());
    }

    #[test]
    fn a_draft_over_several_lines_and_an_array_are_whole_documents() {
        let pretty = serde_json::to_string_pretty(
            &serde_json::from_str::<serde_json::Value>(&draft("pretty", "One.")).unwrap(),
        )
        .unwrap();
        let (articles, errors) = collect_stdin(&pretty);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(articles.len(), 1);
        assert_eq!(articles[0].name, "-");
        let array = format!("[{}, {}]", draft("a-1", "One."), draft("a-2", "Two."));
        let (articles, errors) = collect_stdin(&array);
        assert!(errors.is_empty(), "{errors:?}");
        let names: Vec<&str> = articles.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["-#1", "-#2"]);
    }

    #[test]
    fn a_body_on_stdin_is_an_article() {
        let (articles, errors) = collect_stdin("# Title\n\nSales rose 40% in 2024.\n");
        assert!(errors.is_empty());
        assert!(matches!(&articles[0].content, Content::Body { body, .. } if body.contains("40%")));
    }

    #[test]
    fn an_unreadable_draft_is_blocked_when_its_id_is_known_and_an_error_otherwise() {
        let text = concat!(
            r#"{"schema_version":"factgate.draft.v1","article_id":"half","revision":2}"#,
            "\n",
            r#"{"nothing": "here"}"#,
            "\n"
        );
        let (articles, errors) = collect_stdin(text);
        assert_eq!(articles.len(), 1);
        assert!(matches!(
            &articles[0].content,
            Content::UnreadableDraft { id, .. } if id.article_id == "half"
        ));
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .to_string()
                .starts_with("-:2: not a readable draft event")
        );
    }

    #[test]
    fn directories_and_patterns_give_their_article_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub/.hidden")).unwrap();
        for f in [
            "b.md",
            "a.html",
            "sub/c.json",
            "sub/.hidden/x.md",
            "notes.pdf",
        ] {
            std::fs::write(root.join(f), draft("x", "Body.")).unwrap();
        }
        let files = files_of(root.to_str().unwrap()).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["a.html", "b.md", "sub/c.json"]);

        let pattern = format!("{}/*.md", root.display());
        assert_eq!(files_of(&pattern).unwrap().len(), 1);
        let none = format!("{}/*.rst", root.display());
        assert!(matches!(files_of(&none), Err(InputError::Nothing { .. })));
    }

    #[test]
    fn a_draft_json_file_is_a_draft_and_a_markdown_file_a_body() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("draft.json");
        std::fs::write(&json, draft("from-json", "Body.")).unwrap();
        let md = dir.path().join("braces.md");
        std::fs::write(&md, "{curly} text that is Markdown.").unwrap();
        let inputs = [json.display().to_string(), md.display().to_string()];
        let (articles, errors) = collect(&inputs, None, &mut std::io::empty(), 1 << 20);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(
            &articles[0].content,
            Content::Body { article_id, revision: 3, .. } if article_id == "from-json"
        ));
        assert!(articles[0].file.is_none());
        assert!(matches!(
            &articles[1].content,
            Content::Body { body, .. } if body.starts_with("{curly}")
        ));
        assert_eq!(articles[1].file.as_deref(), Some(md.as_path()));
    }
}
