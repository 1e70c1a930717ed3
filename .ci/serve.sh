#!/usr/bin/env bash
# `aggregate serve`'s own OpenAPI document (GET /openapi.json): validated with openapi-spec-validator, then used by a
# bounded property-based schemathesis run against a running `serve --offline` (every check but one, below: no 5xx,
# answers that match the document). Starts and stops what it needs; takes a minute or two. Usage: .ci/serve.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-$(swift build --show-bin-path)/aggregate}"
source .ci/venv.sh
ci_venv aggregate-serve-venv "openapi-spec-validator>=0.7" "schemathesis>=4"

scratch="$(mktemp -d)"
server=""
trap 'if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -rf "$scratch"' EXIT
export XDG_CACHE_HOME="$scratch/cache" XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data"
"$bin" serve --offline --port 0 2>"$scratch/serve.log" &
server=$!
for _ in $(seq 100); do grep -q "listening on" "$scratch/serve.log" && break; sleep 0.1; done
base="$(sed -n 's/^aggregate serve listening on \([^ ]*\).*/\1/p' "$scratch/serve.log" | head -1)"
[ -n "$base" ] || { echo "FAIL: aggregate serve did not start: $(cat "$scratch/serve.log")" >&2; exit 1; }

curl -sf "$base/openapi.json" > "$scratch/openapi.json"
"$venv/bin/openapi-spec-validator" "$scratch/openapi.json"
# positive_data_acceptance is left out: the document declares one generic route for every operation, so it cannot
# say which parameters each operation requires, and a request without them is rightly a 400 (the one-line usage error).
# Run from the scratch folder: schemathesis keeps a .schemathesis folder where it runs.
(cd "$scratch" && "$venv/bin/schemathesis" run "$base/openapi.json" --checks all --exclude-checks positive_data_acceptance --max-examples 25 --seed 1)
kill -TERM "$server"
wait "$server"
server=""
echo "serve: OpenAPI document valid; schemathesis found no 5xx and no schema violation; stopped with 0"
