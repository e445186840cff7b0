//! The README and `docs/` as a reader follows them: every relative link (and its `#anchor`) leads
//! somewhere, and the README's Layout table names every entry of the folders it describes, and
//! nothing that is not there.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files a reader of the repository is pointed to: the README, `docs/`, and the
/// READMEs of folders.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![
        root().join("README.md"),
        root().join("deploy/README.md"),
        root().join("examples/demo/README.md"),
        root().join("tests/fixtures/claims/README.md"),
    ];
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let path = entry.expect("docs/ entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// GitHub's anchor for a heading: lower case, punctuation dropped (but `-` and `_`), spaces as
/// `-`; a repeated heading gets `-1`, `-2`….
fn slug(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| {
            if c == ' ' {
                Some('-')
            } else if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else {
                None
            }
        })
        .flat_map(char::to_lowercase)
        .collect()
}

struct Parsed {
    /// Every heading's anchor.
    anchors: BTreeSet<String>,
    /// Every link and image target, with the line it is on.
    links: Vec<(String, usize)>,
}

fn parse(path: &Path) -> Parsed {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut anchors = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    let options = Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES;
    for (event, range) in Parser::new_ext(&text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                anchors.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let line = text[..range.start].lines().count().max(1);
                links.push((dest_url.into_string(), line));
            }
            _ => {}
        }
    }
    Parsed { anchors, links }
}

#[test]
fn the_slugs_follow_github() {
    assert_eq!(
        slug("Secured Kafka (TLS and SASL)"),
        "secured-kafka-tls-and-sasl"
    );
    assert_eq!(
        slug("Revisions: what changed since the last one"),
        "revisions-what-changed-since-the-last-one"
    );
    assert_eq!(slug("factgate check INPUT…"), "factgate-check-input");
    assert_eq!(slug("The editors' pages"), "the-editors-pages");
}

/// Every relative link of every document leads to a file or folder that exists, and a link to
/// `#anchor` (in the same document or another) to one of its headings.
#[test]
fn every_relative_link_in_the_docs_resolves() {
    let documents = documents();
    assert!(documents.len() > 10, "{documents:?}");
    let mut parsed: BTreeMap<PathBuf, Parsed> = BTreeMap::new();
    for doc in &documents {
        parsed.insert(doc.clone(), parse(doc));
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in &documents {
        for (link, line) in &parsed[doc].links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match link.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(file)
            };
            let shown = format!(
                "{}:{line}: {link}",
                doc.strip_prefix(root()).unwrap().display()
            );
            let Ok(target) = target.canonicalize() else {
                broken.push(format!("{shown} (no such file)"));
                continue;
            };
            if !target.starts_with(root().canonicalize().unwrap()) {
                broken.push(format!("{shown} (outside the repository)"));
                continue;
            }
            if let Some(anchor) = anchor {
                let anchors = match parsed.get(&target) {
                    Some(p) => p.anchors.clone(),
                    None => parse(&target).anchors,
                };
                if !anchors.contains(anchor) {
                    broken.push(format!(
                        "{shown} (no heading with that anchor: {anchors:?})"
                    ));
                }
            }
        }
    }
    assert!(checked > 40, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Every guide in `docs/` is linked from the README or from `docs/README.md`, so none is lost.
#[test]
fn every_document_is_linked_from_an_index() {
    let mut linked = BTreeSet::new();
    for index in [root().join("README.md"), root().join("docs/README.md")] {
        for (link, _) in parse(&index).links {
            let file = link.split('#').next().unwrap_or_default().to_owned();
            if let Ok(path) = index.parent().unwrap().join(file).canonicalize() {
                linked.insert(path);
            }
        }
    }
    for doc in documents() {
        if doc.starts_with(root().join("docs")) && doc.file_name().unwrap() != "README.md" {
            assert!(
                linked.contains(&doc.canonicalize().unwrap()),
                "{} is linked from neither README.md nor docs/README.md",
                doc.display()
            );
        }
    }
}

/// The README's Layout table: the paths of its first column.
fn layout_paths() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("\n## Layout\n")
        .nth(1)
        .expect("the README has a Layout section");
    let section = section.split("\n## ").next().unwrap();
    let mut paths = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split(" | ").next().unwrap().trim_start_matches("| ");
        for (i, part) in first.split('`').enumerate() {
            if i % 2 == 1 {
                paths.push(part.to_owned());
            }
        }
    }
    paths
}

/// The files of the tree a clone gets (tracked by git, or new and not ignored), as paths from the
/// repository's root.
fn tracked_files() -> Vec<String> {
    let out = std::process::Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "{out:?}");
    let mut files: Vec<String> = out
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    // A file deleted but not yet committed is gone.
    files.retain(|f| root().join(f).exists());
    files
}

