//! Turning a validated [`Config`] into the settings the stages run with.

use super::Config;
use crate::verify::fetch::FetchSettings;
use crate::verify::judge::JudgeSettings;
use crate::verify::llm::LlmSettings;

impl Config {
    /// The fetcher's settings: `[fetch]` and `[cache]`.
    pub fn fetch_settings(&self) -> FetchSettings {
        let f = &self.fetch;
        let c = &self.cache;
        FetchSettings {
            user_agent_contact_url: f.user_agent_contact_url.clone(),
            timeout: f.timeout(),
            connect_timeout: f.connect_timeout(),
            max_body_bytes: f.max_body_bytes,
            max_decompressed_bytes: f.max_decompressed_bytes,
            max_redirects: f.max_redirects as usize,
            max_nesting_depth: f.max_nesting_depth,
            allow_private_addresses: f.allow_private_addresses,
            address_allowlist: f.address_allowlist.clone(),
            per_host_rps: f.per_host_requests_per_second,
            per_host_burst: f.per_host_burst,
            global_rps: f.global_requests_per_second,
            per_host_concurrency: f.per_host_concurrency as usize,
            max_retries: f.max_retries,
            backoff_base: f.backoff_base(),
            backoff_max: f.backoff_max(),
            retry_after_max: f.retry_after_max(),
            cache_capacity_bytes: c.capacity_bytes,
            cache_ttl_ok: c.ttl_ok(),
            cache_ttl_not_found: c.ttl_not_found(),
            max_entry_bytes: c.max_entry_bytes,
        }
    }

    /// The judge's settings: `[judge]` and `[credibility]`.
    pub fn judge_settings(&self) -> JudgeSettings {
        let j = &self.judge;
        JudgeSettings {
            support_threshold: j.support_threshold,
            refute_threshold: j.refute_threshold,
            figure_medium_tolerance: j.figure_medium_tolerance,
            figure_high_tolerance: j.figure_high_tolerance,
            max_passages: j.max_passages,
            credibility: self.credibility.clone(),
        }
    }

    /// The LLM quorum's settings, when `[llm]` is enabled; the key is read from the environment
    /// variable `llm.api_key_env` names.
    pub fn llm_settings(&self) -> Option<LlmSettings> {
        let l = &self.llm;
        if !l.enabled {
            return None;
        }
        // validate() guarantees both are present when enabled.
        let (base_url, model) = (l.base_url.clone()?, l.model.clone()?);
        let mut settings = LlmSettings::new(base_url, model);
        settings.api_key = l.api_key();
        settings.timeout = l.timeout();
        settings.voters = l.voters as usize;
        settings.max_concurrent_requests = l.max_concurrent_requests as usize;
        settings.context_tokens = l.context_tokens as usize;
        settings.max_reply_tokens = l.max_reply_tokens as usize;
        settings.max_passages = l.max_passages as usize;
        Some(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_map_onto_the_stages_defaults() {
        let config = Config::default();
        assert_eq!(config.judge_settings(), JudgeSettings::default());
        let fetch = config.fetch_settings();
        assert_eq!(fetch.max_redirects, 5);
        assert!(!fetch.allow_private_addresses);
        assert!(config.llm_settings().is_none());
    }

    #[test]
    fn an_enabled_llm_gets_its_settings() {
        let config = Config::from_toml_str(
            "[llm]\nenabled = true\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\nvoters = 3\n\
             max_concurrent_requests = 1\ncontext_tokens = 2048\nmax_reply_tokens = 256\n\
             max_passages = 5\n",
        )
        .expect("valid config");
        let llm = config.llm_settings().expect("enabled");
        assert_eq!(llm.model, "m");
        assert_eq!(llm.voters, 3);
        assert_eq!(llm.max_concurrent_requests, 1);
        assert_eq!(llm.context_tokens, 2048);
        assert_eq!(llm.max_reply_tokens, 256);
        assert_eq!(llm.max_passages, 5);
    }
}
