#!/usr/bin/env bash
# Hostile input, measured: the memory and time of each case of docs/reliability.md, against the
# release binary as a user runs it. Not a test (no figure passes or fails here); the tests are
# tests/it/hostile.rs, http2.rs and ssrf.rs.
#
#   .ci/hostile.sh                      every case
#   .ci/hostile.sh pages check          only the cases named: pages, check, config, flood
#   HOSTILE_JSONL_MIB="16 64" HOSTILE_CONNECTIONS=5000 .ci/hostile.sh check flood
#
# - pages: `factgate check` of an article citing, on a local origin, a page that is 20 MiB once
#   decompressed (the default fetch.max_decompressed_bytes): of `<b></b>` (30 KB gzipped), and
#   of prose; 700 KB of `<p>x</p>` after 64 formatting elements the parser rebuilds for each;
#   and prose of 1.5 MiB (under fetch.max_text_bytes, read and indexed); each beside the same
#   check citing a small page.
# - check: `factgate check` of JSON Lines of small drafts, peak resident set against the input.
# - config: `factgate check --config /dev/zero`.
# - flood: `factgate run` (embedded broker, HTTP endpoint with its default limits) while
#   HTTP/2 connections that only PING pile up, /healthz asked every 100 ms.
#
# Peak resident sets come from /usr/bin/time (%M) or the process's VmHWM. Only loopback is ever
# contacted. Needs python3.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

cases=${*:-"pages check config flood"}
jsonl_sizes=${HOSTILE_JSONL_MIB:-"16 64 256"}
connections=${HOSTILE_CONNECTIONS:-15000}

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

wants() { [[ " $cases " == *" $1 "* ]]; }

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Runs factgate under /usr/bin/time; prints "<peak RSS in MiB> <seconds> <exit status>".
measure() {
  local status=0
  /usr/bin/time -f '%M %e' -o "$work/time" "$bin" "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
  local kb seconds
  # A failing command adds a line before the figures.
  read -r kb seconds < <(tail -n 1 "$work/time")
  echo "$((kb / 1024)) $seconds $status"
}

if wants pages; then
  # The pages, written gzipped as they are generated (never held whole).
  python3 - "$work" <<'EOF'
import gzip, sys
work, size = sys.argv[1], 20 * 1024 * 1024
claim = "<p>Unemployment fell to 4.2% in March, the statistics office said.</p>"
def page(name, opening, piece, pieces=None):
    written = 0
    with gzip.open(f"{work}/{name}.gz", "wt", compresslevel=9) as out:
        head = f"<html><body>{claim}{opening}"
        out.write(head)
        written += len(head.encode())
        i = 0
        while pieces is None or i < pieces:
            p = piece(i)
            if written + len(p.encode()) > size:
                break
            out.write(p)
            written += len(p.encode())
            i += 1
with gzip.open(f"{work}/small.gz", "wt") as out:
    out.write(f"<html><body>{claim}</body></html>")
page("tiny-elements", "", lambda i: "<b></b>")
# Few enough tokens for the pre-scan (90,000 paragraphs), each rebuilding 64 elements: the tree
# would be 5.9 million nodes, and its build is what the node budget stops.
page("reconstruct", "<div>" + "".join(f"<font id=f{i}>" for i in range(64)) + "</div>",
     lambda i: "<p>x</p>", pieces=90_000)
def prose(i):
    return (
    f"<p>In quarter {i % 4 + 1} of {1990 + i % 35}, the council's survey of {1000 + i % 9000} "
    f"households found that {10 + i % 80}% of respondents used the library at least once a "
    f"month, up from {5 + i % 70}% a year earlier, while spending on maintenance rose to "
    f"£{1 + i % 500} million. Opening hours were extended in {2 + i % 40} districts and visits "
    f"by schoolchildren rose by {3 + i % 60} per cent. Officials said the figures for region "
    f"{i % 200} would be published in the spring, with a review of the mobile library, which "
    f"reached {10 + i % 300} villages.</p>\n")
page("text", "", prose)
size = 3 * 512 * 1024
page("text-1.5mib", "", prose)
EOF
  port=$(free_port)
  python3 - "$work" "$port" <<'EOF' &
import http.server, sys
work, port = sys.argv[1], int(sys.argv[2])
class Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            body = open(f"{work}{self.path}.gz", "rb").read()
        except OSError:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), Pages).serve_forever()
EOF
  pids+=($!)
  sleep 1
  printf '[fetch]\naddress_allowlist = ["127.0.0.1/32"]\ntimeout_ms = 120000\n' >"$work/pages.toml"
  for page in small tiny-elements reconstruct text text-1.5mib; do
    printf 'Unemployment fell to 4.2%% in March, the [statistics office](http://127.0.0.1:%s/%s) said.\n' \
      "$port" "$page" >"$work/$page.md"
    read -r peak seconds status < <(measure check "$work/$page.md" --config "$work/pages.toml" --format json --quiet)
    fetched=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