/// The table names every entry of the repository's root (but `.gitignore` and the README
/// itself), of `src/`, `core/`, `core/src/` and `tests/`, as `path` or `path/`, and every path
/// it names exists: a module added, moved or removed shows up here.
#[test]
fn the_layout_table_matches_the_tree() {
    let paths = layout_paths();
    assert!(paths.len() > 30, "{paths:?}");
    let named: BTreeSet<&str> = paths.iter().map(|p| p.trim_end_matches('/')).collect();
    let missing_paths: Vec<&String> = paths
        .iter()
        .filter(|p| !root().join(p.trim_end_matches('/')).exists())
        .collect();
    assert!(
        missing_paths.is_empty(),
        "the Layout table names paths that do not exist: {missing_paths:?}"
    );
    let mut entries = BTreeSet::new();
    for file in tracked_files() {
        let parts: Vec<&str> = file.split('/').collect();
        let entry = match parts.as_slice() {
            [name] => (*name).to_owned(),
            ["core", "src", name, ..] => format!("core/src/{name}"),
            [dir @ ("src" | "core" | "tests"), name, ..] => format!("{dir}/{name}"),
            [dir, ..] => (*dir).to_owned(),
            [] => continue,
        };
        entries.insert(entry);
    }
    // A folder's entries counted; the folder `core/src` itself is not a row.
    entries.remove("core/src");
    for obvious in [".gitignore", "README.md"] {
        entries.remove(obvious);
    }
    // A row may name a folder whose files it covers (`tests/fixtures/`) or a file beside it.
    let unnamed: Vec<&String> = entries
        .iter()
        .filter(|e| !named.contains(e.as_str()))
        .collect();
    assert!(
        unnamed.is_empty(),
        "the README's Layout table does not name {unnamed:?}"
    );
}

/// The README's install command: what a reader runs first, and what the Dockerfile and CI run.
const INSTALL: &str = "cargo install --locked --path .";

/// The README's code blocks, in order: (info string, content).
fn readme_blocks() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for event in Parser::new_ext(&text, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(info))) => {
                current = Some((info.into_string(), String::new()));
            }
            Event::Text(t) => {
                if let Some((_, content)) = current.as_mut() {
                    content.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
            _ => {}
        }
    }
    blocks
}

/// Output as compared: loopback ports and addresses vary from run to run.
fn normalized(text: &str) -> String {
    let port = regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap();
    port.replace_all(text, "127.0.0.1:PORT").into_owned()
}

