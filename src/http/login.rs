//! The login of the API and the editors' pages: every request to `http.listen` names who makes
//! it, by a bearer token, Basic credentials, or the header the newsroom's reverse proxy sets
//! (`[http.auth]`, docs/operating.md "Login"). A request that does not is answered 401, with a
//! Basic challenge so a browser asks for the credentials. The name logged in is handed to the
//! handlers as an [`Editor`]: the override form records it.
//!
//! Secrets are compared by their SHA-256 digests, in time independent of where they differ, and
//! never logged; the credentials come from a file or an environment variable, never from the
//! configuration, which is printed.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The longest name accepted from a trusted header or a credential.
const MAX_NAME_CHARS: usize = 200;

/// Who is logged in: the credential's name, or the trusted header's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editor(pub String);

/// What the login accepts, read once at start-up.
#[derive(Clone, Default)]
pub struct Login {
    /// (name, SHA-256 of the secret).
    credentials: Arc<[(String, [u8; 32])]>,
    trusted_header: Option<HeaderName>,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("credentials", &self.credentials.len())
            .field("trusted_header", &self.trusted_header)
            .finish()
    }
}

/// Credentials that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("http.auth.credentials_file {path}: cannot be read")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A line without `name:secret`; the line number only, never its text (it may be a secret).
    #[error(
        "{origin}: entry {entry} is not name:secret (a name and a secret of 8 characters or more)"
    )]
    Entry { origin: String, entry: usize },
}

impl Login {
    /// The login `config` describes, reading its file and variable.
    ///
    /// # Errors
    /// The credentials file cannot be read, or an entry is not `name:secret`.
    pub fn from_config(config: &crate::config::AuthConfig) -> Result<Login, LoginError> {
        let mut credentials = Vec::new();
        if !config.credentials_file.is_empty() {
            let path = &config.credentials_file;
            let text =
                crate::config::load::read_capped(std::path::Path::new(path)).map_err(|source| {
                    LoginError::File {
                        path: path.clone(),
                        source,
                    }
                })?;
            credentials.extend(parse(&text, &format!("http.auth.credentials_file {path}"))?);
        }
        if !config.credentials_env.is_empty()
            && let Ok(value) = std::env::var(&config.credentials_env)
        {
            let origin = format!("the variable {}", config.credentials_env);
            credentials.extend(parse(&value.replace(',', "\n"), &origin)?);
        }
        let trusted_header = Some(config.trusted_header.trim())
            .filter(|h| !h.is_empty())
            .and_then(|h| HeaderName::from_bytes(h.as_bytes()).ok());
        Ok(Login {
            credentials: credentials.into(),
            trusted_header,
        })
    }

    /// A login accepting `name:secret` pairs, for tests and embedding.
    pub fn with_credentials<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Login {
        Login {
            credentials: pairs
                .into_iter()
                .map(|(name, secret)| (name.to_owned(), digest(secret)))
                .collect(),
            trusted_header: None,
        }
    }

    /// Whether any way to log in is configured: without one every request is refused.
    pub fn is_configured(&self) -> bool {
        !self.credentials.is_empty() || self.trusted_header.is_some()
    }

    /// Who `headers` log in as, if anyone.
    pub fn editor(&self, headers: &HeaderMap) -> Option<Editor> {
        if let Some(value) = headers.get(header::AUTHORIZATION) {
            let value = value.to_str().ok()?.trim();
            let (scheme, rest) = value.split_once(' ')?;
            let rest = rest.trim();
            if scheme.eq_ignore_ascii_case("bearer") {
                return self.find(None, rest);
            }
            if scheme.eq_ignore_ascii_case("basic") {
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(rest)
                    .ok()?;
                let decoded = String::from_utf8(decoded).ok()?;
                let (name, secret) = decoded.split_once(':')?;
                return self.find(Some(name), secret);
            }
            return None;
        }
        let header = self.trusted_header.as_ref()?;
        let name = headers.get(header)?.to_str().ok()?.trim();
        valid_name(name).then(|| Editor(name.to_owned()))
    }

