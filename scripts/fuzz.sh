#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses in Fuzz/ (see Fuzz/README.md).
#
# Usage: scripts/fuzz.sh [TARGET|all] [SECONDS]     (default: all targets, 60 s each)
# Targets: json json-scan json-quote jsonpath fault-spec request-reader cli-args normalizers ratelimit-headers redactor sandbox-routes config-edit yaml
#
# Each harness is compiled with `swiftc -sanitize=fuzzer` together with the sources it exercises (one module, the
# package's own `import Aggregate...` lines dropped), then run for SECONDS from its seed corpus. A crash stops the
# run with exit 1 and prints where libFuzzer saved the crashing input (.build/fuzz/<target>/crashes/).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-all}"
seconds="${2:-60}"
all_targets=(json json-scan json-quote jsonpath fault-spec request-reader cli-args normalizers ratelimit-headers redactor sandbox-routes config-edit yaml)

# Swift's crash handler can hang under the fuzzer; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no

sources_for() {
    # Every library module below the umbrellas (docs/architecture.md), compiled together as one module.
    local core=($(find Sources/AggregateText Sources/AggregateJSON Sources/AggregateCore Sources/AggregateHTTP \
        Sources/AggregateRendering Sources/AggregateDefinitions Sources/AggregateSandboxKit -name '*.swift' | sort))
    case "$1" in
        json|json-scan|json-quote|jsonpath|redactor) echo "${core[@]}" ;;
        # The YAML reader on the JSON modules it builds on.
        yaml) echo $(find Sources/AggregateText Sources/AggregateJSON Sources/AggregateYAML -name '*.swift' | sort) ;;
        # The server without the emulators' list (their targets are not part of these harnesses).
        fault-spec|request-reader) echo "${core[@]}" Sources/AggregateSockets/*.swift Sources/AggregateHTTPServer/*.swift \
            $(ls Sources/AggregateSandbox/*.swift | grep -v AllSandboxes.swift) ;;
        cli-args|ratelimit-headers) echo "${core[@]}" ;;
        normalizers) echo "${core[@]}" Providers/*/*.swift Sources/AggregateProviders/*.swift ;;
        # Every emulator (with its generated sample data), the definitions' generic emulator and their embedded samples.
        sandbox-routes) echo "${core[@]}" Providers/*/*.swift $(find Providers/*/Sandbox Sources/AggregateProviders \
            Sources/AggregateSockets Sources/AggregateHTTPServer Sources/AggregateSandbox -name '*.swift' | sort) ;;
        # The executable's config file and editing, with the providers its checks name (and the stores --store opens).
        config-edit) echo "${core[@]}" Providers/*/*.swift Sources/AggregateProviders/*.swift Sources/AggregateSockets/*.swift \
            Sources/AggregateRedis/*.swift Sources/aggregate/{ConfigFile,ConfigEditing,CommonOptions,CacheChoice,ColorChoice,RunTools,EffectiveSettings,Terminal,StandardStreams}.swift ;;
        *) echo "unknown fuzz target '$1'; targets: ${all_targets[*]}" >&2; exit 64 ;;
    esac
}

build() {
    local name="$1" dir=".build/fuzz/$1"
    local source_dir="$dir/src"
    rm -rf "$source_dir"
    mkdir -p "$source_dir"
    local file index=0
    for file in $(sources_for "$name"); do
        index=$((index + 1))
        # One module: the package's own module imports are dropped (`public import` becomes internal visibility).
        sed -E '/^(public |package |internal |@testable )?import (Aggregate[A-Za-z]+|[A-Za-z]+Provider|[A-Za-z]+Sandbox)$/d' \
            "$file" > "$source_dir/$index-$(basename "$file")"
    done
    cp "Fuzz/$name/harness.swift" "$source_dir/harness.swift"
    echo "== building fuzz target $name"
    swiftc -sanitize=fuzzer -parse-as-library -O -swift-version 6 -suppress-warnings -package-name aggregate \
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
        -enable-upcoming-feature MemberImportVisibility \
        -module-name "Fuzz$(echo "$name" | tr -d '-')" "$source_dir"/*.swift -o "$dir/fuzzer"
}

seed() {
    local name="$1" corpus=".build/fuzz/$1/corpus"
    mkdir -p "$corpus"
    cp "Fuzz/$name/corpus/"* "$corpus/"
    if [ "$name" = normalizers ]; then
        # Our own recorded fixtures, each behind a status byte of 0 (HTTP 200).
        local fixture
        for fixture in $(find Tests/AggregateProvidersTests/Fixtures -name '*.json' -size -24k | sort); do
            { printf '\000'; cat "$fixture"; } > "$corpus/fixture-$(echo "$fixture" | tr '/' '_')"
        done
    fi
}

run() {
    local name="$1" dir=".build/fuzz/$1"
    mkdir -p "$dir/crashes"
    seed "$name"
    echo "== fuzzing $name for $seconds s"
    local log="$dir/fuzz.log"
    if ! "$dir/fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/crashes/" "$dir/corpus" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        local artifact
        artifact="$(ls -t "$dir/crashes/" 2>/dev/null | head -1)"
        echo "FAIL: fuzz target $name crashed; the input is saved in $dir/crashes/$artifact" >&2
        return 1
    fi
    grep -E "^(Done|stat::number_of_executed_units)" "$log" | tail -1
}

targets=("$target")
if [ "$target" = all ]; then targets=("${all_targets[@]}"); fi
status=0
for name in "${targets[@]}"; do
    sources_for "$name" >/dev/null
    build "$name"
    run "$name" || status=1
done
exit $status
