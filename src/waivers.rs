//! Waivers for `factgate check`: findings the newsroom has checked and accepts, written in the
//! draft or in a waivers file, each naming the finding and the reason. A waived finding is listed
//! as waived in every report format, never dropped, and no longer counts toward the decision
//! ([`factgate_core::decide::waive::waive_findings`]).
//!
//! - **Inline**, an HTML comment in the draft, on the line before the paragraph it is about (or
//!   at its start): `<!-- factgate-waive figure_mismatch: the archived page shows $4/month -->`.
//!   It waives the findings of that type on the claims of the paragraph that follows it.
//! - **A waivers file** (`--waivers FILE`, TOML), one `[[waiver]]` per finding:
//!
//! ```toml
//! [[waiver]]
//! article = "examples/article.md"  # the article's name in the report, or its id; optional
//! finding = "figure_mismatch"      # the finding's type, as reports name it
//! claim = "BudgetTutor Basic costs" # words of the claim (or its id); required
//! reason = "The archived pricing page shows $4/month."
//! ```

use serde::Deserialize;

use factgate_core::events::{FindingRef, IssueType, Waiver, WaiverKind};
use factgate_core::extract::Extraction;

/// What starts an inline waiver's comment.
pub const INLINE_MARKER: &str = "factgate-waive";

/// A waivers file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaiversFile {
    #[serde(default, rename = "waiver")]
    pub waivers: Vec<FileWaiver>,
}

/// One entry of a waivers file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileWaiver {
    /// The article's name in the report (its path) or its id; absent: any article.
    #[serde(default)]
    pub article: Option<String>,
    pub finding: IssueType,
    /// Words the claim contains (case does not matter), or its id.
    pub claim: String,
    pub reason: String,
}

/// A waivers file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WaiversError {
    #[error("reading the waivers file {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the waivers file {path} is not valid")]
    Parse {
        path: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("the waivers file {path}: waiver {n} needs a claim and a reason")]
    Incomplete { path: String, n: usize },
}

/// The most a waivers file may hold: thousands of waivers, and `--waivers /dev/zero` fails at
/// once.
pub const MAX_WAIVERS_FILE_BYTES: u64 = 1 << 20;

impl WaiversFile {
    /// Reads and checks the waivers file at `path`.
    ///
    /// # Errors
    /// The file cannot be read, is not valid TOML of this shape, or an entry lacks a claim or
    /// a reason.
    pub fn read(path: &std::path::Path) -> Result<WaiversFile, WaiversError> {
        let shown = path.display().to_string();
        let text =
            crate::config::load::read_text_capped(path, MAX_WAIVERS_FILE_BYTES, "a waivers file")
                .map_err(|source| WaiversError::Read {
                path: shown.clone(),
                source,
            })?;
        let file: WaiversFile = toml::from_str(&text).map_err(|source| WaiversError::Parse {
            path: shown.clone(),
            source,
        })?;
        for (i, w) in file.waivers.iter().enumerate() {
            if w.claim.trim().is_empty() || w.reason.trim().is_empty() {
                return Err(WaiversError::Incomplete {
                    path: shown,
                    n: i + 1,
                });
            }
        }
        Ok(file)
    }
}

/// An inline waiver found in a body: the finding type, the reason, and the character range of
/// the paragraph it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct InlineWaiver {
    pub finding: IssueType,
    pub reason: String,
    /// Character offsets (as claims' spans count them) of the paragraph waived.
    pub start: usize,
    pub end: usize,
}

/// The inline waivers of `body`; comments that name no known finding type are returned in
/// `unknown` (their text), to be reported.
pub fn inline_waivers(body: &str) -> (Vec<InlineWaiver>, Vec<String>) {
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    let mut rest = 0;
    while let Some(open) = body[rest..].find("<!--") {
        let open = rest + open;
        let Some(close) = body[open..].find("-->") else {
            break;
        };
        let close = open + close + 3;
        rest = close;
        let inner = body[open + 4..close - 3].trim();
        let Some(words) = inner.strip_prefix(INLINE_MARKER) else {
            continue;
        };
        let words = words.trim();
        let (kind, reason) = words.split_once(':').unwrap_or((words, ""));
        let finding =
            serde_json::from_value::<IssueType>(serde_json::Value::String(kind.trim().to_owned()));
        let reason = reason.trim();
        let Ok(finding) = finding
            .map_err(|_| ())
            .and_then(|f| if reason.is_empty() { Err(()) } else { Ok(f) })
        else {
            unknown.push(inner.to_owned());
            continue;
        };
        // The paragraph: from the comment to the first blank line after some text.
        let after = &body[close..];
        let text_start = after.len() - after.trim_start().len();
        let para_end = after[text_start..]
            .find("\n\n")
            .map_or(body.len(), |e| close + text_start + e);
        found.push(InlineWaiver {
            finding,
            reason: reason.to_owned(),
            start: body[..open].chars().count(),
            end: body[..para_end].chars().count(),
        });
    }
    (found, unknown)
}

