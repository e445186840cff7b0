//! Configuration: the shipped file, valid and invalid fixtures, environment overrides and secrets.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use factgate::config::{Config, ConfigError, LogFormat};
use factgate_core::decide::Strictness;
use factgate_core::judge::CredibilityLevel;
use factgate_core::judge::credibility::credibility;

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/factgate.toml");

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/configs")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    files
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Key paths of every leaf (and every empty table) of a TOML document.
fn key_paths(value: &toml::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        toml::Value::Table(table) if !table.is_empty() => {
            for (key, value) in table {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                key_paths(value, &path, out);
            }
        }
        _ => {
            out.insert(prefix.to_owned());
        }
    }
}

#[test]
fn shipped_file_is_exactly_the_defaults() {
    let loaded = Config::load_with_env(Some(Path::new(SHIPPED)), Vec::new()).expect("loads");
    assert_eq!(loaded, Config::default());
}

#[test]
fn shipped_file_lists_every_setting() {
    let text = std::fs::read_to_string(SHIPPED).unwrap();
    let mut in_file = BTreeSet::new();
    key_paths(
        &toml::from_str::<toml::Value>(&text).unwrap(),
        "",
        &mut in_file,
    );

    let mut in_code = BTreeSet::new();
    key_paths(
        &toml::Value::try_from(Config::default()).unwrap(),
        "",
        &mut in_code,
    );
    // Settings with no default value appear commented out, with an example.
    for unset in ["kafka.bootstrap_servers", "llm.base_url", "llm.model"] {
        assert!(
            text.contains(&format!("# {}", unset.rsplit('.').next().unwrap())),
            "{unset}"
        );
    }
    let missing: Vec<_> = in_code.difference(&in_file).collect();
    let extra: Vec<_> = in_file.difference(&in_code).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "config/factgate.toml lacks {missing:?} and has unknown {extra:?}"
    );
}

#[test]
fn shipped_file_documents_every_setting() {
    let text = std::fs::read_to_string(SHIPPED).unwrap();
    let mut previous = "";
    for line in text.lines() {
        let is_setting = !line.starts_with('#') && !line.starts_with('[') && line.contains(" = ");
        if is_setting {
            assert!(
                line.contains(" # ") || previous.starts_with('#'),
                "setting without a comment beside or above it: {line}"
            );
        }
        previous = line;
    }
}

#[test]
fn every_invalid_fixture_is_rejected_with_its_message() {
    let files = fixtures("invalid");
    assert!(files.len() >= 30, "only {} invalid fixtures", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = text
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{}: first line must be `# expect: …`", path.display()));
        match Config::from_toml_str(&text) {
            Ok(_) => panic!(
                "{}: accepted, expected an error with {expected:?}",
                path.display()
            ),
            Err(err) => {
                let message = err.to_string();
                assert!(
                    message.contains(expected),
                    "{}: error {message:?} does not contain {expected:?}",
                    path.display()
                );
            }
        }
        // The file loader reports the same problem, naming the file.
        if let Err(ConfigError::Parse(problems)) = Config::load_with_env(Some(&path), Vec::new()) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                problems.iter().all(|p| p.message.contains(&name)),
                "{problems:?}"
            );
        }
    }
}

#[test]
fn every_valid_fixture_loads() {
    let files = fixtures("valid");
    assert!(files.len() >= 2);
    for path in files {
        let config = Config::load_with_env(Some(&path), Vec::new())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_ne!(
            config,
            Config::default(),
            "{} changes nothing",
            path.display()
        );
    }
}

#[test]
fn valid_fixtures_read_as_written() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/configs/valid");
    let dev = Config::load_with_env(Some(&dir.join("local-dev.toml")), Vec::new()).unwrap();
    assert!(dev.fetch.is_allowlisted("127.0.0.1".parse().unwrap()));
    assert!(dev.fetch.is_allowlisted("::1".parse().unwrap()));
    assert!(!dev.fetch.is_allowlisted("127.0.0.2".parse().unwrap()));
    assert!(!dev.fetch.allow_private_addresses);
    assert_eq!(dev.fetch.per_host_requests_per_second, 0.5);
    assert!(dev.llm.enabled);
    assert_eq!(dev.llm.model.as_deref(), Some("local-judge"));
    assert_eq!(dev.log.format, LogFormat::Json);
    // Sections the file leaves out keep their defaults.
    assert_eq!(dev.join, Config::default().join);

    let strict =
        Config::load_with_env(Some(&dir.join("strict-newsroom.toml")), Vec::new()).unwrap();
    assert_eq!(strict.policy.strictness, Strictness::Strict);
    assert_eq!(strict.kafka.topics.drafts, "cms.drafts");
    assert_eq!(strict.kafka.topics.verify, "claims.verify");
    assert_eq!(strict.kafka.properties["security.protocol"], "SASL_SSL");
    assert_eq!(
        credibility("https://www.ons.gov.uk/", &strict.credibility).level,
        CredibilityLevel::High
    );
    assert_eq!(
        credibility("https://example-content-farm.com/", &strict.credibility).level,
        CredibilityLevel::Low
    );
    assert_eq!(
        credibility("https://example.com/", &strict.credibility).level,
        CredibilityLevel::Generic
    );
    assert_eq!(strict.http.listen.port(), 8080);
}

