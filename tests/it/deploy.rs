//! deploy/: the container image, the compose stack, Prometheus, Grafana and Kubernetes files.
//!
//! No container engine or cluster runs here, so the files are checked as far as reading them
//! allows: they parse; the images, build contexts, ports, volumes and configuration files they name
//! exist and agree with each other; every Deployment is probed on /healthz and /readyz and reads
//! a ConfigMap that is a valid factgate configuration; every dashboard query and alert expression
//! uses only the metric families in deploy/metrics.txt (the list the code's metrics are checked
//! against). Prometheus' own `promtool` checks the scrape config, the rules, the alerts' unit
//! tests (deploy/prometheus/alerts.test.yml) and the dashboard's PromQL: the tests fail, never
//! skip, without it (Debian's `prometheus` package; .ci/test.sh installs it).

use factgate::config::Config;
use regex::Regex;
use serde_norway::{Mapping, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fail-closed decision reasons: blocks because a check could not be completed.
const FAIL_CLOSED_REASONS: [&str; 5] = [
    "deadline_exceeded",
    "source_unjudgeable",
    "extraction_failed",
    "draft_unreadable",
    "internal_error",
];

const ROLES: [&str; 3] = ["extract", "verify", "join"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn deploy() -> PathBuf {
    repo().join("deploy")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every YAML document of a file, with `<<` merge keys applied as compose applies them.
fn yaml_docs(path: &Path) -> Vec<Value> {
    let text = read(path);
    serde_norway::Deserializer::from_str(&text)
        .map(|doc| {
            let mut value: Value = serde::Deserialize::deserialize(doc)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            value
                .apply_merge()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            value
        })
        .collect()
}

fn yaml(path: &Path) -> Value {
    let mut docs = yaml_docs(path);
    assert_eq!(docs.len(), 1, "{}: one YAML document", path.display());
    docs.remove(0)
}

fn str_of<'a>(value: &'a Value, what: &str) -> &'a str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what}: expected a string, found {value:?}"))
}

fn seq<'a>(value: &'a Value, what: &str) -> &'a [Value] {
    value
        .as_sequence()
        .unwrap_or_else(|| panic!("{what}: expected a list, found {value:?}"))
}

fn map<'a>(value: &'a Value, what: &str) -> &'a Mapping {
    value
        .as_mapping()
        .unwrap_or_else(|| panic!("{what}: expected a mapping, found {value:?}"))
}

/// A scalar as compose reads it into an environment variable.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => panic!("not a scalar: {other:?}"),
    }
}

fn strings(value: &Value, what: &str) -> Vec<String> {
    seq(value, what)
        .iter()
        .map(|v| str_of(v, what).to_owned())
        .collect()
}

/// The lines of deploy/metrics.txt that list a family (`name type labels`).
fn metric_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The metric family names of deploy/metrics.txt.
fn metric_families() -> BTreeSet<String> {
    metric_lines(&read(&deploy().join("metrics.txt")))
        .into_iter()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// The factgate metric names a PromQL expression uses, each reduced to its family (a histogram's
/// `_bucket`, `_sum` and `_count` series belong to the `_seconds` family they extend).
/// Returns the names that are no family of `families`.
fn unknown_metrics(expr: &str, families: &BTreeSet<String>) -> Vec<String> {
    used_metrics(expr)
        .into_iter()
        .filter(|name| family_of(name, families).is_none())
        .collect()
}

fn used_metrics(expr: &str) -> Vec<String> {
    // Label values in quotes are not metric names ("factgate_…" could appear in one).
    let quoted = Regex::new(r#""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"#).expect("valid regex");
    let names = Regex::new(r"\b(?:factgate|process)_[a-zA-Z0-9_:]*").expect("valid regex");
    let bare = quoted.replace_all(expr, "\"\"");
    names
        .find_iter(&bare)
        .map(|m| m.as_str().to_owned())
        .collect()
}

fn family_of(name: &str, families: &BTreeSet<String>) -> Option<String> {
    if families.contains(name) {
        return Some(name.to_owned());
    }
    ["_bucket", "_sum", "_count"].iter().find_map(|suffix| {
        let base = name.strip_suffix(suffix)?;
        (base.ends_with("_seconds") && families.contains(base)).then(|| base.to_owned())
    })
}

/// `promtool`, which must be installed: the checks it makes are part of what these tests prove.
fn promtool(args: &[&str], dir: &Path) -> String {
    let output = Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "promtool could not be run ({e}): install Debian's `prometheus` package \
                 (apt-get install prometheus), as .ci/test.sh does"
            )
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "promtool {} failed:\n{text}",
        args.join(" ")
    );
    text
}

