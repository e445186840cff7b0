//! The board: every process reads drafts and decisions, from the beginning, into the
//! [`crate::http::DecisionBoard`] behind its HTTP endpoint, so any instance can answer for any
//! article. Its consumer group is unique to the process and stores no offsets.

use super::{PipelineError, Services, next_or_stop, stopped};
use crate::internal_events;
use crate::kafka;
use factgate_core::events::{
    Decision, DraftEvent, DraftPosition, content_digest, recover_article_id,
};
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use std::sync::Arc;
use tokio::sync::watch;

pub(super) async fn run(
    services: Arc<Services>,
    stop: watch::Receiver<bool>,
) -> Result<(), PipelineError> {
    let topics = &services.config.kafka.topics;
    let role = format!("board.{}", unique_suffix());
    let consumer = kafka::consumer(&services.config.kafka, &services.bootstrap, &role)?;
    consumer.subscribe(&[topics.drafts.as_str(), topics.decisions.as_str()])?;
    let stop = stopped(stop);
    tokio::pin!(stop);
    let outcome = loop {
        let message = match next_or_stop(&consumer, &mut stop, "the board consumer").await {
            Ok(Some(message)) => message,
            Ok(None) => break Ok(()),
            Err(err) => break Err(err),
        };
        let payload = message.payload().unwrap_or_default();
        if message.topic() == topics.decisions {
            match serde_json::from_slice::<Decision>(payload) {
                // Held as read: the board keeps a decision as its JSON.
                Ok(decision) => services.board.record_read(decision, payload),
                Err(err) => internal_events::board_decision_unread(&err),
            }
        } else {
            let position = DraftPosition {
                partition: message.partition(),
                offset: message.offset(),
            };
            match DraftEvent::from_json(payload) {
                // Read in full: the pages show its title, section and body.
                Ok(draft) => services.board.note_draft_event(&draft, Some(position)),
                Err(err) => {
                    services.board.note_unreadable(
                        &format!("{}:{}", message.topic(), position),
                        &err.to_string(),
                    );
                    // Pending on what was published (the digest its block will carry), so
                    // a revision decided before on readable content does not keep showing
                    // that decision while the unreadable one is being answered.
                    if let Some(id) = recover_article_id(payload)
                        && let Some(revision) = id.revision
                    {
                        services.board.note_publication(
                            &id.article_id,
                            revision,
                            Some(position),
                            Some(content_digest(payload)),
                        );
                    }
                }
            }
        }
    };
    kafka::close_consumer(consumer).await?;
    outcome
}

/// A suffix that keeps this process's board group apart from every other process's.
fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{:x}", std::process::id(), nanos)
}
