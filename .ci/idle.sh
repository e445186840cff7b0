#!/usr/bin/env bash
# Idle cost, measured: the CPU (percent of one core) and resident set of `factgate run` receiving
# nothing, for every role together and each role alone, on tansu and on the embedded broker,
# against the release binary as a user runs it. Not a test (no figure passes or fails here); the
# figures are in docs/performance.md.
#
#   .ci/idle.sh                          every case
#   .ci/idle.sh tansu                    only the cases on tansu (or: embedded)
#   IDLE_WARMUP_S=20 IDLE_MEASURE_S=60 .ci/idle.sh
#
# Each process is started, left IDLE_WARMUP_S (15 s) to join its groups and settle, then its
# user+system CPU time (/proc/PID/stat) is read over IDLE_MEASURE_S (30 s). tansu's own CPU over
# the same stretch is printed beside it, and the lines factgate logged meanwhile (at its default
# level, info: an idle process should log nothing). Only loopback is ever contacted. Needs tansu
# (`cargo install tansu --features dynostore`).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

brokers=${*:-"tansu embedded"}
warmup=${IDLE_WARMUP_S:-15}
measure=${IDLE_MEASURE_S:-30}

cargo build --release --locked --bin factgate
bin=$PWD/target/release/factgate
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# factgate's defaults, nothing from this shell's environment.
for var in $(env | grep -o '^FACTGATE_[A-Z_]*' || true); do unset "$var"; done
unset RUST_LOG
hz=$(getconf CLK_TCK)

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# User plus system CPU time of PID, in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }

# measure LABEL CONFIG ROLES [BROKER_PID]: starts factgate, prints its idle CPU and RSS.
measure() {
  local label=$1 config=$2 roles=$3 broker=${4:-}
  local log=$work/$label.log
  "$bin" run --roles "$roles" --config "$config" >"$log.out" 2>"$log" &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 600); do
    grep -q 'roles:' "$log.out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "$label: factgate exited; its log:"; tail -20 "$log"; exit 1; }
    sleep 0.1
  done
  sleep "$warmup"
  local t0 b0 t1 b1 rss l0 l1
  l0=$(wc -l <"$log")
  t0=$(ticks "$pid")
  b0=${broker:+$(ticks "$broker")}
  sleep "$measure"
  t1=$(ticks "$pid")
  b1=${broker:+$(ticks "$broker")}
  rss=$(rss_mb "$pid")
  l1=$(wc -l <"$log")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  local line
  line=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$measure" \
    'BEGIN {printf "%.2f%% of a core", 100 * (b - a) / hz / s}')
  if [[ -n $broker ]]; then
    line+=$(awk -v a="$b0" -v b="$b1" -v hz="$hz" -v s="$measure" \
      'BEGIN {printf " (tansu meanwhile: %.2f%%)", 100 * (b - a) / hz / s}')
  fi
  printf '%-28s %s, %s MB resident, %s log lines\n' "$label" "$line" "$rss" $((l1 - l0))
}

roles_cases="extract,verify,join extract verify join"

for broker in $brokers; do
  case $broker in
  tansu)
    command -v tansu >/dev/null || { echo "tansu is not installed"; exit 1; }
    port=$(free_port)
    tansu broker --cluster-id factgate-idle \
      --listener-url "tcp://127.0.0.1:$port" --advertised-listener-url "tcp://127.0.0.1:$port" \
      --storage-engine memory://tansu/ >"$work/tansu.log" 2>&1 &
    tansu_pid=$!
    pids+=("$tansu_pid")
    for _ in $(seq 300); do
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
      sleep 0.1
    done
    cat >"$work/tansu.toml" <<EOF
[kafka]
bootstrap_servers = "127.0.0.1:$port"
group_prefix = "factgate-idle"

[http]
listen = "127.0.0.1:0"
EOF
    for roles in $roles_cases; do
      measure "tansu $roles" "$work/tansu.toml" "$roles" "$tansu_pid"
    done
    ;;
  embedded)
    cat >"$work/embedded.toml" <<EOF
[http]
listen = "127.0.0.1:0"
EOF
    for roles in $roles_cases; do
      measure "embedded $roles" "$work/embedded.toml" "$roles"
    done
    ;;
  *)
    echo "unknown broker $broker (tansu or embedded)"
    exit 1
    ;;
  esac
done