#[test]
fn metrics_file_lists_unique_well_formed_families() {
    let text = read(&deploy().join("metrics.txt"));
    let lines = metric_lines(&text);
    let names: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "a family is listed twice");
    // factgate's own families, and the process collector's: name, type, label names.
    let well_formed = Regex::new(
        r"^(?:factgate|process)_[a-z0-9_]+[a-z0-9] (?:counter|gauge|histogram) (?:-|[a-z_]+(?:,[a-z_]+)*)$",
    )
    .expect("valid regex");
    for line in &lines {
        assert!(
            well_formed.is_match(line),
            "not a `name type labels` line: {line:?}"
        );
    }
    // The families the dashboard and the alerts rely on by meaning, not only by name.
    for needed in [
        "factgate_decisions_total",
        "factgate_decision_reasons_total",
        "factgate_decision_latency_seconds",
        "factgate_consumer_lag_messages",
        "factgate_build_info",
        "process_resident_memory_bytes",
        "factgate_dead_letters_total",
        "factgate_llm_votes_total",
    ] {
        assert!(unique.contains(needed), "{needed} missing from metrics.txt");
    }
}

#[test]
fn metric_names_in_expressions_are_reduced_to_their_families() {
    let families = metric_families();
    let expr = r#"histogram_quantile(0.95, sum by (le) (rate(factgate_decision_latency_seconds_bucket{reason="factgate_x"}[5m]))) / factgate_decisions_total"#;
    assert!(unknown_metrics(expr, &families).is_empty());
    assert_eq!(
        unknown_metrics(
            "rate(factgate_decisions_totl[5m]) + factgate_decisions_total_count",
            &families
        ),
        vec!["factgate_decisions_totl", "factgate_decisions_total_count"]
    );
}

// --- the image ----------------------------------------------------------------------------------

#[test]
fn dockerfile_builds_in_one_stage_and_runs_factgate_unprivileged_in_another() {
    let text = read(&deploy().join("Dockerfile"));
    let froms: Vec<&str> = text.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(
        froms,
        [
            "FROM rust:1-bookworm AS builder",
            "FROM debian:bookworm-slim"
        ]
    );
    for line in [
        "EXPOSE 8080 8081",
        "ENTRYPOINT [\"factgate\"]",
        "COPY --from=builder /usr/local/bin/factgate /usr/local/bin/factgate",
    ] {
        assert!(text.lines().any(|l| l == line), "Dockerfile lacks {line:?}");
    }
    let user = text
        .lines()
        .filter_map(|l| l.strip_prefix("USER "))
        .next_back()
        .expect("a USER line");
    assert_ne!(user.trim(), "root");
    assert_ne!(user.trim(), "0");
    assert!(
        text.contains("--locked"),
        "the release build uses Cargo.lock"
    );
    // Every file copied from the build context (the repository root, as compose builds it) exists.
    for line in text
        .lines()
        .filter(|l| l.starts_with("COPY ") && !l.contains("--from"))
    {
        let parts: Vec<&str> = line.split_whitespace().collect();
        for source in &parts[1..parts.len() - 1] {
            assert!(repo().join(source).exists(), "COPY source {source} missing");
        }
    }
    // The image ships a stripped binary and the OpenSSL librdkafka links; profiling builds keep
    // their symbols and line tables.
    assert!(text.contains("strip --strip-all"), "the binary is stripped");
    assert!(text.contains("libssl3"), "the runtime has OpenSSL");
    let manifest: toml::Value =
        toml::from_str(&read(&repo().join("Cargo.toml"))).expect("Cargo.toml");
    let profiles = &manifest["profile"];
    assert!(
        profiles["release"].get("debug").is_none(),
        "no debug info in the release build"
    );
    assert_eq!(profiles["profiling"]["inherits"].as_str(), Some("release"));
    assert!(profiles["profiling"].get("debug").is_some());
    assert!(
        text.contains("COPY config/factgate.toml /etc/factgate/factgate.toml")
            && text.contains("CMD [\"run\", \"--config\", \"/etc/factgate/factgate.toml\"]"),
        "the image runs with the configuration file it ships"
    );
}

// --- docker compose -----------------------------------------------------------------------------

struct Compose {
    services: BTreeMap<String, Value>,
    volumes: BTreeSet<String>,
}

fn compose() -> Compose {
    let file = yaml(&deploy().join("docker-compose.yml"));
    let services = map(&file["services"], "services")
        .iter()
        .map(|(k, v)| (str_of(k, "service name").to_owned(), v.clone()))
        .collect();
    let volumes = file["volumes"]
        .as_mapping()
        .map(|m| m.keys().map(|k| str_of(k, "volume").to_owned()).collect())
        .unwrap_or_default();
    Compose { services, volumes }
}

/// The host file behind `container_path` in `service`, through its bind mounts.
fn host_path(service: &Value, container_path: &str) -> Option<PathBuf> {
    seq(&service["volumes"], "volumes").iter().find_map(|v| {
        let spec = str_of(v, "volume");
        let mut parts = spec.split(':');
        let (source, target) = (parts.next()?, parts.next()?);
        if !source.starts_with('.') {
            return None;
        }
        let rest = container_path.strip_prefix(target)?;
        Some(deploy().join(source).join(rest.trim_start_matches('/')))
    })
}

fn environment(service: &Value, name: &str) -> BTreeMap<String, String> {
    map(&service["environment"], &format!("{name}: environment"))
        .iter()
        .map(|(k, v)| (str_of(k, "variable").to_owned(), scalar(v)))
        .collect()
}

