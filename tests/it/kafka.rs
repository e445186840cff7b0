//! The Kafka plumbing on the embedded broker (librdkafka's mock cluster, on 127.0.0.1): topics,
//! round trips with headers, offsets that follow outputs, and the producer under injected faults;
//! and, on tansu, a role resuming inside a record batch.
//! Every wait is bounded, so a failure fails rather than hangs.

use std::time::Duration;

use factgate::config::KafkaConfig;
use factgate::kafka::headers::{read_schema, read_trace_context};
use factgate::kafka::{
    ConsumeError, EmbeddedBroker, EventHeaders, EventProducer, RDKafkaApiKey, RDKafkaRespErr,
    RoleConsumer, close_consumer, consume_at_least_once, consume_in_flight, ensure_topics,
};
use factgate::telemetry::SpanContextOf;
use factgate_core::events::{DRAFT_V1, MANIFEST_V1};
use rdkafka::consumer::{BaseConsumer, Consumer, StreamConsumer};
use rdkafka::message::BorrowedMessage;
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::util::Timeout;
use rdkafka::{ClientConfig, Message};
use tokio::time::timeout;

/// Upper bound of any single wait: group joins on the mock cluster take a few seconds.
const WAIT: Duration = Duration::from_secs(30);

fn config(partitions: u32) -> KafkaConfig {
    let mut config = KafkaConfig {
        partitions,
        ..KafkaConfig::default()
    };
    // The mock cluster keeps a group that its last member left "rebalancing" for the session
    // timeout less a second before it admits a new member (a real broker empties the group at
    // once); the default 45 s would make every restart test wait that long.
    config
        .properties
        .insert("session.timeout.ms".into(), "6000".into());
    config
}

fn start(partitions: u32) -> (KafkaConfig, EmbeddedBroker) {
    let config = config(partitions);
    let broker = EmbeddedBroker::start(&config).expect("embedded broker starts");
    (config, broker)
}

async fn recv<'c>(
    consumer: &'c StreamConsumer<impl rdkafka::consumer::ConsumerContext + 'static>,
) -> BorrowedMessage<'c> {
    timeout(WAIT, consumer.recv())
        .await
        .expect("a message arrives in time")
        .expect("no consumer error")
}

fn text(message: &impl Message) -> (String, String) {
    let key = String::from_utf8_lossy(message.key().unwrap_or_default()).into_owned();
    let payload = String::from_utf8_lossy(message.payload().unwrap_or_default()).into_owned();
    (key, payload)
}

