//! The board's feeder: every process reads drafts and decisions, from the beginning, into the
//! [`DecisionBoard`] behind its HTTP endpoint.

use super::DecisionBoard;
use crate::config::KafkaConfig;
use crate::internal_events;
use crate::kafka::{self, KafkaSetupError};
use factgate_core::events::{
    Decision, DraftEvent, DraftPosition, content_digest, recover_article_id,
};
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;

/// Why the feeder stopped before it was asked to.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    /// Its consumer could not be made or closed.
    #[error(transparent)]
    Setup(#[from] KafkaSetupError),
    /// Its consumer failed fatally, or could not subscribe.
    #[error("the board consumer's Kafka client")]
    Client(#[from] KafkaError),
}

/// Reads the drafts and decisions topics of `config` (at `bootstrap`) from the beginning into
/// `board` until `stop` resolves. The consumer group is unique to the process and stores no
/// offsets.
///
/// # Errors
/// The consumer could not be made or closed, or it failed fatally.
pub async fn feed(
    config: &KafkaConfig,
    bootstrap: &str,
    board: &DecisionBoard,
    stop: impl Future<Output = ()>,
) -> Result<(), FeedError> {
    let topics = &config.topics;
    let role = format!("board.{}", unique_suffix());
    let consumer = kafka::consumer(config, bootstrap, &role)?;
    consumer.subscribe(&[topics.drafts.as_str(), topics.decisions.as_str()])?;
    tokio::pin!(stop);
    let outcome = loop {
        let message = match kafka::next_or_stop(&consumer, &mut stop, "the board consumer").await {
            Ok(Some(message)) => message,
            Ok(None) => break Ok(()),
            Err(err) => break Err(FeedError::Client(err)),
        };
        let payload = message.payload().unwrap_or_default();
        if message.topic() == topics.decisions {
            match serde_json::from_slice::<Decision>(payload) {
                // Held as read: the board keeps a decision as its JSON.
                Ok(decision) => board.record_read(decision, payload),
                Err(err) => internal_events::board_decision_unread(&err),
            }
        } else {
            let position = DraftPosition {
                partition: message.partition(),
                offset: message.offset(),
            };
            match DraftEvent::from_json(payload) {
                // Read in full: the pages show its title, section and body.
                Ok(draft) => board.note_draft_event(&draft, Some(position)),
                Err(err) => {
                    // The article it names, as the extractor recovers it: the payload's id,
                    // else the record's key with the revision header.
                    let recovered = recover_article_id(payload).or_else(|| {
                        let revision =
                            kafka::headers::header_str(&message, kafka::headers::REVISION_HEADER)
                                .and_then(|r| r.trim().parse().ok());
                        factgate_core::events::recover_from_key(message.key()?, revision)
                    });
                    // A draft that names its article is blocked, and the desk lists that
                    // decision; only one that names none gets no decision, and is listed
                    // apart.
                    if recovered.is_none() {
                        board.note_unreadable(
                            &format!("{}:{}", message.topic(), position),
                            &err.to_string(),
                        );
                    }
                    // Pending on what was published (the digest its block will carry), so
                    // a revision decided before on readable content does not keep showing
                    // that decision while the unreadable one is being answered.
                    if let Some(id) = recovered
                        && let Some(revision) = id.revision
                    {
                        board.note_publication(
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