#[test]
fn compose_names_images_builds_ports_and_volumes_that_exist() {
    let compose = compose();
    let names: BTreeSet<&str> = compose.services.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "factgate-extract",
            "factgate-join",
            "factgate-verify",
            "grafana",
            "kafka",
            "prometheus"
        ])
    );
    let mut host_ports = BTreeSet::new();
    for (name, service) in &compose.services {
        let image = str_of(&service["image"], &format!("{name}: image"));
        if let Some(build) = service.get("build") {
            let context = deploy().join(str_of(&build["context"], "build context"));
            assert!(
                context.is_dir(),
                "{name}: build context {context:?} missing"
            );
            let dockerfile = context.join(str_of(&build["dockerfile"], "dockerfile"));
            assert_eq!(
                dockerfile.canonicalize().ok(),
                deploy().join("Dockerfile").canonicalize().ok(),
                "{name}: builds deploy/Dockerfile"
            );
        } else {
            let (_, tag) = image
                .rsplit_once(':')
                .unwrap_or_else(|| panic!("{name}: image {image} has no tag"));
            assert!(tag != "latest" && !tag.is_empty(), "{name}: pin {image}");
        }
        for port in service
            .get("ports")
            .map(|p| strings(p, "ports"))
            .unwrap_or_default()
        {
            let (host, container) = port
                .split_once(':')
                .unwrap_or_else(|| panic!("{name}: port {port} is not host:container"));
            let host: u16 = host
                .parse()
                .unwrap_or_else(|e| panic!("{name}: {port}: {e}"));
            container
                .parse::<u16>()
                .unwrap_or_else(|e| panic!("{name}: {port}: {e}"));
            assert!(host_ports.insert(host), "host port {host} published twice");
        }
        for volume in service
            .get("volumes")
            .map(|v| strings(v, "volumes"))
            .unwrap_or_default()
        {
            let source = volume.split(':').next().unwrap_or_default();
            if source.starts_with('.') || source.starts_with('/') {
                let path = deploy().join(source);
                assert!(path.exists(), "{name}: bind mount {source} missing");
            } else {
                assert!(
                    compose.volumes.contains(source),
                    "{name}: named volume {source} not declared"
                );
            }
        }
        for dep in service
            .get("depends_on")
            .map(|d| match d {
                Value::Sequence(_) => strings(d, "depends_on"),
                other => map(other, "depends_on")
                    .keys()
                    .map(|k| str_of(k, "depends_on").to_owned())
                    .collect(),
            })
            .unwrap_or_default()
        {
            assert!(
                compose.services.contains_key(&dep),
                "{name}: depends on unknown {dep}"
            );
        }
    }
}

#[test]
fn compose_runs_each_role_on_its_own_against_the_compose_kafka() {
    let compose = compose();
    let kafka_env = environment(&compose.services["kafka"], "kafka");
    assert!(
        kafka_env["KAFKA_PROCESS_ROLES"].contains("controller"),
        "KRaft mode"
    );
    for role in ROLES {
        let name = format!("factgate-{role}");
        let service = &compose.services[&name];
        let command = strings(&service["command"], "command");
        assert_eq!(
            command[..3],
            ["run", "--roles", role],
            "{name}: {command:?}"
        );
        let config_at = command
            .iter()
            .position(|a| a == "--config")
            .map(|i| command[i + 1].as_str());
        assert_eq!(config_at, Some("/etc/factgate/factgate.toml"), "{name}");

        // The environment loads over the shipped file into a valid configuration …
        let env = environment(service, &name);
        let config = Config::load_with_env(Some(&repo().join("config/factgate.toml")), env)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // … that reaches the broker on an address it advertises to the compose network …
        let bootstrap = config
            .kafka
            .bootstrap_servers
            .unwrap_or_else(|| panic!("{name}: no bootstrap servers: it would embed a broker"));
        for server in bootstrap.split(',') {
            let host = server.split(':').next().unwrap_or_default();
            assert!(
                compose.services.contains_key(host),
                "{name}: {server} is no service"
            );
            assert!(
                kafka_env["KAFKA_ADVERTISED_LISTENERS"].contains(&format!("//{server}")),
                "{name}: kafka does not advertise {server}"
            );
        }
        // … and listens where the others can reach it.
        assert!(
            !config.http.listen.ip().is_loopback(),
            "{name}: HTTP on loopback"
        );
        let exposed = strings(&service["expose"], "expose");
        assert!(
            exposed.contains(&config.http.listen.port().to_string()),
            "{name}"
        );
        // Metrics and probes on a listener of their own, without the drafts.
        assert!(
            !config.http.admin_listen.ip().is_loopback(),
            "{name}: admin on loopback"
        );
        assert_ne!(config.http.admin_listen.port(), config.http.listen.port());
        assert!(
            exposed.contains(&config.http.admin_listen.port().to_string()),
            "{name}"
        );
    }
    let replicas = compose.services["factgate-verify"]["deploy"]["replicas"]
        .as_u64()
        .expect("factgate-verify: deploy.replicas");
    assert!(replicas >= 2, "verify is scaled");
}

