//! Voter replies, votes and the quorum that turns three votes into a verdict.
//!
//! # Parsing a reply
//! A reply is the message content of one chat completion. It must be exactly one JSON object of
//! the shape the prompts state, parsed by serde into [`VoterReply`]: unknown fields, a missing
//! field or a verdict outside the three values are rejected. The only tolerance is one Markdown
//! fence: content that, once trimmed, starts with "```json" plus a line break, ends with "```",
//! and has no other "```" inside, is unwrapped once. Nothing else is searched for JSON: prose
//! around an object, several code blocks or truncated output make the reply invalid, and the
//! voter abstains. There is no keyword fallback (docs/failure-modes.md,
//! F4).
//!
//! # The quorum, fail-closed
//! A quorum rule often stated as "supported: at least 2 valid votes and fewer than 2
//! refutations" assumes voters that answer only refuted or not, so that every valid
//! non-refutation is a vote for the claim (docs/quorum.md). Our voters can also answer `not_enough_info`; read literally, the rule
//! would pass a claim on two "not enough info" votes, which fails open. So here:
//! - **refuted**: 2 or more valid votes are `refuted`;
//! - **supported**: 2 or more valid votes are `supported` (and so fewer than 2 refute);
//! - **inconclusive**: anything else, including all-abstain and any mix short of two agreeing votes.
//!
//! A `not_enough_info` vote is valid but counts neither way. An abstention counts for nothing.

use serde::{Deserialize, Serialize};

use super::budget::EvidenceFit;
use super::prompts::VoterRole;
use crate::model::Verdict;

/// How many votes of one kind carry the quorum.
pub const VOTES_REQUIRED: usize = 2;

/// What a voter may answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VoterVerdict {
    Supported,
    Refuted,
    NotEnoughInfo,
}

/// A voter's reply, exactly as the prompts specify it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoterReply {
    pub verdict: VoterVerdict,
    /// Verbatim from the evidence; empty only with `not_enough_info`.
    pub quote: String,
    pub reason: String,
}

/// Why a reply was not accepted as a vote.
#[derive(Debug, thiserror::Error)]
pub enum ReplyError {
    #[error("reply is not the required JSON object")]
    Schema(#[source] serde_json::Error),
    #[error("reply is not the required JSON object: it does not begin with `{{`")]
    NotAnObject,
    #[error("verdict {0:?} needs a quote from the evidence, and the quote is empty")]
    MissingQuote(VoterVerdict),
    #[error("quote is not in the evidence")]
    QuoteNotInEvidence,
}

/// Parses a reply's message content and checks its quote against the evidence the voter saw.
///
/// # Errors
/// [`ReplyError`] when the content is not exactly the reply object (see the module doc for the
/// one fence allowed), when a supported or refuted verdict has no quote, or when a non-empty
/// quote is not in the evidence once whitespace and quote marks are normalized.
pub fn parse_reply(content: &str, evidence: &[String]) -> Result<VoterReply, ReplyError> {
    let json = strip_one_json_fence(content.trim());
    // serde's derived struct also accepts a JSON array of the fields in order; the contract is
    // an object. (Parsing straight into the struct, not via a Value, keeps serde's rejection of
    // a duplicated field, where a Value would silently keep the last.)
    if !json.starts_with('{') {
        return Err(ReplyError::NotAnObject);
    }
    let reply: VoterReply = serde_json::from_str(json).map_err(ReplyError::Schema)?;
    let quote = normalize(&reply.quote);
    if quote.is_empty() {
        if reply.verdict != VoterVerdict::NotEnoughInfo {
            return Err(ReplyError::MissingQuote(reply.verdict));
        }
    } else if !evidence.iter().any(|p| normalize(p).contains(&quote)) {
        return Err(ReplyError::QuoteNotInEvidence);
    }
    Ok(reply)
}

/// Unwraps "```json\n{…}\n```" once; returns anything else unchanged, for serde to accept or
/// reject.
fn strip_one_json_fence(content: &str) -> &str {
    let Some(rest) = content.strip_prefix("```json") else {
        return content;
    };
    let Some(inner) = rest.strip_suffix("```") else {
        return content;
    };
    // The language tag must end the opening line, and the body must hold no other fence: two
    // blocks, or a fence inside, are not "one object in one fence".
    if !(inner.starts_with('\n') || inner.starts_with("\r\n")) || inner.contains("```") {
        return content;
    }
    inner.trim()
}

/// Collapses whitespace runs to one space and curly quote marks to straight ones, so a quote
/// that differs from its passage only in typography still matches.
fn normalize(text: &str) -> String {
    let mapped = text.chars().map(|c| match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' => '"',
        other => other,
    });
    let mut out = String::with_capacity(text.len());
    for c in mapped {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// One voter's contribution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Vote {
    pub voter: VoterRole,
    pub outcome: VoteOutcome,
}

/// A valid vote, or an abstention with the reason it is not one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum VoteOutcome {
    Voted {
        verdict: VoterVerdict,
        quote: String,
        reason: String,
    },
    /// The request failed or the reply was invalid; `reason` says which, never with the API key.
    Abstained { reason: String },
}

