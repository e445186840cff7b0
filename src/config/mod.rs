//! Configuration: `config/factgate.toml` plus `FACTGATE_…` environment overrides, validated into
//! runtime settings.