#[test]
fn compose_prometheus_and_grafana_find_their_provisioned_files() {
    let compose = compose();
    let prometheus = &compose.services["prometheus"];
    let config_flag = strings(&prometheus["command"], "command")
        .into_iter()
        .find_map(|a| a.strip_prefix("--config.file=").map(str::to_owned))
        .expect("--config.file");
    let config_file = host_path(prometheus, &config_flag).expect("config file mounted");
    assert_eq!(
        config_file,
        deploy().join("./prometheus").join("prometheus.yml")
    );

    // Prometheus scrapes the factgate services by name, on their admin listener.
    let scrape = yaml(&config_file);
    let job = seq(&scrape["scrape_configs"], "scrape_configs")
        .iter()
        .find(|j| j["job_name"].as_str() == Some("factgate"))
        .expect("a factgate job");
    let dns = &seq(&job["dns_sd_configs"], "dns_sd_configs")[0];
    let scraped: BTreeSet<String> = strings(&dns["names"], "names").into_iter().collect();
    let factgate: BTreeSet<String> = compose
        .services
        .keys()
        .filter(|n| n.starts_with("factgate-"))
        .cloned()
        .collect();
    assert_eq!(scraped, factgate);
    assert_eq!(dns["port"].as_u64(), Some(8081));
    for rules in strings(&scrape["rule_files"], "rule_files") {
        assert!(
            config_file.with_file_name(&rules).is_file(),
            "{rules} missing"
        );
    }

    // Grafana: its provisioning directory holds the datasource and the dashboard provider, and
    // the provider's path is where the dashboard JSON is.
    let grafana = &compose.services["grafana"];
    let provisioning = host_path(grafana, "/etc/grafana/provisioning").expect("mounted");
    let datasource = yaml(&provisioning.join("datasources/prometheus.yml"));
    let source = &seq(&datasource["datasources"], "datasources")[0];
    let url = url::Url::parse(str_of(&source["url"], "url")).expect("datasource url");
    assert!(
        compose
            .services
            .contains_key(url.host_str().unwrap_or_default())
    );
    assert!(
        strings(&prometheus["ports"], "ports")
            .contains(&format!("9090:{}", url.port().unwrap_or(80))),
        "the datasource uses Prometheus' port"
    );
    let providers = yaml(&provisioning.join("dashboards/dashboards.yml"));
    let provider = &seq(&providers["providers"], "providers")[0];
    let path = str_of(&provider["options"]["path"], "provider path");
    let dashboards = host_path(grafana, path).expect("provider path mounted");
    assert!(dashboards.join("factgate.json").is_file());
    let home = &environment(grafana, "grafana")["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"];
    assert!(
        host_path(grafana, home).is_some_and(|p| p.is_file()),
        "{home}"
    );

    // The dashboard reads whichever Prometheus its `datasource` variable names, and that variable
    // starts on the default data source of its type: the provisioned one here.
    assert_eq!(source["isDefault"].as_bool(), Some(true));
    let variable = dashboard_variable("datasource");
    assert_eq!(variable["type"], "datasource");
    assert_eq!(variable["query"].as_str(), source["type"].as_str());
}

/// The dashboard's template variable `name`.
fn dashboard_variable(name: &str) -> serde_json::Value {
    let dashboard = dashboard();
    dashboard["templating"]["list"]
        .as_array()
        .expect("templating.list")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variable {name}"))
        .clone()
}

fn dashboard() -> serde_json::Value {
    let path = deploy().join("grafana/dashboards/factgate.json");
    serde_json::from_str(&read(&path)).unwrap_or_else(|e| panic!("factgate.json: {e}"))
}