r = d["report"]
claim = (r.get("claims") or [{}])[0]
issue = (r.get("issues") or [{}])[0]
print(d["outcome"], claim.get("verdict") or "unjudged", "-", issue.get("problem", "no issue"))' <"$work/stdout" 2>/dev/null || echo "?")
    printf '%-26s %5s MiB decompressed (%s KB sent): exit %s in %5s s; peak RSS %4s MiB; %s\n' \
      "page-$page" "$(python3 -c "import gzip; print(round(len(gzip.open('$work/$page.gz').read()) / 2**20, 1))")" \
      "$(( $(stat -c %s "$work/$page.gz") / 1000 ))" "$status" "$seconds" "$peak" "$fetched"
  done
  kill "${pids[-1]}" 2>/dev/null || true
fi

if wants check; then
  for mib in $jsonl_sizes; do
    python3 - "$mib" "$work/drafts.jsonl" <<'EOF'
import json, sys
size, path = int(sys.argv[1]) * 1024 * 1024, sys.argv[2]
written, i = 0, 0
with open(path, "w") as out:
    while written < size:
        line = json.dumps({
            "schema_version": "factgate.draft.v1",
            "article_id": f"bulk-{i}",
            "revision": 1,
            "published_at": "2026-01-01T00:00:00Z",
            "body_format": "markdown",
            "body": "The council met on Tuesday to discuss the new library.",
        }) + "\n"
        out.write(line)
        written += len(line)
        i += 1
EOF
    lines=$(wc -l <"$work/drafts.jsonl")
    read -r peak seconds status < <(measure check "$work/drafts.jsonl" --format json --quiet)
    printf '%-26s %4s MiB of JSON Lines (%s drafts): exit %s in %s s; peak RSS %s MiB (%s× the input)\n' \
      "check-jsonl" "$mib" "$lines" "$status" "$seconds" "$peak" \
      "$(python3 -c "print(round($peak / $mib, 2))")"
    rm -f "$work/drafts.jsonl"
  done
fi

if wants config; then
  echo "The council met on Tuesday." >"$work/a.md"
  read -r peak seconds status < <(measure check --config /dev/zero "$work/a.md")
  printf '%-26s exit %s in %s s; peak RSS %s MiB; %s\n' "config-dev-zero" "$status" "$seconds" \
    "$peak" "$(tail -n 1 "$work/stderr")"
fi

if wants flood; then
  port=$(free_port)
  FACTGATE_HTTP__LISTEN="127.0.0.1:$port" "$bin" run >"$work/run.log" 2>&1 &
  pids+=($!)
  run_pid=$!
  for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 1
  done
  python3 - "$port" "$connections" "$run_pid" <<'EOF'
import asyncio, os, resource, sys, time
port, count, pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def frame(kind, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, 0]) + b"\0\0\0\0" + payload
OPENING = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4)
PING = frame(6, b"\0" * 8)
stats = {"opened": 0, "closed": 0, "refused": 0}
def fds():
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1
def hwm():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024
async def hold():
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        stats["refused"] += 1
        return
    stats["opened"] += 1
    writer.write(OPENING)
    async def ping():
        while True:
            await asyncio.sleep(1)
            writer.write(PING)
            await writer.drain()
    pinger = asyncio.create_task(ping())
    try:
        while await reader.read(4096):
            pass
    except Exception:
        pass
    stats["closed"] += 1
    pinger.cancel()
    writer.close()
async def probe():
    started = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        return time.monotonic() - started if answer.startswith(b"HTTP/1.1 200") else None
    except Exception:
        return None
async def main():
    baseline_fds = fds()
    tasks, latencies, failed, most_fds = [], [], 0, 0
    started = time.monotonic()
    for i in range(count):
        tasks.append(asyncio.create_task(hold()))
        if i % 500 == 499:
            await asyncio.sleep(0.05)
    opened_in = time.monotonic() - started
    until = time.monotonic() + 20
    while time.monotonic() < until:
        latency = await probe()
        if latency is None:
            failed += 1
        else:
            latencies.append(latency)
        most_fds = max(most_fds, fds())
        await asyncio.sleep(0.1)
    latencies.sort()
    median = latencies[len(latencies) // 2] * 1e3 if latencies else float("nan")
    worst = latencies[-1] * 1e3 if latencies else float("nan")
    print(f"{'http-flood':<26} {stats['opened']} HTTP/2 PING-only connections opened in "
          f"{opened_in:.1f} s ({stats['refused']} refused at connect), {stats['closed']} closed by "
          f"factgate; /healthz over 20 s: {len(latencies)} answered, {failed} failed, median "
          f"{median:.1f} ms, worst {worst:.1f} ms; factgate's open files: {baseline_fds} before, "
          f"at most {most_fds} during; its peak RSS {hwm()} MiB")
    for task in tasks:
        task.cancel()
asyncio.run(main())
EOF
fi
