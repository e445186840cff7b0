//! Offsets for the roles that keep many messages in flight: see [`crate::kafka::offsets`].

pub(super) use crate::kafka::offsets::{InOrderOffsets, store_next_offset};
