//! Pages a site serves instead of the cited document: a sign-in form, an "Access denied" page,
//! a bot check, a rate-limit page, a consent or registration wall, an age gate, a region block,
//! a maintenance notice. Served with 200 OK they read as pages, and a page that says nothing
//! about a claim cannot vouch for it: read as the source, such a page would leave figure claims
//! "not stated" and let a figure-free claim through on the site's name alone. Each is a source
//! that could not be read, with the reason in words.
//!
//! Every marker is looked for on a page that says little ([`MAX_WALL_WORDS`]): an article that
//! reports on a bot attack, a password leak or cookie law says more than a wall does, and keeps
//! being read.

use std::sync::LazyLock;

use regex::Regex;
use scraper::{Html, Selector};

use super::webpage::{HtmlText, first_headings, heading_segments, words};

/// What a site served instead of the cited document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WallKind {
    /// A sign-in form or single sign-on page.
    SignIn,
    /// An "Access denied" or "Forbidden" page, or a web firewall's block page.
    AccessDenied,
    /// A bot check: a browser challenge or a CAPTCHA.
    BotCheck,
    /// A "Too many requests" page.
    RateLimit,
    /// A cookie or privacy consent page in place of the content.
    Consent,
    /// A page asking the reader to register or sign in to read on.
    Registration,
    /// An age check.
    AgeGate,
    /// "Not available in your country".
    RegionBlock,
    /// A maintenance or "back soon" notice.
    Maintenance,
    /// "Your browser is not supported".
    UnsupportedBrowser,
}

impl WallKind {
    /// What the site served, as a reason follows "the page is".
    pub fn what(self) -> &'static str {
        match self {
            Self::SignIn => "a sign-in page",
            Self::AccessDenied => "an \"access denied\" page",
            Self::BotCheck => "a bot check",
            Self::RateLimit => "a rate-limit page",
            Self::Consent => "a consent page",
            Self::Registration => "a registration wall",
            Self::AgeGate => "an age check",
            Self::RegionBlock => "a notice that the page is not available in this region",
            Self::Maintenance => "a maintenance notice",
            Self::UnsupportedBrowser => "a notice that the browser is not supported",
        }
    }

    /// What the writer can cite instead, written to follow a colon.
    pub fn advice(self) -> &'static str {
        match self {
            Self::SignIn | Self::Registration | Self::Consent | Self::AgeGate => {
                "cite a page open to readers, or a public copy of the document"
            }
            Self::AccessDenied | Self::BotCheck | Self::RegionBlock | Self::UnsupportedBrowser => {
                "cite a public copy of the document, or ask the site to let factgate's fetcher \
                 through"
            }
            Self::RateLimit | Self::Maintenance => {
                "check the source again later, or cite a copy of the document elsewhere"
            }
        }
    }
}

/// A page found to be a wall, with what gave it away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wall {
    pub kind: WallKind,
    /// The marker: a heading or phrase as written, or the markup that showed it.
    pub marker: String,
}

impl Wall {
    /// The reason in words: "the site served a sign-in page (\"Sign in\") instead of the cited
    /// document".
    pub fn reason(&self) -> String {
        format!(
            "the site served {} (\"{}\") instead of the cited document",
            self.kind.what(),
            self.marker
        )
    }
}

/// Most words of visible text a wall shows, with its teaser, its form's labels and its help
/// text. A page that says more is read as a page: an article about a bot attack says more.
pub const MAX_WALL_WORDS: usize = 250;
/// Most words a page may say for a phrase anywhere in its text to mark it, rather than in its
/// title, headings or opening.
const MAX_BARE_WORDS: usize = 90;
/// Characters of a page's text read as its opening.
const OPENING_CHARS: usize = 240;

