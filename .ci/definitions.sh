#!/usr/bin/env bash
# The compiled-in definitions' sample pages and the shared captured responses (../shared/api/samples/<name>/) against
# their raw-shape schemas (Schemas/<name>/), with a real validator.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/venv.sh
ci_venv aggregate-ci-venv "jsonschema>=4.18" "rfc3987>=1.3"
"$venv/bin/python" .ci/validate_definitions.py
