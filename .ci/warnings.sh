#!/usr/bin/env bash
# Fails on any compiler or package warning in our own code: a clean `swift build --build-tests` of every target
# (Sources/, Providers/, Tests/ and the manifest) in a scratch path of its own, so that an incremental build, which
# only re-prints warnings of the files it recompiles, cannot hide one. Warnings from macro expansions (`#expect`)
# count too: they are in our test files. The Fuzz/ harnesses are compiled by scripts/fuzz.sh with -suppress-warnings
# (all modules as one, whose own-module warnings mean nothing for the package) and are not checked here.
#
# Usage: bash .ci/warnings.sh     (exit 1 with the warnings listed, once each)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/aggregate-warnings.XXXXXX")"
log="$scratch.log"
# SwiftPM also leaves lock files named after the scratch path beside it (`_tmp_aggregate-warnings.XXXXXX.lock`).
locks="$(dirname "$scratch")/$(printf '%s' "$scratch" | tr / _)"
trap 'rm -rf "$scratch" "$log" "$locks".lock "$locks"_*.lock' EXIT

echo "== clean build of every target in $scratch, checking for warnings"
if ! swift build --build-tests --scratch-path "$scratch" >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "warnings: the build failed"
    exit 1
fi
# `<root>/<file>:<line>:<column>: warning: ...`; `macro expansion #expect:1:22: warning: ...`, whose next line names the
# file of ours it came from; and SwiftPM's own `warning: ...` about the manifest or the targets. Each once.
warnings="$(awk -v root="$root/" '
    index($0, root) == 1 && / warning: / { print; next }
    /^macro expansion [^ ]+: warning: / { warning = $0; getline origin; sub(/^[^\/]*/, "", origin); print warning " (" origin ")"; next }
    /^warning: / { print }
' "$log" | sort -u)"
if [ -n "$warnings" ]; then
    echo "$warnings"
    echo "warnings: $(wc -l <<<"$warnings") distinct warnings in our code (above); fix them"
    exit 1
fi
echo "warnings: none"