async fn produce_n(producer: &EventProducer, topic: &str, n: usize) {
    let headers = EventHeaders::new(DRAFT_V1, None);
    for i in 0..n {
        timeout(
            WAIT,
            producer.produce(topic, "article-1", format!("m{i}").as_bytes(), &headers),
        )
        .await
        .expect("delivered in time")
        .expect("delivered");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_broker_listens_on_loopback_with_every_topic_at_the_configured_partitions() {
    let (config, broker) = start(3);
    let bootstrap = broker.bootstrap_servers().to_owned();
    assert!(
        bootstrap.split(',').all(|b| b.starts_with("127.0.0.1:")),
        "{bootstrap}"
    );

    // Read the metadata with a client that knows nothing of factgate.
    let outside: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .create()
        .expect("outside client");
    let metadata = tokio::task::spawn_blocking(move || outside.fetch_metadata(None, WAIT))
        .await
        .expect("metadata task")
        .expect("metadata");
    for (_, topic) in config.topics.named() {
        let found = metadata
            .topics()
            .iter()
            .find(|t| t.name() == topic)
            .unwrap_or_else(|| panic!("topic {topic} missing"));
        assert_eq!(found.partitions().len(), 3, "{topic}");
    }

    // The topics are there, so ensure_topics creates nothing, however often it runs.
    for _ in 0..2 {
        let ensured = ensure_topics(&config, &bootstrap)
            .await
            .expect("ensure_topics");
        assert!(ensured.created.is_empty(), "{ensured:?}");
        let mut existing = ensured.existing.clone();
        existing.sort();
        let mut want: Vec<(String, usize)> = config
            .topics
            .named()
            .iter()
            .map(|(_, t)| ((*t).to_owned(), 3))
            .collect();
        want.sort();
        assert_eq!(existing, want);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_trip_keeps_key_payload_and_headers_and_the_trace_is_propagated() {
    let (config, broker) = start(2);
    let bootstrap = broker.bootstrap_servers();
    let producer = EventProducer::new(&config, bootstrap).expect("producer");

    let sent = EventHeaders::new(DRAFT_V1, None);
    let delivered = timeout(
        WAIT,
        producer.produce(&config.topics.drafts, "article-7", b"{\"draft\":1}", &sent),
    )
    .await
    .expect("in time")
    .expect("delivered");

    let extract = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    extract
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    let message = recv(&extract).await;
    assert_eq!(text(&message), ("article-7".into(), "{\"draft\":1}".into()));
    assert_eq!(
        (message.partition(), message.offset()),
        (delivered.partition, delivered.offset)
    );
    assert_eq!(read_schema(&message), Some(DRAFT_V1));
    let incoming = read_trace_context(&message).expect("a valid traceparent arrives");
    assert_eq!(incoming, sent.trace);
    let re = regex::Regex::new(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-01$").expect("regex");
    assert!(re.is_match(&incoming.to_string()), "{incoming}");

    // What the draft causes carries the same trace, as a new span.
    let onward = EventHeaders::new(MANIFEST_V1, Some(&incoming));
    timeout(
        WAIT,
        producer.produce(&config.topics.manifests, "article-7", b"{}", &onward),
    )
    .await
    .expect("in time")
    .expect("delivered");
    let join = factgate::kafka::consumer(&config, bootstrap, "join").expect("consumer");
    join.subscribe(&[&config.topics.manifests])
        .expect("subscribe");
    let message = recv(&join).await;
    assert_eq!(read_schema(&message), Some(MANIFEST_V1));
    let propagated = read_trace_context(&message).expect("a valid traceparent arrives");
    let (propagated_ids, incoming_ids) = (propagated.span_context(), incoming.span_context());
    assert_eq!(propagated_ids.trace_id(), incoming_ids.trace_id());
    assert_ne!(propagated_ids.span_id(), incoming_ids.span_id());
    assert!(re.is_match(&propagated.to_string()), "{propagated}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_consumer_in_the_group_resumes_at_the_first_unacknowledged_message() {
    let (config, broker) = start(1);
    let bootstrap = broker.bootstrap_servers();
    let producer = EventProducer::new(&config, bootstrap).expect("producer");
    produce_n(&producer, &config.topics.drafts, 5).await;

    // Consume five, acknowledge (store) the first three, then go away.
    let first = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    first
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    for i in 0..5 {
        let message = recv(&first).await;
        assert_eq!(text(&message).1, format!("m{i}"));
        if i < 3 {
            first.store_offset_from_message(&message).expect("store");
        }
    }
    close_consumer(first).await.expect("close");

    let second = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    second
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    assert_eq!(text(&recv(&second).await).1, "m3");
    assert_eq!(text(&recv(&second).await).1, "m4");
}

#[derive(Debug, thiserror::Error)]
#[error("outputs not acknowledged")]
struct NotAcknowledged;

/// Runs `consume_at_least_once` on `consumer`, every handler acknowledged, until `n` messages
/// were read and `linger` more has passed; returns their payloads in order.
async fn acknowledge_n(consumer: &RoleConsumer, n: usize, linger: Duration) -> Vec<String> {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let mut stop_tx = Some(stop_tx);
    let mut seen = Vec::new();
    let shutdown = async move {
        let _ = stop_rx.await;
        tokio::time::sleep(linger).await;
    };
    timeout(
        WAIT,
        consume_at_least_once(consumer, shutdown, |message| {
            seen.push(text(&message).1);
            if seen.len() == n
                && let Some(stop) = stop_tx.take()
            {
                let _ = stop.send(());
            }
            async { Ok::<(), NotAcknowledged>(()) }
        }),
    )
    .await
    .unwrap_or_else(|_| panic!("{n} messages arrive in time"))
    .expect("clean stop");
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consume_at_least_once_reads_again_what_the_handler_did_not_acknowledge() {
    let (config, broker) = start(1);
    let bootstrap = broker.bootstrap_servers();
    let producer = EventProducer::new(&config, bootstrap).expect("producer");
    produce_n(&producer, &config.topics.drafts, 5).await;

    // The handler gets its outputs acknowledged for m0..m2, and fails on m3.
    let first = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    first
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    let mut seen = Vec::new();
    let outcome = timeout(
        WAIT,
        consume_at_least_once(&first, std::future::pending(), |message| {
            let payload = text(&message).1;
            seen.push(payload.clone());
            async move {
                if payload == "m3" {
                    Err(NotAcknowledged)
                } else {
                    Ok(())
                }
            }
        }),
    )
    .await
    .expect("the loop stops on the failed handler");
    match outcome {
        Err(ConsumeError::Handler { offset, .. }) => assert_eq!(offset, 3),
        other => panic!("expected a handler error, got {other:?}"),
    }
    assert_eq!(seen, ["m0", "m1", "m2", "m3"]);
    close_consumer(first).await.expect("close");

    // The restarted role reads m3 and m4 again, and stops on its shutdown signal.
    let second = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    second
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    let seen = acknowledge_n(&second, 2, Duration::ZERO).await;
    assert_eq!(seen, ["m3", "m4"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consume_in_flight_runs_keys_side_by_side_one_key_in_order_and_stores_no_offset_past_work_in_hand()
 {
    let (config, broker) = start(1);
    let bootstrap = broker.bootstrap_servers();
    let producer = EventProducer::new(&config, bootstrap).expect("producer");
    let headers = EventHeaders::new(DRAFT_V1, None);
    let keys = ["a", "b", "a", "b", "c", "a"];
    for (i, key) in keys.iter().enumerate() {
        producer
            .produce(
                &config.topics.drafts,
                key,
                format!("m{i}").as_bytes(),
                &headers,
            )
            .await
            .expect("delivered");
    }

    // m1 (key b) is held until m5 is done, then fails: its outputs were never acknowledged.
    let first = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    first
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let outcome = timeout(
        WAIT,
        consume_in_flight(&first, std::future::pending(), 8, |message| {
            let payload = text(&message).1;
            let log = std::sync::Arc::clone(&log);
            async move {
                log.lock().unwrap().push(format!("start {payload}"));
                if payload == "m1" {
                    while !log.lock().unwrap().iter().any(|e| e == "end m5") {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                    return Err(NotAcknowledged);
                }
                tokio::time::sleep(Duration::from_millis(30)).await;
                log.lock().unwrap().push(format!("end {payload}"));
                Ok(())
            }
        }),
    )
    .await
    .expect("the loop stops on the failed handler");
    match outcome {
        Err(ConsumeError::Handler { offset, .. }) => assert_eq!(offset, 1),
        other => panic!("expected a handler error, got {other:?}"),
    }
    let log = log.lock().unwrap().clone();
    let at = |entry: &str| {
        log.iter()
            .position(|e| e == entry)
            .unwrap_or_else(|| panic!("{entry} missing from {log:?}"))
    };
    // Other keys ran while m1 was in hand; key a's messages one after another, in order.
    assert!(at("end m4") > at("start m1"), "{log:?}");
    assert!(at("end m0") < at("start m2"), "{log:?}");
    assert!(at("end m2") < at("start m5"), "{log:?}");
    // m3 waits behind m1, its key's earlier message, which never finished.
    assert!(!log.iter().any(|e| e == "start m3"), "{log:?}");
    close_consumer(first).await.expect("close");

    // m2, m4 and m5 were done, but the offset never passed m1: everything from m1 is read again.
    let second = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    second
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    let seen = acknowledge_n(&second, 5, Duration::ZERO).await;
    assert_eq!(seen, ["m1", "m2", "m3", "m4", "m5"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_idempotent_producer_delivers_through_injected_produce_errors_without_duplicates() {
    let (config, broker) = start(1);
    let bootstrap = broker.bootstrap_servers();
    let topic = &config.topics.verify;
    use RDKafkaRespErr::*;
    let errors = [
        RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
        RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
    ];

    // Control: the same errors defeat a producer that may not retry, so they do reach producers.
    let fragile: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("retries", "0")
        .create()
        .expect("fragile producer");
    broker
        .inject_request_errors(RDKafkaApiKey::Produce, &errors)
        .expect("inject");
    let refused = timeout(
        WAIT,
        fragile.send(
            FutureRecord::to(topic).key("k").payload("x"),
            Timeout::Never,
        ),
    )
    .await
    .expect("in time");
    assert!(
        refused.is_err(),
        "a producer without retries got through: {refused:?}"
    );
    broker
        .clear_request_errors(RDKafkaApiKey::Produce)
        .expect("clear");

    let producer = EventProducer::new(&config, bootstrap).expect("producer");
    broker
        .inject_request_errors(RDKafkaApiKey::Produce, &errors)
        .expect("inject");
    produce_n(&producer, topic, 3).await;

    // Each record is stored exactly once, in order.
    let reader = factgate::kafka::consumer(&config, bootstrap, "verify").expect("consumer");
    reader.subscribe(&[topic.as_str()]).expect("subscribe");
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push(text(&recv(&reader).await).1);
    }
    assert_eq!(got, ["m0", "m1", "m2"]);
    let extra = timeout(Duration::from_secs(2), reader.recv()).await;
    assert!(
        extra.is_err(),
        "a duplicate arrived: {:?}",
        extra.map(|m| m.map(|m| text(&m)))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn produce_waits_out_a_broker_outage_and_then_succeeds() {
    let (config, broker) = start(1);
    let bootstrap = broker.bootstrap_servers();
    let producer = EventProducer::new(&config, bootstrap).expect("producer");
    produce_n(&producer, &config.topics.decisions, 1).await;

    broker.broker_down(1).expect("down");
    let pending = {
        let producer = producer.clone();
        let topic = config.topics.decisions.clone();
        tokio::spawn(async move {
            let headers = EventHeaders::new(DRAFT_V1, None);
            producer
                .produce(&topic, "article-1", b"during outage", &headers)
                .await
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        !pending.is_finished(),
        "delivered while the broker was down"
    );

    broker.broker_up(1).expect("up");
    let delivered = timeout(WAIT, pending)
        .await
        .expect("delivered in time after the broker came back")
        .expect("task")
        .expect("delivered");
    assert_eq!(delivered.offset, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_rdkafka_client_produces_and_consumes_on_the_embedded_broker() {
    let (config, broker) = start(2);
    let bootstrap = broker.bootstrap_servers();

    // A CMS-like client, configured with nothing but the address.
    let outside: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .expect("outside producer");
    timeout(
        WAIT,
        outside.send(
            FutureRecord::to(&config.topics.drafts)
                .key("a-1")
                .payload("draft"),
            Timeout::Never,
        ),
    )
    .await
    .expect("in time")
    .expect("delivered");
    let extract = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    extract
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    assert_eq!(text(&recv(&extract).await), ("a-1".into(), "draft".into()));

    // And it reads what factgate produces.
    let producer = EventProducer::new(&config, bootstrap).expect("producer");
    let headers = EventHeaders::new("factgate.decision.v1", None);
    timeout(
        WAIT,
        producer.produce(&config.topics.decisions, "a-1", b"pass", &headers),
    )
    .await
    .expect("in time")
    .expect("delivered");
    let reader: StreamConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", "cms")
        .set("auto.offset.reset", "earliest")
        .create()
        .expect("outside consumer");
    reader
        .subscribe(&[&config.topics.decisions])
        .expect("subscribe");
    let message = recv(&reader).await;
    assert_eq!(text(&message), ("a-1".into(), "pass".into()));
    assert_eq!(read_trace_context(&message), Some(headers.trace));
}

/// kcat stands in for the CMS and the operator. CI installs it; elsewhere the test says it
/// skipped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kcat_produces_to_and_consumes_from_the_embedded_broker() {
    if std::process::Command::new("kcat")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!(
            "SKIPPED kcat_produces_to_and_consumes_from_the_embedded_broker: kcat is not installed (apt-get install kcat)"
        );
        return;
    }
    let (config, broker) = start(2);
    let bootstrap = broker.bootstrap_servers().to_owned();

    let mut produce = tokio::process::Command::new("kcat")
        .args([
            "-b",
            &bootstrap,
            "-P",
            "-t",
            &config.topics.drafts,
            "-K",
            ":",
        ])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("kcat -P starts");
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = produce.stdin.take().expect("stdin");
        stdin
            .write_all(b"article-9:{\"body\":\"hi\"}\n")
            .await
            .expect("write");
    }
    let status = timeout(WAIT, produce.wait())
        .await
        .expect("kcat -P ends")
        .expect("status");
    assert!(status.success(), "kcat -P failed: {status}");

    let extract =
        factgate::kafka::consumer(&config, bootstrap.as_str(), "extract").expect("consumer");
    extract
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    assert_eq!(
        text(&recv(&extract).await),
        ("article-9".into(), "{\"body\":\"hi\"}".into())
    );

    let producer = EventProducer::new(&config, &bootstrap).expect("producer");
    let headers = EventHeaders::new("factgate.decision.v1", None);
    timeout(
        WAIT,
        producer.produce(&config.topics.decisions, "article-9", b"block", &headers),
    )
    .await
    .expect("in time")
    .expect("delivered");
    let consumed = timeout(
        WAIT,
        tokio::process::Command::new("kcat")
            .args(["-b", &bootstrap, "-C", "-t", &config.topics.decisions])
            .args(["-o", "beginning", "-c", "1", "-e", "-f", "%k|%s|%h\n"])
            .output(),
    )
    .await
    .expect("kcat -C ends")
    .expect("kcat -C runs");
    let out = String::from_utf8_lossy(&consumed.stdout);
    assert!(
        consumed.status.success(),
        "kcat -C failed: {}",
        String::from_utf8_lossy(&consumed.stderr)
    );
    assert!(out.starts_with("article-9|block|"), "{out}");
    assert!(
        out.contains(&format!("traceparent={}", headers.trace.traceparent())),
        "{out}"
    );
    assert!(
        out.contains("factgate-schema=factgate.decision.v1"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumption_survives_fetch_and_offset_commit_errors_and_commits_what_was_acknowledged() {
    use RDKafkaRespErr::*;
    let (config, broker) = start(1);
    let bootstrap = broker.bootstrap_servers();
    let producer = EventProducer::new(&config, bootstrap).expect("producer");
    produce_n(&producer, &config.topics.drafts, 5).await;

    broker
        .inject_request_errors(
            RDKafkaApiKey::Fetch,
            &[
                RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
            ],
        )
        .expect("inject");
    broker
        .inject_request_errors(
            RDKafkaApiKey::OffsetCommit,
            &[
                RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
            ],
        )
        .expect("inject");
    let consumer = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    consumer
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    // Keep reading a few commit intervals after the last message, so the background commits
    // run into the injected errors and retry.
    let seen = acknowledge_n(&consumer, 5, Duration::from_secs(4)).await;
    assert_eq!(seen, ["m0", "m1", "m2", "m3", "m4"]);
    close_consumer(consumer).await.expect("close");

    // Everything acknowledged is committed, despite the refused commits.
    let reader = factgate::kafka::consumer(&config, bootstrap, "extract").expect("consumer");
    let mut tpl = rdkafka::TopicPartitionList::new();
    tpl.add_partition(&config.topics.drafts, 0);
    let offsets = tokio::task::spawn_blocking(move || reader.committed_offsets(tpl, WAIT))
        .await
        .expect("task")
        .expect("committed offsets");
    assert_eq!(offsets.elements()[0].offset(), rdkafka::Offset::Offset(5));
}

/// The embedded broker keeps only the last 5 MiB of a partition (librdkafka's mock cluster
/// deletes older records as new ones arrive). A role whose next record is gone skips to the oldest
/// one kept: that loss is counted and logged, not passed over in silence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_whose_next_records_the_broker_deleted_counts_the_loss() {
    let (config, broker) = start(1);
    let bootstrap = broker.bootstrap_servers().to_owned();
    let topic = config.topics.drafts.clone();
    let producer = EventProducer::new(&config, &bootstrap).expect("producer");
    let headers = EventHeaders::new(DRAFT_V1, None);
    // 8 MiB in 20 KiB records: the first records are deleted before anyone reads them.
    let record = vec![b'x'; 20 * 1024];
    let sent = 400;
    let deliveries = (0..sent).map(|_| producer.produce(&topic, "article-1", &record, &headers));
    for delivered in futures::future::join_all(deliveries).await {
        delivered.expect("delivered");
    }

    let role = "offset-reset-test-role";
    let consumer = factgate::kafka::consumer(&config, &bootstrap, role).expect("consumer");
    let mut from_start = rdkafka::TopicPartitionList::new();
    from_start
        .add_partition_offset(&topic, 0, rdkafka::Offset::Offset(0))
        .expect("partition added");
    consumer.assign(&from_start).expect("assigned");
    let first = recv(&consumer).await;
    let skipped = first.offset();
    assert!(
        skipped > 0 && skipped < i64::from(sent),
        "the oldest record kept is past the first one sent: {skipped}"
    );

    let series = format!(
        "factgate_consumer_offset_resets_total{{group=\"factgate-{role}\",role=\"{role}\",topic=\"{topic}\"}} 1"
    );
    let text = factgate::metrics::render();
    assert!(text.contains(&series), "no {series} in:\n{text}");
}

/// tansu (an independent Kafka-protocol broker) answers a fetch from inside a record batch with
/// the next batch. A role whose committed offset falls inside a batch (its records were produced
/// together, and it handled some of them before it stopped) must still read the rest of that
/// batch when it starts again: here m3 to m5 of one batch of six, after m0 to m2 were handled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_restarted_inside_a_record_batch_on_tansu_reads_on_from_its_committed_offset() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (_broker, port) = crate::support::tansu::start_broker(dir.path()).await;
    let bootstrap = format!("127.0.0.1:{port}");
    let mut config = config(1);
    // The six records wait for one another, so they go in one batch.
    config.properties.insert("linger.ms".into(), "500".into());
    timeout(WAIT, ensure_topics(&config, &bootstrap))
        .await
        .expect("topics in time")
        .expect("topics");
    let producer = EventProducer::new(&config, &bootstrap).expect("producer");
    let headers = EventHeaders::new(DRAFT_V1, None);
    let payloads: Vec<String> = (0..6).map(|i| format!("m{i}")).collect();
    let sent = payloads.iter().map(|payload| {
        producer.produce(
            &config.topics.drafts,
            "article-1",
            payload.as_bytes(),
            &headers,
        )
    });
    let offsets: Vec<i64> = timeout(WAIT, futures::future::join_all(sent))
        .await
        .expect("delivered in time")
        .into_iter()
        .map(|delivered| delivered.expect("delivered").offset)
        .collect();
    assert_eq!(offsets, [0, 1, 2, 3, 4, 5]);

    // The role handles m0..m2 and fails on m3: its committed offset is 3, inside the batch.
    let first = factgate::kafka::consumer(&config, &bootstrap, "extract").expect("consumer");
    first
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    let outcome = timeout(
        WAIT,
        consume_at_least_once(&first, std::future::pending(), |message| {
            let failed = text(&message).1 == "m3";
            async move { if failed { Err(NotAcknowledged) } else { Ok(()) } }
        }),
    )
    .await
    .expect("the loop stops on the failed handler");
    assert!(
        matches!(outcome, Err(ConsumeError::Handler { offset: 3, .. })),
        "{outcome:?}"
    );
    close_consumer(first).await.expect("close");

    let second = factgate::kafka::consumer(&config, &bootstrap, "extract").expect("consumer");
    second
        .subscribe(&[&config.topics.drafts])
        .expect("subscribe");
    let seen = acknowledge_n(&second, 3, Duration::from_secs(1)).await;
    assert_eq!(seen, ["m3", "m4", "m5"]);
}
