#!/usr/bin/env bash
# Sandbox throughput and slow-client resistance, against Python's ThreadingHTTPServer as the baseline.
#
# For each route below, one run:
#   1. fetches the sandbox's answer once;
#   2. serves exactly that body (status and Content-Type too) from Python's ThreadingHTTPServer with the stock
#      BaseHTTPRequestHandler (its defaults: HTTP/1.0, a connection per request), the baseline the issue measured;
#   3. loads both with `wrk -t2 -c50` (when installed; else a bounded loopback-only Python load) and prints
#      req/s, p50 and p99 for each and the ratio sandbox / Python. Target: >= 5 on every route.
# Then opens 300 slowloris connections (a partial head, one more byte a second) and times normal requests.
# Target: each answered within 100 ms.
#
# Usage: Benchmarks/sandbox-load.sh [SECONDS]    (default 10 per server per route; builds release first)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"

swift build -c release --product aggregate >/dev/null
bin="$(swift build -c release --show-bin-path)/aggregate"
log="$(mktemp)"
data="$(mktemp -d)"
sandbox=""
trap 'if [ -n "$sandbox" ]; then kill "$sandbox" 2>/dev/null || true; wait "$sandbox" 2>/dev/null || true; fi; rm -rf "$log" "$data"' EXIT

"$bin" sandbox --port 0 --data-dir "$data" 2>"$log" &
sandbox=$!
for _ in $(seq 100); do grep -q "Press Ctrl-C" "$log" && break; sleep 0.1; done
base="$(sed -n 's/^aggregate sandbox listening on \([^ ]*\).*/\1/p' "$log" | head -1)"
# The request log goes to the file as it would go to a terminal; truncate it now and then so it cannot grow.
( while kill -0 "$sandbox" 2>/dev/null; do sleep 5; : > "$log"; done ) &

tool="python"
if command -v wrk >/dev/null 2>&1; then tool="wrk"; fi
echo "sandbox: $base (release build), load: $tool, $seconds s per server per route, $(nproc) cores"
python3 "$(dirname "$0")/sandbox_load.py" "$base" "$seconds" "$tool"
