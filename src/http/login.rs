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
    /// Failed logins, per client address and per name tried.
    throttle: Arc<Throttle>,
}

/// What failed logins are counted against: the client's address (an IPv6 client by its /64,
/// which one client holds whole), and the name tried.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Attempter {
    Address(std::net::IpAddr),
    Name(String),
}

impl Attempter {
    fn address(ip: std::net::IpAddr) -> Attempter {
        Attempter::Address(match ip {
            std::net::IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none() => {
                let mut octets = v6.octets();
                octets[8..].fill(0);
                std::net::IpAddr::V6(octets.into())
            }
            std::net::IpAddr::V6(v6) => std::net::IpAddr::V4(
                v6.to_ipv4_mapped()
                    .unwrap_or(std::net::Ipv4Addr::UNSPECIFIED),
            ),
            v4 @ std::net::IpAddr::V4(_) => v4,
        })
    }

    /// Failures let through before the first wait: a name is one person's, who mistypes a few
    /// times; an address may be a newsroom's proxy, shared by everyone behind it.
    fn free_failures(&self) -> u32 {
        match self {
            Attempter::Address(_) => 10,
            Attempter::Name(_) => 5,
        }
    }
}

/// Failed logins of one attempter.
#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    /// No login is tried for it before then.
    until: std::time::Instant,
    last: std::time::Instant,
}

/// Failed logins, counted per [`Attempter`]: from its last free failure on, each failure doubles
/// the wait before the next try (2 s, 4 s, 8 s… up to [`MAX_WAIT`]); a login that succeeds clears
/// them. Bounded: at most [`MAX_ATTEMPTERS`] kept, those quiet longest forgotten first.
#[derive(Debug, Default)]
struct Throttle {
    failures: std::sync::Mutex<std::collections::HashMap<Attempter, Failures>>,
}

/// The longest wait a run of failures earns.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(15 * 60);
/// Attempters kept at most: a flood from many addresses cannot grow the table without bound.
const MAX_ATTEMPTERS: usize = 10_000;
/// An attempter quiet this long is forgotten.
const FORGET_AFTER: std::time::Duration = std::time::Duration::from_secs(60 * 60);

impl Throttle {
    /// How long `who` must wait before a login is tried, if at all.
    fn wait(&self, who: &[Attempter]) -> Option<std::time::Duration> {
        let now = std::time::Instant::now();
        let failures = self
            .failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        who.iter()
            .filter_map(|w| failures.get(w))
            .map(|f| f.until.saturating_duration_since(now))
            .filter(|d| !d.is_zero())
            .max()
    }

    /// A failed login by `who`.
    fn failed(&self, who: &[Attempter]) {
        let now = std::time::Instant::now();
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if failures.len() + who.len() > MAX_ATTEMPTERS {
            failures.retain(|_, f| now.duration_since(f.last) < FORGET_AFTER);
            while failures.len() + who.len() > MAX_ATTEMPTERS {
                let Some(quietest) = failures
                    .iter()
                    .min_by_key(|(_, f)| f.last)
                    .map(|(w, _)| w.clone())
                else {
                    break;
                };
                failures.remove(&quietest);
            }
        }
        for w in who {
            let f = failures.entry(w.clone()).or_insert(Failures {
                count: 0,
                until: now,
                last: now,
            });
            f.count = f.count.saturating_add(1);
            f.last = now;
            if let Some(past) = f.count.checked_sub(w.free_failures()) {
                let wait = std::time::Duration::from_secs(2u64 << past.min(20)).min(MAX_WAIT);
                f.until = now + wait;
            }
        }
    }

    /// A login by `who` succeeded: its failures are forgotten.
    fn succeeded(&self, who: &[Attempter]) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for w in who {
            failures.remove(w);
        }
    }
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
            throttle: Arc::default(),
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
            throttle: Arc::default(),
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

/// The name a Basic login tries, as sent (for the throttle and the log, never with its secret).
fn name_tried(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, rest) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(rest.trim())
        .ok()?;
    let decoded = String::from_utf8_lossy(&decoded);
    let name = decoded.split_once(':').map_or(&*decoded, |(name, _)| name);
    Some(name.chars().take(MAX_NAME_CHARS).collect())
}

/// The middleware: lets a request in with its [`Editor`] when it logs in, else answers 401.
///
/// A request carrying credentials is a login tried: one from an address or for a name that has
/// failed too often lately is answered 429 with `Retry-After`, its credentials unread, right
/// or wrong; each failure is logged (warn, with the name tried and the address, never the
/// secret) and counted.
pub async fn require(State(login): State<Login>, mut request: Request, next: Next) -> Response {
    let tried = request.headers().contains_key(header::AUTHORIZATION);
    let address = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip());
    let name = name_tried(request.headers());
    let who: Vec<Attempter> = if tried {
        address
            .map(Attempter::address)
            .into_iter()
            .chain(name.clone().map(Attempter::Name))
            .collect()
    } else {
        Vec::new()
    };
    let page = wants_page(&request);
    if let Some(wait) = login.throttle.wait(&who) {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        crate::internal_events::http_login_throttled(name.as_deref(), address, seconds);
        let why = format!(
            "Too many failed logins from this address or for this name: try again in {seconds} \
             seconds."
        );
        let mut response = refusal(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many failed logins",
            &why,
            page,
        );
        if let Ok(value) = header::HeaderValue::from_str(&seconds.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return response;
    }
    match login.editor(request.headers()) {
        Some(editor) => {
            login.throttle.succeeded(&who);
            request.extensions_mut().insert(editor);
            next.run(request).await
        }
        None => {
            if tried {
                login.throttle.failed(&who);
                crate::internal_events::http_login_failed(name.as_deref(), address);
            } else {
                crate::internal_events::http_login_refused(false);
            }
            let why = if !login.is_configured() {
                "No login is configured on this factgate ([http.auth]), so nothing is served \
                 here until whoever runs it sets one."
            } else if tried {
                "The name and password (or token) were not accepted. Reload this page to enter \
                 them again; after several failed tries factgate waits a while before it \
                 accepts another. No login of your own? Ask whoever runs factgate: logins are \
                 set in its [http.auth] credentials."
            } else {
                "This page needs your newsroom login: reload it and enter your name and password \
                 when the browser asks, or send a bearer token. No login of your own? Ask \
                 whoever runs factgate: logins are set in its [http.auth] credentials."
            };
            let why = if page || !login.is_configured() {
                why
            } else if tried {
                "The credentials were not accepted: send a valid bearer token or Basic \
                 credentials."
            } else {
                "This API needs a login: send a bearer token or Basic credentials."
            };
            let mut response = refusal(StatusCode::UNAUTHORIZED, "Log in to factgate", why, page);
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Basic realm=\"factgate\", charset=\"UTF-8\""),
            );
            response
        }
    }
}

/// Whether a refused request is a person's page (an editor's browser on the desk) rather than
/// the API: the desk's paths, or a browser asking for HTML.
fn wants_page(request: &Request) -> bool {
    request.uri().path().starts_with("/ui")
        || request
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|accept| accept.contains("text/html"))
}

/// A refused login, said to a person as a page, to the API as problem details.
fn refusal(status: StatusCode, title: &str, why: &str, page: bool) -> Response {
    if page {
        (
            status,
            axum::response::Html(crate::render::html::status_page(
                title, "unknown", why, "/ui/",
            )),
        )
            .into_response()
    } else {
        super::router::problem(status, title, why)
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