#[test]
fn unknown_key_names_its_section_and_the_keys_it_could_be() {
    let err = Config::from_toml_str("[fetch]\ntimout_ms = 5\n").unwrap_err();
    let message = err.to_string();
    assert!(message.contains("fetch.timout_ms"), "{message}");
    assert!(
        message.contains("timeout_ms"),
        "suggests the real key: {message}"
    );
    assert!(matches!(err, ConfigError::Parse(_)));
}

#[test]
fn renamed_keys_are_read_under_their_former_names() {
    let old = Config::from_toml_str(
        "[judge]\nfigure_tolerance_low = 0.05\nfigure_tolerance_high = 0.3\n",
    )
    .expect("a file written with the former names loads");
    assert_eq!(old.judge.figure_medium_tolerance, 0.05);
    assert_eq!(old.judge.figure_high_tolerance, 0.3);
    let from_env = Config::load_with_env(
        None,
        env(&[("FACTGATE_JUDGE__FIGURE_TOLERANCE_LOW", "0.15")]),
    )
    .expect("the former name loads from the environment");
    assert_eq!(from_env.judge.figure_medium_tolerance, 0.15);
    assert_eq!(
        from_env.judge_settings().figure_medium_tolerance,
        0.15,
        "the judge gets it"
    );

    let both = Config::from_toml_str(
        "[judge]\nfigure_tolerance_low = 0.05\nfigure_medium_tolerance = 0.1\n",
    )
    .unwrap_err();
    assert!(
        both.to_string().contains("figure_medium_tolerance"),
        "{both}"
    );
}

#[test]
fn environment_overrides_the_file() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/configs/valid/minimal.toml");
    let config = Config::load_with_env(
        Some(&file),
        env(&[
            ("FACTGATE_JOIN__DEADLINE_MS", "5000"),
            ("FACTGATE_FETCH__TIMEOUT_MS", "4000"),
            ("FACTGATE_FETCH__RETRY_AFTER_MAX_MS", "4000"),
            ("FACTGATE_LLM__TIMEOUT_MS", "4000"),
            ("FACTGATE_KAFKA__BOOTSTRAP_SERVERS", "127.0.0.1:19092"),
            ("FACTGATE_KAFKA__TOPICS__DRAFTS", "cms.drafts"),
            ("FACTGATE_FETCH__ALLOW_PRIVATE_ADDRESSES", "true"),
            ("FACTGATE_FETCH__PER_HOST_REQUESTS_PER_SECOND", "1.5"),
            ("FACTGATE_POLICY__STRICTNESS", "lenient"),
            ("FACTGATE_HTTP__LISTEN", "127.0.0.1:9090"),
            // Not overrides: no section separator, or another prefix.
            ("FACTGATE_CONFIG", "/etc/factgate.toml"),
            ("FACTGATE_LLM_API_KEY", "sk-not-config"),
            ("JOIN__DEADLINE_MS", "1"),
        ]),
    )
    .expect("loads");
    assert_eq!(config.join.deadline_ms, 5000, "env beats the file's 30000");
    assert_eq!(config.fetch.timeout_ms, 4000);
    assert_eq!(
        config.kafka.bootstrap_servers.as_deref(),
        Some("127.0.0.1:19092")
    );
    assert_eq!(config.kafka.topics.drafts, "cms.drafts");
    assert_eq!(config.kafka.topics.verify, "claims.verify");
    assert!(config.fetch.allow_private_addresses);
    assert_eq!(config.fetch.per_host_requests_per_second, 1.5);
    assert_eq!(config.policy.strictness, Strictness::Lenient);
    assert_eq!(config.http.listen.port(), 9090);
}

