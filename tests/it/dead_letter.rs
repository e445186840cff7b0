//! A draft that cannot be read reaches the dead-letter topic as it was sent, with why and where it
//! was read in its headers (Kafka Connect style), and those headers follow
//! `schemas/dead_letter.v1.json`, the schema their `factgate-schema` header names. The extract
//! role runs on the embedded broker (librdkafka's mock cluster on 127.0.0.1); an outside
//! consumer reads `drafts.dlq` as an operator would.

use std::time::Duration;

use crate::support::pipeline::{mock_cluster_config, outside_reader, start_roles};
use crate::support::schema::{errors, validator};
use factgate::config::Config;
use factgate::kafka::{EmbeddedBroker, EventHeaders, EventProducer};
use factgate::pipeline::Role;
use factgate_core::events::DRAFT_V1;
use rdkafka::Message;
use rdkafka::message::Headers;
use serde_json::{Map, Value};
use tokio::time::timeout;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dead_letter_says_why_and_where_in_headers_its_schema_describes() {
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let config = mock_cluster_config(broker.bootstrap_servers(), "");
    let roles = start_roles(&config, &[Role::Extract]).await;
    let dead_letters = outside_reader(&config, &config.kafka.topics.dead_letter, "ops");
    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");

    // Its article id and revision can be read, its published_at cannot: blocked and dead-lettered.
    let payload = br#"{"schema_version":"factgate.draft.v1","article_id":"dlq-1","revision":2,"body":"x","body_format":"text"}"#;
    let delivered = timeout(
        Duration::from_secs(60),
        producer.produce(
            &config.kafka.topics.drafts,
            "dlq-1",
            payload,
            &EventHeaders::new(DRAFT_V1, None),
        ),
    )
    .await
    .expect("the draft is acknowledged in time")
    .expect("the draft is delivered");

    let letter = timeout(Duration::from_secs(60), dead_letters.recv())
        .await
        .expect("a dead letter within a minute")
        .expect("the dead letter is read");
    assert_eq!(letter.key(), Some(&b"dlq-1"[..]));
    assert_eq!(letter.payload(), Some(&payload[..]), "the draft as sent");

    let mut headers = Map::new();
    for header in letter.headers().expect("headers").iter() {
        let value = std::str::from_utf8(header.value.unwrap_or_default()).expect("UTF-8 header");
        headers.insert(header.key.to_owned(), Value::from(value));
    }
    let headers = Value::Object(headers);
    let problems = errors(&validator("dead_letter.v1"), &headers);
    assert!(problems.is_empty(), "{problems:?}\n{headers:#}");

    assert_eq!(headers["factgate-schema"], "factgate.dead_letter.v1");
    assert_eq!(headers["factgate-error-stage"], "extract");
    assert_eq!(headers["factgate-error-class"], "DraftError::MissingField");
    let message = headers["factgate-error-message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("published_at"), "{message}");
    assert_eq!(
        headers["factgate-original-topic"],
        config.kafka.topics.drafts.as_str()
    );
    assert_eq!(
        headers["factgate-original-partition"],
        delivered.partition.to_string().as_str()
    );
    assert_eq!(
        headers["factgate-original-offset"],
        delivered.offset.to_string().as_str()
    );
    assert!(
        headers["factgate-original-timestamp"]
            .as_str()
            .is_some_and(|t| t.parse::<i64>().is_ok_and(|ms| ms > 0)),
        "{headers:#}"
    );

    roles.stop().await;
}

/// A record the broker took whole can be too large to dead-letter as it came once factgate's own
/// limit, the cause's headers and a long key are counted: it is still dead-lettered, its key as
/// it came and its payload cut to what the limit leaves, under the truncated schema, rather than
/// refused by the broker and only logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_oversized_record_with_a_long_key_is_dead_lettered_cut_to_the_limit() {
    const LIMIT: usize = 64 * 1024;
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let mut config = mock_cluster_config(broker.bootstrap_servers(), "");
    config
        .kafka
        .properties
        .insert("message.max.bytes".into(), LIMIT.to_string());
    let roles = start_roles(&config, &[Role::Extract]).await;
    let dead_letters = outside_reader(&config, &config.kafka.topics.dead_letter, "ops");
    // The CMS's producer has the broker's default limit (1 MB), above factgate's.
    let producer =
        EventProducer::new(&Config::default().kafka, broker.bootstrap_servers()).expect("producer");

    let key = "k".repeat(8 * 1024);
    let payload = vec![b'{'; LIMIT - 1024];
    timeout(
        Duration::from_secs(60),
        producer.produce(
            &config.kafka.topics.drafts,
            &key,
            &payload,
            &EventHeaders::new(DRAFT_V1, None),
        ),
    )
    .await
    .expect("the record is acknowledged in time")
    .expect("the record is delivered");

    let letter = timeout(Duration::from_secs(60), dead_letters.recv())
        .await
        .expect("a dead letter within a minute")
        .expect("the dead letter is read");
    let letter_key = letter.key().unwrap_or_default();
    assert_eq!(letter_key, key.as_bytes(), "the key as it came");
    let letter_payload = letter.payload().unwrap_or_default();
    assert!(
        !letter_payload.is_empty() && payload.starts_with(letter_payload),
        "the payload's beginning, as sent"
    );
    let headers_bytes: usize = letter
        .headers()
        .expect("headers")
        .iter()
        .map(|h| h.key.len() + h.value.map_or(0, <[u8]>::len))
        .sum();
    assert!(
        letter_key.len() + letter_payload.len() + headers_bytes <= LIMIT,
        "within factgate's limit"
    );
    let schema = letter
        .headers()
        .expect("headers")
        .iter()
        .find(|h| h.key == "factgate-schema")
        .and_then(|h| h.value)
        .map(|v| String::from_utf8_lossy(v).into_owned());
    assert_eq!(schema.as_deref(), Some("factgate.dead_letter.truncated.v1"));

    roles.stop().await;
}

