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

#[derive(Deserialize)]
struct File {
    case: Vec<Case>,
}

/// The folder of a set: a name under `tests/fixtures/claims/`, or a path.
pub fn set_dir(set: &str) -> PathBuf {
    let path = Path::new(set);
    if path.is_dir() {
        return path.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claims")
        .join(set)
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
        for mut case in file.case {
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
