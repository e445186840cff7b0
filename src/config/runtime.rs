//! Turning a validated [`Config`] into the judge's settings. The fetcher's and the LLM quorum's
//! are built beside their types (`verify::fetch::settings`, `verify::llm`), so configuration
//! imports no stage.

use super::Config;
use factgate_core::judge::JudgeSettings;

impl Config {
    /// The judge's settings: `[judge]` and `[credibility]`.
    pub fn judge_settings(&self) -> JudgeSettings {
        let j = &self.judge;
        JudgeSettings {
            support_threshold: j.support_threshold,
            unconfirmed_medium_below: j.unconfirmed_medium_below,
            figure_medium_tolerance: j.figure_medium_tolerance,
            figure_high_tolerance: j.figure_high_tolerance,
            max_passages: j.max_passages,
            credibility: self.credibility.clone(),
        }
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