/// The whole pipeline with its HTTP endpoint: an unreadable draft that names its article is
/// blocked, and the desk lists that decision with the others; one that names no article (not
/// JSON, no key) gets no decision, and the desk lists it apart, with where it was read and why,
/// collapsed to a count.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_desk_lists_an_unreadable_draft_with_where_and_why() {
    use crate::support::pipeline::{Served, decided, publish_draft, serve_on_embedded_broker};
    let Served {
        config,
        client,
        running,
        base,
        producer,
    } = serve_on_embedded_broker().await;

    // No published_at: unreadable, its article id and revision recoverable.
    let payload = br#"{"schema_version":"factgate.draft.v1","article_id":"desk-dlq-1","revision":4,"body":"x","body_format":"text"}"#;
    publish_draft(&producer, &config, "desk-dlq-1", payload).await;
    let until = tokio::time::Instant::now() + Duration::from_secs(60);
    let decision = decided(&client, &base, "desk-dlq-1", until).await;
    assert_eq!(decision["outcome"], "block", "{decision:#}");
    // Not JSON, and no key: nothing names the article.
    publish_draft(&producer, &config, "", b"\x00not json at all").await;

    // The board reads drafts apart from the roles: wait for the desk to list it.
    let page = loop {
        let page = crate::support::pipeline::html_page(&client, &format!("{base}/ui/")).await;
        if page.contains("data-unreadable=") || tokio::time::Instant::now() > until {
            break page;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let section = page
        .split("<section aria-labelledby=\"unreadable\"")
        .nth(1)
        .expect("the desk has a section of unreadable drafts");
    let section = section.split("</section>").next().unwrap_or_default();
    assert!(
        section.contains("<details>") && section.contains("1 draft with no decision"),
        "collapsed to a count: {section}"
    );
    assert_eq!(
        section.matches("data-unreadable=").count(),
        1,
        "only the draft that names no article: {section}"
    );
    assert!(
        section.contains(&format!(
            "data-unreadable=\"{}:",
            config.kafka.topics.drafts
        )),
        "where it was read (topic:partition:offset): {section}"
    );
    assert!(!section.contains("published_at"), "{section}");
    let table = page.split("id=\"list\"").nth(1).unwrap_or_default();
    assert!(
        table.contains("desk-dlq-1"),
        "the named draft's block is listed with the decisions: {page}"
    );

    running.stop().await;
}

/// A draft that is not JSON at all, keyed by its article as the CMS keys drafts, with its
/// revision in the `factgate-revision` header: the CMS gets a block (`draft_unreadable`) for
/// that article and revision, and the draft is dead-lettered. One with no key gets no decision,
/// and its dead letter says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_that_is_not_json_is_blocked_for_the_article_its_key_names() {
    let broker: &'static EmbeddedBroker = Box::leak(Box::new(
        EmbeddedBroker::start(&Config::default().kafka).expect("embedded broker starts"),
    ));
    let config = mock_cluster_config(broker.bootstrap_servers(), "");
    let roles = start_roles(&config, &[Role::Extract]).await;
    let dead_letters = outside_reader(&config, &config.kafka.topics.dead_letter, "ops");
    let decisions = outside_reader(&config, &config.kafka.topics.decisions, "cms");
    let producer = EventProducer::new(&config.kafka, broker.bootstrap_servers()).expect("producer");

    let headers = EventHeaders::new(DRAFT_V1, None).with("factgate-revision", "4");
    timeout(
        Duration::from_secs(60),
        producer.produce(
            &config.kafka.topics.drafts,
            "keyed-7",
            b"<html>not a draft</html>",
            &headers,
        ),
    )
    .await
    .expect("the draft is acknowledged in time")
    .expect("the draft is delivered");
    let decision = timeout(Duration::from_secs(60), decisions.recv())
        .await
        .expect("a decision within a minute")
        .expect("the decision is read");
    let decision: Value =
        serde_json::from_slice(decision.payload().unwrap_or_default()).expect("decision JSON");
    assert_eq!(decision["article_id"], "keyed-7", "{decision:#}");
    assert_eq!(decision["revision"], 4, "{decision:#}");
    assert_eq!(decision["outcome"], "block", "{decision:#}");
    assert!(
        decision["reasons"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r == "draft_unreadable")),
        "{decision:#}"
    );
    let letter = timeout(Duration::from_secs(60), dead_letters.recv())
        .await
        .expect("a dead letter within a minute")
        .expect("the dead letter is read");
    assert_eq!(letter.key(), Some(&b"keyed-7"[..]));

    // No key, nothing in the payload: dead-lettered, and the letter says no decision answers it.
    let delivered = timeout(
        Duration::from_secs(60),
        producer.produce(
            &config.kafka.topics.drafts,
            "",
            b"\x00\x01 binary",
            &EventHeaders::new(DRAFT_V1, None),
        ),
    )
    .await
    .expect("the draft is acknowledged in time")
    .expect("the draft is delivered");
    let letter = timeout(Duration::from_secs(60), dead_letters.recv())
        .await
        .expect("a dead letter within a minute")
        .expect("the dead letter is read");
    let message = letter
        .headers()
        .expect("headers")
        .iter()
        .find(|h| h.key == "factgate-error-message")
        .and_then(|h| h.value)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default();
    assert!(message.contains("no decision was emitted"), "{message}");
    let original_offset = letter
        .headers()
        .expect("headers")
        .iter()
        .find(|h| h.key == "factgate-original-offset")
        .and_then(|h| h.value)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default();
    assert_eq!(original_offset, delivered.offset.to_string());
    // Nothing more on the decisions topic for it.
    assert!(
        timeout(Duration::from_secs(3), decisions.recv())
            .await
            .is_err(),
        "a decision for a draft that names no article"
    );

    roles.stop().await;
}
