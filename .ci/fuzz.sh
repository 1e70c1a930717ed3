#!/usr/bin/env bash
# CI: every libFuzzer harness in Fuzz/ for at least 30 seconds; any crash fails the build, and scripts/fuzz.sh
# prints where the crashing input was saved.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/fuzz.sh all "${FUZZ_SECONDS:-30}"