#[test]
fn environment_overrides_apply_without_a_file() {
    let config = Config::load_with_env(
        None,
        env(&[
            ("FACTGATE_KAFKA__CLIENT_ID", "newsroom-7"),
            ("FACTGATE_LOG__FORMAT", "json"),
            ("FACTGATE_TRACE__OTLP_ENDPOINT", "http://127.0.0.1:4318"),
        ]),
    )
    .unwrap();
    assert_eq!(config.kafka.client_id, "newsroom-7");
    assert_eq!(config.log.format, LogFormat::Json);
    assert_eq!(config.join, Config::default().join);
    assert_eq!(
        config.trace.traces_url(None).as_deref(),
        Some("http://127.0.0.1:4318/v1/traces")
    );
    assert_eq!(
        Config::default().trace.traces_url(None),
        None,
        "off by default"
    );
}

#[test]
fn environment_values_take_the_type_of_their_setting() {
    let config = Config::load_with_env(
        None,
        env(&[
            // Text settings keep digits as text.
            ("FACTGATE_KAFKA__CLIENT_ID", "123"),
            ("FACTGATE_KAFKA__TOPICS__DRAFTS", "2024"),
            ("FACTGATE_LLM__MODEL", "7"),
            // Lists are written as in TOML, quotes optional.
            ("FACTGATE_FETCH__ADDRESS_ALLOWLIST", "[127.0.0.1/32, ::1]"),
            ("FACTGATE_CREDIBILITY__HIGH", "[.gov, reuters.com]"),
        ]),
    )
    .unwrap();
    assert_eq!(config.kafka.client_id, "123");
    assert_eq!(config.kafka.topics.drafts, "2024");
    assert_eq!(config.llm.model.as_deref(), Some("7"));
    assert!(config.fetch.is_allowlisted("127.0.0.1".parse().unwrap()));
    assert!(config.fetch.is_allowlisted("::1".parse().unwrap()));
    assert_eq!(config.credibility.high, vec![".gov", "reuters.com"]);
}

#[test]
fn environment_errors_name_the_variable() {
    let unknown = Config::load_with_env(None, env(&[("FACTGATE_FETCH__TIMOUT_MS", "5")]))
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("fetch.timout_ms"), "{unknown}");
    assert!(unknown.contains("FACTGATE_FETCH__TIMOUT_MS"), "{unknown}");

    let wrong_type = Config::load_with_env(None, env(&[("FACTGATE_JOIN__DEADLINE_MS", "soon")]))
        .unwrap_err()
        .to_string();
    assert!(wrong_type.contains("join.deadline_ms"), "{wrong_type}");
    assert!(
        wrong_type.contains("FACTGATE_JOIN__DEADLINE_MS"),
        "{wrong_type}"
    );

    let malformed = Config::load_with_env(None, env(&[("FACTGATE_JOIN____DEADLINE_MS", "5")]))
        .unwrap_err()
        .to_string();
    assert!(
        malformed.contains("FACTGATE_JOIN____DEADLINE_MS"),
        "{malformed}"
    );

    let nested = Config::load_with_env(
        None,
        env(&[("FACTGATE_KAFKA__PROPERTIES__SASL__PASSWORD", "x")]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        nested.contains("FACTGATE_KAFKA__PROPERTIES__SASL__PASSWORD"),
        "{nested}"
    );
    assert!(nested.contains("dots written as underscores"), "{nested}");

    let invalid =
        Config::load_with_env(None, env(&[("FACTGATE_JOIN__DEADLINE_MS", "0")])).unwrap_err();
    assert!(matches!(invalid, ConfigError::Invalid(_)));
    assert!(
        invalid
            .to_string()
            .contains("join.deadline_ms must be greater than 0"),
        "{invalid}"
    );
}

#[test]
fn missing_file_is_an_error_naming_it() {
    let err = Config::load_with_env(Some(Path::new("/nonexistent/factgate.toml")), Vec::new())
        .unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }));
    assert!(
        err.to_string().contains("/nonexistent/factgate.toml"),
        "{err}"
    );
}

#[test]
fn several_problems_are_reported_together() {
    let err = Config::from_toml_str(
        "[fetch]\nbackoff_base_ms = 5000\nbackoff_max_ms = 1000\n[cache]\nttl_not_found_s = 7200\n",
    )
    .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("fetch.backoff_base_ms (5000) must not exceed"),
        "{message}"
    );
    assert!(
        message.contains("cache.ttl_not_found_s (7200) must be shorter"),
        "{message}"
    );
    assert_eq!(err.problems().len(), 2, "{message}");
}

