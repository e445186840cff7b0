//! The layering, checked: no two top-level modules of a crate reach into each other, directly or
//! through others. The core crate's independence from tokio, rdkafka and reqwest is checked by
//! the compiler (its manifest has none of them); this checks what the compiler cannot, the
//! cycles between modules of one crate, by reading their `crate::…` paths (tests excluded).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable source dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out
}

/// The code of a file without its test module and comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules each top-level module of the crate at `src` names with `crate::`.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let top = |path: &Path| -> Option<String> {
        let rel = path.strip_prefix(src).ok()?;
        let first = rel.components().next()?.as_os_str().to_str()?;
        let name = first.strip_suffix(".rs").unwrap_or(first);
        (!matches!(name, "lib" | "main")).then(|| name.to_owned())
    };
    let modules: BTreeSet<String> = rust_files(src).iter().filter_map(|p| top(p)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in rust_files(src) {
        let Some(from) = top(&path) else { continue };
        if path.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = code(&std::fs::read_to_string(&path).expect("readable source"));
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            // `crate::name` or `crate::{a, b::c, …}`.
            let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or_default();
                group
                    .split(',')
                    .map(|part| part.trim().split("::").next().unwrap_or_default())
                    .collect()
            } else {
                vec![
                    rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or_default(),
                ]
            };
            for name in names {
                if name != from && modules.contains(name) {
                    graph
                        .entry(from.clone())
                        .or_default()
                        .insert(name.to_owned());
                }
            }
        }
    }
    graph
}

/// A cycle of the graph, as the modules on it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_core_crates_modules_form_no_cycle() {
    let graph = module_graph(&root().join("core/src"));
    assert!(graph.contains_key("judge"), "the graph was read: {graph:?}");
    assert_eq!(find_cycle(&graph), None, "{graph:#?}");
}

#[test]
fn the_service_crates_modules_form_no_cycle() {
    let graph = module_graph(&root().join("src"));
    assert!(
        graph.contains_key("pipeline"),
        "the graph was read: {graph:?}"
    );
    assert_eq!(find_cycle(&graph), None, "{graph:#?}");
}

#[test]
fn a_cycle_is_found_when_there_is_one() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        graph.entry(a.into()).or_default().insert(b.into());
    }
    let cycle = find_cycle(&graph).expect("a -> b -> c -> a");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(cycle.len(), 4);
    graph.get_mut("c").expect("c").remove("a");
    assert_eq!(find_cycle(&graph), None);
}

#[test]
fn the_core_manifest_has_no_runtime_kafka_or_http_client() {
    let manifest = std::fs::read_to_string(root().join("core/Cargo.toml")).expect("core manifest");
    let manifest: toml::Value = toml::from_str(&manifest).expect("valid TOML");
    let deps = manifest["dependencies"].as_table().expect("dependencies");
    for banned in ["tokio", "rdkafka", "reqwest", "hyper", "axum", "prometheus"] {
        assert!(!deps.contains_key(banned), "core depends on {banned}");
    }
}
