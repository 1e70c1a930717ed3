# The networking rows of Benchmarks/speed.sh (issue #24: networking only when a request is sent, bodies at the speed
# of the wire). Sourced by speed.sh, which sets bin, base, runs and work; not run alone.

# --- Start-up: each build's `--version` and an offline query, as a ratio to `jq --version` in the same run.
static="${STATIC_BIN:-.build/aggregate-static}"
base_static="${BASE_STATIC_BIN:-}"
echo
echo "### start-up (median of ${STARTUP_RUNS:-50} runs, hyperfine -N)"
if command -v hyperfine >/dev/null 2>&1; then
    startup=("jq --version|jq --version")
    add_build() {  # LABEL EXE
        [ -x "$2" ] || { echo "($1: $2 is missing; build it with scripts/build-release.sh)"; return; }
        startup+=("$1 --version|$2 --version" "$1 offline|$2 tmdb popular --offline --limit 1")
    }
    add_build "after static" "$static"
    # PLAIN_BIN= (empty) / BASE_PLAIN_BIN= leave a plain build out, e.g. when BIN is a static binary.
    [ -n "${PLAIN_BIN-$bin}" ] && add_build "after plain" "${PLAIN_BIN-$bin}"
    [ -n "$base_static" ] && add_build "before static" "$base_static"
    [ -n "${BASE_PLAIN_BIN-$base}" ] && add_build "before plain" "${BASE_PLAIN_BIN-$base}"
    commands=()
    for entry in "${startup[@]}"; do commands+=(--command-name "${entry%%|*}" "${entry#*|}"); done
    hyperfine -N --style none --warmup 5 --runs "${STARTUP_RUNS:-50}" --export-json "$work/startup.json" "${commands[@]}" >/dev/null 2>&1
    python3 - "$work/startup.json" <<'PY'
import json, statistics, sys
results = {r["command"]: statistics.median(r["times"]) * 1000 for r in json.load(open(sys.argv[1]))["results"]}
jq = results["jq --version"]
goals = {"after static --version": 3, "after static offline": 8, "after plain --version": 6, "after plain offline": 12}
print("| command | median | × jq --version | goal |")
print("|---|---|---|---|")
for name, ms in results.items():
    goal = goals.get(name)
    verdict = "" if goal is None else f"≤ {goal} ms: {'met' if ms <= goal else 'not met'}"
    print(f"| {name} | {ms:.2f} ms | {ms / jq:.2f}× | {verdict} |")
PY
else
    echo "(hyperfine is not installed: start-up rows skipped; this script installs nothing)"
fi

# --- HTTP: TMDb-like bodies over loopback from a local server (sendfile), received by each client.
server_py="$work/body-server.py"
cat > "$server_py" <<'PY'
# Serves BENCH_DIR/body-<N>.json for GET /body?mb=N with Content-Length, sent with sendfile; prints its port.
import http.server, os, socketserver, sys, urllib.parse
folder = sys.argv[1]
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        path = os.path.join(folder, "body-%s.json" % query.get("mb", ["1"])[0])
        with open(path, "rb") as body:
            size = os.fstat(body.fileno()).st_size
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            self.wfile.flush()
            self.connection.sendfile(body)
    def log_message(self, *args): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
definition="$work/bench-provider.json"
cat > "$definition" <<'JSON'
{"name": "bench", "displayName": "Bench", "summary": "Serves the benchmark's bodies.", "docsURL": "https://bench.example/docs",
 "baseURL": "https://bench.example",
 "operations": [{"name": "body", "summary": "One TMDb-like page.", "kind": "record",
   "parameters": [{"name": "mb", "positional": true, "required": true, "help": "Its size in MiB."}],
   "request": {"path": "/body", "query": {"mb": "{mb}"}},
   "records": "results", "item": {"id": "id", "title": "title"}}]}
JSON
for mb in 1 8 32; do
    [ -s "$work/body-$mb.json" ] || python3 Benchmarks/generators/tmdb_page.py "$(python3 -c "print($mb * 1.048576 * 0.998)")" "$work/body-$mb.json"
done
port_file="$work/body-server.port"
python3 "$server_py" "$work" > "$port_file" 2>/dev/null &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
port="$(head -1 "$port_file")"
for mb in 1 8 32; do
    file="$work/body-$mb.json"
    url="http://127.0.0.1:$port/body?mb=$mb"
    bytes=$(stat -c %s "$file")
    echo
    echo "### $mb MiB body over loopback ($bytes bytes)"
    entries=("python urllib|python3 -c 'import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())' '$url'")
    flags=()
    for build in after before; do
        exe="$bin"
        if [ "$build" = before ]; then [ -n "$base" ] || continue; exe="$base"; fi
        entries+=("$build browse FILE|$exe browse $file --max-size 64MiB"
                  "$build browse URL|$exe browse '$url' --max-size 64MiB"
                  "$build provider run|$exe --provider-file $definition bench body $mb --base-url http://127.0.0.1:$port --limit 1 --no-cache")
        flags+=(--ratio "$build browse URL/$build browse FILE" --ratio "$build browse URL/python urllib" --ratio "$build provider run/python urllib")
    done
    [ -n "$base" ] && flags+=(--ratio "before browse URL/after browse URL" --ratio "before provider run/after provider run")
    python3 Benchmarks/measure.py --runs "$runs" --bytes "$bytes" "${flags[@]}" "${entries[@]}"
done
kill "$server_pid" 2>/dev/null || true
