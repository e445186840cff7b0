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
//! Reading is bounded: a body is read up to `extract.max_body_bytes` and one byte more (a larger
//! one is then blocked as `limit_exceeded`, as `factgate run` blocks it, without reading the
//! rest), and a file of draft events up to [`MAX_DRAFTS_INPUT_BYTES`] (an error beyond it: split
//! the export). `factgate check /dev/zero` reads a few megabytes and blocks.
//!
//! Nothing is skipped silently: a draft event that cannot be read is blocked
//! (`draft_unreadable`) when its article id can be recovered, as the stream processor does, and is
//! an input error otherwise; a path that does not exist or a pattern matching nothing is an
//! input error.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::events::{DraftEvent, RecoveredId, recover_article_id};
use crate::model::BodyFormat;

/// Extensions of the files read from a directory.
pub const DIRECTORY_EXTENSIONS: [&str; 9] = [
    "md", "markdown", "html", "htm", "txt", "text", "json", "jsonl", "ndjson",
];

/// Most bytes read from one file, or standard input, holding draft events: an export larger than
/// this is an input error, and is checked in several files.
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
/// `extract.max_body_bytes`.
pub fn collect(
    inputs: &[String],
    format: Option<BodyFormat>,
    stdin: &mut dyn Read,
    max_body_bytes: u64,
) -> (Vec<Article>, Vec<InputError>) {
    collect_named(inputs, format, stdin, None, max_body_bytes)
}

/// [`collect`], with standard input's content given a name (`--stdin-name`): the article read
/// from it, or the draft events in it (`name:3`, `name#2`), are called so, and a body read from it
/// is located by line and column as a file of that name would be. Without a name it is `-`.
pub fn collect_named(
    inputs: &[String],
    format: Option<BodyFormat>,
    stdin: &mut dyn Read,
    stdin_name: Option<&str>,
    max_body_bytes: u64,
) -> (Vec<Article>, Vec<InputError>) {
    let mut articles = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        if input == "-" {
            let name = stdin_name.unwrap_or("-");
            let path = stdin_name.map(Path::new);
            match read_bounded(stdin, true, max_body_bytes) {
                Ok(bytes) => {
                    read_content(name, path, &bytes, true, format, &mut articles, &mut errors)
                }
                Err(err) => errors.push(err.into_input_error("standard input")),
            }
            continue;
        }
        match files_of(input) {
            Ok(files) => {
                for file in files {
                    read_file(&file, format, max_body_bytes, &mut articles, &mut errors);
                }
            }
            Err(err) => errors.push(err),
        }
    }
    (articles, errors)
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

/// Reads a body up to `max_body_bytes + 1` bytes (the one more tells the check it is over the
/// limit); content that may hold draft events and opens as JSON is read on, up to
/// [`MAX_DRAFTS_INPUT_BYTES`].
fn read_bounded(
    reader: &mut dyn Read,
    may_hold_drafts: bool,
    max_body_bytes: u64,
) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    let first = max_body_bytes.saturating_add(1);
    reader
        .take(first)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    let opens_as_json = matches!(
        bytes.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    );
    if (bytes.len() as u64) < first || !(may_hold_drafts && opens_as_json) {
        return Ok(bytes);
    }
    reader
        .take(
            MAX_DRAFTS_INPUT_BYTES
                .saturating_sub(first)
                .saturating_add(1),
        )
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > MAX_DRAFTS_INPUT_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

fn read_file(
    path: &Path,
    format: Option<BodyFormat>,
    max_body_bytes: u64,
    articles: &mut Vec<Article>,
    errors: &mut Vec<InputError>,
) {
    let name = path.display().to_string();
    let may_hold_drafts = matches!(
        extension(path).as_deref(),
        Some("json" | "jsonl" | "ndjson") | None
    );
    let read = std::fs::File::open(path)
        .map_err(ReadError::Io)
        .and_then(|mut file| read_bounded(&mut file, may_hold_drafts, max_body_bytes));
    match read {
        Ok(bytes) => {
            read_content(
                &name,
                Some(path),
                &bytes,
                may_hold_drafts,
                format,
                articles,
                errors,
            );
        }
        Err(err) => errors.push(err.into_input_error(&name)),
    }
}

/// Reads one file's (or standard input's) content as drafts or as a body.
fn read_content(
    name: &str,
    path: Option<&Path>,
    bytes: &[u8],
    may_hold_drafts: bool,
    format: Option<BodyFormat>,
    articles: &mut Vec<Article>,
    errors: &mut Vec<InputError>,
) {
    let text = String::from_utf8_lossy(bytes);
    let opening = text.trim_start().chars().next();
    if may_hold_drafts && matches!(opening, Some('{' | '[')) {
        read_drafts(name, bytes, articles, errors);
        return;
    }
    articles.push(Article {
        name: name.to_owned(),
        file: path.map(Path::to_owned),
        content: Content::Body {
            article_id: name.to_owned(),
            revision: 0,
            body: text.into_owned(),
            format,
            title: None,
        },
    });
}

/// Draft events: one JSON document (an object, or an array of objects), else JSON Lines.
fn read_drafts(
    name: &str,
    bytes: &[u8],
    articles: &mut Vec<Article>,
    errors: &mut Vec<InputError>,
) {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Array(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                let item_bytes = serde_json::to_vec(&item).unwrap_or_default();
                push_draft(format!("{name}#{}", i + 1), &item_bytes, articles, errors);
            }
        }
        Ok(_) => push_draft(name.to_owned(), bytes, articles, errors),
        Err(_) => {
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                push_draft(format!("{name}:{}", i + 1), line, articles, errors);
            }
        }
    }
}

fn push_draft(
    name: String,
    bytes: &[u8],
    articles: &mut Vec<Article>,
    errors: &mut Vec<InputError>,
) {
    match DraftEvent::from_json(bytes) {
        Ok(draft) => articles.push(Article {
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
            Some(id) => articles.push(Article {
                name,
                file: None,
                content: Content::UnreadableDraft {
                    id,
                    error: err.to_string(),
                    bytes: bytes.to_vec(),
                },
            }),
            None => errors.push(InputError::Draft {
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
    fn standard_input_takes_the_name_it_is_given() {
        let stdin = ["-".to_owned()];
        let (articles, _) = collect(&stdin, None, &mut &b"Plain text."[..], 1 << 20);
        assert_eq!(articles[0].name, "-");
        assert_eq!(articles[0].file, None);
        let (articles, _) = collect_named(
            &stdin,
            None,
            &mut &b"Plain text."[..],
            Some("news/a.md"),
            1 << 20,
        );
        assert_eq!(articles[0].name, "news/a.md");
        assert_eq!(articles[0].file.as_deref(), Some(Path::new("news/a.md")));
        match &articles[0].content {
            Content::Body { article_id, .. } => assert_eq!(article_id, "news/a.md"),
            other => panic!("expected a body, got {other:?}"),
        }
        let lines = format!("{}\n{}\n", draft("a-1", "One."), draft("a-2", "Two."));
        let (articles, _) = collect_named(
            &stdin,
            None,
            &mut lines.as_bytes(),
            Some("export.jsonl"),
            1 << 20,
        );
        let names: Vec<&str> = articles.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["export.jsonl:1", "export.jsonl:2"]);
        assert!(articles.iter().all(|a| a.file.is_none()));
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
