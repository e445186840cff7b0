//! The one error type of configuration loading, and the problems it lists.

use std::fmt;
use std::path::PathBuf;

/// Why a configuration could not be loaded. Every message names the key at fault (for example
/// `fetch.timeout_ms`) and, for values that could not be read, where the value came from (the
/// file or the environment variable).
///
/// No variant ever carries the value of a secret: the configuration holds only the *name* of the
/// environment variable with the LLM key, and messages about that name do not repeat it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The configuration file could not be read.
    #[error("cannot read config file {}", path.display())]
    Read {
        /// The file that was asked for.
        path: PathBuf,
        /// Why reading it failed.
        #[source]
        source: std::io::Error,
    },
    /// The file or an environment override could not be read into settings: TOML syntax, an
    /// unknown key, a value of the wrong type, a malformed override name.
    #[error("{}", Problems(.0))]
    Parse(Vec<Problem>),
    /// Every value was read but some are out of range or contradict each other.
    #[error("{}", Problems(.0))]
    Invalid(Vec<Problem>),
}

impl ConfigError {
    /// The problems this error lists (empty for [`ConfigError::Read`]).
    pub fn problems(&self) -> &[Problem] {
        match self {
            ConfigError::Read { .. } => &[],
            ConfigError::Parse(problems) | ConfigError::Invalid(problems) => problems,
        }
    }
}

/// One thing wrong with a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The key at fault as a path, for example `fetch.address_allowlist[1]`; empty when the
    /// problem is not about one key (a TOML syntax error).
    pub key: String,
    /// The whole message, which names the key itself.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Formats a list of problems on one line each, so one run of `factgate` shows all of them.
struct Problems<'a>(&'a [Problem]);

impl fmt::Display for Problems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => f.write_str("invalid configuration"),
            [one] => write!(f, "invalid configuration: {one}"),
            many => {
                write!(f, "invalid configuration ({} problems):", many.len())?;
                for problem in many {
                    write!(f, "\n  - {problem}")?;
                }
                Ok(())
            }
        }
    }
}

/// Collects the problems `validate()` finds, so it can report all of them at once.
#[derive(Debug, Default)]
pub(crate) struct Validation(Vec<Problem>);

impl Validation {
    /// Records a problem about `key`; `message` must name the key.
    pub(crate) fn fail(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            key: key.into(),
            message: message.into(),
        });
    }

    /// A limit of zero would stop all work or make the limit meaningless.
    pub(crate) fn nonzero(&mut self, key: &str, value: u64) {
        if value == 0 {
            self.fail(key, format!("{key} must be greater than 0"));
        }
    }

    /// `low` must not exceed `high` (both are named in the message with their values).
    pub(crate) fn not_above(&mut self, low_key: &str, low: u64, high_key: &str, high: u64) {
        if low > high {
            self.fail(
                low_key,
                format!("{low_key} ({low}) must not exceed {high_key} ({high})"),
            );
        }
    }

    /// A string that must hold something (a name, a URL).
    pub(crate) fn not_blank(&mut self, key: &str, value: &str) {
        if value.trim().is_empty() {
            self.fail(key, format!("{key} must not be empty"));
        }
    }

    /// A URL that factgate will contact or show, which must be absolute http(s).
    pub(crate) fn http_url(&mut self, key: &str, value: &str) {
        match url::Url::parse(value) {
            // Credentials in a URL end up wherever the URL is logged or reported.
            Ok(url) if !url.username().is_empty() || url.password().is_some() => self.fail(
                key,
                format!("{key} must not carry credentials (user:password@): URLs are logged"),
            ),
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => {}
            Ok(_) => self.fail(key, format!("{key} must be an http or https URL")),
            Err(err) => self.fail(key, format!("{key} is not a valid URL: {err}")),
        }
    }

    /// A fraction such as a threshold or a tolerance.
    pub(crate) fn unit_interval(&mut self, key: &str, value: f64) {
        if !(0.0..=1.0).contains(&value) {
            self.fail(key, format!("{key} ({value}) must be between 0 and 1"));
        }
    }

    /// Ends the validation: `Ok` when nothing failed.
    pub(crate) fn finish(self) -> Result<(), ConfigError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ConfigError::Invalid(self.0))
        }
    }
}
