//! The editors' pages in a real browser: Debian's `chromium`, headless, loads the pages that
//! `factgate check --format html` writes and the ones a running stream processor serves (every
//! role and the HTTP endpoint on the embedded broker, fed a draft over Kafka), takes screenshots
//! at desktop and phone widths (kept under `target/screenshots/` as CI artifacts) and prints the
//! DOM it rendered, which the tests read: every claim marked with its verdict, and the markup a
//! hostile draft and a hostile source carried shown as text, never run or rendered.
//!
//! Sources are served by an origin on 127.0.0.1; Chromium is told to load nothing but the page
//! (a proxy that does not exist for everything but loopback, no DNS, no background services).
//! Traced with `strace -e connect`, its only TCP connections go to that dead proxy on
//! 127.0.0.1:9; it also `connect`s one UDP socket to a public IPv6 address, its probe of whether
//! IPv6 is routable, which sends no packet.
//! Without `chromium` the tests fail: `.ci/test.sh` installs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::pipeline::{decided, publish_draft};
use axum::Router;
use axum::response::Html;
use axum::routing::get;
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventProducer};
use scraper::{Html as Dom, Selector};

/// Markup the hostile draft and source carry, each trying to change the page's title.
const PAYLOAD: &str = "document.title='pwned'";

/// The sources: one refutes the price (its passage carries markup written as text), one
/// supports the growth, two disagree on subscribers; `/gone` is a dead link (404).
async fn start_origin() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    let app = Router::new()
        .route(
            "/pricing",
            get(|| async {
                Html(format!(
                    "<html><head><title>Plans</title><script>{PAYLOAD}</script></head><body>\
                     <p>The Standard plan costs $9/month &lt;img src=x onerror=\"{PAYLOAD}\"&gt; \
                     &lt;script&gt;{PAYLOAD}&lt;/script&gt;, billed monthly.</p></body></html>"
                ))
            }),
        )
        .route(
            "/report",
            get(|| async { Html("<p>Revenue grew 40% in 2023, the annual report shows.</p>") }),
        )
        .route(
            "/subscribers-a",
            get(|| async { Html("<p>Subscribers rose 25% in 2024 to 1.2 million.</p>") }),
        )
        .route(
            "/jobs",
            get(|| async {
                Html("<p>Unemployment in the region reached 7% in 2024, the statistics agency said. Youth unemployment fell for the third year.</p>")
            }),
        )
        .route(
            "/budget",
            get(|| async {
                Html("<p>The city council approved a budget of $2.4 billion for 2025, the minutes show.</p>")
            }),
        )
        .route(
            "/subscribers-b",
            get(|| async { Html("<p>Subscribers rose 8% in 2024 to 1.2 million.</p>") }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// A draft with a claim of every verdict, and markup in its text.
fn hostile_article(port: u16) -> String {
    format!(
        "# Streaming <script>{PAYLOAD}</script> &lt;script&gt;{PAYLOAD}&lt;/script&gt;\n\n\
         The Standard plan costs $4/month, according to [the pricing page](http://127.0.0.1:{port}/pricing).\n\n\
         Revenue grew 40% in 2023, says [the annual report](http://127.0.0.1:{port}/report).\n\n\
         The market is worth $30 billion, [analysts say](http://127.0.0.1:{port}/gone).\n\n\
         Subscribers rose 25% in 2024, according to [one count](http://127.0.0.1:{port}/subscribers-a) \
         and [another](http://127.0.0.1:{port}/subscribers-b).\n\n\
         Our pilot with 500 students showed 73% improvement &lt;img src=x onerror=\"{PAYLOAD}\"&gt;.\n"
    )
}

fn screenshots_dir() -> PathBuf {
    // target/tmp → target/screenshots, wherever the target directory is.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .join("screenshots");
    std::fs::create_dir_all(&dir).expect("create target/screenshots");
    dir
}

/// Runs headless Chromium on `url` with `extra` arguments and returns its standard output.
/// It may load the page and loopback only.
fn chromium(url: &str, extra: &[String]) -> String {
    let profile = tempfile::tempdir().expect("a profile dir");
    let output = Command::new("chromium")
        .args([
            "--headless",
            // Root in a container has no user namespace for the sandbox.
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--metrics-recording-only",
            "--hide-scrollbars",
            // Nothing but loopback: everything else goes to a proxy that is not there, and no
            // name resolves.
            "--proxy-server=http://127.0.0.1:9",
            "--proxy-bypass-list=127.0.0.1",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap_or_else(|err| {
            panic!("chromium could not be started ({err}): `.ci/test.sh` installs it (apt-get install chromium)")
        });
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn dump_dom(url: &str) -> Dom {
    Dom::parse_document(&chromium(url, &["--dump-dom".to_owned()]))
}

/// Screenshots of `url` at desktop and phone widths, as `name-desktop.png` and `name-phone.png`.
fn screenshots(url: &str, name: &str) {
    for (width, height, suffix) in [(1280, 1800, "desktop"), (390, 2400, "phone")] {
        let path = screenshots_dir().join(format!("{name}-{suffix}.png"));
        let _ = std::fs::remove_file(&path);
        chromium(
            url,
            &[
                format!("--window-size={width},{height}"),
                format!("--screenshot={}", path.display()),
            ],
        );
        let png = std::fs::read(&path).unwrap_or_else(|_| panic!("{} written", path.display()));
        assert!(png.starts_with(b"\x89PNG"), "{} is a PNG", path.display());
        // The PNG header's width: the page was laid out at the width asked for.
        let png_width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        assert_eq!(png_width, width, "{}", path.display());
    }
}

fn select<'a>(dom: &'a Dom, css: &str) -> Vec<scraper::ElementRef<'a>> {
    dom.select(&Selector::parse(css).expect("selector"))
        .collect()
}

fn text_of(dom: &Dom) -> String {
    dom.root_element().text().collect()
}

/// Every claim of the page is marked in the article with its verdict and has its panel; the
/// verdicts expected are all there; nothing hostile ran or rendered.
fn assert_decision_page(dom: &Dom, expected: &[&str]) {
    let cards = select(dom, "li.card[data-verdict]");
    assert!(!cards.is_empty(), "claims listed: {}", dom.html());
    for card in &cards {
        let id = card.value().id().expect("a card has an id");
        let verdict = card.value().attr("data-verdict").expect("a verdict");
        let mark = select(dom, &format!("article a.claim[href='#{id}']"));
        assert_eq!(mark.len(), 1, "{id} marked once in the article");
        assert_eq!(mark[0].value().attr("data-verdict"), Some(verdict), "{id}");
        // The verdict is written out, not told by colour alone.
        let words: String = mark[0].text().collect::<String>().to_lowercase();
        let label = if verdict == "unchecked" {
            "not checked"
        } else {
            verdict
        };
        assert!(words.contains(label), "{id}: {words}");
    }
    // Keyboard: each panel leads back to its mark and on to the next claim's panel.
    for (i, card) in cards.iter().enumerate() {
        let id = card.value().id().expect("an id");
        let links: Vec<&str> = card
            .select(&Selector::parse("nav a").expect("selector"))
            .filter_map(|a| a.value().attr("href"))
            .collect();
        assert!(
            links.contains(&format!("#mark-{}", &id["claim-".len()..]).as_str()),
            "{links:?}"
        );
        if let Some(next) = cards.get(i + 1) {
            let next = format!("#{}", next.value().id().expect("an id"));
            assert!(
                links.contains(&next.as_str()),
                "{id} leads to {next}: {links:?}"
            );
        }
    }
    let verdicts: Vec<&str> = cards
        .iter()
        .filter_map(|c| c.value().attr("data-verdict"))
        .collect();
    for verdict in expected {
        assert!(verdicts.contains(verdict), "{verdict} among {verdicts:?}");
    }
    assert_nothing_hostile_ran(dom);
}

fn assert_nothing_hostile_ran(dom: &Dom) {
    assert!(select(dom, "script").is_empty(), "no script element");
    assert!(select(dom, "img").is_empty(), "no img element");
    assert!(select(dom, "iframe, object, embed").is_empty());
    let title: String = select(dom, "title")[0].text().collect();
    // The payloads set the title to exactly this; the page's own title may quote them.
    assert_ne!(title.trim(), "pwned", "a payload ran");
    for element in dom
        .root_element()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
    {
        for (name, _) in element.value().attrs() {
            assert!(
                !name.starts_with("on"),
                "an event handler attribute: {name}"
            );
        }
    }
}

async fn factgate(args: Vec<String>, dir: &Path) -> std::process::Output {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_factgate"))
            .args(&args)
            .current_dir(dir)
            .env("RUST_LOG", "error")
            .output()
            .expect("factgate runs")
    })
    .await
    .expect("the command finishes")
}

const LOOPBACK_CONFIG: &str = "[fetch]\naddress_allowlist = [\"127.0.0.1/32\"]\n";

#[tokio::test]
async fn check_html_pages_in_chromium_mark_every_verdict_and_run_nothing_hostile() {
    let port = start_origin().await;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("local.toml"), LOOPBACK_CONFIG).expect("config");
    std::fs::write(dir.path().join("streaming.md"), hostile_article(port)).expect("article");
    std::fs::write(
        dir.path().join("clean.md"),
        format!(
            "# Results\n\nRevenue grew 40% in 2023, says [the annual report](http://127.0.0.1:{port}/report).\n"
        ),
    )
    .expect("article");
    let args: Vec<String> = [
        "check",
        "streaming.md",
        "clean.md",
        "-c",
        "local.toml",
        "--format",
        "html",
        "--output",
        "report.html",
        "--quiet",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let out = factgate(args, dir.path()).await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "one article blocks: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let index_url = format!("file://{}", dir.path().join("report.html").display());
    let index = dump_dom(&index_url);
    let rows = select(&index, "tbody tr");
    assert_eq!(rows.len(), 2);
    let outcomes: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.value().attr("data-outcome"))
        .collect();
    assert_eq!(outcomes, ["block", "pass"]);
    screenshots(&index_url, "check-index");

    let links: Vec<String> = select(&index, "tbody a")
        .iter()
        .filter_map(|a| a.value().attr("href").map(str::to_owned))
        .collect();
    let page_url = format!("file://{}", dir.path().join(&links[0]).display());
    let page = dump_dom(&page_url);
    assert_decision_page(
        &page,
        &[
            "supported",
            "refuted",
            "unverifiable",
            "contested",
            "unsourced",
        ],
    );
    let text = text_of(&page);
    // The draft's markup, and the source's, shown as the text they are.
    assert!(
        text.contains(&format!("<script>{PAYLOAD}</script>")),
        "the draft's markup shown as text"
    );
    assert!(
        text.contains(&format!("<img src=x onerror=\"{PAYLOAD}\">")),
        "markup shown as text"
    );
    let refuted = select(&page, "li.card[data-verdict=refuted] blockquote");
    let passage: String = refuted
        .first()
        .map(|b| b.text().collect())
        .unwrap_or_default();
    assert!(
        passage.contains("$9/month") && passage.contains(&format!("<script>{PAYLOAD}</script>")),
        "the source's passage, its markup as text: {passage}"
    );
    screenshots(&page_url, "check-decision");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn served_pages_in_chromium_carry_the_policy_and_list_decisions() {
    // The stream processor as `factgate run` runs it, in this process: every role and the HTTP
    // endpoint on the embedded broker (librdkafka's mock cluster on 127.0.0.1).
    let port = start_origin().await;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let http = crate::support::pipeline::free_port();
    let mut config = Config::from_toml_str(&format!(
        "{LOOPBACK_CONFIG}[http]\nlisten = \"127.0.0.1:{http}\"\n"
    ))
    .expect("test configuration is valid");
    config.kafka.bootstrap_servers = Some(broker.bootstrap_servers().to_owned());
    let client = crate::support::pipeline::http_client();
    let running = crate::support::pipeline::start(config.clone(), &client).await;
    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");
    let draft = serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": "streaming-1",
        "revision": 1,
        "published_at": chrono::Utc::now().to_rfc3339(),
        "title": format!("Streaming <img src=x onerror=\"{PAYLOAD}\">"),
        "section": "Business",
        "body": hostile_article(port),
        "body_format": "markdown",
    });
    publish_draft(
        &producer,
        &config,
        "streaming-1",
        draft.to_string().as_bytes(),
    )
    .await;
    let base = format!("http://127.0.0.1:{http}");
    let until = tokio::time::Instant::now() + std::time::Duration::from_secs(90);
    let decision = decided(&client, &base, "streaming-1", until).await;
    assert_eq!(decision["outcome"], "block");

    // The pages need the login: Chromium sends the test credentials given in the URL.
    let logged_in = format!(
        "http://{}:{}@127.0.0.1:{http}",
        crate::support::pipeline::TEST_EDITOR,
        crate::support::pipeline::TEST_TOKEN
    );
    let desk_url = format!("{logged_in}/ui/");
    let desk = tokio::task::spawn_blocking({
        let url = desk_url.clone();
        move || chromium(&url, &["--dump-dom".to_owned()])
    })
    .await
    .expect("chromium");
    let desk = Dom::parse_document(&desk);
    let rows = select(&desk, "table.desk tbody tr");
    assert_eq!(rows.len(), 1, "{}", desk.html());
    let blocked: String = select(&desk, "[data-figure=blocked-today]")[0]
        .text()
        .collect();
    assert_eq!(blocked, "1");
    assert_nothing_hostile_ran(&desk);
    let href = select(&desk, "table.desk tbody a")[0]
        .value()
        .attr("href")
        .expect("a link")
        .to_owned();
    let page_url = format!("{logged_in}{href}");
    let page = tokio::task::spawn_blocking({
        let page_url = page_url.clone();
        let desk_url = desk_url.clone();
        move || {
            screenshots(&desk_url, "served-desk");
            screenshots(&page_url, "served-decision");
            chromium(&page_url, &["--dump-dom".to_owned()])
        }
    })
    .await
    .expect("chromium");
    let page = Dom::parse_document(&page);
    assert_decision_page(
        &page,
        &[
            "supported",
            "refuted",
            "unverifiable",
            "contested",
            "unsourced",
        ],
    );
    let heading: String = select(&page, "h1")[0].text().collect();
    assert!(
        heading.contains("<img src=x"),
        "the title as text: {heading}"
    );

    // A newsroom's article with a refuted percentage: the page marks the figure that differs, in
    // the claim and in the source's passage, in words as well as colour; the desk lists it with
    // its id, revision and first finding. These screenshots are the ones in docs/.
    let draft = serde_json::json!({
        "schema_version": "factgate.draft.v1",
        "article_id": "region-jobs-2025",
        "revision": 2,
        "published_at": chrono::Utc::now().to_rfc3339(),
        "title": "Jobs market cools across the region",
        "section": "Economy",
        "body": format!(
            "# Jobs market cools across the region\n\n\
             Unemployment in the region reached 17% in 2024, [the statistics agency](http://127.0.0.1:{port}/jobs) said.\n\n\
             The city council approved a budget of $2.4 billion for 2025, [the minutes](http://127.0.0.1:{port}/budget) show.\n\n\
             Our survey of 300 employers showed 40% plan to hire less.\n"
        ),
        "body_format": "markdown",
    });
    publish_draft(
        &producer,
        &config,
        "region-jobs-2025",
        draft.to_string().as_bytes(),
    )
    .await;
    let decision = decided(&client, &base, "region-jobs-2025", until).await;
    assert_eq!(decision["outcome"], "block");
    let page_url = format!("{logged_in}/ui/decisions/region%2Djobs%2D2025");
    let page = tokio::task::spawn_blocking({
        let page_url = page_url.clone();
        let desk_url = desk_url.clone();
        move || {
            screenshots(&page_url, "docs-decision");
            screenshots(&desk_url, "docs-desk");
            chromium(&page_url, &["--dump-dom".to_owned()])
        }
    })
    .await
    .expect("chromium");
    let page = Dom::parse_document(&page);
    assert_nothing_hostile_ran(&page);
    let card = select(&page, "li.card[data-verdict=refuted]");
    assert_eq!(card.len(), 1, "{}", page.html());
    let marked = |css: &str| -> Vec<String> {
        card[0]
            .select(&Selector::parse(css).expect("selector"))
            .map(|m| m.text().collect())
            .collect()
    };
    assert_eq!(
        marked("mark.differs[data-differs=source]"),
        ["7%"],
        "the source's figure"
    );
    assert_eq!(
        marked("mark.differs[data-differs=claim]"),
        ["17%"],
        "the claim's figure"
    );
    let words: String = card[0].text().collect();
    assert!(
        words.contains("differs from the claim"),
        "said in words: {words}"
    );
    assert!(
        words.contains("10 percentage points higher"),
        "a difference of percentages in points: {words}"
    );
    assert!(
        marked("blockquote mark:not(.differs)").is_empty(),
        "no shared words marked in a refuting passage, which would read as agreement"
    );
    let desk = tokio::task::spawn_blocking({
        let url = desk_url.clone();
        move || chromium(&url, &["--dump-dom".to_owned()])
    })
    .await
    .expect("chromium");
    let desk = Dom::parse_document(&desk);
    let ids: Vec<String> = select(&desk, "[data-article-id]")
        .iter()
        .filter_map(|e| e.value().attr("data-article-id").map(str::to_owned))
        .collect();
    assert!(ids.contains(&"region-jobs-2025".to_owned()), "{ids:?}");
    let first: Vec<String> = select(&desk, "[data-first-finding]")
        .iter()
        .map(|e| e.text().collect())
        .collect();
    assert!(
        first
            .iter()
            .any(|f| f.contains("a figure differs from the source")),
        "the first finding in words: {first:?}"
    );
    assert_nothing_hostile_ran(&desk);
    running.stop().await;
}