/// The phrases, lower-case, that mark each kind of wall in a title, a heading or a short page's
/// text. Phrases are matched on word boundaries.
const PHRASES: &[(WallKind, &[&str])] = &[
    (
        WallKind::BotCheck,
        &[
            "just a moment",
            "checking your browser",
            "checking if the site connection is secure",
            "verify you are human",
            "verify you are a human",
            "verifying you are human",
            "verify that you are human",
            "verify you're a human",
            "confirm you are human",
            "are you a robot",
            "are you a human",
            "i'm not a robot",
            "i am not a robot",
            "pardon our interruption",
            "attention required",
            "ddos protection by",
            "please complete the security check",
            "complete the security check",
            "press & hold",
            "press and hold",
            "unusual traffic",
            "automated access",
            "bot detection",
            "human verification",
            "security check",
            "browser check",
            "one more step",
            "please stand by, while we are checking your browser",
            "sicherheitsüberprüfung",
            "vérification de sécurité",
            "verificación de seguridad",
        ],
    ),
    (
        WallKind::RateLimit,
        &[
            "too many requests",
            "rate limit exceeded",
            "you have been rate limited",
            "you are being rate limited",
            "you've been rate limited",
            "request limit exceeded",
            "zu viele anfragen",
            "trop de requêtes",
            "demasiadas solicitudes",
        ],
    ),
    (
        WallKind::AccessDenied,
        &[
            "access denied",
            "access required",
            "you need permission to access",
            "access to this page has been denied",
            "access forbidden",
            "forbidden",
            "request blocked",
            "request rejected",
            "the requested url was rejected",
            "this request was blocked",
            "sorry, you have been blocked",
            "you have been blocked",
            "you don't have permission to access",
            "you do not have permission to access",
            "you don't have authorization to view this page",
            "not authorized to view this page",
            "unauthorized",
            "unauthorised",
            "zugriff verweigert",
            "zugang verweigert",
            "accès refusé",
            "accès interdit",
            "acceso denegado",
            "acceso prohibido",
        ],
    ),
    (
        WallKind::RegionBlock,
        &[
            "not available in your country",
            "not available in your region",
            "unavailable in your country",
            "unavailable in your region",
            "not available in your location",
            "not available in your area",
            "unavailable for legal reasons",
            "in deinem land nicht verfügbar",
            "in ihrem land nicht verfügbar",
            "pas disponible dans votre pays",
            "no está disponible en tu país",
            "no disponible en tu país",
        ],
    ),
    (
        WallKind::AgeGate,
        &[
            "are you over 18",
            "are you 18 or older",
            "are you of legal drinking age",
            "you must be 18",
            "you must be over 18",
            "you must be 21",
            "confirm your age",
            "verify your age",
            "age verification",
            "enter your date of birth",
        ],
    ),
    (
        WallKind::Maintenance,
        &[
            "we'll be back soon",
            "we will be back soon",
            "we’ll be back soon",
            "down for maintenance",
            "under maintenance",
            "scheduled maintenance",
            "site maintenance",
            "temporarily unavailable",
            "wartungsarbeiten",
            "en maintenance",
            "en mantenimiento",
        ],
    ),
    (
        WallKind::UnsupportedBrowser,
        &[
            "browser not supported",
            "your browser is not supported",
            "unsupported browser",
            "this browser is no longer supported",
            "browser wird nicht unterstützt",
            "navigateur non pris en charge",
            "navegador no compatible",
        ],
    ),
    (
        WallKind::Registration,
        &[
            "exclusive to subscribers",
            "subscribe now to continue reading",
            "this article is for subscribers",
            "for subscribers only",
            "exclusivo para suscriptores",
            "suscríbete para seguir leyendo",
            "réservé aux abonnés",
            "nur für abonnenten",
            "create a free account to continue",
            "create an account to continue",
            "create a free account to read",
            "register to continue reading",
            "register to continue",
            "register for free to continue",
            "sign up to continue reading",
            "sign up to read",
            "log in to continue reading",
            "log in or register to continue",
            "sign in to continue reading",
            "sign in or register to continue",
            "to continue reading, please log in",
            "to continue reading, please sign in",
            "to continue reading, please register",
            "register now to read",
            "already a member? sign in",
            "kostenlos registrieren und weiterlesen",
            "inscrivez-vous pour lire la suite",
            "regístrate para seguir leyendo",
        ],
    ),
    (
        WallKind::Consent,
        &[
            "before you continue",
            "we value your privacy",
            "your privacy choices",
            "your privacy matters",
            "cookie consent",
            "cookie settings",
            "manage cookies",
            "manage consent",
            "accept all cookies",
            "accept cookies",
            "reject all",
            "consent to cookies",
            "this site uses cookies",
            "this website uses cookies",
            "we use cookies",
            "privacy preferences",
            "datenschutzeinstellungen",
            "bevor sie fortfahren",
            "wir verwenden cookies",
            "avant de continuer",
            "nous respectons votre vie privée",
            "antes de continuar",
        ],
    ),
    (
        WallKind::SignIn,
        &[
            "sign in",
            "sign-in",
            "signin",
            "log in",
            "log-in",
            "login",
            "log on",
            "logon",
            "single sign-on",
            "sso",
            "sign in to your account",
            "sign in to continue",
            "log in to your account",
            "log in to continue",
            "member login",
            "user login",
            "staff login",
            "account login",
            "authentication required",
            "enter your password",
            "institutional login",
            "access through your institution",
            "anmelden",
            "anmeldung",
            "einloggen",
            "connexion",
            "se connecter",
            "identifiez-vous",
            "iniciar sesión",
            "inicia sesión",
            "acceder",
        ],
    ),
];

