//! Classify once: which statuses and transport errors become which outcome, which outcomes are
//! retried and after how long, and which are cached and for how long. The fetcher asks only these
//! functions.

use std::collections::hash_map::RandomState;
use std::error::Error as StdError;
use std::hash::BuildHasher;
use std::time::Duration;

use super::settings::FetchSettings;
use factgate_core::fetched::{FetchOutcome, RefusalReason};

/// The outcome an HTTP status means by itself, or `None` for a success whose body must be read.
pub fn outcome_for_status(status: u16, retry_after: Option<Duration>) -> Option<FetchOutcome> {
    Some(match status {
        200..=299 => return None,
        404 | 410 => FetchOutcome::NotFound { status },
        401 | 403 => FetchOutcome::Forbidden { status },
        402 => FetchOutcome::Paywalled {
            marker: "HTTP 402".to_owned(),
        },
        429 => FetchOutcome::RateLimited { retry_after },
        500..=599 => FetchOutcome::ServerError {
            status,
            retry_after,
        },
        _ => FetchOutcome::UnexpectedStatus { status },
    })
}

/// The outcome a transport error means. A refusal by [`PolicyResolver`] is found in the error's
/// source chain; reqwest's messages name the URL, so the reason given is the innermost cause.
pub fn network_outcome(err: &reqwest::Error) -> FetchOutcome {
    let mut innermost: &dyn StdError = err;
    let mut source = err.source();
    while let Some(cause) = source {
        if let Some(reason) = cause.downcast_ref::<RefusalReason>() {
            return FetchOutcome::RefusedByPolicy(reason.clone());
        }
        innermost = cause;
        source = cause.source();
    }
    if err.is_timeout() {
        return FetchOutcome::Timeout;
    }
    let stage = if err.is_connect() {
        "connect"
    } else {
        "request"
    };
    FetchOutcome::NetworkError {
        reason: format!("{stage}: {innermost}"),
    }
}

/// Whether another attempt may give a different answer: timeouts, 5xx (503 included) and 429.
pub fn is_retryable(outcome: &FetchOutcome) -> bool {
    matches!(
        outcome,
        FetchOutcome::Timeout | FetchOutcome::ServerError { .. } | FetchOutcome::RateLimited { .. }
    )
}

/// How long to wait before retry number `attempt + 1`, or `None` when the outcome is final: not
/// retryable, retries used up, or a Retry-After longer than `retry_after_max`.
///
/// A Retry-After is honoured as sent; otherwise the delay is exponential from `backoff_base`,
/// capped at `backoff_max`, with jitter so that many fetchers do not retry in step.
pub fn retry_delay(
    outcome: &FetchOutcome,
    attempt: u32,
    settings: &FetchSettings,
) -> Option<Duration> {
    if !is_retryable(outcome) || attempt >= settings.max_retries {
        return None;
    }
    let retry_after = match outcome {
        FetchOutcome::RateLimited { retry_after } => *retry_after,
        FetchOutcome::ServerError { retry_after, .. } => *retry_after,
        _ => None,
    };
    match retry_after {
        Some(wait) if wait > settings.retry_after_max => None,
        Some(wait) => Some(wait),
        None => Some(backoff(attempt, settings)),
    }
}

/// Exponential backoff with "equal jitter": a delay in [d/2, d] where d = base·2^attempt ≤ max.
fn backoff(attempt: u32, settings: &FetchSettings) -> Duration {
    let factor = 2u32.saturating_pow(attempt);
    let full = settings
        .backoff_base
        .saturating_mul(factor)
        .min(settings.backoff_max);
    let half = full / 2;
    // A fresh RandomState is randomly keyed: hashing anything gives a random number without a
    // dependency on a random number generator.
    let random = RandomState::new().hash_one(attempt);
    let span_nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
    half + Duration::from_nanos(random % span_nanos.max(1))
}

/// How long an outcome may be cached, or `None` for what must not be cached: whatever a retry,
/// now or later, could change (rate limits, server errors, timeouts, network errors).
pub fn cache_ttl(outcome: &FetchOutcome, settings: &FetchSettings) -> Option<Duration> {
    match outcome {
        FetchOutcome::Ok(_) => Some(settings.cache_ttl_ok),
        FetchOutcome::NotFound { .. }
        | FetchOutcome::NotASource { .. }
        | FetchOutcome::Forbidden { .. }
        | FetchOutcome::Paywalled { .. }
        | FetchOutcome::UnexpectedStatus { .. }
        | FetchOutcome::TooLarge { .. }
        | FetchOutcome::RefusedByPolicy(_)
        | FetchOutcome::UnsupportedContent { .. }
        | FetchOutcome::Unreadable { .. } => Some(settings.cache_ttl_not_found),
        FetchOutcome::RateLimited { .. }
        | FetchOutcome::ServerError { .. }
        | FetchOutcome::Timeout
        | FetchOutcome::NetworkError { .. } => None,
    }
}

