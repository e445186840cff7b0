//! Source credibility from the cited URL's domain (docs/contested-evidence.md):
//! fact-checkers, government and education 0.95, reputable news 0.70, generic 0.50, low 0.30.
//!
//! Lists hold domain suffixes matched at a label boundary: `gov` matches `nasa.gov`,
//! `bbc.co.uk` matches `www.bbc.co.uk`, and neither matches `notgov.com`.

use serde::{Deserialize, Serialize};

/// How far a source is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CredibilityLevel {
    /// User-generated or low-quality sites.
    Low,
    /// Anything not on a list.
    Generic,
    /// Reputable news organizations.
    Reputable,
    /// Fact-checkers, government and education.
    High,
}

impl CredibilityLevel {
    /// The normalized score of the level.
    pub fn score(self) -> f64 {
        match self {
            CredibilityLevel::High => 0.95,
            CredibilityLevel::Reputable => 0.70,
            CredibilityLevel::Generic => 0.50,
            CredibilityLevel::Low => 0.30,
        }
    }
}

/// A source's credibility: its level and that level's score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Credibility {
    pub level: CredibilityLevel,
    pub score: f64,
}

/// Domain lists, each of suffixes matched at a label boundary; also the `[credibility]` section
/// of the configuration (`config::CredibilityConfig`). A suffix matches that domain and its
/// subdomains (`gov` and `.gov` match `cdc.gov`; `reuters.com` matches `www.reuters.com`, never
/// `notreuters.com`). `low` is checked first, so a user blog on a trusted platform stays low;
/// hosts in no list are generic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CredibilityLists {
    /// Official and fact-checking sources: government, education, international bodies.
    pub high: Vec<String>,
    /// Established news organisations and wire services.
    pub reputable: Vec<String>,
    /// Sources of low credibility: user-generated platforms, content farms.
    pub low: Vec<String>,
}

impl Default for CredibilityLists {
    fn default() -> Self {
        let list = |s: &[&str]| s.iter().map(|d| d.to_string()).collect();
        CredibilityLists {
            high: list(&[
                "gov",
                "edu",
                "mil",
                "int",
                "gov.uk",
                "ac.uk",
                "europa.eu",
                "who.int",
                "snopes.com",
                "politifact.com",
                "factcheck.org",
                "fullfact.org",
            ]),
            reputable: list(&[
                "reuters.com",
                "apnews.com",
                "bbc.com",
                "bbc.co.uk",
                "nytimes.com",
                "washingtonpost.com",
                "theguardian.com",
                "ft.com",
                "economist.com",
                "npr.org",
                "wsj.com",
                "bloomberg.com",
            ]),
            low: list(&[
                "blogspot.com",
                "wordpress.com",
                "medium.com",
                "substack.com",
                "quora.com",
                "reddit.com",
                "answers.com",
                "tumblr.com",
            ]),
        }
    }
}

fn host_matches(host: &str, suffix: &str) -> bool {
    let suffix = suffix.trim_start_matches('.').to_ascii_lowercase();
    host == suffix
        || host
            .strip_suffix(suffix.as_str())
            .is_some_and(|rest| rest.ends_with('.'))
}

/// The credibility of the source at `url`; a URL without a host is generic.
pub fn credibility(url: &str, lists: &CredibilityLists) -> Credibility {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
        })
        .unwrap_or_default();
    let on = |list: &[String]| !host.is_empty() && list.iter().any(|d| host_matches(&host, d));
    // Low first: a user blog on a trusted platform is still a user blog.
    let level = if on(&lists.low) {
        CredibilityLevel::Low
    } else if on(&lists.high) {
        CredibilityLevel::High
    } else if on(&lists.reputable) {
        CredibilityLevel::Reputable
    } else {
        CredibilityLevel::Generic
    };
    Credibility {
        level,
        score: level.score(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_match_at_label_boundaries() {
        let lists = CredibilityLists::default();
        let level = |u: &str| credibility(u, &lists).level;
        assert_eq!(level("https://www.census.gov/data"), CredibilityLevel::High);
        assert_eq!(level("https://notgov.com/"), CredibilityLevel::Generic);
        assert_eq!(
            level("https://www.bbc.co.uk/news/1"),
            CredibilityLevel::Reputable
        );
        assert_eq!(level("https://x.blogspot.com/p"), CredibilityLevel::Low);
        assert_eq!(level("not a url"), CredibilityLevel::Generic);
    }
}
