//! Feeds arbitrary bytes to the draft decoder and to the id recovery that answers an unreadable
//! draft: both must return, never panic, and a recovered id must satisfy the contract (non-blank,
//! at most 512 bytes). A draft that decodes is then extracted within the default limits, as the
//! extract role would.

#![no_main]

use factgate_core::events::{DraftEvent, MAX_ARTICLE_ID_BYTES, recover_article_id};
use factgate_core::extract::{ExtractLimits, extract_within};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(id) = recover_article_id(data) {
        assert!(!id.article_id.trim().is_empty());
        assert!(id.article_id.len() <= MAX_ARTICLE_ID_BYTES);
    }
    if let Ok(draft) = DraftEvent::from_json(data) {
        let _ = draft.content_digest();
        let _ = extract_within(&draft.body, draft.body_format, &ExtractLimits::default());
    }
});
