//! A draft that cannot be read reaches the dead-letter topic as it was sent, with why and where it
//! was read in its headers (Kafka Connect style), and those headers follow
//! `schemas/dead_letter.v1.json`, the schema their `factgate-schema` header names. The extract
//! role runs on the embedded broker (librdkafka's mock cluster on 127.0.0.1); an outside
//! consumer reads `drafts.dlq` as an operator would.

mod support;

use std::time::Duration;

use factgate::config::Config;
use factgate::events::DRAFT_V1;
use factgate::kafka::{EmbeddedBroker, EventHeaders, EventProducer};
use factgate::pipeline::Role;
use rdkafka::Message;
use rdkafka::message::Headers;
use serde_json::{Map, Value};
use support::pipeline::{mock_cluster_config, outside_reader, start_roles};
use support::schema::{errors, validator};
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