/// Markup a bot check's page carries: a challenge platform's scripts and forms, a CAPTCHA
/// widget.
static BOT_CHECK_MARKUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)/cdn-cgi/challenge-platform|\b(?:id|class)\s*=\s*["'][^"']*\b(?:cf-challenge|challenge-form|challenge-running|cf-browser-verification|cf-turnstile|g-recaptcha|h-captcha|px-captcha|captcha-container|captcha-box)\b|captcha-delivery\.com|_Incapsula_Resource|hcaptcha\.com/1/api|google\.com/recaptcha|challenges\.cloudflare\.com"#,
    )
    .expect("bot check markup pattern")
});

/// The bot check's markup in a page as served, if any: looked for before the markup is parsed
/// and dropped, and weighed by [`wall`] with what the page says.
pub fn bot_check_markup(markup: &str) -> Option<String> {
    BOT_CHECK_MARKUP
        .find(markup)
        .map(|m| m.as_str().trim().to_owned())
}

/// URL path segments of a sign-in page a redirect may lead to.
const SIGN_IN_PATHS: &[&str] = &[
    "login",
    "log-in",
    "signin",
    "sign-in",
    "sign_in",
    "logon",
    "sso",
    "auth",
    "authorize",
    "oauth",
    "oauth2",
    "saml",
    "cas",
    "idp",
    "wp-login.php",
    "login.php",
    "login.aspx",
    "signin.aspx",
    "anmelden",
    "connexion",
    "accounts",
];