#[test]
fn no_secret_reaches_an_error_or_the_debug_output() {
    const SECRET: &str = "sk-live-0123456789abcdef";

    // Pasted into the file as a key of its own.
    let in_file = Config::from_toml_str(&format!("[llm]\napi_key = \"{SECRET}\"\n")).unwrap_err();
    assert!(in_file.to_string().contains("llm.api_key"), "{in_file}");
    assert!(!in_file.to_string().contains(SECRET));
    assert!(!format!("{in_file:?}").contains(SECRET));

    // Pasted where the variable's name belongs.
    let as_name =
        Config::from_toml_str(&format!("[llm]\napi_key_env = \"{SECRET}\"\n")).unwrap_err();
    assert!(as_name.to_string().contains("llm.api_key_env"), "{as_name}");
    assert!(!as_name.to_string().contains(SECRET));
    assert!(!format!("{as_name:?}").contains(SECRET));

    // Set as an override.
    let as_override =
        Config::load_with_env(None, env(&[("FACTGATE_LLM__API_KEY", SECRET)])).unwrap_err();
    assert!(
        as_override.to_string().contains("FACTGATE_LLM__API_KEY"),
        "{as_override}"
    );
    assert!(!as_override.to_string().contains(SECRET));

    // In the environment where it belongs: the loaded config holds only the variable's name.
    let config = Config::load_with_env(None, env(&[("FACTGATE_LLM_API_KEY", SECRET)])).unwrap();
    assert_eq!(config.llm.api_key_env, "FACTGATE_LLM_API_KEY");
    assert!(!format!("{config:?}").contains(SECRET));
    assert!(!toml::to_string(&config).unwrap().contains(SECRET));
}

#[test]
fn kafka_properties_come_from_the_environment_with_underscores_for_dots() {
    let config = Config::load_with_env(
        None,
        env(&[
            ("FACTGATE_KAFKA__PROPERTIES__SECURITY_PROTOCOL", "SASL_SSL"),
            (
                "FACTGATE_KAFKA__PROPERTIES__SASL_MECHANISMS",
                "SCRAM-SHA-512",
            ),
            ("FACTGATE_KAFKA__PROPERTIES__SASL_USERNAME", "factgate"),
            ("FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD", "p4ss"),
            // A value that looks like a number stays text: librdkafka reads strings.
            ("FACTGATE_KAFKA__PROPERTIES__SOCKET_TIMEOUT_MS", "30000"),
        ]),
    )
    .expect("loads");
    let p = &config.kafka.properties;
    assert_eq!(p["security.protocol"], "SASL_SSL");
    assert_eq!(p["sasl.mechanisms"], "SCRAM-SHA-512");
    assert_eq!(p["sasl.username"], "factgate");
    assert_eq!(p["sasl.password"], "p4ss");
    assert_eq!(p["socket.timeout.ms"], "30000");
}

#[test]
fn the_environment_overrides_a_property_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("factgate.toml");
    std::fs::write(
        &path,
        "[kafka.properties]\n\"security.protocol\" = \"SSL\"\n\"sasl.username\" = \"factgate\"\n",
    )
    .unwrap();
    let config = Config::load_with_env(
        Some(&path),
        env(&[("FACTGATE_KAFKA__PROPERTIES__SECURITY_PROTOCOL", "SASL_SSL")]),
    )
    .expect("loads");
    assert_eq!(config.kafka.properties["security.protocol"], "SASL_SSL");
    assert_eq!(config.kafka.properties["sasl.username"], "factgate");
}

#[test]
fn kafka_secrets_are_read_from_mounted_files() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("kafka-password");
    // As `echo p4ss > file` or a Kubernetes Secret written with a trailing newline leaves it.
    std::fs::write(&secret, "p4ss\n").unwrap();
    let from_env = Config::load_with_env(
        None,
        env(&[(
            "FACTGATE_KAFKA__PROPERTY_FILES__SASL_PASSWORD",
            secret.to_str().unwrap(),
        )]),
    )
    .expect("loads");
    assert_eq!(from_env.kafka.properties["sasl.password"], "p4ss");

    let file = dir.path().join("factgate.toml");
    std::fs::write(
        &file,
        format!(
            "[kafka.property_files]\n\"sasl.password\" = {:?}\n",
            secret.to_str().unwrap()
        ),
    )
    .unwrap();
    let from_file = Config::load_with_env(Some(&file), Vec::new()).expect("loads");
    assert_eq!(from_file.kafka.properties["sasl.password"], "p4ss");

    // An empty secret is refused by key and path.
    std::fs::write(&secret, "\n").unwrap();
    let empty = Config::load_with_env(Some(&file), Vec::new()).unwrap_err();
    assert!(
        empty
            .to_string()
            .contains("kafka.property_files.\"sasl.password\""),
        "{empty}"
    );
    assert!(empty.to_string().contains("is empty"), "{empty}");
}

