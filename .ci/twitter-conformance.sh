#!/usr/bin/env bash
# Checks the sandbox's X API v2 emulator against X's OpenAPI document (Schemas/twitter/openapi-2.62.yaml):
# every response of every route, status and injected fault against the document's schema, and one invalid value
# per declared parameter answered with a 400 problem naming it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== X API v2 emulator against the OpenAPI document 2.62"
source .ci/venv.sh
ci_venv aggregate-conformance-venv "openapi-schema-validator>=0.6" "pyyaml>=6" "rfc3339-validator>=0.1"
swift build --product aggregate
"$venv/bin/python" .ci/twitter_conformance.py "$(swift build --show-bin-path)/aggregate"
