#!/usr/bin/env bash
# Shared by the benchmark scripts that run `aggregate` against a slow sandbox (sourced, not run): builds the release
# binary ($bin), starts `aggregate sandbox --latency <MS>` on a free port ($sandbox is its pid) and exports every
# provider's AGGREGATE_<NAME>_BASE_URL and the sandbox's demo credentials. `stop_latency_sandbox` stops it and
# removes its files; call it from the script's EXIT trap.
set -euo pipefail

sandbox=""
sandbox_log="$(mktemp)"
sandbox_data="$(mktemp -d)"

stop_latency_sandbox() {
    if [ -n "$sandbox" ]; then
        kill "$sandbox" 2>/dev/null || true
        wait "$sandbox" 2>/dev/null || true
    fi
    rm -rf "$sandbox_log" "$sandbox_data"
}

swift build -c release --product aggregate >/dev/null
bin="$(swift build -c release --show-bin-path)/aggregate"

"$bin" sandbox --port 0 --latency "$1" --data-dir "$sandbox_data" 2>"$sandbox_log" &
sandbox=$!
for _ in $(seq 50); do grep -q "Press Ctrl-C" "$sandbox_log" && break; sleep 0.1; done
# The banner lists, per provider, its base URL variable and the sandbox's demo credentials.
while read -r assignment; do export "$assignment"; done < <(sed -n 's/^  [a-z0-9-]*: //p' "$sandbox_log" | tr ' ' '\n')