    /// The credential whose secret is `secret` (and name `name`, when given). Every credential
    /// is compared, each in constant time, so the answer takes as long whichever matches.
    fn find(&self, name: Option<&str>, secret: &str) -> Option<Editor> {
        let wanted = digest(secret);
        let mut found = None;
        for (known_name, known) in self.credentials.iter() {
            let same = known
                .iter()
                .zip(wanted.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
            if same && name.is_none_or(|n| n == known_name) && found.is_none() {
                found = Some(Editor(known_name.clone()));
            }
        }
        found
    }
}

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name.chars().any(char::is_control)
}

/// `name:secret` entries, one per line; blank lines and `#` comments skipped.
fn parse(text: &str, origin: &str) -> Result<Vec<(String, [u8; 32])>, LoginError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let entry = || LoginError::Entry {
            origin: origin.to_owned(),
            entry: i + 1,
        };
        let (name, secret) = line.split_once(':').ok_or_else(entry)?;
        let (name, secret) = (name.trim(), secret.trim());
        if !valid_name(name) || secret.chars().count() < 8 {
            return Err(entry());
        }
        out.push((name.to_owned(), digest(secret)));
    }
    Ok(out)
}

/// The middleware: lets a request in with its [`Editor`] when it logs in, else answers 401.
pub async fn require(State(login): State<Login>, mut request: Request, next: Next) -> Response {
    match login.editor(request.headers()) {
        Some(editor) => {
            request.extensions_mut().insert(editor);
            next.run(request).await
        }
        None => {
            crate::internal_events::http_login_refused(
                request.headers().contains_key(header::AUTHORIZATION),
            );
            let why = if login.is_configured() {
                "log in: a bearer token, Basic credentials, or your newsroom's sign-in\n"
            } else {
                "no login is configured on this factgate ([http.auth]), so nothing is served here\n"
            };
            (
                StatusCode::UNAUTHORIZED,
                [(
                    header::WWW_AUTHENTICATE,
                    "Basic realm=\"factgate\", charset=\"UTF-8\"",
                )],
                why,
            )
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(
                HeaderName::from_bytes(k.as_bytes()).expect("name"),
                HeaderValue::from_str(v).expect("value"),
            );
        }
        map
    }

    #[test]
    fn bearer_basic_and_nothing() {
        let login = Login::with_credentials([("ana", "s3cret-token")]);
        assert_eq!(
            login.editor(&headers(&[("authorization", "Bearer s3cret-token")])),
            Some(Editor("ana".into()))
        );
        let basic = base64::engine::general_purpose::STANDARD.encode("ana:s3cret-token");
        assert_eq!(
            login.editor(&headers(&[("authorization", &format!("Basic {basic}"))])),
            Some(Editor("ana".into()))
        );
        let wrong_name = base64::engine::general_purpose::STANDARD.encode("bob:s3cret-token");
        assert_eq!(
            login.editor(&headers(&[(
                "authorization",
                &format!("Basic {wrong_name}")
            )])),
            None
        );
        assert_eq!(
            login.editor(&headers(&[("authorization", "Bearer nope-nope")])),
            None
        );
        assert_eq!(login.editor(&headers(&[])), None);
        // A header no proxy was trusted for is no login.
        assert_eq!(
            login.editor(&headers(&[("x-forwarded-user", "mallory")])),
            None
        );
    }

    #[test]
    fn a_trusted_header_names_the_editor() {
        let config = crate::config::AuthConfig {
            trusted_header: "X-Forwarded-User".into(),
            credentials_env: String::new(),
            ..Default::default()
        };
        let login = Login::from_config(&config).expect("login");
        assert!(login.is_configured());
        assert_eq!(
            login.editor(&headers(&[("x-forwarded-user", "Standards Desk")])),
            Some(Editor("Standards Desk".into()))
        );
        assert_eq!(login.editor(&headers(&[("x-forwarded-user", "")])), None);
    }

    #[test]
    fn entries_are_checked_and_never_quoted() {
        let err = parse("ana:short\n", "file f").expect_err("a short secret");
        let message = err.to_string();
        assert!(message.contains("entry 1"), "{message}");
        assert!(!message.contains("short"), "the secret is not repeated");
        let ok = parse("# editors\nana: long-enough-secret\n\n", "f").expect("valid");
        assert_eq!(ok.len(), 1);
        assert!(!Login::default().is_configured());
    }
}
