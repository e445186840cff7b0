//! Reading settings: the TOML file, then `FACTGATE_<SECTION>__<KEY>` overrides, through figment,
//! with every read error turned into a [`Problem`] that names its key and where the value came from.

use std::collections::BTreeMap;

use figment::error::Kind;
use figment::providers::{Format, Toml};
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};

use super::Config;
use super::error::{ConfigError, Problem};

/// Prefix of environment overrides.
pub const ENV_PREFIX: &str = "FACTGATE_";
/// Separator between the section and the key (and nested keys) in an override's name.
pub const ENV_SEPARATOR: &str = "__";

/// Settings from environment variables: `FACTGATE_JOIN__DEADLINE_MS=5000` sets `join.deadline_ms`.
///
/// Only names with the prefix and at least one `__` are overrides; others with the prefix
/// (`FACTGATE_CONFIG`, `FACTGATE_LLM_API_KEY`) are left to whoever reads them. Values are read as
/// TOML-like scalars: `5000` is a number, `true` a boolean, `[a, b]` a list.
///
/// Under `kafka.properties` and `kafka.property_files` the last segment is a librdkafka property
/// name, lower-cased with `_` read as `.`: `FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD` sets
/// `sasl.password`. librdkafka's names hold no underscore, so nothing else could be meant.
/// Keys read under a former name too (a serde alias on the field), former → current: an
/// override by the former name takes the type of the current setting.
const RENAMED_KEYS: &[(&str, &str)] = &[
    (
        "judge.figure_tolerance_low",
        "judge.figure_medium_tolerance",
    ),
    ("judge.figure_tolerance_high", "judge.figure_high_tolerance"),
];

struct EnvOverrides {
    /// Key path (`join.deadline_ms`, `kafka.properties.sasl.password`) → (variable name, value,
    /// the path's segments: a property name is one segment, dots and all).
    vars: BTreeMap<String, (String, String, Vec<String>)>,
    /// The defaults, whose value types tell how to read each override.
    template: Value,
}

impl EnvOverrides {
    fn new(env: impl IntoIterator<Item = (String, String)>) -> Result<Self, Vec<Problem>> {
        let mut vars = BTreeMap::new();
        let mut problems = Vec::new();
        for (name, value) in env {
            let Some(rest) = name.strip_prefix(ENV_PREFIX) else {
                continue;
            };
            if !rest.contains(ENV_SEPARATOR) {
                continue;
            }
            let mut segments: Vec<String> = rest
                .split(ENV_SEPARATOR)
                .map(str::to_ascii_lowercase)
                .collect();
            // An empty segment (`FACTGATE_JOIN____X`) or a dot would silently address some other
            // key; refuse rather than guess.
            if segments.iter().any(|s| s.is_empty() || s.contains('.')) {
                problems.push(Problem {
                    key: String::new(),
                    message: format!(
                        "environment variable {name}: malformed override name (expected \
                         {ENV_PREFIX}<SECTION>{ENV_SEPARATOR}<KEY>)"
                    ),
                });
                continue;
            }
            // librdkafka property names hold dots, which a variable name cannot: the one segment
            // after `properties` (or `property_files`) is the name, `_` standing for `.`.
            if segments.len() >= 2
                && segments[0] == "kafka"
                && matches!(segments[1].as_str(), "properties" | "property_files")
            {
                if segments.len() != 3 {
                    problems.push(Problem {
                        key: format!("kafka.{}", segments[1]),
                        message: format!(
                            "environment variable {name}: expected \
                             {ENV_PREFIX}KAFKA{ENV_SEPARATOR}{}{ENV_SEPARATOR}<PROPERTY> with the \
                             property's dots written as underscores",
                            segments[1].to_ascii_uppercase()
                        ),
                    });
                    continue;
                }
                segments[2] = segments[2].replace('_', ".");
            }
            vars.insert(segments.join("."), (name, value, segments));
        }
        if problems.is_empty() {
            // The defaults are plain data; serializing them cannot fail, but an empty template
            // would only make every override a string, which the types then reject loudly.
            let template =
                Value::serialize(Config::default()).unwrap_or_else(|_| Dict::new().into());
            Ok(Self { vars, template })
        } else {
            Err(problems)
        }
    }