/// Whether a page served as a success is a wall in place of the cited document, and which.
///
/// The page must say little ([`MAX_WALL_WORDS`] words of visible text), and show one of:
/// - a bot check's markup ([`bot_check_markup`]: a challenge platform's scripts, a CAPTCHA
///   widget);
/// - a title segment or heading that is a wall's phrase ([`PHRASES`]) with at most a few other
///   words ("Access Denied", "Sign in to your account", "Just a moment...");
/// - a wall's phrase of three words or more in the text's opening ("you don't have permission
///   to access", "too many requests"), or one of two words or more anywhere in the text of a
///   page of very few words ([`MAX_BARE_WORDS`]);
/// - a password field or a form at a sign-in path (`/login`, `/sso`…) a redirect led to, on
///   a page of very few words.
///
/// Sign-in and consent words name a site's links, buttons and banners on any page: in a page's
/// text a sign-in sentence counts only on a page of very few words that has a form, a consent
/// phrase never (a consent page is known by its share of consent talk), and a consent heading
/// only on a page of very few words with a form.
///
/// `bot_markup` is what [`bot_check_markup`] found in the page's markup; `url` its final URL.
pub fn wall(
    document: &Html,
    page: &HtmlText,
    bot_markup: Option<String>,
    url: &str,
) -> Option<Wall> {
    let said = words(&page.text);
    if said.len() > MAX_WALL_WORDS {
        return None;
    }
    let found = |kind, marker: String| Some(Wall { kind, marker });
    if let Some(marker) = bot_markup {
        return found(WallKind::BotCheck, marker);
    }
    let headings = first_headings(document);
    let segments = heading_segments(page, &headings);
    let opening: String = page.text.chars().take(OPENING_CHARS).collect();
    let bare = said.len() <= MAX_BARE_WORDS;
    let form = has_form(document);
    for (kind, phrases) in PHRASES {
        let banner_words = matches!(kind, WallKind::Consent | WallKind::SignIn);
        if let Some(segment) = segments
            .iter()
            .find(|s| is_wall_heading(s, phrases) && (*kind != WallKind::Consent || (bare && form)))
        {
            return found(*kind, collapse(segment));
        }
        // A consent page is known by its share of consent talk (below), never by a phrase in
        // its text: a cookie banner's "we use cookies" opens many a short page.
        if *kind == WallKind::Consent || (banner_words && !(bare && form)) {
            continue;
        }
        // A registration wall's teaser comes before its offer: its phrases, long and
        // specific, count anywhere in a page that says little.
        let reach = if *kind == WallKind::Registration {
            page.text.as_str()
        } else {
            opening.as_str()
        };
        if let Some(phrase) = phrase_in(reach, phrases, 3) {
            return found(*kind, phrase.to_owned());
        }
        // A cookie banner or a "Sign in" button sits beside the text of many a short page: in
        // the text, a consent phrase never marks a wall (the consent page's own rule below
        // does), and a sign-in phrase only as a sentence ("sign in to continue").
        let least = if *kind == WallKind::SignIn { 3 } else { 2 };
        if bare
            && *kind != WallKind::Consent
            && let Some(phrase) = phrase_in(&page.text, phrases, least)
        {
            return found(*kind, phrase.to_owned());
        }
    }
    if form && let Some(marker) = consent_page(&page.text) {
        return found(WallKind::Consent, marker);
    }
    if bare && has_password_field(document) {
        return found(WallKind::SignIn, "a password field".to_owned());
    }
    if bare && form && on_sign_in_path(url) {
        return found(WallKind::SignIn, format!("a form at {}", path_of(url)));
    }
    None
}

/// Whether a plain-text page is a wall: its first line read as its heading, its text as a
/// page's.
pub fn plain_text_wall(text: &str) -> Option<Wall> {
    if text.split_whitespace().nth(MAX_WALL_WORDS).is_some() {
        return None;
    }
    let page = HtmlText {
        title: text.lines().find(|l| !l.trim().is_empty()).map(collapse),
        text: text.to_owned(),
        claim_reviews: Vec::new(),
        furniture: String::new(),
    };
    wall(&Html::new_document(), &page, None, "")
}

/// Words, lower-case, that a consent page's every paragraph speaks: cookies, consent, partners,
/// tracking, accepting and refusing, in the languages most newsrooms cite.
const CONSENT_WORDS: &[&str] = &[
    "cookie",
    "cookies",
    "consent",
    "consentement",
    "consentimiento",
    "zustimmung",
    "einwilligung",
    "privacy",
    "datenschutz",
    "confidentialité",
    "privacidad",
    "partners",
    "partenaires",
    "partner",
    "socios",
    "vendors",
    "tracking",
    "werbung",
    "accept",
    "akzeptieren",
    "accepter",
    "aceptar",
    "reject",
    "ablehnen",
    "refuser",
    "rechazar",
    "personal",
    "personenbezogene",
    "personnelles",
    "personales",
];