/// The findings `inline` and `file` waive in an article, as [`FindingRef`]s with their waivers,
/// for the claims of `extraction`; `name` and `article_id` select the file's entries. Entries
/// that name no claim are returned apart, by their description, for a warning.
pub fn resolve(
    extraction: &Extraction,
    inline: &[InlineWaiver],
    file: &WaiversFile,
    name: &str,
    article_id: &str,
) -> (Vec<(FindingRef, Waiver)>, Vec<String>) {
    let mut out = Vec::new();
    let mut unmatched = Vec::new();
    for w in inline {
        let mut any = false;
        for claim in &extraction.claims {
            let Some(span) = claim.location.span else {
                continue;
            };
            if span.start >= w.start && span.start < w.end {
                any = true;
                out.push((
                    FindingRef {
                        issue_type: w.finding,
                        claim_id: Some(claim.id.clone()),
                    },
                    Waiver {
                        kind: WaiverKind::Inline,
                        editor: None,
                        reason: w.reason.clone(),
                        override_id: None,
                        waived_at: None,
                    },
                ));
            }
        }
        if !any {
            unmatched.push(format!(
                "the inline waiver of {} is before no claim",
                w.finding.as_str()
            ));
        }
    }
    for w in &file.waivers {
        if w.article
            .as_deref()
            .is_some_and(|a| a != name && a != article_id)
        {
            continue;
        }
        let wanted = w.claim.trim().to_lowercase();
        let claims: Vec<_> = extraction
            .claims
            .iter()
            .filter(|c| c.id == w.claim.trim() || c.text.to_lowercase().contains(&wanted))
            .collect();
        if claims.is_empty() {
            unmatched.push(format!(
                "the waiver of {} for the claim {:?} names no claim of {name}",
                w.finding.as_str(),
                w.claim
            ));
        }
        for claim in claims {
            out.push((
                FindingRef {
                    issue_type: w.finding,
                    claim_id: Some(claim.id.clone()),
                },
                Waiver {
                    kind: WaiverKind::File,
                    editor: None,
                    reason: w.reason.trim().to_owned(),
                    override_id: None,
                    waived_at: None,
                },
            ));
        }
    }
    (out, unmatched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use factgate_core::model::BodyFormat;

    #[test]
    fn an_inline_waiver_covers_the_paragraph_after_it() {
        let body = "# Prices\n\n<!-- factgate-waive figure_mismatch: archived page shows $4 -->\nThe plan costs $4/month, says [the page](https://a.example/p).\n\nThe other plan costs $12/month, says [the page](https://a.example/p).\n\n<!-- factgate-waive no_such_type: x -->\n";
        let (inline, unknown) = inline_waivers(body);
        assert_eq!(inline.len(), 1);
        assert_eq!(inline[0].finding, IssueType::FigureMismatch);
        assert_eq!(inline[0].reason, "archived page shows $4");
        assert_eq!(unknown, vec!["factgate-waive no_such_type: x".to_owned()]);
        let extraction =
            factgate_core::extract::extract(body, BodyFormat::Markdown).expect("extracts");
        let (waived, unmatched) =
            resolve(&extraction, &inline, &WaiversFile::default(), "a.md", "a");
        assert!(unmatched.is_empty(), "{unmatched:?}");
        assert_eq!(waived.len(), 1, "only the claim after the comment");
        let claim = extraction
            .claims
            .iter()
            .find(|c| Some(&c.id) == waived[0].0.claim_id.as_ref())
            .expect("a claim");
        assert!(claim.text.contains("$4/month"), "{}", claim.text);
    }

    #[test]
    fn a_file_waiver_names_its_claim_and_article() {
        let file: WaiversFile = toml::from_str(
            "[[waiver]]\narticle = \"b.md\"\nfinding = \"figure_mismatch\"\nclaim = \"costs $4\"\nreason = \"ok\"\n",
        )
        .expect("parses");
        let body = "The plan costs $4/month, says [the page](https://a.example/p).\n";
        let extraction =
            factgate_core::extract::extract(body, BodyFormat::Markdown).expect("extracts");
        let (waived, _) = resolve(&extraction, &[], &file, "b.md", "b");
        assert_eq!(waived.len(), 1);
        let (other, _) = resolve(&extraction, &[], &file, "c.md", "c");
        assert!(other.is_empty(), "another article");
        assert!(
            toml::from_str::<WaiversFile>(
                "[[waiver]]\nfinding = \"nonsense\"\nclaim = \"x\"\nreason = \"y\"\n"
            )
            .is_err()
        );
    }
}