    /// The value of an override, read as the setting it addresses expects. A string setting keeps
    /// the text as written (`FACTGATE_KAFKA__CLIENT_ID=123` is the name "123", not a number);
    /// others are parsed as figment reads environment values: `5000` a number, `true` a boolean,
    /// `[a, b]` a list.
    fn typed_value(&self, path: &str, raw: &str) -> Value {
        // Settings without a default (`Option<String>`, serialized as empty) and map entries are
        // strings too; unknown keys are refused whatever their value.
        let path = RENAMED_KEYS
            .iter()
            .find(|(former, _)| *former == path)
            .map_or(path, |(_, current)| current);
        let wants_text = matches!(
            self.template.find_ref(path),
            None | Some(Value::String(..) | Value::Empty(..))
        );
        if wants_text {
            return Value::from(raw.to_owned());
        }
        // Parsing a `Value` cannot fail: what is not a number, boolean or list is a string.
        match raw.parse::<Value>() {
            Ok(value) => value,
            Err(never) => match never {},
        }
    }

    /// The variable that set `key`, if one did.
    /// The variable that set `key`, or a key under it: a mistyped section
    /// (`FACTGATE_JON__DEADLINE_MS`) is blamed on the variable, not on the file.
    fn origin_of(&self, key: &str) -> Option<&str> {
        if let Some((name, _, _)) = self.vars.get(key) {
            return Some(name.as_str());
        }
        if key.is_empty() {
            return None;
        }
        let under = format!("{key}.");
        self.vars
            .iter()
            .find(|(path, _)| path.starts_with(&under))
            .map(|(_, (name, _, _))| name.as_str())
    }
}

impl Provider for EnvOverrides {
    fn metadata(&self) -> Metadata {
        Metadata::named("environment variables")
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        let mut root = Dict::new();
        for (path, (_, raw, segments)) in &self.vars {
            let value = self.typed_value(path, raw);
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            insert_path(&mut root, &segments, value);
        }
        Ok(Profile::Default.collect(root))
    }
}

fn insert_path(dict: &mut Dict, path: &[&str], value: Value) {
    match path {
        [] => {}
        [leaf] => {
            dict.insert((*leaf).to_owned(), value);
        }
        [head, rest @ ..] => {
            let entry = dict
                .entry((*head).to_owned())
                .or_insert_with(|| Value::from(Dict::new()));
            if !matches!(entry, Value::Dict(..)) {
                *entry = Value::from(Dict::new());
            }
            if let Value::Dict(_, inner) = entry {
                insert_path(inner, rest, value);
            }
        }
    }
}

/// Largest configuration file read, and largest file `kafka.property_files` names: a
/// configuration is a few kilobytes, and a path given by mistake (`--config /dev/zero`, a log
/// file) must fail at once, not read until memory runs out.
pub const MAX_CONFIG_FILE_BYTES: u64 = 1 << 20;

/// The text of a configuration file (or a file it names), read up to
/// [`MAX_CONFIG_FILE_BYTES`] and one byte more.
///
/// # Errors
/// The I/O error, [`std::io::ErrorKind::FileTooLarge`] past the cap, and
/// [`std::io::ErrorKind::InvalidData`] for text that is not UTF-8.
pub fn read_capped(path: &std::path::Path) -> std::io::Result<String> {
    read_text_capped(path, MAX_CONFIG_FILE_BYTES, "a configuration")
}

/// The text of the file at `path`, read up to `max_bytes` and one byte more: a file past the
/// cap (`/dev/zero`, a log given by mistake) fails at once rather than filling memory. `what`
/// names the file in the error ("a waivers file").
///
/// # Errors
/// The I/O error, [`std::io::ErrorKind::FileTooLarge`] past the cap, and
/// [`std::io::ErrorKind::InvalidData`] for text that is not UTF-8.
pub fn read_text_capped(
    path: &std::path::Path,
    max_bytes: u64,
    what: &str,
) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(max_bytes + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than {max_bytes} bytes, the most {what} may be"),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|err| std::io::Error::new(std::io::ErrorKind::InvalidData, err))
}

