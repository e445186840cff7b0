//! Validators for the event schemas in `schemas/`, with the shared definitions registered (nothing
//! is fetched) and `format` asserted, so timestamps and URLs are checked too.

use jsonschema::{Draft, Registry, Validator};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The `$id` under which the event schemas refer to the shared definitions.
pub const COMMON_ID: &str = "https://factgate.example/schemas/common.v1.json";

pub fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema `schemas/{stem}.json`.
pub fn schema(stem: &str) -> Value {
    read_json(&schemas_dir().join(format!("{stem}.json")))
}

/// A validator for the event schema `stem` (`decision.v1`, …).
pub fn validator(stem: &str) -> Validator {
    let registry = Registry::new()
        .add(COMMON_ID, schema("common.v1"))
        .expect("common schema id is a valid URI")
        .prepare()
        .expect("common schema registers");
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_registry(&registry)
        .should_validate_formats(true)
        .build(&schema(stem))
        .unwrap_or_else(|e| panic!("{stem}: schema does not compile: {e}"))
}

/// The schema's complaints about `instance`, one line each; empty when it is valid.
pub fn errors(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Asserts `event` serializes to JSON its schema accepts.
#[track_caller]
pub fn assert_valid<T: Serialize>(validator: &Validator, event: &T) {
    let value = serde_json::to_value(event).expect("the event serializes");
    let errors = errors(validator, &value);
    assert!(errors.is_empty(), "{errors:#?}\n{value:#}");
}
