//! Checked articles as JUnit XML, the test-report format CI systems display (GitLab, Jenkins,
//! GitHub test-report actions): one `<testcase>` per article, a blocked article a `<failure>`
//! whose type is its reasons, whose message is the report's one-line reason, and whose text is
//! the full text report.

use std::io::Cursor;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::{CheckedArticle, reason_names, text::article_text};
use factgate_core::events::Outcome;

/// The JUnit report of every article, as one XML document.
pub fn render(articles: &[CheckedArticle<'_>], unreadable: &[String]) -> String {
    let mut writer = Writer::new_with_indent(Cursor::new(Vec::new()), b' ', 2);
    // Writing to memory cannot fail.
    let _ = write_report(&mut writer, articles, unreadable);
    let mut xml = String::from_utf8_lossy(&writer.into_inner().into_inner()).into_owned();
    xml.push('\n');
    xml
}

fn write_report(
    writer: &mut Writer<Cursor<Vec<u8>>>,
    articles: &[CheckedArticle<'_>],
    unreadable: &[String],
) -> std::io::Result<()> {
    let tests = (articles.len() + unreadable.len()).to_string();
    let errors = unreadable.len().to_string();
    let failures = articles
        .iter()
        .filter(|a| a.decision.outcome == Outcome::Block)
        .count()
        .to_string();
    let time = format!("{:.3}", articles.iter().map(|a| a.seconds).sum::<f64>());
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    writer
        .create_element("testsuites")
        .with_attribute(("name", "factgate"))
        .with_attribute(("tests", tests.as_str()))
        .with_attribute(("failures", failures.as_str()))
        .with_attribute(("errors", errors.as_str()))
        .with_attribute(("time", time.as_str()))
        .write_inner_content(|w| {
            w.create_element("testsuite")
                .with_attribute(("name", "factgate check"))
                .with_attribute(("tests", tests.as_str()))
                .with_attribute(("failures", failures.as_str()))
                .with_attribute(("errors", errors.as_str()))
                .with_attribute(("skipped", "0"))
                .with_attribute(("time", time.as_str()))
                .write_inner_content(|w| {
                    for article in articles {
                        write_case(w, article)?;
                    }
                    // An input that could not be read is an error, not a pass: CI shows it.
                    for message in unreadable {
                        let message = xml_text(message);
                        w.create_element("testcase")
                            .with_attribute(("classname", "factgate"))
                            .with_attribute(("name", message.as_str()))
                            .with_attribute(("time", "0.000"))
                            .write_inner_content(|w| {
                                w.create_element("error")
                                    .with_attribute(("message", message.as_str()))
                                    .with_attribute(("type", "unreadable_input"))
                                    .write_empty()?;
                                Ok(())
                            })?;
                    }
                    Ok(())
                })?;
            Ok(())
        })?;
    Ok(())
}

fn write_case(
    writer: &mut Writer<Cursor<Vec<u8>>>,
    article: &CheckedArticle<'_>,
) -> std::io::Result<()> {
    let name = xml_text(article.name);
    let time = format!("{:.3}", article.seconds);
    let report = xml_text(&article_text(article));
    let case = writer
        .create_element("testcase")
        .with_attribute(("classname", "factgate"))
        .with_attribute(("name", name.as_str()))
        .with_attribute(("time", time.as_str()));
    match article.decision.outcome {
        Outcome::Pass => {
            case.write_inner_content(|w| {
                w.create_element("system-out")
                    .write_text_content(BytesText::new(&report))?;
                Ok(())
            })?;
        }
        Outcome::Block => {
            let kind = reason_names(&article.decision.reasons).join(",");
            let message = xml_text(&article.decision.report.recommendation_reason);
            case.write_inner_content(|w| {
                w.create_element("failure")
                    .with_attribute(("type", kind.as_str()))
                    .with_attribute(("message", message.as_str()))
                    .write_text_content(BytesText::new(&report))?;
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// `s` without the characters XML 1.0 cannot hold even escaped (control characters other than
/// tab, line feed and carriage return; U+FFFE, U+FFFF): an article's text may contain them.
fn xml_text(s: &str) -> String {
    s.chars()
        .filter(|&c| {
            matches!(c, '\t' | '\n' | '\r')
                || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}' && c != '\u{7F}')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_xml_cannot_hold_are_dropped() {
        assert_eq!(xml_text("a\u{1}b\tc\u{FFFF}"), "ab\tc");
    }
}
