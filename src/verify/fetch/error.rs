//! Faults in setting up the fetcher; what a fetch ends in is data ([`factgate_core::fetched`]).

/// Faults in setting up the fetcher (not outcomes of a fetch).
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The HTTP client could not be built (e.g. TLS initialisation failed).
    #[error("cannot build the HTTP client")]
    BuildClient(#[source] reqwest::Error),
    /// A setting is out of range.
    #[error("invalid fetch setting {key}: {message}")]
    InvalidSetting {
        /// The settings field.
        key: &'static str,
        /// What is wrong with it.
        message: String,
    },
}