/// The panel's verdict, every vote behind it, and what the voters were shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuorumOutcome {
    pub verdict: Verdict,
    pub votes: Vec<Vote>,
    /// The evidence given and sent, and whether it was cut to fit the context window.
    pub evidence: EvidenceFit,
    /// How long the panel took on this claim, waits for a request slot included.
    pub elapsed_ms: u64,
}

impl QuorumOutcome {
    /// The verdict, each vote (an abstention with its reason) and any cut of the evidence, on
    /// one line for a claim's result: "llm quorum unconfirmed: verifier supported, skeptic
    /// abstained (request timed out), numbers_auditor not_enough_info".
    pub fn summary(&self) -> String {
        let votes: Vec<String> = self
            .votes
            .iter()
            .map(|v| match &v.outcome {
                VoteOutcome::Voted { verdict, .. } => {
                    format!("{} {}", v.voter, verdict_name(*verdict))
                }
                VoteOutcome::Abstained { reason } => format!("{} abstained ({reason})", v.voter),
            })
            .collect();
        let verdict = self.verdict.as_str();
        let mut text = format!("llm quorum {verdict}: {}", votes.join(", "));
        if let Some(cut) = self.evidence.describe() {
            text.push_str("; ");
            text.push_str(&cut);
        }
        text
    }

    /// The verdict and the count of each kind of vote, for an editor: "unconfirmed: 1
    /// supported, 2 abstained".
    pub fn tally(&self) -> String {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for vote in &self.votes {
            let name = match &vote.outcome {
                VoteOutcome::Voted { verdict, .. } => match verdict {
                    VoterVerdict::Supported => "supported",
                    VoterVerdict::Refuted => "refuted",
                    VoterVerdict::NotEnoughInfo => "not enough information",
                },
                VoteOutcome::Abstained { .. } => "abstained",
            };
            match counts.iter_mut().find(|(n, _)| *n == name) {
                Some((_, count)) => *count += 1,
                None => counts.push((name, 1)),
            }
        }
        let verdict = self.verdict.as_str();
        let counts: Vec<String> = counts.iter().map(|(n, c)| format!("{c} {n}")).collect();
        format!("LLM quorum {verdict}: {}", counts.join(", "))
    }
}

fn verdict_name(verdict: VoterVerdict) -> &'static str {
    match verdict {
        VoterVerdict::Supported => "supported",
        VoterVerdict::Refuted => "refuted",
        VoterVerdict::NotEnoughInfo => "not_enough_info",
    }
}

