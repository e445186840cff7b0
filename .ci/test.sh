#!/usr/bin/env bash
# Installs what factgate's tests need on a fresh machine (idempotently), then runs them all:
# formatting, lints, unit and integration tests, and the benches in test mode.
#
# Usage: .ci/test.sh            (from anywhere in the repository)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\n==> %s\n' "$*"; }

# --- what the tests need ------------------------------------------------------------------------
# The Rust toolchain (cargo, rustfmt, clippy) comes with the machine. C and C++ compilers and make
# build librdkafka and the TLS library reqwest links; check for them rather than assume.
need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
# librdkafka is built with TLS and SASL against the system's OpenSSL (libssl3), found by
# pkg-config: the headers are all it needs (seconds to install; no vendored OpenSSL to compile).
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
pkg-config --exists openssl 2>/dev/null || need_apt+=(libssl-dev)
# The openssl command makes the test certificate of the TLS/SASL test (tests/kafka_secured.rs).
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
# kcat: the outside client of the Kafka tests on the embedded broker (tests/kafka.rs).
command -v kcat >/dev/null 2>&1 || need_apt+=(kcat)
# promtool (from Debian's prometheus package): checks deploy/prometheus/ and the dashboard's queries
# (tests/deploy.rs), which fail without it.
command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
# chromium (Debian's package): the headless browser of tests/ui_browser.rs, which renders the
# editors' pages, screenshots them into target/screenshots/ and reads their DOM. It fails without it.
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# python3 with pip: kafka-python is the CMS of the end-to-end test on tansu (tests/e2e_tansu.rs).
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}"
fi
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy

# kafka-python for the same python3 the test runs. Debian's own python3 refuses a plain pip
# install (PEP 668), hence the second attempt.
if ! python3 -c 'import kafka' >/dev/null 2>&1; then
  log "pip install kafka-python"
  python3 -m pip install --quiet kafka-python ||
    python3 -m pip install --quiet --break-system-packages kafka-python
fi

# tansu, the independent Kafka-protocol broker of tests/e2e_tansu.rs, with its in-memory storage
# engine. The test fails (never skips) without it. `cargo install` puts it in ~/.cargo/bin.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! command -v tansu >/dev/null 2>&1; then
  log "cargo install tansu --features dynostore (a build of about 10 minutes on 2 cores)"
  cargo install tansu --version '~0.6' --features dynostore
fi

# cargo-deny checks the dependency tree's licences and bans (deny.toml). A build from source the
# first time: 11 minutes measured on a shared, loaded 2-core machine (README, "Dependencies");
# kept in ~/.cargo/bin, so later runs skip it. The check itself takes about 4 seconds.
if ! cargo deny --version >/dev/null 2>&1; then
  log "cargo install cargo-deny --locked (a build of up to about 11 minutes on 2 cores)"
  cargo install cargo-deny --locked
fi

# --- the checks ---------------------------------------------------------------------------------
log "cargo fmt --check"
cargo fmt --all -- --check

# Licences and bans only: the advisory database cannot be fetched from CI's network, so
# advisories are left to the deployment's own pipeline (README, "Dependencies").
log "cargo deny check licenses bans"
cargo deny --locked check licenses bans

log "cargo clippy --all-targets"
cargo clippy --all-targets --locked -- -D warnings

log "cargo test (unit, integration, examples, benches in test mode)"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
cargo test --all-targets --locked 2>&1 | tee "$results"
# (pipefail: a failing cargo test stops the script here.) The library has no doc tests: its docs
# hold no code blocks to run, so `cargo test --doc` is not a step.

# The browser tests' screenshots (desktop and phone widths), kept for CI to archive.
shots="${CARGO_TARGET_DIR:-target}/screenshots"
if ls "$shots"/*.png >/dev/null 2>&1; then
  log "screenshots: $(ls "$shots"/*.png | tr '\n' ' ')"
fi

# One closing line over every test binary, so the run's outcome is read from the whole suite.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$results"
