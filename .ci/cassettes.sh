#!/usr/bin/env bash
# Records cassettes from the sandbox over loopback (--record), validates each against Schemas/cassette.schema.json with
# the same pip-installed validator as validate_examples.py, checks that no demo credential reached a file, and replays
# each with the sandbox stopped, expecting the same JSON output.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cassettes: record from the sandbox, validate against the schema, replay offline"
source .ci/venv.sh
ci_venv aggregate-ci-venv "jsonschema>=4.18" "rfc3987>=1.3"
swift build --product aggregate
bin="$(swift build --show-bin-path)/aggregate"
work="$(mktemp -d)"
trap 'kill "$sandbox_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" TZ=UTC

"$bin" sandbox --port 0 --fault 'status=503; times=1; path=/kiva/v1/' >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/sandbox.err" 2>/dev/null && break; sleep 0.1; done
base="$(sed -n 's/^aggregate sandbox listening on \([^ ]*\) .*/\1/p' "$work/sandbox.err")"
[ -n "$base" ] || { echo "the sandbox did not start"; cat "$work/sandbox.err"; exit 1; }
credentials=(TMDB_API_KEY=5a9d0c1e7f3b4a6d8e2c1b0a9f8e7d6c X_BEARER_TOKEN=sandbox-x-bearer-token MEETUP_API_KEY=sandbox-meetup-key)
urls=(AGGREGATE_TMDB_BASE_URL="$base/tmdb" AGGREGATE_KIVA_BASE_URL="$base/kiva" AGGREGATE_TWITTER_BASE_URL="$base/twitter"
    AGGREGATE_MEETUP_BASE_URL="$base/meetup")
invocations=("tmdb popular --limit 45" "kiva newest --api rest --limit 25" "twitter orbitalnotes --limit 5"
    "meetup --lat 51.509980 --lon -0.133700 --api v2 --limit 5")

for index in "${!invocations[@]}"; do
    read -r -a words <<<"${invocations[$index]}"
    env "${credentials[@]}" "${urls[@]}" "$bin" "${words[@]}" --format json --record "$work/c$index" >"$work/live$index.json"
done
env "${credentials[@]}" "${urls[@]}" "$bin" compare "${invocations[@]}" --format json --record "$work/compare" >/dev/null
kill "$sandbox_pid"
wait "$sandbox_pid" 2>/dev/null || true

"$venv/bin/python" - "$work" <<'PY'
import json, pathlib, sys
from jsonschema import Draft202012Validator, FormatChecker
work = pathlib.Path(sys.argv[1])
schema = json.loads(pathlib.Path("Schemas/cassette.schema.json").read_text())
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema, format_checker=FormatChecker())
secrets = ["5a9d0c1e7f3b4a6d8e2c1b0a9f8e7d6c", "sandbox-x-bearer-token", "sandbox-meetup-key"]
files = sorted(work.glob("*/cassette.json"))
assert len(files) == 5, files
for path in files:
    text = path.read_text()
    errors = sorted(validator.iter_errors(json.loads(text)), key=lambda e: list(e.path))
    for error in errors:
        print(f"{path}: {'/'.join(map(str, error.path))}: {error.message}")
    leaked = [secret for secret in secrets if secret in text]
    if leaked:
        print(f"{path}: a credential reached the cassette")
    if errors or leaked:
        sys.exit(1)
    print(f"{path.parent.name}: {len(json.loads(text)['exchanges'])} exchanges, valid, no credential")
PY

# Replays need no credential and no network: the sandbox is stopped.
for index in "${!invocations[@]}"; do
    read -r -a words <<<"${invocations[$index]}"
    env "${urls[@]}" "$bin" "${words[@]}" --format json --replay "$work/c$index" >"$work/replay$index.json"
    "$venv/bin/python" - "$work/live$index.json" "$work/replay$index.json" <<'PY'
import json, sys
def stable(path, source):
    document = json.load(open(path))
    for result in document["results"]:
        # Meetup's sandbox echoes the key in its paging links: the cassette masks it, so the replayed body is shorter.
        result["meta"]["elapsedMs"] = result["meta"]["bytes"] = 0
        # The one field that must differ: where the answer came from.
        assert result["meta"]["source"] == source, f"{path}: meta.source is {result['meta']['source']}, not {source}"
        del result["meta"]["source"]
    return document
assert stable(sys.argv[1], "live") == stable(sys.argv[2], "replay"), f"{sys.argv[2]} differs from the live output"
PY
done
env "${urls[@]}" "$bin" compare "${invocations[@]}" --format json --replay "$work/compare" >/dev/null
echo "cassettes: ${#invocations[@]} runs and a compare recorded, validated and replayed"
