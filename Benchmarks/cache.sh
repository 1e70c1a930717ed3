#!/usr/bin/env bash
# What the disk cache saves: the same `aggregate compare` of four providers against `aggregate sandbox --latency 200`
# (every response waits 200 ms, like a distant API), in three states of the cache:
#   cold         the cache emptied before each run: every answer comes from the sandbox;
#   warm         right after a cold run, within every provider's TTL: every answer comes fresh from the cache;
#   stale        --cache-ttl 0 makes every stored answer stale: each is revalidated and confirmed with 304.
# Prints the median wall time, the requests sent and the bytes received (from the JSON meta) of each, and their
# ratios to the cold run. Goal: warm >= 20x faster than cold, with 0 requests.
#
# The four: TMDb search, Kiva REST v1, X v2 and the message board, the providers whose reads are GETs. Meetup is
# left out: GraphQL reads are POSTs (never cached) and API v2 repeats the key in its answers (never stored).
#
# Usage: Benchmarks/cache.sh [RUNS]    (default 5)
#
# Measured with both builds, in the same run against the same sandbox: the release binary users install
# (scripts/build-release.sh: static Swift runtime) and the plain
# `swift build -c release` one. The goal is judged on the release binary; a warm run costs little more than
# starting the process, so the plain build's slower start-up (dynamic Swift libraries) shows in its ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"

export XDG_CACHE_HOME="$(mktemp -d)"
export XDG_CONFIG_HOME="$(mktemp -d)"
trap 'stop_latency_sandbox; rm -rf "$XDG_CACHE_HOME" "$XDG_CONFIG_HOME"' EXIT
source Benchmarks/latency-sandbox.sh 200
scripts/build-release.sh >/dev/null
builds=("release:.build/aggregate-static" "plain:$bin")

# Microseconds from bash's own clock: forking `date` around a 20 ms run would add its own start-up to the figure.
now_us() { now=${EPOCHREALTIME/[.,]/}; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
out="$(mktemp)"
# One run of the compare with binary $1: prints "<wall ms> <requests> <bytes> <sources>", the last three summed
# over the four results.
measure() {
    local binary="$1" start end
    shift
    local compare=("$binary" compare 'tmdb search batman' 'kiva newest --api rest --limit 8' 'twitter orbitalnotes --limit 5'
        'messageboard list' --format json --quiet "$@")
    now_us; start=$now
    "${compare[@]}" >"$out" 2>/dev/null || { echo "failed: ${compare[*]}" >&2; exit 1; }
    now_us; end=$now
    python3 -c '
import json, sys
results = json.load(open(sys.argv[1]))["results"]
sources = ",".join(sorted({r["meta"]["source"] for r in results}))
print(f"{int(sys.argv[2]) / 1000:.1f}", sum(r["meta"]["requests"] for r in results), sum(r["meta"]["bytes"] for r in results), sources)' "$out" $((end - start))
}

echo "machine: $(nproc) cores, $(uname -sm), load average $(cut -d' ' -f1-3 /proc/loadavg); sandbox latency 200 ms; $runs runs each (median)"
for build in "${builds[@]}"; do
    name="${build%%:*}"
    binary="${build#*:}"
    declare -A wall=() requests=() bytes=() sources=()
    for mode in cold warm stale; do
        rows=()
        for _ in $(seq "$runs"); do
            case $mode in
                cold) "$binary" cache clear >/dev/null; rows+=("$(measure "$binary")") ;;
                warm) rows+=("$(measure "$binary")") ;;
                stale) rows+=("$(measure "$binary" --cache-ttl 0)") ;;
            esac
        done
        wall[$mode]=$(printf '%s\n' "${rows[@]}" | cut -d' ' -f1 | median)
        requests[$mode]=$(printf '%s\n' "${rows[@]}" | cut -d' ' -f2 | median)
        bytes[$mode]=$(printf '%s\n' "${rows[@]}" | cut -d' ' -f3 | median)
        sources[$mode]=$(printf '%s\n' "${rows[@]}" | cut -d' ' -f4 | sort -u | paste -sd';')
        # Leave the cache warm and fresh for the next mode.
        [ "$mode" = cold ] && measure "$binary" >/dev/null
    done
    echo
    echo "$name build ($binary)"
    printf '  %-7s %10s %10s %10s   %-12s %s\n' state "wall" requests bytes source "vs cold (time, requests, bytes)"
    for mode in cold warm stale; do
        ratios=$(python3 -c "
c, r, b = ${wall[cold]}, ${requests[cold]}, ${bytes[cold]}
w, q, y = ${wall[$mode]}, ${requests[$mode]}, ${bytes[$mode]}
print(f'{c / w:.1f}x faster, {q}/{r} requests, {y}/{b} bytes')")
        printf '  %-7s %7.1f ms %10d %10d   %-12s %s\n' "$mode" "${wall[$mode]}" "${requests[$mode]}" "${bytes[$mode]}" "${sources[$mode]}" "$ratios"
    done
    # What no cache can save: starting the process. A warm run cannot be faster than this floor.
    floor=$(for _ in $(seq "$runs"); do now_us; start=$now; "$binary" --version >/dev/null; now_us; python3 -c "print(f'{($now - $start) / 1000:.1f}')"; done | median)
    echo "  process start-up alone (aggregate --version): $floor ms"
    speedup=$(python3 -c "print(f'{${wall[cold]} / ${wall[warm]}:.1f}')")
    met=$(python3 -c "print('met' if ${wall[cold]} / ${wall[warm]} >= 20 and ${requests[warm]} == 0 else 'NOT met')")
    if [ "$name" = release ]; then
        echo "  warm / cold: ${speedup}x faster with ${requests[warm]} requests (goal: >= 20x with 0 requests: $met)"
    else
        echo "  warm / cold: ${speedup}x faster with ${requests[warm]} requests (for comparison; the goal is judged on the release build)"
    fi
    unset wall requests bytes sources
done
rm -f "$out"