/// Every shell example of the README runs as written, one block after another in one shell (as
/// a reader types them into one terminal), from a folder holding the repository's `examples/`
/// and `config/`, with the `factgate` this suite built first on the PATH and a home directory of
/// its own; each exits 0 and prints every line of the output the README shows after it (lines
/// with `…` stand for what it leaves out).
///
/// Not run here: `.ci/test.sh` (this suite itself), and the install command, which the
/// Dockerfile and CI's `.ci/test.sh` run (checked below).
#[test]
fn the_readme_shell_examples_run_as_written() {
    let blocks = readme_blocks();
    let mut script = String::new();
    let mut expected: Vec<(usize, String)> = Vec::new();
    let mut install_seen = false;
    let mut ran = 0;
    for (i, (info, content)) in blocks.iter().enumerate() {
        if info != "sh" {
            continue;
        }
        if content.trim() == ".ci/test.sh" {
            continue;
        }
        let mut lines = Vec::new();
        for line in content.lines() {
            if line.starts_with("cargo install") {
                assert_eq!(line, INSTALL, "the README's install line");
                install_seen = true;
            } else {
                lines.push(line);
            }
        }
        ran += 1;
        script.push_str(&format!(
            "echo '@@block {i}@@'; echo '@@block {i}@@' >&2\n{}\n",
            lines.join("\n")
        ));
        if let Some((next_info, output)) = blocks.get(i + 1)
            && next_info == "text"
        {
            expected.push((i, output.clone()));
        }
    }
    assert!(install_seen, "the README shows `{INSTALL}`");
    assert!(ran >= 4, "only {ran} shell blocks found");
    script.push_str("echo '@@end@@'\n");

    // The example's sources are served on the port the README names: another server there would
    // answer in their place.
    if let Err(err) = std::net::TcpListener::bind("127.0.0.1:8765") {
        panic!("port 8765, which the README's example serves its sources on, is taken: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    for linked in ["examples", "config"] {
        std::os::unix::fs::symlink(root().join(linked), dir.path().join(linked)).unwrap();
    }
    std::fs::create_dir(dir.path().join("home")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_factgate")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = std::process::Command::new("timeout")
        .args(["300", "bash", "-euo", "pipefail", "-c", &script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("HOME", dir.path().join("home"))
        .env_remove("FACTGATE_CONFIG")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bash");
    let mut stderr = String::new();
    let mut stderr_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        std::io::Read::read_to_string(&mut stderr_pipe, &mut stderr).ok();
        stderr
    });
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    let status = child.wait().unwrap();
    let stderr = reader.join().unwrap();
    assert!(
        status.success() && stdout.contains("@@end@@"),
        "a README example failed ({status}); the last block started is the one at fault\n\
         --- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    for (i, output) in expected {
        let printed = stdout
            .split(&format!("@@block {i}@@"))
            .nth(1)
            .and_then(|rest| rest.split("@@").next())
            .unwrap_or_default();
        let printed = normalized(printed);
        for line in output.lines() {
            if line.contains('…') || line.contains("...") || line.trim().is_empty() {
                continue;
            }
            let line = normalized(line);
            assert!(
                printed.lines().any(|p| p.trim_end() == line.trim_end()),
                "the README shows {line:?} after block {i}, which printed:\n{printed}"
            );
        }
    }
}

/// The install line is the Dockerfile's build command (with the image's profile and install
/// root), and CI runs the Dockerfile's command, so both stay in working order.
#[test]
fn the_install_line_is_what_the_dockerfile_and_ci_run() {
    let dockerfile = std::fs::read_to_string(root().join("deploy/Dockerfile")).unwrap();
    assert!(
        dockerfile.contains(&format!(
            "{INSTALL} --profile \"$PROFILE\" --root /usr/local"
        )),
        "deploy/Dockerfile builds with `{INSTALL}`"
    );
    let ci = std::fs::read_to_string(root().join(".ci/test.sh")).unwrap();
    assert!(
        ci.contains("deploy/Dockerfile") && ci.contains("cargo install"),
        ".ci/test.sh runs the Dockerfile's cargo command"
    );
}

/// The `factgate check` sample in docs/commands.md is what the binary prints: the example
/// article checked against the demo's sources (served on a loopback port of its own, written
/// back as the 8765 the example names). `FACTGATE_BLESS_DOCS=1` writes the binary's output into
/// the document instead of comparing, for a change that means to alter it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_sample_in_the_commands_doc_is_what_check_prints() {
    const COMMAND: &str = "$ factgate check examples/article.md --config config/local.toml\n";
    let origin = crate::support::origin::start_demo(axum::Router::new()).await;
    let port = origin.rsplit(':').next().expect("a port").to_owned();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("examples")).unwrap();
    let article = std::fs::read_to_string(root().join("examples/article.md")).unwrap();
    std::fs::write(
        dir.path().join("examples/article.md"),
        article.replace("127.0.0.1:8765", &format!("127.0.0.1:{port}")),
    )
    .unwrap();
    std::os::unix::fs::symlink(root().join("config"), dir.path().join("config")).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_factgate"))
        .args([
            "check",
            "examples/article.md",
            "--config",
            "config/local.toml",
            "--no-progress",
        ])
        .current_dir(dir.path())
        .env_remove("FACTGATE_CONFIG")
        .env("NO_COLOR", "1")
        .kill_on_drop(true)
        .output()
        .await
        .expect("factgate runs");
    assert_eq!(output.status.code(), Some(1), "the example blocks");
    let printed = String::from_utf8_lossy(&output.stdout)
        .replace(&format!("127.0.0.1:{port}"), "127.0.0.1:8765");

    let path = root().join("docs/commands.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc.find(COMMAND).expect("the sample's command line") + COMMAND.len();
    let end = start + doc[start..].find("```").expect("the sample's end");
    if std::env::var_os("FACTGATE_BLESS_DOCS").is_some() {
        std::fs::write(&path, format!("{}{printed}{}", &doc[..start], &doc[end..])).unwrap();
        return;
    }
    assert_eq!(
        &doc[start..end],
        printed,
        "docs/commands.md shows another output than `factgate check` prints: \
         FACTGATE_BLESS_DOCS=1 cargo test --test it docs:: writes it"
    );
}

/// examples/demo/README.md's "expected" column is what the demo decides: the README's `factgate
/// demo` output, which the README test above checks against the binary, line by line.
#[test]
fn the_demo_readme_expects_what_the_demo_decides() {
    let blocks = readme_blocks();
    let demo_output = blocks
        .iter()
        .position(|(info, content)| info == "sh" && content.trim() == "factgate demo")
        .and_then(|i| blocks.get(i + 1))
        .map(|(_, output)| output.clone())
        .expect("the README shows the demo's output");
    let decided: BTreeMap<String, String> = demo_output
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let outcome = words.next()?;
            let article = words.next()?;
            let reasons = words.next()?;
            match outcome {
                "PASS" => Some((article.to_owned(), "pass".to_owned())),
                "BLOCK" => Some((
                    article.to_owned(),
                    format!("block: {}", reasons.replace(',', ", ")),
                )),
                _ => None,
            }
        })
        .collect();
    let table = std::fs::read_to_string(root().join("examples/demo/README.md")).unwrap();
    let mut rows = 0;
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let file = cells[0].trim_matches('`');
        let draft: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root().join("examples/demo/drafts").join(file)).unwrap(),
        )
        .unwrap();
        let article = draft["article_id"].as_str().expect("an article id");
        assert_eq!(
            Some(cells[2]),
            decided.get(article).map(String::as_str),
            "{file} ({article}): examples/demo/README.md expects what the demo does not decide"
        );
        rows += 1;
    }
    assert_eq!(
        rows,
        decided.len(),
        "every draft of the demo is in the table"
    );
}
