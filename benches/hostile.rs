//! How extraction time grows with hostile drafts: many links, deep HTML nesting, deep Markdown
//! lists and quotes, thousands of headings. Each shape is extracted at doubling sizes and the
//! time printed with its ratio to the size before: linear work shows ratios near 2.
//!
//! `cargo bench --bench hostile [shape…]` measures the sizes of the reliability section of the
//! README (40k, 80k, 160k links; 150k nested divs); naming shapes (`"nested <div>"`) runs only
//! those. In test mode (`cargo test --benches`) it runs each shape once at a fiftieth of its
//! smallest size, so the shapes keep compiling and running without timing anything.
//!
//! Each input is extracted twice: without the per-draft limits (`extract::extract`), to measure
//! the parsers themselves, and within the default limits (`extract::extract_within`), as
//! `factgate run` and `factgate check` do, which refuse most of these inputs before parsing.
//! html5ever's tree building is itself superlinear in the nesting depth (each start tag of most
//! elements looks down the stack of open elements); the nesting limit is what bounds it.

use factgate_core::extract::{ExtractLimits, extract, extract_within};
use factgate_core::model::BodyFormat;
use std::time::{Duration, Instant};

/// A hostile body of size parameter `n`.
struct Shape {
    name: &'static str,
    format: BodyFormat,
    sizes: &'static [usize],
    build: fn(usize) -> String,
}

/// One claim with `n` inline links in its paragraph, one per sentence.
fn links_in_one_paragraph(n: usize) -> String {
    let mut body = String::from("Revenue grew 40% in 2023, the report says.");
    for i in 0..n {
        body.push_str(&format!(" See [source {i}](https://example.com/{i})."));
    }
    body
}

/// One sentence citing `n` links.
fn links_in_one_sentence(n: usize) -> String {
    let mut body = String::from("Revenue grew 40% in 2023");
    for i in 0..n {
        body.push_str(&format!(" [{i}](https://example.com/{i})"));
    }
    body.push('.');
    body
}

/// `n` bare URLs in one paragraph after a claim.
fn bare_urls(n: usize) -> String {
    let mut body = String::from("Revenue grew 40% in 2023.");
    for i in 0..n {
        body.push_str(&format!(" https://example.com/{i}"));
    }
    body
}

/// A claim inside `n` nested divs.
fn nested_divs(n: usize) -> String {
    format!(
        "<html><body>{}<p>Revenue grew 40% in 2023.</p>{}</body></html>",
        "<div>".repeat(n),
        "</div>".repeat(n)
    )
}

/// `n` blocks each nested 250 levels deep (just under the default limit of 256), each holding a
/// claim: the worst an admitted draft can nest, repeated to grow the body.
fn deep_blocks(n: usize) -> String {
    let block = format!(
        "{}<p>Revenue grew 40% in 2023.</p>{}",
        "<div>".repeat(248),
        "</div>".repeat(248)
    );
    format!("<html><body>{}</body></html>", block.repeat(n))
}

/// A claim inside `n` nested HTML lists.
fn nested_html_lists(n: usize) -> String {
    format!(
        "<html><body>{}Revenue grew 40% in 2023.{}</body></html>",
        "<ul><li>".repeat(n),
        "</li></ul>".repeat(n)
    )
}

/// A claim inside `n` nested Markdown block quotes.
fn nested_quotes(n: usize) -> String {
    format!("{} Revenue grew 40% in 2023.\n", ">".repeat(n))
}

/// A claim inside `n` nested Markdown lists.
fn nested_md_lists(n: usize) -> String {
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&"  ".repeat(i));
        body.push_str("- item\n");
    }
    body.push_str(&"  ".repeat(n));
    body.push_str("- Revenue grew 40% in 2023.\n");
    body
}

/// `n` headings, each over a one-sentence claim.
fn headings(n: usize) -> String {
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!("## Part {i}\n\nRevenue grew {i}% in 2023.\n\n"));
    }
    body
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "links, one paragraph",
        format: BodyFormat::Markdown,
        sizes: &[20_000, 40_000, 80_000, 160_000],
        build: links_in_one_paragraph,
    },
    Shape {
        name: "links, one sentence",
        format: BodyFormat::Markdown,
        sizes: &[20_000, 40_000, 80_000, 160_000],
        build: links_in_one_sentence,
    },
    Shape {
        name: "bare URLs, one paragraph",
        format: BodyFormat::Text,
        sizes: &[20_000, 40_000, 80_000, 160_000],
        build: bare_urls,
    },
    Shape {
        name: "nested <div>",
        format: BodyFormat::Html,
        sizes: &[18_750, 37_500, 75_000, 150_000],
        build: nested_divs,
    },
    Shape {
        name: "250-deep blocks",
        format: BodyFormat::Html,
        sizes: &[75, 150, 300, 600],
        build: deep_blocks,
    },
    Shape {
        name: "nested <ul><li>",
        format: BodyFormat::Html,
        sizes: &[18_750, 37_500, 75_000, 150_000],
        build: nested_html_lists,
    },
    Shape {
        name: "nested > quotes",
        format: BodyFormat::Markdown,
        sizes: &[18_750, 37_500, 75_000, 150_000],
        build: nested_quotes,
    },
    Shape {
        name: "nested - lists",
        format: BodyFormat::Markdown,
        sizes: &[1_000, 2_000, 4_000, 8_000],
        build: nested_md_lists,
    },
    Shape {
        name: "headings",
        format: BodyFormat::Markdown,
        sizes: &[10_000, 20_000, 40_000, 80_000],
        build: headings,
    },
];

fn time(f: impl FnOnce()) -> Duration {
    let started = Instant::now();
    f();
    started.elapsed()
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let limits = ExtractLimits::default();
    for shape in SHAPES {
        if !only.is_empty() && !only.iter().any(|o| shape.name.contains(o.as_str())) {
            continue;
        }
        // In test mode, one small size: the shapes keep building and running, fast even
        // unoptimized, and nothing is timed.
        let sizes: Vec<usize> = if measuring {
            shape.sizes.to_vec()
        } else {
            vec![(shape.sizes[0] / 50).max(1)]
        };
        let mut previous: Option<Duration> = None;
        for n in sizes {
            let body = (shape.build)(n);
            let unlimited = time(|| {
                let _ = std::hint::black_box(extract(&body, shape.format));
            });
            let limited = time(|| {
                let _ = std::hint::black_box(extract_within(&body, shape.format, &limits));
            });
            let ratio = previous.map_or(String::new(), |p| {
                format!(
                    "  ×{:.1} over the size before",
                    unlimited.as_secs_f64() / p.as_secs_f64().max(1e-9)
                )
            });
            println!(
                "{:<26} n={n:>7} {:>6.2} MB: {:>9.3} s unlimited, {:>7.3} s within the default limits{ratio}",
                shape.name,
                body.len() as f64 / 1e6,
                unlimited.as_secs_f64(),
                limited.as_secs_f64(),
            );
            previous = Some(unlimited);
        }
    }
}
