//! Configuration: `config/factgate.toml` plus `FACTGATE_…` environment overrides, validated into
//! runtime settings.
//!
//! # Sources
//! Settings come from, lowest priority first:
//! 1. the defaults, the named `DEFAULT_…` constants of each section (the same values
//!    `config/factgate.toml` documents; a test keeps the two equal);
//! 2. the TOML file, if one is given;
//! 3. environment variables `FACTGATE_<SECTION>__<KEY>` (double underscore between section and
//!    key, and between nested tables): `FACTGATE_JOIN__DEADLINE_MS=5000`,
//!    `FACTGATE_KAFKA__BOOTSTRAP_SERVERS=broker:9092`, `FACTGATE_KAFKA__TOPICS__DRAFTS=drafts`.
//!    librdkafka property names have dots where a variable name has underscores:
//!    `FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD` sets `kafka.properties."sasl.password"`, and
//!    `FACTGATE_KAFKA__PROPERTY_FILES__SASL_PASSWORD=/run/secrets/kafka-password` reads it from a
//!    file (librdkafka's own names hold no underscore, so the mapping is unambiguous).
//! 4. the files named in `kafka.property_files`, read into `kafka.properties`.
//!
//! # Validation
//! Unknown keys, values of the wrong type and values out of range or contradicting each other are
//! errors that name the key (`fetch.timout_ms: unknown key …`,
//! `fetch.backoff_base_ms (5000) must not exceed fetch.backoff_max_ms (1000)`). Loading validates;
//! [`Config::validate`] lists every problem at once.
//!
//! # Secrets
//! The LLM key stays in the environment variable that `llm.api_key_env` names, and is read only
//! by [`LlmConfig::api_key`] into an [`ApiKey`] whose `Debug` and `Display` are redacted. Kafka's
//! secrets (`sasl.password`, `ssl.key.password`, …) come from the environment or from files
//! (`kafka.property_files`, for mounted secrets) into [`KafkaProperties`], whose `Debug` and
//! serialization show them as `[redacted]`; errors about them name the key and the file, never
//! the value. So `Config`'s `Debug` and its serialization can be logged.
//! A key pasted where it does not belong is refused without being repeated: `api_key = "…"` in
//! `[llm]` (or `FACTGATE_LLM__API_KEY`) is an unknown key, and a value of `llm.api_key_env` that is
//! not a variable name is refused by name only. (A TOML *syntax* error quotes the line at fault,
//! as it must to be found.)
//!
//! # Layout
//! - `kafka`: `[kafka]` and `[kafka.topics]`.
//! - `fetch`: `[fetch]` and `[cache]`.
//! - `judge`: `[judge]`, `[credibility]`, `[llm]`, `[policy]`.
//! - `service`: `[extract]`, `[join]`, `[http]`, `[log]`, `[trace]`.
//! - `load`: the file and the environment, through figment.
//! - `error`: [`ConfigError`], and the `Validation` in which `validate` collects problems.
//! - [`check`]: `factgate config check`, the effective configuration printed as TOML.

pub mod check;
mod error;
mod fetch;
mod judge;
mod kafka;
pub(crate) mod load;
mod runtime;
mod service;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub(crate) use error::Validation;
pub use error::{ConfigError, Problem};
pub use fetch::*;
pub use judge::*;
pub use kafka::*;
pub use load::{ENV_PREFIX, ENV_SEPARATOR, MAX_CONFIG_FILE_BYTES};
pub use service::*;

/// Every setting of factgate, one field per `[section]` of `config/factgate.toml`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The event stream.
    pub kafka: KafkaConfig,
    /// Claim extraction limits.
    pub extract: ExtractConfig,
    /// Fetching cited sources.
    pub fetch: FetchConfig,
    /// The cache of fetched pages.
    pub cache: CacheConfig,
    /// Judging claims against sources.
    pub judge: JudgeConfig,
    /// Source credibility by domain.
    pub credibility: CredibilityConfig,
    /// The optional LLM judge.
    pub llm: LlmConfig,
    /// From issues to a decision.
    pub policy: PolicyConfig,
    /// Gathering results into a decision.
    pub join: JoinConfig,
    /// The HTTP server.
    pub http: HttpConfig,
    /// Logging.
    pub log: LogConfig,
    /// Exporting traces over OTLP.
    pub trace: TraceConfig,
}