/// The dashboard imports into any Grafana, whatever its Prometheus data source is called: every
/// panel and every query variable reads the data source the `datasource` variable names (no uid
/// is written in), and `__inputs` asks Grafana's import dialog for a Prometheus data source, which
/// becomes the variable's starting value (the `${DS_…}` placeholder is the only place it is used).
#[test]
fn the_dashboard_names_no_datasource_of_its_own() {
    let dashboard = dashboard();
    let mut datasources = Vec::new();
    fn walk(value: &serde_json::Value, found: &mut Vec<serde_json::Value>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(ds) = map.get("datasource") {
                    found.push(ds.clone());
                }
                map.values().for_each(|v| walk(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    walk(&dashboard["panels"], &mut datasources);
    walk(&dashboard["templating"], &mut datasources);
    assert!(datasources.len() > 30, "{}", datasources.len());
    for ds in &datasources {
        assert_eq!(
            ds,
            &serde_json::json!({ "type": "prometheus", "uid": "${datasource}" })
        );
    }
    for panel in dashboard_panels() {
        assert!(panel.get("datasource").is_some(), "{}", panel["title"]);
    }

    let inputs = dashboard["__inputs"].as_array().expect("__inputs");
    assert_eq!(inputs.len(), 1, "{inputs:?}");
    let input = &inputs[0];
    assert_eq!(input["type"], "datasource");
    assert_eq!(input["pluginId"], "prometheus");
    let placeholder = format!("${{{}}}", str_of_json(&input["name"]));
    let variable = dashboard_variable("datasource");
    assert_eq!(variable["current"]["value"], placeholder.as_str());
    let text = read(&deploy().join("grafana/dashboards/factgate.json"));
    assert_eq!(
        text.matches(placeholder.as_str()).count(),
        2,
        "{placeholder} is the variable's starting value (text and value) and nothing else"
    );
    let requires = dashboard["__requires"].as_array().expect("__requires");
    assert!(
        requires
            .iter()
            .any(|r| r["type"] == "datasource" && r["id"] == "prometheus")
    );
}

fn str_of_json(value: &serde_json::Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

// --- Kubernetes ---------------------------------------------------------------------------------

fn k8s_resources() -> Vec<(String, Value)> {
    let dir = deploy().join("k8s");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("deploy/k8s")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            yaml_docs(f).into_iter().map(move |doc| (name.clone(), doc))
        })
        .collect()
}

fn of_kind(kind: &str) -> Vec<Value> {
    k8s_resources()
        .into_iter()
        .filter(|(_, r)| r["kind"].as_str() == Some(kind))
        .map(|(_, r)| r)
        .collect()
}

fn configmap_config() -> (String, Config) {
    let maps = of_kind("ConfigMap");
    assert_eq!(maps.len(), 1, "one ConfigMap");
    let name = str_of(&maps[0]["metadata"]["name"], "name").to_owned();
    let toml = str_of(&maps[0]["data"]["factgate.toml"], "data.factgate.toml");
    let config = Config::from_toml_str(toml).unwrap_or_else(|e| panic!("factgate.toml: {e}"));
    (name, config)
}

#[test]
fn every_k8s_manifest_parses_and_the_kustomization_lists_them_all() {
    let mut listed = BTreeSet::new();
    let mut files = BTreeSet::new();
    for (file, resource) in k8s_resources() {
        let kind = str_of(&resource["kind"], &format!("{file}: kind"));
        str_of(&resource["apiVersion"], &format!("{file}: apiVersion"));
        if kind == "Kustomization" {
            listed.extend(strings(&resource["resources"], "resources"));
        } else {
            str_of(&resource["metadata"]["name"], &format!("{file}: name"));
            files.insert(file);
        }
    }
    assert_eq!(listed, files);
}

#[test]
fn configmap_holds_a_valid_configuration_for_a_cluster() {
    let (_, config) = configmap_config();
    assert!(
        config.kafka.bootstrap_servers.is_some(),
        "an external broker"
    );
    assert!(
        !config.http.listen.ip().is_loopback(),
        "probes reach the pod"
    );
    assert!(config.kafka.partitions >= 1);
}

#[test]
fn every_deployment_is_probed_limited_and_reads_the_configmap() {
    let (configmap, config) = configmap_config();
    let listen_port = u64::from(config.http.listen.port());
    let admin_port = u64::from(config.http.admin_listen.port());
    assert_ne!(listen_port, admin_port, "two listeners");
    let deployments = of_kind("Deployment");
    let mut roles = Vec::new();
    for deployment in &deployments {
        let name = str_of(&deployment["metadata"]["name"], "name");
        let template = &deployment["spec"]["template"];
        let labels = map(&template["metadata"]["labels"], "template labels");
        for (k, v) in map(&deployment["spec"]["selector"]["matchLabels"], "selector") {
            assert_eq!(labels.get(k), Some(v), "{name}: selector matches its pods");
        }
        let pod = &template["spec"];
        let containers = seq(&pod["containers"], "containers");
        assert_eq!(containers.len(), 1, "{name}");
        let c = &containers[0];

        let args = strings(&c["args"], "args");
        assert_eq!(args[..2], ["run", "--roles"], "{name}: {args:?}");
        roles.push(args[2].clone());

        let ports = seq(&c["ports"], "ports");
        let port_of = |probe: &Value| -> u64 {
            let port = &probe["httpGet"]["port"];
            match port.as_str() {
                Some(named) => ports
                    .iter()
                    .find(|p| p["name"].as_str() == Some(named))
                    .and_then(|p| p["containerPort"].as_u64())
                    .unwrap_or_else(|| panic!("{name}: no port named {named}")),
                None => port
                    .as_u64()
                    .unwrap_or_else(|| panic!("{name}: probe port")),
            }
        };
        for (probe, path) in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")] {
            let p = &c[probe];
            assert_eq!(p["httpGet"]["path"].as_str(), Some(path), "{name}: {probe}");
            assert_eq!(
                port_of(p),
                admin_port,
                "{name}: {probe} on the admin listener"
            );
        }
        for bound in ["requests", "limits"] {
            for resource in ["cpu", "memory"] {
                assert!(
                    !c["resources"][bound][resource].is_null(),
                    "{name}: resources.{bound}.{resource}"
                );
            }
        }

        // --config names a file of the ConfigMap, through a mount of a volume that is it.
        let config_path = args
            .iter()
            .position(|a| a == "--config")
            .map(|i| args[i + 1].clone())
            .unwrap_or_else(|| panic!("{name}: --config"));
        let (dir, file) = config_path.rsplit_once('/').expect("an absolute path");
        let mount = seq(&c["volumeMounts"], "volumeMounts")
            .iter()
            .find(|m| m["mountPath"].as_str() == Some(dir))
            .unwrap_or_else(|| panic!("{name}: nothing mounted at {dir}"));
        let volume = seq(&pod["volumes"], "volumes")
            .iter()
            .find(|v| v["name"] == mount["name"])
            .unwrap_or_else(|| panic!("{name}: volume of the mount"));
        assert_eq!(
            volume["configMap"]["name"].as_str(),
            Some(configmap.as_str())
        );
        assert_eq!(file, "factgate.toml", "{name}: the ConfigMap's key");
    }
    roles.sort();
    let mut expected = ROLES.map(str::to_owned).to_vec();
    expected.sort();
    assert_eq!(roles, expected, "one Deployment per role");

    // The Service selects every role's pods, on the container port they serve HTTP on.
    let services = of_kind("Service");
    assert_eq!(services.len(), 1);
    let selector = map(&services[0]["spec"]["selector"], "service selector");
    for deployment in &deployments {
        let labels = map(
            &deployment["spec"]["template"]["metadata"]["labels"],
            "labels",
        );
        for (k, v) in selector {
            assert_eq!(labels.get(k), Some(v), "the Service selects every role");
        }
        let c = &deployment["spec"]["template"]["spec"]["containers"][0];
        for port in seq(&services[0]["spec"]["ports"], "ports") {
            let target = &port["targetPort"];
            assert!(
                seq(&c["ports"], "ports")
                    .iter()
                    .any(|p| &p["name"] == target || &p["containerPort"] == target),
                "targetPort {target:?} is a container port"
            );
        }
    }
}

#[test]
fn autoscaler_scales_verify_on_its_consumer_lag_up_to_the_partition_count() {
    let (_, config) = configmap_config();
    let hpas = of_kind("HorizontalPodAutoscaler");
    assert_eq!(hpas.len(), 1);
    let spec = &hpas[0]["spec"];
    let target = str_of(&spec["scaleTargetRef"]["name"], "scaleTargetRef");
    let deployment = of_kind("Deployment")
        .into_iter()
        .find(|d| d["metadata"]["name"].as_str() == Some(target))
        .unwrap_or_else(|| panic!("no Deployment {target}"));
    let args = strings(
        &deployment["spec"]["template"]["spec"]["containers"][0]["args"],
        "args",
    );
    assert_eq!(args[2], "verify");

    let metric = &seq(&spec["metrics"], "metrics")[0]["external"]["metric"];
    let name = str_of(&metric["name"], "metric name");
    assert!(
        metric_families().contains(name),
        "{name} is not in metrics.txt"
    );
    let selector = &metric["selector"]["matchLabels"];
    assert_eq!(selector["role"].as_str(), Some("verify"));
    assert_eq!(
        selector["topic"].as_str(),
        Some(config.kafka.topics.verify.as_str())
    );

    let (min, max) = (spec["minReplicas"].as_u64(), spec["maxReplicas"].as_u64());
    let (min, max) = (min.expect("minReplicas"), max.expect("maxReplicas"));
    assert!(min >= 1 && min <= max);
    assert!(
        max <= u64::from(config.kafka.partitions),
        "instances beyond the partition count would idle"
    );
}

// --- Prometheus ---------------------------------------------------------------------------------

fn alert_rules() -> Vec<Value> {
    let file = yaml(&deploy().join("prometheus/alerts.yml"));
    seq(&file["groups"], "groups")
        .iter()
        .flat_map(|g| seq(&g["rules"], "rules").to_vec())
        .collect()
}

#[test]
fn promtool_accepts_the_scrape_config_and_the_rules() {
    let dir = deploy().join("prometheus");
    let out = promtool(&["check", "config", "prometheus.yml"], &dir);
    assert!(out.contains("SUCCESS"), "{out}");
    let out = promtool(&["check", "rules", "alerts.yml"], &dir);
    assert!(
        out.contains(&format!("SUCCESS: {} rules found", alert_rules().len())),
        "{out}"
    );
}

#[test]
fn alerts_fire_on_their_unit_test_series_and_stay_quiet_otherwise() {
    // As shipped: `promtool test rules deploy/prometheus/alerts.test.yml` from the repository,
    // annotations compared word for word, so the rendered summaries are tested too.
    let tests = deploy().join("prometheus/alerts.test.yml");

    // Every alert is tested.
    let tested: BTreeSet<String> = seq(&yaml(&tests)["tests"], "tests")
        .iter()
        .flat_map(|t| seq(&t["alert_rule_test"], "alert_rule_test").to_vec())
        .map(|a| str_of(&a["alertname"], "alertname").to_owned())
        .collect();
    let alerts: BTreeSet<String> = alert_rules()
        .iter()
        .map(|r| str_of(&r["alert"], "alert").to_owned())
        .collect();
    assert_eq!(tested, alerts);

    let out = promtool(
        &["test", "rules", "deploy/prometheus/alerts.test.yml"],
        &repo(),
    );
    assert!(out.contains("SUCCESS"), "{out}");
}

#[test]
fn every_alert_explains_itself_and_uses_known_metrics() {
    let families = metric_families();
    let rules = alert_rules();
    for rule in &rules {
        let name = str_of(&rule["alert"], "every rule is an alert");
        let expr = str_of(&rule["expr"], "expr");
        for annotation in ["summary", "description", "runbook"] {
            let text = rule["annotations"][annotation].as_str().unwrap_or_default();
            assert!(text.len() > 20, "{name}: {annotation} says what to do");
        }
        assert!(
            !used_metrics(expr).is_empty() || expr.contains("up{"),
            "{name}: {expr} uses no factgate metric"
        );
        let unknown = unknown_metrics(expr, &families);
        assert!(unknown.is_empty(), "{name}: unknown metrics {unknown:?}");
    }
    let expr_of = |alert: &str| -> String {
        rules
            .iter()
            .find(|r| r["alert"].as_str() == Some(alert))
            .map(|r| str_of(&r["expr"], "expr").to_owned())
            .unwrap_or_else(|| panic!("no alert {alert}"))
    };
    let fail_closed = expr_of("FactgateFailClosedSpike");
    for reason in FAIL_CLOSED_REASONS {
        assert!(
            fail_closed.contains(reason),
            "fail-closed alert misses {reason}"
        );
    }
    for (alert, metric) in [
        (
            "FactgateDecisionLatencyHigh",
            "factgate_decision_latency_seconds_bucket",
        ),
        ("FactgateDeadLettersGrowing", "factgate_dead_letters_total"),
        (
            "FactgateConsumerLagGrowing",
            "factgate_consumer_lag_messages",
        ),
        ("FactgateJudgeAbstentionsHigh", "factgate_llm_votes_total"),
    ] {
        assert!(expr_of(alert).contains(metric), "{alert} watches {metric}");
    }
    // An instance is known by its own metrics whatever its job is called, and no instance at all
    // is an alert too.
    let down = expr_of("FactgateDown");
    assert!(!down.contains("job="), "FactgateDown names a job: {down}");
    assert!(down.contains("absent(factgate_build_info)"), "{down}");
}

// --- Grafana ------------------------------------------------------------------------------------

fn dashboard_panels() -> Vec<serde_json::Value> {
    let path = deploy().join("grafana/dashboards/factgate.json");
    let dashboard: serde_json::Value =
        serde_json::from_str(&read(&path)).unwrap_or_else(|e| panic!("factgate.json: {e}"));
    let panels = dashboard["panels"].as_array().expect("panels").clone();
    // Rows may nest their panels when collapsed.
    panels
        .iter()
        .flat_map(|p| {
            let nested = p["panels"].as_array().cloned().unwrap_or_default();
            std::iter::once(p.clone()).chain(nested)
        })
        .filter(|p| p["type"] != "row")
        .collect()
}

fn dashboard_exprs() -> Vec<(String, String)> {
    dashboard_panels()
        .iter()
        .flat_map(|p| {
            let title = p["title"].as_str().unwrap_or_default().to_owned();
            let targets = p["targets"].as_array().cloned().unwrap_or_default();
            assert!(!targets.is_empty(), "panel {title:?} has no query");
            targets.into_iter().map(move |t| {
                let expr = t["expr"].as_str().unwrap_or_default().trim().to_owned();
                assert!(!expr.is_empty(), "panel {title:?} has an empty expr");
                (title.clone(), expr)
            })
        })
        .collect()
}

#[test]
fn dashboard_panels_query_every_family_and_only_known_ones() {
    let families = metric_families();
    let exprs = dashboard_exprs();
    let mut shown = BTreeSet::new();
    for (title, expr) in &exprs {
        let unknown = unknown_metrics(expr, &families);
        assert!(
            unknown.is_empty(),
            "panel {title:?}: unknown metrics {unknown:?}"
        );
        let used = used_metrics(expr);
        assert!(
            !used.is_empty(),
            "panel {title:?} queries no factgate metric"
        );
        shown.extend(used.iter().filter_map(|m| family_of(m, &families)));
    }
    let missing: Vec<&String> = families.difference(&shown).collect();
    assert!(missing.is_empty(), "no panel shows {missing:?}");

    let titles: BTreeSet<String> = exprs.iter().map(|(t, _)| t.to_lowercase()).collect();
    for wanted in [
        "decision latency",
        "fail-closed reasons",
        "cache hit ratio",
        "consumer lag",
    ] {
        assert!(
            titles.iter().any(|t| t.contains(wanted)),
            "a panel for {wanted}"
        );
    }
    let latency: Vec<&String> = exprs
        .iter()
        .filter(|(t, _)| t == "Decision latency")
        .map(|(_, e)| e)
        .collect();
    for q in ["0.5", "0.95", "0.99"] {
        assert!(
            latency
                .iter()
                .any(|e| e.starts_with(&format!("histogram_quantile({q},"))),
            "decision latency p{q}"
        );
    }
}

#[test]
fn dashboard_queries_are_valid_promql() {
    // promtool parses PromQL in rule files: each panel query becomes a recording rule, with
    // Grafana's $__rate_interval replaced by a duration as Grafana does before querying.
    let rules: Vec<serde_json::Value> = dashboard_exprs()
        .iter()
        .enumerate()
        .map(|(i, (_, expr))| {
            serde_json::json!({
                "record": format!("dashboard:query_{i}"),
                "expr": expr.replace("$__rate_interval", "1m"),
            })
        })
        .collect();
    let file = serde_json::json!({ "groups": [{ "name": "dashboard", "rules": rules }] });
    let dir = tempfile::tempdir().expect("temp dir");
    // JSON is YAML: promtool reads it as is.
    std::fs::write(dir.path().join("dashboard.yml"), file.to_string()).expect("write");
    let out = promtool(&["check", "rules", "dashboard.yml"], dir.path());
    assert!(
        out.contains(&format!("SUCCESS: {} rules found", rules.len())),
        "{out}"
    );
}

// --- secured Kafka and the Prometheus Operator ----------------------------------------------------

#[test]
fn the_secured_kafka_overlay_gives_every_role_a_configuration_that_loads_with_its_secrets() {
    let overlay = yaml(&deploy().join("docker-compose.secured-kafka.yml"));
    let services = map(&overlay["services"], "services");
    let base = compose();
    let roles: BTreeSet<&String> = base
        .services
        .keys()
        .filter(|name| name.starts_with("factgate-"))
        .collect();
    let covered: BTreeSet<String> = services
        .keys()
        .map(|k| str_of(k, "service name").to_owned())
        .collect();
    assert_eq!(
        roles.into_iter().cloned().collect::<BTreeSet<_>>(),
        covered,
        "every role"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let password = dir.path().join("kafka-password");
    std::fs::write(&password, "from-the-secret-file\n").expect("write");
    for (name, service) in services {
        let name = str_of(name, "service name");
        let secrets = strings(&service["secrets"], "secrets");
        assert!(secrets.contains(&"kafka-password".to_owned()), "{name}");
        let env: Vec<(String, String)> = map(&service["environment"], "environment")
            .iter()
            .map(|(k, v)| {
                let value = scalar(v).replace(
                    "/run/secrets/kafka-password",
                    &password.display().to_string(),
                );
                // ${VAR:?message} is compose's own substitution, filled in by the operator.
                let value = if value.starts_with("${") {
                    "broker-1:9096".to_owned()
                } else {
                    value
                };
                (scalar(k), value)
            })
            .collect();
        let config = Config::load_with_env(None, env)
            .unwrap_or_else(|e| panic!("{name}: the overlay's settings do not load: {e}"));
        let p = &config.kafka.properties;
        assert_eq!(p["security.protocol"], "SASL_SSL", "{name}");
        assert_eq!(p["sasl.password"], "from-the-secret-file", "{name}");
        assert!(!format!("{config:?}").contains("from-the-secret-file"));
    }
    let files = map(&overlay["secrets"], "secrets");
    assert!(files.keys().any(|k| scalar(k) == "kafka-password"));
}

#[test]
fn the_pod_monitor_scrapes_every_role_on_its_admin_port() {
    let dir = deploy().join("k8s/prometheus-operator");
    let kustomization = yaml(&dir.join("kustomization.yml"));
    let listed = strings(&kustomization["resources"], "resources");
    assert_eq!(listed, ["podmonitor.yml"]);
    let monitor = yaml(&dir.join("podmonitor.yml"));
    assert_eq!(str_of(&monitor["kind"], "kind"), "PodMonitor");
    let selector = map(&monitor["spec"]["selector"]["matchLabels"], "matchLabels");
    let endpoint = &seq(&monitor["spec"]["podMetricsEndpoints"], "endpoints")[0];
    assert_eq!(str_of(&endpoint["path"], "path"), "/metrics");
    let port = str_of(&endpoint["port"], "port");
    for deployment in of_kind("Deployment") {
        let name = str_of(&deployment["metadata"]["name"], "name");
        let labels = map(
            &deployment["spec"]["template"]["metadata"]["labels"],
            "labels",
        );
        for (key, value) in selector {
            assert_eq!(labels.get(key), Some(value), "{name} is not selected");
        }
        let ports = seq(
            &deployment["spec"]["template"]["spec"]["containers"][0]["ports"],
            "ports",
        );
        assert!(
            ports.iter().any(|p| p["name"].as_str() == Some(port)),
            "{name} has no port {port}"
        );
        // The SASL password comes from a Secret, never from the ConfigMap.
        let env = seq(
            &deployment["spec"]["template"]["spec"]["containers"][0]["env"],
            "env",
        );
        assert!(
            env.iter().any(|e| e["name"].as_str()
                == Some("FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD")
                && e["valueFrom"]["secretKeyRef"]["name"].as_str() == Some("factgate-kafka")),
            "{name}"
        );
    }
}