/// The two halves of the guarantee apart. First, the detector: in this browser a script that
/// runs does change the title `--dump-dom` prints, so the pages' checks above can fail. Second,
/// the policy: a script that got into a page carrying the pages' Content-Security-Policy does not
/// run, even if escaping had let it through.
#[test]
fn the_pages_policy_stops_a_script_the_detector_would_see() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = format!("<script>{PAYLOAD}</script>");
    let open = dir.path().join("open.html");
    std::fs::write(
        &open,
        format!(
            "<!DOCTYPE html><html><head><title>page</title></head><body>{script}</body></html>"
        ),
    )
    .expect("write");
    let dom = dump_dom(&format!("file://{}", open.display()));
    let title: String = select(&dom, "title")[0].text().collect();
    assert_eq!(title, "pwned", "without the policy the script runs");

    let guarded = dir.path().join("guarded.html");
    let policy = factgate::render::html::CONTENT_SECURITY_POLICY.as_str();
    std::fs::write(
        &guarded,
        format!(
            "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" \
             content=\"{policy}\"><title>page</title></head><body>{script}</body></html>"
        ),
    )
    .expect("write");
    let dom = dump_dom(&format!("file://{}", guarded.display()));
    let title: String = select(&dom, "title")[0].text().collect();
    assert_eq!(title, "page", "the policy forbids the script");
}