impl Config {
    /// Loads the file at `path` (or only the defaults when `None`), applies the process's
    /// `FACTGATE_<SECTION>__<KEY>` environment overrides and validates the result.
    ///
    /// # Errors
    /// [`ConfigError::Read`] when the file cannot be read, [`ConfigError::Parse`] for bad TOML,
    /// unknown keys and wrong types, [`ConfigError::Invalid`] when values contradict each other.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        // Variables that are not valid Unicode cannot be overrides; skip them, as `vars()` panics.
        let env = std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        });
        Self::load_with_env(path, env)
    }

    /// [`Config::load`] with the environment given explicitly, so tests need not touch the
    /// process's (shared) environment.
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn load_with_env(
        path: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let (text, label) = match path {
            Some(path) => {
                let text = load::read_capped(path).map_err(|source| ConfigError::Read {
                    path: path.to_owned(),
                    source,
                })?;
                (Some(text), path.display().to_string())
            }
            None => (None, "defaults".to_owned()),
        };
        let mut config = load::read(text.as_deref(), &label, env)?;
        config.read_secret_files()?;
        config.validate()?;
        Ok(config)
    }

    /// Reads the files `kafka.property_files` names into `kafka.properties`.
    fn read_secret_files(&mut self) -> Result<(), ConfigError> {
        let mut validation = error::Validation::default();
        self.kafka.read_property_files(&mut validation);
        validation.finish()
    }

    /// Reads and validates a configuration from TOML text, ignoring the environment.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] or [`ConfigError::Invalid`], as [`Config::load`].
    pub fn from_toml_str(toml: &str) -> Result<Config, ConfigError> {
        let mut config = load::read(Some(toml), "TOML text", std::iter::empty())?;
        config.read_secret_files()?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every range and every relation between settings, and reports all problems found.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] listing each problem, each message naming its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut validation = error::Validation::default();
        self.kafka.validate(&mut validation);
        self.extract.validate(&mut validation);
        self.fetch.validate(&mut validation);
        self.cache.validate(&mut validation);
        self.judge.validate(&mut validation);
        judge::validate_credibility(&self.credibility, &mut validation);
        self.llm.validate(&mut validation);
        self.join.validate(&mut validation);
        self.http.validate(&mut validation);
        self.log.validate(&mut validation);
        self.trace.validate(&mut validation);

        validation.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        Config::default().validate().expect("defaults validate");
    }

    #[test]
    fn empty_file_gives_defaults() {
        assert_eq!(Config::from_toml_str("").unwrap(), Config::default());
    }

    #[test]
    fn all_problems_are_reported_at_once() {
        let err = Config::from_toml_str("[join]\ndeadline_ms = 0\n[judge]\nmax_passages = 0\n")
            .unwrap_err();
        let keys: Vec<&str> = err.problems().iter().map(|p| p.key.as_str()).collect();
        assert!(keys.contains(&"join.deadline_ms"), "{keys:?}");
        assert!(keys.contains(&"judge.max_passages"), "{keys:?}");
    }

    #[test]
    fn credibility_lists_reach_the_judge() {
        use factgate_core::judge::CredibilityLevel;
        use factgate_core::judge::credibility::credibility;
        let cred = CredibilityConfig {
            high: vec![".gov".into()],
            reputable: vec!["reuters.com".into()],
            low: vec!["blog.cdc.gov".into()],
        };
        let level = |url: &str| credibility(url, &cred).level;
        assert_eq!(level("https://www.cdc.gov/x"), CredibilityLevel::High);
        assert_eq!(
            level("https://WWW.Reuters.com./y"),
            CredibilityLevel::Reputable
        );
        assert_eq!(level("https://notreuters.com/"), CredibilityLevel::Generic);
        assert_eq!(level("https://x.blog.cdc.gov/"), CredibilityLevel::Low);
    }

    #[test]
    fn allowlist_accepts_ranges_and_single_addresses() {
        let config = Config::from_toml_str(
            "[fetch]\naddress_allowlist = [\"127.0.0.1/32\", \"::1\", \"10.0.0.0/8\"]\n",
        )
        .unwrap();
        assert!(config.fetch.is_allowlisted("127.0.0.1".parse().unwrap()));
        assert!(!config.fetch.is_allowlisted("127.0.0.2".parse().unwrap()));
        assert!(config.fetch.is_allowlisted("::1".parse().unwrap()));
        assert!(config.fetch.is_allowlisted("10.200.1.1".parse().unwrap()));
        assert!(
            !config
                .fetch
                .is_allowlisted("169.254.169.254".parse().unwrap())
        );
    }
}