/// A Retry-After header value: delay-seconds or an HTTP date (RFC 9110 §10.2.3) in any of the
/// three formats a recipient must accept (IMF-fixdate, the obsolete RFC 850 and asctime forms;
/// §5.6.7). A date in the past means "now"; anything unparseable is ignored.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_outcomes() {
        assert_eq!(outcome_for_status(200, None), None);
        assert_eq!(
            outcome_for_status(410, None),
            Some(FetchOutcome::NotFound { status: 410 })
        );
        assert_eq!(
            outcome_for_status(401, None),
            Some(FetchOutcome::Forbidden { status: 401 })
        );
        assert!(matches!(
            outcome_for_status(402, None),
            Some(FetchOutcome::Paywalled { .. })
        ));
        assert!(matches!(
            outcome_for_status(503, None),
            Some(FetchOutcome::ServerError { status: 503, .. })
        ));
        assert_eq!(
            outcome_for_status(400, None),
            Some(FetchOutcome::UnexpectedStatus { status: 400 })
        );
    }

    #[test]
    fn what_is_retried_is_never_cached() {
        let settings = FetchSettings::default();
        for outcome in [
            FetchOutcome::Timeout,
            FetchOutcome::RateLimited { retry_after: None },
            FetchOutcome::ServerError {
                status: 500,
                retry_after: None,
            },
            FetchOutcome::NetworkError {
                reason: "reset".into(),
            },
        ] {
            assert_eq!(cache_ttl(&outcome, &settings), None, "{outcome:?}");
        }
        assert!(is_retryable(&FetchOutcome::Timeout));
        assert!(!is_retryable(&FetchOutcome::NotFound { status: 404 }));
        assert_eq!(
            cache_ttl(&FetchOutcome::NotFound { status: 404 }, &settings),
            Some(settings.cache_ttl_not_found)
        );
    }

    #[test]
    fn retry_after_is_honoured_up_to_its_cap() {
        let settings = FetchSettings {
            retry_after_max: Duration::from_secs(5),
            max_retries: 2,
            ..FetchSettings::default()
        };
        let limited = |s| FetchOutcome::RateLimited {
            retry_after: Some(Duration::from_secs(s)),
        };
        assert_eq!(
            retry_delay(&limited(3), 0, &settings),
            Some(Duration::from_secs(3))
        );
        assert_eq!(retry_delay(&limited(6), 0, &settings), None);
        assert_eq!(retry_delay(&limited(3), 2, &settings), None);
    }

    #[test]
    fn backoff_grows_and_stays_under_its_cap() {
        let settings = FetchSettings {
            backoff_base: Duration::from_millis(100),
            backoff_max: Duration::from_millis(300),
            max_retries: 10,
            ..FetchSettings::default()
        };
        for attempt in 0..10 {
            let d = retry_delay(&FetchOutcome::Timeout, attempt, &settings).expect("retried");
            let full = (Duration::from_millis(100) * 2u32.pow(attempt)).min(settings.backoff_max);
            assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
        }
    }

    #[test]
    fn retry_after_parses_seconds_and_dates() {
        assert_eq!(parse_retry_after("1"), Some(Duration::from_secs(1)));
        assert_eq!(parse_retry_after(" 30 "), Some(Duration::from_secs(30)));
        // RFC 9110's own example of each format, all long past: retry now.
        for past in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(parse_retry_after(past), Some(Duration::ZERO), "{past}");
        }
        let in_two_minutes = chrono::Utc::now() + chrono::Duration::seconds(120);
        for format in [
            "%a, %d %b %Y %H:%M:%S GMT",
            "%A, %d-%b-%y %H:%M:%S GMT",
            "%a %b %e %H:%M:%S %Y",
        ] {
            let future = in_two_minutes.format(format).to_string();
            let wait = parse_retry_after(&future).expect("date parses");
            assert!(
                wait > Duration::from_secs(100) && wait <= Duration::from_secs(120),
                "{future}: {wait:?}"
            );
        }
        for unreadable in ["soon", "-5", "1.5", "Sun, 06 Nov 1994 08:49:37 PST", ""] {
            assert_eq!(parse_retry_after(unreadable), None, "{unreadable:?}");
        }
    }
}
