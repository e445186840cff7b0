//! What each stream-processing role decides, as pure functions.
