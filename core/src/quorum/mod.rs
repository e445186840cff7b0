//! The LLM quorum's pure parts: which passages the voters see, the token budget that cuts
//! them to the context window, the voters' prompts, and the parsing of replies into votes and
//! the quorum rule. The service's `verify::llm` sends the requests.
//!
//! - [`passages`]: which passages of the source the voters see.
//! - [`budget`]: the token estimate and the evidence cut to fit the context window.
//! - [`prompts`]: the voters' system prompts and the user message.
//! - [`votes`]: reply parsing, votes and the quorum rule.

use std::time::Duration;

pub mod budget;
pub mod passages;
pub mod prompts;
pub mod votes;

pub use budget::EvidenceFit;
pub use passages::Lead;
pub use prompts::VoterRole;
pub use votes::{QuorumOutcome, Vote, VoteOutcome, VoterVerdict};

/// Voters per claim (docs/quorum.md).
pub const DEFAULT_VOTERS: usize = 3;
/// Time allowed for one voter's request, connection to last byte.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Requests in flight to the endpoint at once, per process: one claim's three voters and a
/// little more. A llama.cpp server answers as many at once as it has slots (`--parallel`).
pub const DEFAULT_MAX_CONCURRENT_REQUESTS: usize = 4;
/// The context window assumed, in tokens: 4096, the smallest window of the models in common
/// local use, so the default fits them all.
pub const DEFAULT_CONTEXT_TOKENS: usize = 4096;
/// The most tokens one reply may take. A reply is a verdict, a quote and a sentence or two:
/// about 100 tokens; a quote of a whole passage, a few hundred.
pub const DEFAULT_MAX_REPLY_TOKENS: usize = 512;
/// Evidence passages shown to the voters, best first, before the token budget.
pub const DEFAULT_MAX_PASSAGES: usize = 3;

/// The smallest context window the voters' prompts fit in with `max_reply_tokens` for the reply
/// and [`budget::MIN_EVIDENCE_TOKENS`] of evidence, for a short claim and URL.
pub fn min_context_tokens(max_reply_tokens: usize) -> usize {
    prompts::fixed_prompt_tokens("", "") + max_reply_tokens + budget::MIN_EVIDENCE_TOKENS
}
