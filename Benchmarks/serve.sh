#!/usr/bin/env bash
# `aggregate serve` throughput on cached answers, against the sandbox's own figure in the same run.
#
#   1. starts `aggregate sandbox` and `aggregate serve` pointed at it (live code path: disk cache, rate limiter);
#   2. asks serve once for `tmdb search batman` so the answer is in its disk cache (TMDb's answers are cacheable);
#   3. loads serve's /v1/tmdb/search and the sandbox's /3/search/movie with 50 concurrent keep-alive connections:
#      `wrk -t2 -c50` when installed (Debian's `wrk`; this script installs nothing), else a bounded Python load;
#   4. prints requests per second and p99 for each, and serve / sandbox.
#
# Usage: Benchmarks/serve.sh [SECONDS]    (default 10 per server; builds release first, unless AGGREGATE_BIN names a
#        binary to measure, e.g. .build/debug/aggregate to check the script itself)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"

if [ -n "${AGGREGATE_BIN:-}" ]; then
    bin="$AGGREGATE_BIN"
else
    swift build -c release --product aggregate >/dev/null
    bin="$(swift build -c release --show-bin-path)/aggregate"
fi
scratch="$(mktemp -d)"
pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; rm -rf "$scratch"' EXIT
export XDG_CACHE_HOME="$scratch/cache" XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data"

"$bin" sandbox --port 0 --data-dir "$scratch/sandbox" 2>"$scratch/sandbox.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "Press Ctrl-C" "$scratch/sandbox.log" && break; sleep 0.1; done
sandbox="$(sed -n 's/^aggregate sandbox listening on \([^ ]*\).*/\1/p' "$scratch/sandbox.log" | head -1)"
port="${sandbox##*:}"
eval "$("$bin" sandbox --env --port "$port")"

# The access log is one line per request: discarded here, as a terminal would not keep up either.
"$bin" serve --port 0 2>"$scratch/serve.log" >/dev/null &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$scratch/serve.log" && break; sleep 0.1; done
serve="$(sed -n 's/^aggregate serve listening on \([^ ]*\).*/\1/p' "$scratch/serve.log" | head -1)"
( while kill -0 "${pids[1]}" 2>/dev/null; do sleep 5; : > "$scratch/serve.log"; done ) &
pids+=($!)

serve_url="$serve/v1/tmdb/search?query=batman&limit=20"
sandbox_url="$sandbox/3/search/movie?query=batman&api_key=$TMDB_API_KEY"
curl -sf "$serve_url" >/dev/null   # now in serve's disk cache
echo "machine: $(nproc) cores; $seconds s per server, 50 connections"

load() {  # load URL -> "<requests/s> <p99 ms>"
    if command -v wrk >/dev/null 2>&1; then
        wrk -t2 -c50 -d"${seconds}s" --latency "$1" | awk '
            /Requests\/sec/ { rps = $2 }
            /^ +99%/ { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }; p99 = v }
            END { printf "%.0f %.1f\n", rps, p99 }'
    else
        python3 - "$1" "$seconds" <<'PY'
import http.client, sys, threading, time, urllib.parse
url, seconds = urllib.parse.urlsplit(sys.argv[1]), float(sys.argv[2])
target = url.path + ("?" + url.query if url.query else "")
latencies, lock, end = [], threading.Lock(), time.monotonic() + seconds
def worker():
    connection, mine = http.client.HTTPConnection(url.hostname, url.port, timeout=30), []
    while time.monotonic() < end:
        start = time.monotonic()
        connection.request("GET", target)
        connection.getresponse().read()
        mine.append(time.monotonic() - start)
    with lock: latencies.extend(mine)
threads = [threading.Thread(target=worker) for _ in range(50)]
for thread in threads: thread.start()
for thread in threads: thread.join()
latencies.sort()
print(f"{len(latencies) / seconds:.0f} {latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f}")
PY
    fi
}

read -r serve_rps serve_p99 < <(load "$serve_url")
read -r sandbox_rps sandbox_p99 < <(load "$sandbox_url")
printf '%-36s %10s %10s\n' "" "req/s" "p99 ms"
printf '%-36s %10s %10s\n' "serve /v1/tmdb/search (cached)" "$serve_rps" "$serve_p99"
printf '%-36s %10s %10s\n' "sandbox /3/search/movie" "$sandbox_rps" "$sandbox_p99"
awk -v a="$serve_rps" -v b="$sandbox_rps" 'BEGIN { if (b > 0) printf "serve / sandbox: %.2f\n", a / b }'
grep -o 'aggregate_serve_cache_total{result="[a-z]*"} [0-9]*' < <(curl -s "$serve/metrics") || true
