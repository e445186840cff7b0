//! What makes a sentence check-worthy, and the judgment of claims that cite nothing.

use crate::model::{ClaimKind, Figure, Prejudgment};

/// What one sentence states that could be checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SentenceFeatures {
    /// Every kind the sentence shows, sorted, without duplicates.
    pub kinds: Vec<ClaimKind>,
    /// The figures it states, in order.
    pub figures: Vec<crate::model::Figure>,
    /// Quoted spans without their quote marks.
    pub quotes: Vec<String>,
    /// Who the sentence attributes its content to ("according to Gartner" → "Gartner").
    pub attributed_to: Option<String>,
    /// Whether it speaks of a market, revenue, share or competitors.
    pub market: bool,
}

impl SentenceFeatures {
    /// Whether the sentence is a claim worth checking.
    pub fn is_check_worthy(&self) -> bool {
        !self.kinds.is_empty()
    }
}

/// Reads one sentence (markup already removed).
pub fn analyze(sentence: &str) -> SentenceFeatures {
    let _ = sentence;
    let _: Vec<Figure> = Vec::new();
    let _: Vec<ClaimKind> = Vec::new();
    SentenceFeatures::default()
}

/// The issue a check-worthy claim raises when it cites nothing.
pub fn prejudge(features: &SentenceFeatures) -> Prejudgment {
    let _ = features;
    Prejudgment {
        kind: crate::model::UnsourcedKind::Qualitative,
        severity: crate::model::Severity::Low,
        problem: String::new(),
        recommendation: String::new(),
    }
}