/// Applies the fail-closed quorum rule of the module doc.
pub fn decide(votes: &[Vote]) -> Verdict {
    let count = |wanted: VoterVerdict| {
        votes
            .iter()
            .filter(
                |v| matches!(&v.outcome, VoteOutcome::Voted { verdict, .. } if *verdict == wanted),
            )
            .count()
    };
    let refuted = count(VoterVerdict::Refuted);
    let supported = count(VoterVerdict::Supported);
    if refuted >= VOTES_REQUIRED {
        Verdict::Refuted
    } else if supported >= VOTES_REQUIRED {
        Verdict::Supported
    } else {
        Verdict::Unconfirmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Option<VoterVerdict> = Some(VoterVerdict::Supported);
    const R: Option<VoterVerdict> = Some(VoterVerdict::Refuted);
    const N: Option<VoterVerdict> = Some(VoterVerdict::NotEnoughInfo);
    const A: Option<VoterVerdict> = None;

    fn votes(outcomes: &[Option<VoterVerdict>]) -> Vec<Vote> {
        outcomes
            .iter()
            .zip(VoterRole::ALL)
            .map(|(o, voter)| Vote {
                voter,
                outcome: match o {
                    Some(verdict) => VoteOutcome::Voted {
                        verdict: *verdict,
                        quote: "q".into(),
                        reason: "r".into(),
                    },
                    None => VoteOutcome::Abstained {
                        reason: "timed out".into(),
                    },
                },
            })
            .collect()
    }

    #[test]
    fn the_summary_names_every_vote_and_the_cut() {
        let outcome = QuorumOutcome {
            verdict: Verdict::Unconfirmed,
            votes: votes(&[S, A, N]),
            evidence: EvidenceFit {
                budget_tokens: 100,
                passages_given: 3,
                tokens_given: 300,
                passages_sent: 2,
                tokens_sent: 98,
                cut_passage: Some(1),
            },
            elapsed_ms: 1200,
        };
        assert_eq!(
            outcome.summary(),
            "llm quorum unconfirmed: verifier supported, skeptic abstained (timed out), \
             numbers_auditor not_enough_info; evidence cut to fit llm.context_tokens: 2 of 3 \
             passages sent, passage 2 cut short, about 98 of 300 tokens"
        );
    }

    #[test]
    fn quorum_rule_table() {
        use Verdict::*;
        let table: &[(&[Option<VoterVerdict>], Verdict)] = &[
            (&[S, S, S], Supported),
            (&[S, S, R], Supported),
            (&[S, S, N], Supported),
            (&[S, S, A], Supported),
            (&[R, R, R], Refuted),
            (&[R, R, S], Refuted),
            (&[R, R, A], Refuted),
            (&[R, R, N], Refuted),
            (&[S, R, N], Unconfirmed),
            (&[S, R, A], Unconfirmed),
            (&[S, A, A], Unconfirmed),
            (&[R, A, A], Unconfirmed),
            // Fail-closed: "not enough info" is a valid vote but never support.
            (&[N, N, N], Unconfirmed),
            (&[N, N, A], Unconfirmed),
            (&[S, N, N], Unconfirmed),
            (&[A, A, A], Unconfirmed),
            (&[], Unconfirmed),
        ];
        for (outcomes, expected) in table {
            assert_eq!(decide(&votes(outcomes)), *expected, "votes {outcomes:?}");
        }
    }

    fn evidence() -> Vec<String> {
        vec!["The plan costs $9 per month,\n  the company said.".to_string()]
    }

    #[test]
    fn a_well_formed_reply_is_accepted_with_typographic_normalization() {
        let content = r#"{"verdict":"refuted","quote":"costs $9 per month, the company said","reason":"price differs"}"#;
        let reply = parse_reply(content, &evidence()).expect("valid");
        assert_eq!(reply.verdict, VoterVerdict::Refuted);
        let curly = "{\"verdict\":\"supported\",\"quote\":\"The plan costs $9\",\"reason\":\"\u{201C}ok\u{201D}\"}";
        assert!(parse_reply(curly, &evidence()).is_ok());
    }

    #[test]
    fn one_json_fence_is_unwrapped_and_nothing_looser() {
        let body = r#"{"verdict":"not_enough_info","quote":"","reason":"no figure"}"#;
        assert!(parse_reply(&format!("```json\n{body}\n```"), &evidence()).is_ok());
        assert!(parse_reply(&format!("  ```json\r\n{body}```  "), &evidence()).is_ok());
        for bad in [
            format!("Here is my answer:\n```json\n{body}\n```"),
            format!("```json\n{body}\n```\n```json\n{body}\n```"),
            format!("```json {body}```"),
            format!("```\n{body}\n```"),
            format!("The verdict is {body}"),
            format!("{body} hope this helps"),
            body[..body.len() - 3].to_string(),
        ] {
            assert!(
                matches!(
                    parse_reply(&bad, &evidence()),
                    Err(ReplyError::Schema(_) | ReplyError::NotAnObject)
                ),
                "accepted {bad:?}"
            );
        }
    }

    #[test]
    fn the_schema_is_strict() {
        for bad in [
            r#"{"verdict":"maybe","quote":"","reason":"r"}"#,
            r#"{"verdict":"Supported","quote":"The plan","reason":"r"}"#,
            r#"{"verdict":"supported","quote":"The plan"}"#,
            r#"{"verdict":"supported","quote":"The plan","reason":"r","confidence":0.9}"#,
            r#"["supported","The plan","r"]"#,
            r#"{"verdict":"refuted","verdict":"supported","quote":"The plan","reason":"r"}"#,
            "This claim is NOT verified.",
        ] {
            assert!(parse_reply(bad, &evidence()).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn quotes_must_come_from_the_evidence() {
        let invented = r#"{"verdict":"supported","quote":"costs $4 per month","reason":"r"}"#;
        assert!(matches!(
            parse_reply(invented, &evidence()),
            Err(ReplyError::QuoteNotInEvidence)
        ));
        let empty = r#"{"verdict":"refuted","quote":"  ","reason":"r"}"#;
        assert!(matches!(
            parse_reply(empty, &evidence()),
            Err(ReplyError::MissingQuote(VoterVerdict::Refuted))
        ));
        let nei_invented = r#"{"verdict":"not_enough_info","quote":"made up","reason":"r"}"#;
        assert!(parse_reply(nei_invented, &evidence()).is_err());
    }
}
