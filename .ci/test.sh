#!/usr/bin/env bash
# Installs what factgate's tests need on a fresh machine (idempotently), then runs them all:
# formatting, lints, unit and integration tests, the benches in test mode, and doc tests.
#
# Usage: .ci/test.sh            (from anywhere in the repository)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\n==> %s\n' "$*"; }

# --- what the tests need ------------------------------------------------------------------------
# The Rust toolchain (cargo, rustfmt, clippy) comes with the machine. C and C++ compilers build the
# TLS library reqwest links; check for them rather than assume.
need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}"
fi
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy

# --- the checks ---------------------------------------------------------------------------------
log "cargo fmt --check"
cargo fmt --all -- --check

log "cargo clippy --all-targets"
cargo clippy --all-targets --locked -- -D warnings

log "cargo test (unit, integration, examples, benches in test mode)"
cargo test --all-targets --locked

log "cargo test --doc"
cargo test --doc --locked