#[test]
fn kafka_secrets_never_reach_debug_serialization_errors_or_client_errors() {
    const SECRET: &str = "kafka-s3cret-0123456789";
    let dir = tempfile::tempdir().unwrap();
    let key_password = dir.path().join("key-password");
    std::fs::write(&key_password, SECRET).unwrap();
    let vars = env(&[
        ("FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD", SECRET),
        (
            "FACTGATE_KAFKA__PROPERTY_FILES__SSL_KEY_PASSWORD",
            key_password.to_str().unwrap(),
        ),
        (
            "FACTGATE_KAFKA__PROPERTIES__SASL_OAUTHBEARER_CLIENT_SECRET",
            SECRET,
        ),
    ]);
    let config = Config::load_with_env(None, vars.clone()).expect("loads");
    assert_eq!(config.kafka.properties["ssl.key.password"], SECRET);
    let debug = format!("{config:?}");
    assert!(!debug.contains(SECRET), "{debug}");
    assert!(debug.contains("[redacted]"), "{debug}");
    assert!(!format!("{config:#?}").contains(SECRET));
    assert!(!toml::to_string(&config).unwrap().contains(SECRET));
    assert!(!serde_json::to_string(&config).unwrap().contains(SECRET));

    // A configuration refused for another reason does not repeat the secret.
    let mut with_problem = vars.clone();
    with_problem.push(("FACTGATE_JOIN__DEADLINE_MS".into(), "0".into()));
    let err = Config::load_with_env(None, with_problem).unwrap_err();
    assert!(!err.to_string().contains(SECRET), "{err}");
    assert!(!format!("{err:?}").contains(SECRET));

    // librdkafka refusing the client does not repeat it either: this build has no OAuth/OIDC
    // (it needs libcurl), and librdkafka's refusal quotes the property's name and value.
    let Err(err) = factgate::kafka::producer(&config.kafka, "127.0.0.1:9") else {
        panic!("an OIDC client secret was accepted by a build without OIDC");
    };
    let shown = format!("{err} {err:?} {:?}", std::error::Error::source(&err));
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(shown.contains("sasl.oauthbearer.client.secret"), "{shown}");
}

/// Every configuration file the README and the guides in `docs/` tell a reader to pass
/// (`--config FILE`, `config/….toml`) exists and loads, config/local.toml among them.
#[test]
fn configuration_files_named_in_the_docs_exist_and_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    let named =
        regex::Regex::new(r"(?:--config |-c )([\w./-]+\.toml)|\b(config/[\w.-]+\.toml)").unwrap();
    let mut files = BTreeSet::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for capture in named.captures_iter(&text) {
            let file = capture.get(1).or_else(|| capture.get(2)).unwrap().as_str();
            files.insert(file.to_owned());
        }
    }
    assert!(files.contains("config/local.toml"), "{files:?}");
    for file in files {
        let path = root.join(&file);
        assert!(path.is_file(), "the docs name {file}, which does not exist");
        Config::load_with_env(Some(&path), Vec::new())
            .unwrap_or_else(|e| panic!("the docs name {file}, which does not load: {e}"));
    }
}

/// `config check` names every problem in one run, each with its key: a wrong type does not hide
/// the invalid value after it, nor do either hide listeners that contradict each other; and a
/// mistyped variable is blamed on the variable, never on the file.
#[test]
fn every_problem_is_named_at_once_each_with_its_key_and_origin() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("local.toml");
    std::fs::write(
        &path,
        "[join]\ndeadline_ms = \"soon\"\n[fetch]\nmax_retries = -3\n\
         [http]\nlisten = \"127.0.0.1:8080\"\nadmin_listen = \"127.0.0.1:8080\"\n",
    )
    .expect("written");
    let err = Config::load_with_env(
        Some(&path),
        env(&[
            ("FACTGATE_JON__DEADLINE_MS", "5"),
            ("FACTGATE_CACHE__MAX_BYTES", "lots"),
        ]),
    )
    .expect_err("invalid");
    let problems = err.problems();
    let named = |key: &str| {
        problems
            .iter()
            .find(|p| p.key == key)
            .unwrap_or_else(|| panic!("{key} not named: {problems:#?}"))
            .message
            .clone()
    };
    assert!(named("join.deadline_ms").contains("local.toml"));
    assert!(named("fetch.max_retries").contains("local.toml"));
    assert!(named("http.admin_listen").contains("must differ from http.listen"));
    let section = named("jon");
    assert!(
        section.contains("FACTGATE_JON__DEADLINE_MS") && !section.contains("local.toml"),
        "{section}"
    );
    assert!(named("cache.max_bytes").contains("FACTGATE_CACHE__MAX_BYTES"));
}
