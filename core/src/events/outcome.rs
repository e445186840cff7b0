//! A decision's outcome, pass or block: what the decision says and what a report of a
//! re-check compares with the previous one.

use serde::{Deserialize, Serialize};

/// Pass or block.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Outcome {
    Pass,
    Block,
}
