//! Hand-written article/source cases (`tests/fixtures/claims/`): reading them and serving their
//! sources on 127.0.0.1. The format is described in `tests/fixtures/claims/README.md`.

#![allow(dead_code)]

use factgate_core::model::BodyFormat;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a case expects under the default strictness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    Block,
    Pass,
    /// Passes under `normal`, with the claim listed for review (a low-severity issue): the
    /// source does not clearly state it, and does not contradict it.
    Review,
}

/// One case as written in a fixture file: the older sets give a `category` number, the blind
/// sets a `kind`, a `style` and the `twin` a wrong case was copied from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    #[serde(default)]
    pub category: Option<u8>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub style: Option<String>,
    #[serde(default)]
    pub twin: Option<String>,
    pub expect: Expect,
    #[serde(default)]
    pub claim_contains: Option<String>,
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    pub article: String,
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
    /// Set when loading: the fixture file's stem.
    #[serde(skip)]
    pub file: String,
    /// Set when loading: the set (folder) the case is from.
    #[serde(skip)]
    pub set: String,
}

/// The PDF writer for `.pdf` sources, included so the examples that take this file by path
/// find it too.
#[allow(dead_code)]
pub mod pdf {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/pdf.rs"));
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    case: Vec<Case>,
    #[serde(default)]
    story: Vec<Story>,
}

/// A news story as the writers of `tests/fixtures/news/` give it: the clean story, its sources,
/// and the errors planted in copies of it, each one edit (`find` → `replace`), so the clean story
/// is each wrong copy's control.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Story {
    name: String,
    beat: String,
    format: String,
    title: String,
    article: String,
    sources: BTreeMap<String, String>,
    #[serde(default)]
    error: Vec<Planted>,
}

/// One error planted in a copy of a story.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Planted {
    kind: String,
    find: String,
    replace: String,
    claim_contains: String,
    /// What is wrong, against the source, for a reader of the fixture.
    #[allow(dead_code)]
    note: String,
}

impl Story {
    /// The clean story as a case that must pass, then each wrong copy as a case that must block
    /// because of its wrong statement, its twin the clean story.
    fn cases(self) -> anyhow::Result<Vec<Case>> {
        let clean = Case {
            name: self.name.clone(),
            category: None,
            kind: Some("clean".to_owned()),
            style: Some(self.beat.clone()),
            twin: None,
            expect: Expect::Pass,
            claim_contains: None,
            format: Some(self.format.clone()),
            title: Some(self.title.clone()),
            article: self.article.clone(),
            sources: self.sources.clone(),
            file: String::new(),
            set: String::new(),
        };
        let mut out = vec![clean];
        for (i, e) in self.error.into_iter().enumerate() {
            anyhow::ensure!(
                self.article.matches(&e.find).count() == 1,
                "{}: error {} does not find its text exactly once",
                self.name,
                i + 1
            );
            out.push(Case {
                name: format!("{}--{}-{}", self.name, e.kind, i + 1),
                kind: Some(e.kind),
                twin: Some(self.name.clone()),
                expect: Expect::Block,
                claim_contains: Some(e.claim_contains),
                article: self.article.replacen(&e.find, &e.replace, 1),
                ..out[0].clone()
            });
        }
        Ok(out)
    }
}

/// The folder of a set: a name under `tests/fixtures/claims/` or `tests/fixtures/news/`, or a
/// path.
pub fn set_dir(set: &str) -> PathBuf {
    let path = Path::new(set);
    if path.is_dir() {
        return path.to_path_buf();
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let news = fixtures.join("news").join(set);
    if news.is_dir() {
        return news;
    }
    fixtures.join("claims").join(set)
}

/// Every case of a set, in file then case order.
pub fn load_set(set: &str) -> anyhow::Result<Vec<Case>> {
    let dir = set_dir(set);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let set_name = dir
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or(set)
        .to_owned();
    let mut cases = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path)?;
        let file: File = toml::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{} does not parse: {e}", path.display()))?;
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        let mut read = file.case;
        for story in file.story {
            read.extend(story.cases()?);
        }
        for mut case in read {
            anyhow::ensure!(
                case.expect == Expect::Pass || case.claim_contains.is_some(),
                "{}: a block or review case names the claim it is about",
                case.name
            );
            case.file = stem.clone();
            case.set = set_name.clone();
            cases.push(case);
        }
    }
    Ok(cases)
}

impl Case {
    pub fn id(&self) -> String {
        format!("{}-{}", self.file, self.name)
    }

    /// The id of the clean case a wrong case was copied from.
    pub fn twin_id(&self) -> Option<String> {
        self.twin.as_ref().map(|t| format!("{}-{t}", self.file))
    }

    pub fn base(&self, origin: &str) -> String {
        format!("{origin}/{}/{}/{}", self.set, self.file, self.name)
    }

    pub fn body(&self, origin: &str) -> String {
        self.article.replace("{{src}}", &self.base(origin))
    }

    pub fn body_format(&self) -> BodyFormat {
        match self.format.as_deref() {
            Some("html") => BodyFormat::Html,
            Some("text") => BodyFormat::Text,
            _ => BodyFormat::Markdown,
        }
    }

    /// The kind as reported: the blind sets' `kind`, else the category's number.
    pub fn kind_label(&self) -> String {
        match (&self.kind, self.category) {
            (Some(kind), _) => kind.clone(),
            (None, Some(0)) => "clean".to_owned(),
            (None, Some(n)) => format!("category-{n}"),
            (None, None) => "?".to_owned(),
        }
    }
}

/// Serves every case's sources at /{set}/{file}/{case}/{path} on 127.0.0.1; returns the base URL.
pub async fn serve(cases: &[Case]) -> anyhow::Result<String> {
    use axum::extract::{Path as UrlPath, State};
    use axum::http::StatusCode;
    use axum::response::{Html, IntoResponse, Response};

    let mut pages: BTreeMap<String, String> = BTreeMap::new();
    for case in cases {
        for (path, html) in &case.sources {
            pages.insert(
                format!("{}/{}/{}/{path}", case.set, case.file, case.name),
                html.clone(),
            );
        }
    }
    async fn page(
        State(pages): State<Arc<BTreeMap<String, String>>>,
        UrlPath(path): UrlPath<String>,
    ) -> Response {
        match pages.get(&path) {
            Some(text) if path.ends_with(".pdf") => (
                [(axum::http::header::CONTENT_TYPE, "application/pdf")],
                pdf::pdf_from_text(text),
            )
                .into_response(),
            Some(text) if path.ends_with(".csv") => (
                [(axum::http::header::CONTENT_TYPE, "text/csv; charset=utf-8")],
                text.clone(),
            )
                .into_response(),
            Some(html) => Html(html.clone()).into_response(),
            None => (StatusCode::NOT_FOUND, "not found").into_response(),
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let app = axum::Router::new()
        .route("/{*path}", axum::routing::get(page))
        .with_state(Arc::new(pages));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://127.0.0.1:{port}"))
}
