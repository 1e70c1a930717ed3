#!/usr/bin/env bash
# Measures how much `aggregate compare` gains by running providers concurrently.
#
# Starts the sandbox with --latency 300 (every response waits 300 ms, like a distant API), then in one run:
#   1. each provider's first example alone (live code path, against the sandbox), RUNS times;
#   2. `aggregate compare --all` (the same invocations, concurrently), RUNS times.
# Prints the median wall time of each and the ratio compare / slowest single provider. Target: <= 1.2.
# Every run passes --no-cache: repeated runs would otherwise be answered by the disk cache (Benchmarks/cache.sh).
#
# Usage: Benchmarks/compare-fanout.sh [RUNS]    (default 5; builds release first)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"

trap 'stop_latency_sandbox' EXIT
source Benchmarks/latency-sandbox.sh 300

now_ms() { date +%s%3N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
time_ms() {
    local start end
    start=$(now_ms)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    end=$(now_ms)
    echo $((end - start))
}

mapfile -t examples < <("$bin" providers --format json | python3 -c '
import json, shlex, sys
for provider in json.load(sys.stdin):
    print(shlex.join(provider["examples"][0]["arguments"]))')

echo "machine: $(nproc) cores, $(uname -sm); sandbox latency 300 ms per response; $runs runs each (median)"
slowest=0
slowest_name=""
for example in "${examples[@]}"; do
    eval "args=($example)"
    times=$(for _ in $(seq "$runs"); do time_ms "$bin" "${args[@]}" --quiet --format json --no-cache; done | median)
    printf '  %-60s %6d ms\n' "aggregate $example" "$times"
    if [ "$times" -gt "$slowest" ]; then slowest=$times; slowest_name=$example; fi
done
compare=$(for _ in $(seq "$runs"); do time_ms "$bin" compare --all --quiet --format json --no-cache; done | median)
printf '  %-60s %6d ms\n' "aggregate compare --all (${#examples[@]} providers)" "$compare"
ratio=$(python3 -c "print(f'{$compare / $slowest:.2f}')")
echo "slowest single provider: $slowest_name ($slowest ms)"
echo "ratio compare / slowest single: $ratio (target <= 1.2)"
