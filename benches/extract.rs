//! Extraction throughput on a realistic article (about 1,500 words, 20 claims, 10 citations)
//! and on a 100 KB article built from it. Target: at least 20 MB/s on one core.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use factgate_core::extract::extract;
use factgate_core::model::BodyFormat;
use std::hint::black_box;

const ARTICLE: &str = include_str!("../tests/fixtures/articles/bench-1500-words.md");

/// Repeats the article's sections, renumbering nothing, until the body reaches `bytes`.
fn long_article(bytes: usize) -> String {
    let mut body = String::with_capacity(bytes + ARTICLE.len());
    let mut part = 0;
    while body.len() < bytes {
        part += 1;
        body.push_str(&format!("\n\n## Part {part}\n\n"));
        body.push_str(ARTICLE);
    }
    body
}

fn bench_extract(c: &mut Criterion) {
    let realistic = extract(ARTICLE, BodyFormat::Markdown).expect("the bench article extracts");
    eprintln!(
        "bench article: {} bytes, {} words, {} claims, {} citations",
        ARTICLE.len(),
        ARTICLE.split_whitespace().count(),
        realistic.claims.len(),
        realistic.citations.len()
    );
    let mut group = c.benchmark_group("extract");
    group.throughput(Throughput::Bytes(ARTICLE.len() as u64));
    group.bench_function("article_1500_words", |b| {
        b.iter(|| extract(black_box(ARTICLE), BodyFormat::Markdown))
    });
    let long = long_article(100 * 1024);
    group.throughput(Throughput::Bytes(long.len() as u64));
    group.bench_function("article_100_kb", |b| {
        b.iter(|| extract(black_box(&long), BodyFormat::Markdown))
    });
    group.finish();
}

criterion_group!(benches, bench_extract);
criterion_main!(benches);
