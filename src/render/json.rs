//! The decision events of checked articles, one compact JSON object per line (JSON Lines): the
//! `factgate.decision.v1` events the stream processor writes to `decisions`, so one `jq` filter
//! reads both.

use super::CheckedArticle;

/// One article's decision as one line of JSON, newline included.
pub fn decision_line(article: &CheckedArticle<'_>) -> String {
    // A decision is plain data (strings, numbers, enums): serializing it cannot fail.
    let mut line = serde_json::to_string(article.decision).unwrap_or_default();
    line.push('\n');
    line
}
