#!/usr/bin/env bash
# Start-up time: `aggregate --version`, `aggregate providers` and an offline query, for the plain release build
# and the static one (scripts/build-release.sh), against `jq --version`. Prints medians of RUNS runs (default 31).
# Targets: --version median <= 8 ms static, <= 15 ms plain release.
#
# Usage: Benchmarks/startup.sh     (builds both)
source "$(dirname "$0")/setup.sh"
runs="${RUNS:-31}"
scripts/build-release.sh >/dev/null
static=.build/aggregate-static
machine
python3 Benchmarks/measure.py --runs "$runs" \
    --ratio "static --version/jq --version" --ratio "plain --version/jq --version" \
    "jq --version|jq --version" \
    "static --version|$static --version" \
    "plain --version|$bin --version" \
    "static providers|$static providers" \
    "plain providers|$bin providers" \
    "static tmdb search (offline)|$static tmdb search batman --offline --quiet" \
    "plain tmdb search (offline)|$bin tmdb search batman --offline --quiet"
