//! `factgate config check`: a configuration validated as `run` reads it, and printed.

use crate::cli::EXIT_ERROR;
use anyhow::Context;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Validates `file` (the defaults when `None`) with the process's `FACTGATE_…` overrides and
/// prints every setting in force as TOML, secrets redacted; an invalid configuration is named on
/// standard error with exit status 2.
///
/// # Errors
/// Standard output cannot be written.
pub fn config_check(file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let env = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)));
    match crate::config::check::check(file, env) {
        Ok(toml) => {
            std::io::stdout()
                .write_all(toml.as_bytes())
                .context("writing to standard output")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            let name = file.map_or_else(
                || "the configuration (defaults and FACTGATE_ variables)".to_owned(),
                |f| format!("the configuration {}", f.display()),
            );
            eprintln!(
                "factgate: {name} is not valid: {:#}",
                anyhow::Error::from(err)
            );
            Ok(ExitCode::from(EXIT_ERROR))
        }
    }
}
