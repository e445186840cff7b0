//! The LLM judge: each voter's vote or abstention, and the panel's time per claim.

use std::time::Duration;

use crate::metrics::{VoteLabel, label, metrics};
use factgate_core::quorum::{VoteOutcome, VoterRole, VoterVerdict};

/// The `vote` label of a voter's outcome.
fn vote_label(outcome: &VoteOutcome) -> VoteLabel {
    match outcome {
        VoteOutcome::Voted { verdict, .. } => match verdict {
            VoterVerdict::Supported => VoteLabel::Supported,
            VoterVerdict::Refuted => VoteLabel::Refuted,
            VoterVerdict::NotEnoughInfo => VoteLabel::NotEnoughInfo,
        },
        VoteOutcome::Abstained { .. } => VoteLabel::Abstained,
    }
}

/// One voter voted or abstained: the one place a vote is recorded.
pub fn vote_cast(voter: VoterRole, outcome: &VoteOutcome) {
    let vote: &'static str = vote_label(outcome).into();
    metrics()
        .llm_votes
        .with_label_values(&[label(voter), vote])
        .inc();
    match outcome {
        VoteOutcome::Abstained { reason } => {
            tracing::warn!(voter = %voter, reason = %reason, "llm voter abstained");
        }
        VoteOutcome::Voted { .. } => tracing::debug!(voter = %voter, vote, "llm voter voted"),
    }
}

/// The panel decided on one claim in `elapsed`, every voter and wait for a request slot
/// included.
pub fn panel_decided(elapsed: Duration) {
    metrics().llm_claim_duration.observe(elapsed.as_secs_f64());
}

/// The evidence sent to the LLM panel was cut to fit `llm.context_tokens`.
pub fn llm_evidence_cut(fit: &factgate_core::quorum::budget::EvidenceFit) {
    tracing::info!(
        passages_given = fit.passages_given,
        passages_sent = fit.passages_sent,
        cut_passage = fit.cut_passage.map(|i| i + 1),
        tokens_given = fit.tokens_given,
        tokens_sent = fit.tokens_sent,
        "llm evidence cut to fit llm.context_tokens"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vote_is_labelled_with_its_verdicts_serde_name() {
        for verdict in [
            VoterVerdict::Supported,
            VoterVerdict::Refuted,
            VoterVerdict::NotEnoughInfo,
        ] {
            let voted = VoteOutcome::Voted {
                verdict,
                quote: String::new(),
                reason: String::new(),
            };
            let json = serde_json::to_value(verdict).expect("serializes");
            let label: &'static str = vote_label(&voted).into();
            assert_eq!(json.as_str(), Some(label));
        }
        let abstained = VoteOutcome::Abstained {
            reason: "timed out".into(),
        };
        assert_eq!(<&str>::from(vote_label(&abstained)), "abstained");
    }
}
