//! `factgate config check [FILE]`: loads a configuration as `run`, `check` and `recheck` would
//! (the file, then the `FACTGATE_…` environment overrides, then the secret files), validates it,
//! and prints every setting in force as TOML, secrets shown as `[redacted]`. What it prints loads
//! again to the same settings (secrets aside), so it is also a complete configuration file.

use std::path::Path;

use super::{Config, ConfigError};

/// The effective configuration of `path` (only the defaults when `None`) under the environment
/// `env`: a TOML document that opens with comments saying where it came from.
///
/// # Errors
/// As [`Config::load`]: the problems found, each naming its key.
pub fn check(
    path: Option<&Path>,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<String, ConfigError> {
    let env: Vec<(String, String)> = env.into_iter().collect();
    let config = Config::load_with_env(path, env.iter().cloned())?;
    let mut overrides: Vec<&str> = env
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| {
            name.strip_prefix(super::ENV_PREFIX)
                .is_some_and(|rest| rest.contains(super::ENV_SEPARATOR))
        })
        .collect();
    overrides.sort_unstable();
    let mut out = String::from("# factgate's effective configuration: ");
    match path {
        Some(path) => out.push_str(&format!("{}", path.display())),
        None => out.push_str("the defaults (no file given)"),
    }
    if overrides.is_empty() {
        out.push_str(", no environment overrides.\n");
    } else {
        out.push_str(&format!(
            ", with the environment's {}.\n",
            overrides.join(", ")
        ));
    }
    out.push_str("# Valid. Secrets are shown as \"[redacted]\".\n");
    if config.kafka.bootstrap_servers.is_none() {
        // A setting without a value has no line of its own below.
        out.push_str(
            "# kafka.bootstrap_servers is not set: `factgate run` starts an embedded broker, which \
             keeps nothing when it stops.\n",
        );
    }
    out.push('\n');
    out.push_str(&effective_toml(&config));
    Ok(out)
}

/// Every setting of `config` as TOML, secrets redacted.
pub fn effective_toml(config: &Config) -> String {
    // A `Config` is plain data of TOML's own types (tables, strings, numbers, booleans, arrays),
    // which the serializer always writes.
    toml::to_string_pretty(config).unwrap_or_else(|err| format!("# cannot be written: {err}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn the_printed_configuration_loads_back_to_the_same_settings() {
        let printed = check(
            None,
            env(&[
                ("FACTGATE_JOIN__DEADLINE_MS", "30000"),
                ("FACTGATE_KAFKA__BOOTSTRAP_SERVERS", "broker:9092"),
                ("FACTGATE_KAFKA__PROPERTIES__SASL_USERNAME", "factgate"),
                ("PATH", "/usr/bin"),
            ]),
        )
        .unwrap();
        assert!(
            printed.contains(
                "with the environment's FACTGATE_JOIN__DEADLINE_MS, \
                 FACTGATE_KAFKA__BOOTSTRAP_SERVERS, FACTGATE_KAFKA__PROPERTIES__SASL_USERNAME."
            ),
            "{printed}"
        );
        let again = Config::from_toml_str(&printed).unwrap();
        assert_eq!(again.join.deadline_ms, 30_000);
        assert_eq!(
            again.kafka.bootstrap_servers.as_deref(),
            Some("broker:9092")
        );
        let expected = Config::load_with_env(
            None,
            env(&[
                ("FACTGATE_JOIN__DEADLINE_MS", "30000"),
                ("FACTGATE_KAFKA__BOOTSTRAP_SERVERS", "broker:9092"),
                ("FACTGATE_KAFKA__PROPERTIES__SASL_USERNAME", "factgate"),
            ]),
        )
        .unwrap();
        assert_eq!(again, expected);
    }

    #[test]
    fn a_secret_is_redacted_and_an_invalid_value_names_its_key() {
        let printed = check(
            None,
            env(&[(
                "FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD",
                "hunter2-very-secret",
            )]),
        )
        .unwrap();
        assert!(!printed.contains("hunter2-very-secret"), "{printed}");
        assert!(
            printed.contains("\"sasl.password\" = \"[redacted]\""),
            "{printed}"
        );
        let err = check(None, env(&[("FACTGATE_JOIN__DEADLINE_MS", "0")])).unwrap_err();
        assert!(err.to_string().contains("join.deadline_ms"), "{err}");
    }
}