/// Share of a page's words, at least, in paragraphs that speak of consent for the page to be a
/// consent page: a cookie banner beside an article is a small share of it.
const CONSENT_SHARE: f64 = 0.6;

/// Whether a page that says little is all consent: [`CONSENT_SHARE`] of its words in
/// paragraphs with a word of [`CONSENT_WORDS`], and at least three such words. Returns the
/// marker.
fn consent_page(text: &str) -> Option<String> {
    let mut all = 0usize;
    let mut consenting = 0usize;
    let mut hits = 0usize;
    for paragraph in text.split("\n\n") {
        let said = words(paragraph);
        let found = said
            .iter()
            .filter(|w| CONSENT_WORDS.contains(&w.as_str()))
            .count();
        all += said.len();
        if found > 0 {
            consenting += said.len();
            hits += found;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let share = consenting as f64 / all.max(1) as f64;
    (hits >= 3 && share >= CONSENT_SHARE).then(|| {
        format!(
            "{}% of its text about cookies and consent",
            (share * 100.0).round()
        )
    })
}

/// Most words a wall's title segment or heading holds beside its phrase: "Sign in to your
/// account", "Error 1020 Access denied", not "Forbidden fruit: a new exhibition opens".
const MAX_WORDS_BESIDE_PHRASE: usize = 3;

/// Whether a title segment or heading is a wall's: one of `phrases` with at most
/// [`MAX_WORDS_BESIDE_PHRASE`] other words.
fn is_wall_heading(segment: &str, phrases: &'static [&'static str]) -> bool {
    let Some(phrase) = phrase_in(segment, phrases, 1) else {
        return false;
    };
    let all = words(segment).len();
    let own = words(phrase).len();
    all.saturating_sub(own) <= MAX_WORDS_BESIDE_PHRASE
}

/// The first of `phrases` of at least `min_words` words in `text`, on word boundaries, case
/// and the apostrophe's shape aside.
fn phrase_in(
    text: &str,
    phrases: &'static [&'static str],
    min_words: usize,
) -> Option<&'static str> {
    let lower = text.to_lowercase().replace('’', "'");
    phrases.iter().copied().find(|phrase| {
        phrase.split_whitespace().count() >= min_words
            && super::contains_whole_words(&lower, phrase)
    })
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn has_password_field(document: &Html) -> bool {
    Selector::parse("input[type=password i]")
        .is_ok_and(|sel| document.select(&sel).next().is_some())
}

fn has_form(document: &Html) -> bool {
    Selector::parse("form, input:not([type=hidden i]), button")
        .is_ok_and(|sel| document.select(&sel).next().is_some())
}

fn on_sign_in_path(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| {
        u.path_segments()
            .into_iter()
            .flatten()
            .any(|segment| SIGN_IN_PATHS.contains(&segment.to_lowercase().as_str()))
    })
}

fn path_of(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_owned(), |u| u.path().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::webpage::html_to_text;

    fn wall_of(html: &str, url: &str) -> Option<Wall> {
        let document = Html::parse_document(html);
        let page = html_to_text(html);
        wall(&document, &page, bot_check_markup(html), url)
    }

    #[test]
    fn phrases_match_on_word_boundaries_only() {
        assert_eq!(phrase_in("Please log in.", &["log in"], 1), Some("log in"));
        assert_eq!(phrase_in("The catalog included", &["log in"], 1), None);
        assert_eq!(
            phrase_in("We’ll be back soon", &["we'll be back soon"], 3),
            Some("we'll be back soon")
        );
    }

    #[test]
    fn a_bare_sign_in_form_is_a_wall_and_an_article_with_a_login_link_is_not() {
        let login = r#"<html><head><title>Sign in | Council Portal</title></head><body>
            <form><label>Email <input name=email></label>
            <label>Password <input type=password name=pw></label><button>Sign in</button></form>
            </body></html>"#;
        let found = wall_of(login, "https://portal.example/login").expect("a wall");
        assert_eq!(found.kind, WallKind::SignIn);
        let article = format!(
            "<html><head><title>Budget approved | The Gazette</title></head><body>\
             <header><a href=/login>Log in</a></header><article><h1>Budget approved</h1>{}\
             </article></body></html>",
            "<p>The council approved a budget of $4.2 million on Tuesday, after a debate that \
             ran for three hours and ended with a vote of seven to two.</p>"
                .repeat(8)
        );
        assert_eq!(
            wall_of(&article, "https://gazette.example/news/budget"),
            None
        );
    }
}

