#!/usr/bin/env bash
# CI: runs the vendored YAML test suite cases (Tests/AggregateYAMLTests/YAMLTestSuite) and shows their pass count,
# `YAML test suite: N of M cases pass (K error cases)`; fails when any case fails or the line is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
output="$(swift test --skip-build --filter YAMLTestSuiteTests 2>&1)" || { echo "$output" | tail -n 40 >&2; exit 1; }
line="$(echo "$output" | grep -m1 'YAML test suite:')" || { echo "FAIL: YAMLTestSuiteTests printed no pass count" >&2; exit 1; }
echo "$line"