/// Reads a configuration from TOML text (`file_label` names it in messages) and environment
/// overrides. A configuration that reads is returned without validating it; one that does not is
/// an error listing every problem: each value that cannot be read is set aside (its key left to
/// its default) and the rest read again, so a wrong type does not hide the invalid value after
/// it, and the values that do read are validated too (equal listeners, ranges), all named in
/// one run.
pub(super) fn read(
    toml: Option<&str>,
    file_label: &str,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<Config, ConfigError> {
    let overrides = EnvOverrides::new(env).map_err(ConfigError::Parse)?;
    let mut figment = Figment::new();
    if let Some(text) = toml {
        figment = figment.merge(Toml::string(text));
    }
    let figment = figment.merge(&overrides);
    let first = match figment.extract::<Config>() {
        Ok(config) => return Ok(config),
        Err(err) => err,
    };
    let mut problems = Vec::new();
    // A TOML syntax error leaves nothing to read past.
    let Ok(data) = figment.data() else {
        problems.extend(
            first
                .into_iter()
                .map(|e| to_problem(&e, file_label, &overrides)),
        );
        return Err(ConfigError::Parse(problems));
    };
    let mut dict = data.into_values().next().unwrap_or_default();
    let mut err = first;
    for _ in 0..MAX_PROBLEMS {
        let mut pruned = false;
        for e in err {
            problems.push(to_problem(&e, file_label, &overrides));
            let mut path: Vec<String> = e.path.clone();
            if let Kind::UnknownField(field, _) = &e.kind
                && path.last() != Some(field)
            {
                path.push(field.clone());
            }
            pruned |= remove_path(&mut dict, &path);
        }
        if !pruned {
            break;
        }
        match Figment::from(figment::providers::Serialized::defaults(&dict)).extract::<Config>() {
            Ok(config) => {
                if let Err(invalid) = config.validate() {
                    problems.extend(invalid.problems().iter().cloned());
                }
                break;
            }
            Err(next) => err = next,
        }
    }
    problems.dedup();
    Err(ConfigError::Parse(problems))
}

/// Most problems named in one run: a file of nothing but errors is not read forever.
const MAX_PROBLEMS: usize = 100;

/// Removes the value at `path` (keys and list indexes) from `dict`; whether anything was.
fn remove_path(dict: &mut Dict, path: &[String]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut value: Option<&mut Value> = None;
    for segment in parents {
        let next = match value {
            None => dict.get_mut(segment),
            Some(Value::Dict(_, inner)) => inner.get_mut(segment),
            Some(Value::Array(_, items)) => {
                segment.parse::<usize>().ok().and_then(|i| items.get_mut(i))
            }
            Some(_) => None,
        };
        let Some(next) = next else {
            return false;
        };
        value = Some(next);
    }
    match value {
        None => dict.remove(last).is_some(),
        Some(Value::Dict(_, inner)) => inner.remove(last).is_some(),
        Some(Value::Array(_, items)) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        Some(_) => false,
    }
}

fn to_problem(err: &figment::Error, file_label: &str, overrides: &EnvOverrides) -> Problem {
    let mut path: Vec<&str> = err.path.iter().map(String::as_str).collect();
    // Name the unknown key itself, which is what was mistyped, whether or not figment's path
    // already ends with it.
    let description = match &err.kind {
        Kind::UnknownField(field, expected) => {
            if path.last() != Some(&field.as_str()) {
                path.push(field);
            }
            format!("unknown key (expected one of: {})", expected.join(", "))
        }
        Kind::UnknownVariant(found, expected) => {
            format!(
                "unknown value {found:?} (expected one of: {})",
                expected.join(", ")
            )
        }
        kind => kind.to_string(),
    };
    let key = render_path(&path);
    let origin = match overrides.origin_of(&path.join(".")) {
        Some(var) => format!("environment variable {var}"),
        None => file_label.to_owned(),
    };
    let message = if key.is_empty() {
        format!("{origin}: {description}")
    } else {
        format!("{key}: {description} (in {origin})")
    };
    Problem { key, message }
}

/// `["fetch", "address_allowlist", "1"]` → `fetch.address_allowlist[1]`.
fn render_path(path: &[&str]) -> String {
    let mut out = String::new();
    for segment in path {
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(segment);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(segment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_up_to_the_cap_and_no_further() {
        let dir = tempfile::tempdir().expect("temp dir");
        let at_cap = dir.path().join("at-cap.toml");
        std::fs::write(&at_cap, "#".repeat(MAX_CONFIG_FILE_BYTES as usize)).expect("write");
        assert_eq!(
            read_capped(&at_cap).expect("at the cap").len() as u64,
            MAX_CONFIG_FILE_BYTES
        );
        let over = dir.path().join("over.toml");
        std::fs::write(&over, "#".repeat(MAX_CONFIG_FILE_BYTES as usize + 1)).expect("write");
        let err = read_capped(&over).expect_err("over the cap");
        assert_eq!(err.kind(), std::io::ErrorKind::FileTooLarge);
        // Endless: read to one byte past the cap, then refused.
        let err = read_capped(std::path::Path::new("/dev/zero")).expect_err("endless");
        assert_eq!(err.kind(), std::io::ErrorKind::FileTooLarge);
        std::fs::write(&over, b"\xff\xfe").expect("write");
        assert_eq!(
            read_capped(&over).expect_err("not text").kind(),
            std::io::ErrorKind::InvalidData
        );
    }
}
