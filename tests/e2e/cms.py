#!/usr/bin/env python3
"""A newsroom CMS for factgate's end-to-end test, written with kafka-python (an outside client).

It joins a consumer group on the decisions topic, publishes the drafts of a JSON-lines file to the
drafts topic (keyed by article id, with the draft schema header and a W3C traceparent), and prints
every decision it reads to stdout as one JSON line, exactly as received. Progress goes to stderr.

It exits 0 once it has seen a decision for `--expect` distinct (article, revision) pairs and then
read on for `--settle` seconds (so a decision delivered twice is seen too), and 1 when
`--timeout` seconds pass first. Every wait is bounded.

    cms.py --bootstrap 127.0.0.1:9092 --drafts drafts.jsonl --expect 11 --timeout 150 --settle 5
"""

import argparse
import json
import os
import sys
import time

try:
    from kafka import KafkaConsumer, KafkaProducer
except ImportError:
    sys.stderr.write("cms.py: kafka-python is not installed: pip install kafka-python\n")
    sys.exit(3)

DRAFT_SCHEMA = b"factgate.draft.v1"


def log(message):
    sys.stderr.write(f"cms.py: {message}\n")
    sys.stderr.flush()


def traceparent():
    return f"00-{os.urandom(16).hex()}-{os.urandom(8).hex()}-01".encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--drafts", required=True, help="a file with one draft event per line")
    parser.add_argument("--expect", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--drafts-topic", default="drafts.published")
    parser.add_argument("--decisions-topic", default="decisions")
    parser.add_argument("--group", default="cms-e2e")
    args = parser.parse_args()
    give_up = time.monotonic() + args.timeout

    consumer = KafkaConsumer(
        args.decisions_topic,
        bootstrap_servers=args.bootstrap,
        group_id=args.group,
        client_id="cms-e2e",
        auto_offset_reset="earliest",
        enable_auto_commit=True,
        request_timeout_ms=30000,
    )

    producer = KafkaProducer(
        bootstrap_servers=args.bootstrap,
        client_id="cms-e2e",
        acks="all",
        linger_ms=5,
        request_timeout_ms=30000,
    )
    with open(args.drafts, encoding="utf-8") as drafts:
        lines = [line for line in drafts if line.strip()]
    sent = []
    for line in lines:
        draft = json.loads(line)
        sent.append(
            producer.send(
                args.drafts_topic,
                key=draft["article_id"].encode(),
                value=line.strip().encode(),
                headers=[("factgate-schema", DRAFT_SCHEMA), ("traceparent", traceparent())],
            )
        )
    for future in sent:
        future.get(timeout=max(1.0, give_up - time.monotonic()))
    producer.flush(timeout=10)
    producer.close(timeout=10)
    log(f"published {len(sent)} drafts to {args.drafts_topic}")

    decided = set()
    settle_until = None
    while True:
        now = time.monotonic()
        if settle_until is not None and now >= settle_until:
            break
        if now >= give_up:
            log(f"timed out after {args.timeout} s with {len(decided)} of {args.expect} decided")
            consumer.close()
            return 1
        batches = consumer.poll(timeout_ms=500)
        for records in batches.values():
            for record in records:
                try:
                    decision = json.loads(record.value)
                except ValueError:
                    log(f"not JSON at {record.topic}/{record.partition}@{record.offset}")
                    continue
                sys.stdout.write(json.dumps(decision, separators=(",", ":")) + "\n")
                sys.stdout.flush()
                decided.add((decision.get("article_id"), decision.get("revision")))
        if settle_until is None and len(decided) >= args.expect:
            log(f"all {args.expect} decided; reading on for {args.settle} s")
            settle_until = time.monotonic() + args.settle
    consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
