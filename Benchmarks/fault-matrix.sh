#!/usr/bin/env bash
# Prints the fault matrix: every provider command (GET and POST) against every kind of failure the sandbox can
# inject, with the exit code, the requests sent, the number of stderr lines, whether a credential leaked, and
# the error line. It runs the table-driven test Tests/aggregateTests/FaultMatrixTests.swift, which also asserts
# every cell; this script only shows what it saw.
#
# Usage: Benchmarks/fault-matrix.sh
set -euo pipefail
cd "$(dirname "$0")/.."
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
if ! AGGREGATE_FAULT_MATRIX_TABLE="$table" swift test --filter FaultMatrixTests >/dev/null 2>&1; then
    echo "FaultMatrixTests failed; run 'swift test --filter FaultMatrixTests' for details" >&2
    status=1
fi
echo "| command | fault | exit | requests | stderr lines | credential leaked | error line |"
echo "|---|---|---|---|---|---|---|"
awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$table"
exit "${status:-0}"