#[cfg(test)]
mod corpus {
    use super::*;
    use crate::text::webpage::html_to_text;
    use std::path::Path;

    /// The pages of one folder of tests/fixtures/interstitial, each with the wall found in it.
    pub(super) fn read(set: &str, folder: &str) -> Vec<(String, Option<Wall>)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures")
            .join(set)
            .join(folder);
        let mut pages: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "html"))
            .collect();
        pages.sort();
        pages
            .into_iter()
            .map(|path| {
                let html = std::fs::read_to_string(&path).expect("fixture");
                let document = Html::parse_document(&html);
                let page = html_to_text(&html);
                let name = path
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned();
                let url = format!("https://site.example/{name}");
                // What the fetcher finds first: a paywall, or a page its scripts render.
                let found = wall(&document, &page, bot_check_markup(&html), &url).or_else(|| {
                    let other = crate::text::webpage::paywall_marker(Some(&html), &page.text)
                        .or_else(|| crate::text::webpage::script_rendered(&document, &page))?;
                    Some(Wall {
                        kind: WallKind::Registration,
                        marker: format!("paywall or script shell: {other}"),
                    })
                });
                (name, found)
            })
            .collect()
    }

    /// Pages written apart from the detector, by a writer who saw none of its rules: every wall
    /// (sign-in, access denied, bot check, rate limit, consent, registration, age, region,
    /// maintenance) is found, and no article, press release or help page, however much it
    /// talks of logins, bots, cookies or denied access, is taken for one.
    #[test]
    fn walls_are_found_and_articles_about_them_are_read() {
        let walls = read("interstitial", "wall");
        let articles = read("interstitial", "article");
        assert!(walls.len() >= 40 && articles.len() >= 30);
        let missed: Vec<&str> = walls
            .iter()
            .filter(|(_, found)| found.is_none())
            .map(|(name, _)| name.as_str())
            .collect();
        let flagged: Vec<String> = articles
            .iter()
            .filter_map(|(name, found)| found.as_ref().map(|w| format!("{name}: {w:?}")))
            .collect();
        for (name, found) in &walls {
            eprintln!("{name}: {found:?}");
        }
        assert!(flagged.is_empty(), "articles taken for walls: {flagged:#?}");
        assert!(missed.is_empty(), "walls read as pages: {missed:#?}");
    }
}

#[cfg(test)]
mod held_out {
    /// The held-out pages (tests/fixtures/interstitial-heldout), by another writer, read once
    /// the rules were set on the development pages and not tuned on since: walls found and
    /// pages taken for walls, printed; the floors keep what was measured.
    #[test]
    fn held_out_walls_and_pages() {
        let walls = super::corpus::read("interstitial-heldout", "wall");
        let pages = super::corpus::read("interstitial-heldout", "article");
        let found = walls.iter().filter(|(_, w)| w.is_some()).count();
        let taken: Vec<String> = pages
            .iter()
            .filter_map(|(n, w)| w.as_ref().map(|w| format!("{n}: {w:?}")))
            .collect();
        for (name, wall) in walls.iter().filter(|(_, w)| w.is_none()) {
            eprintln!("missed: {name} {wall:?}");
        }
        eprintln!(
            "held out: {found} of {} walls found; {} of {} pages taken for walls {taken:#?}",
            walls.len(),
            taken.len(),
            pages.len()
        );
        assert!(taken.is_empty(), "{taken:#?}");
        assert!(
            found >= 22,
            "held-out walls found fell below the 22 of 25 measured"
        );
    }
}
