#!/usr/bin/env bash
# The JSON rows of issue #24 in one run, on the same generated files: outline (`browse FILE`), `--path` and
# `--paths` of a TMDb-like page, a deeply nested document and a string-heavy one (SIZE MB each, default 200), and
# `twitter archive` to NDJSON of a SIZE MB archive. Prints each command's median time, MB/s and peak RSS, then the
# ratios: `--paths` against the outline over the same bytes and against `jq -c paths`, and, with BASE_BIN set to
# another build of aggregate (e.g. main's), every figure before/after.
#
# Baselines: jq, and a full simdjson On-Demand walk when the Debian package libsimdjson-dev is installed (compiled
# here with g++). This script installs nothing; it needs jq and GNU time (/usr/bin/time), and .ci/run does not
# run it. Speed goals are judged from its figures, never by timed tests.
#
# Then the networking rows: start-up (`--version`, `tmdb popular --offline --limit 1`) of the static build
# (STATIC_BIN, default .build/aggregate-static from scripts/build-release.sh; skipped when missing) and of the plain
# release build, each as a ratio to `jq --version` (hyperfine -N; skipped without hyperfine); and 1, 8 and 32 MiB
# TMDb-like bodies fetched over loopback from a local Python server by `browse URL` and by a provider run (a small
# definition, `--limit 1`), against Python `urllib` and `browse FILE` on the same bytes. BASE_BIN and
# BASE_STATIC_BIN add the same rows for another build (main's). SECTIONS=net runs only these rows, SECTIONS=json
# only the JSON ones.
#
# Usage: [BIN=/path/to/plain/release/aggregate] [BASE_BIN=/path/to/old/aggregate] [BASE_STATIC_BIN=...] [STATIC_BIN=...] [SECTIONS=json,net] [RUNS=3]
#        [STARTUP_RUNS=50] [JQ_SECONDS=120] [BENCH_DIR=...] Benchmarks/speed.sh [SIZE_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:-200}"
runs="${RUNS:-3}"
work="${BENCH_DIR:-${TMPDIR:-/tmp}/aggregate-bench}"
mkdir -p "$work"
for tool in jq /usr/bin/time python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "speed.sh: $tool is needed (this script installs nothing)" >&2; exit 69; }
done
if [ -n "${BIN:-}" ]; then
    bin="$BIN"  # an already built plain release binary (release builds take many minutes on a small machine)
else
    swift build -c release --product aggregate >/dev/null
    bin="$(swift build -c release --show-bin-path)/aggregate"
fi
base="${BASE_BIN:-}"
if [ -n "$base" ] && [ ! -x "$base" ]; then echo "speed.sh: BASE_BIN $base is not an executable" >&2; exit 66; fi

walker=""
if [ -f /usr/include/simdjson.h ] && command -v g++ >/dev/null 2>&1; then
    walker="$work/simdjson-walk"
    if [ ! -x "$walker" ]; then
        cat > "$work/simdjson-walk.cpp" <<'CPP'
// A full On-Demand walk: every value visited, strings unescaped, numbers read as text. Exit 1 on an error.
#include <simdjson.h>
#include <cstdio>
using namespace simdjson;
static size_t visit(ondemand::value value) {
    switch (value.type()) {
    case ondemand::json_type::object: { size_t n = 0; for (auto field : value.get_object()) { n += field.unescaped_key().value().size(); n += visit(field.value()); } return n + 1; }
    case ondemand::json_type::array: { size_t n = 0; for (auto element : value.get_array()) n += visit(element.value()); return n + 1; }
    case ondemand::json_type::string: return std::string_view(value.get_string()).size();
    case ondemand::json_type::number: return value.raw_json_token().size();
    case ondemand::json_type::boolean: return value.get_bool() ? 1 : 0;
    default: return value.is_null() ? 0 : 1;
    }
}
int main(int argc, char **argv) {
    try {
        ondemand::parser parser;
        padded_string json = padded_string::load(argv[1]);
        ondemand::document document = parser.iterate(json);
        std::printf("%zu\n", visit(document.get_value()));
    } catch (simdjson_error &error) { std::fprintf(stderr, "%s\n", error.what()); return 1; }
}
CPP
        g++ -O3 -std=c++17 "$work/simdjson-walk.cpp" -lsimdjson -o "$walker" || walker=""
    fi
fi

echo "machine: $(nproc) cores, $(uname -sm), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tools: $(swift --version 2>&1 | head -1 | sed 's/ (.*//'), $(jq --version)${walker:+, simdjson $(dpkg-query -W -f '${Version}' libsimdjson-dev 2>/dev/null)}"
echo "after: $bin${base:+; before: $base}; $runs run(s) each, median"

# measure LABEL-PREFIX FILE PATH: one table for a file, every command of this build (and of BASE_BIN).
measure() {
    local name="$1" file="$2" path="$3" bytes entries=() ratios=()
    bytes=$(stat -c %s "$file")
    echo
    echo "### $name ($bytes bytes)"
    for build in after before; do
        local exe="$bin"
        if [ "$build" = before ]; then [ -n "$base" ] || continue; exe="$base"; fi
        entries+=("$build outline|$exe browse $file"
                  "$build --path|$exe browse $file --path '$path' --depth 1"
                  "$build --paths|$exe browse $file --paths")
        ratios+=("$build --paths/$build outline" "jq -c paths/$build --paths")
    done
    # jq holds the whole document and every path: on the deep file it needs gigabytes and minutes, so it is cut off
    # after JQ_SECONDS (exit 124 in the table; its time is then a lower bound).
    entries+=("jq -c paths|timeout ${JQ_SECONDS:-120} jq -c paths $file")
    [ -n "$walker" ] && entries+=("simdjson walk|$walker $file") && ratios+=("simdjson walk/after outline")
    if [ -n "$base" ]; then ratios+=("before outline/after outline" "before --path/after --path" "before --paths/after --paths"); fi
    local flags=()
    for ratio in "${ratios[@]}"; do flags+=(--ratio "$ratio"); done
    python3 Benchmarks/measure.py --runs "$runs" --bytes "$bytes" "${flags[@]}" "${entries[@]}"
}

sections="${SECTIONS:-json,net}"
if [[ ",$sections," == *,json,* ]]; then
tmdb="$work/tmdb-$size.json"
[ -s "$tmdb" ] || python3 Benchmarks/generators/tmdb_page.py "$size" "$tmdb"
deep="$work/deep-$size.json"
[ -s "$deep" ] || python3 Benchmarks/generators/json_shapes.py deep "$size" "$deep"
strings="$work/strings-$size.json"
[ -s "$strings" ] || python3 Benchmarks/generators/json_shapes.py strings "$size" "$strings"
measure "TMDb-like page, $size MB" "$tmdb" 'results[1000]'
measure "deeply nested, $size MB" "$deep" '[1000]'
measure "string-heavy, $size MB" "$strings" '[1000]'

archive="$work/archive-$size"
[ -s "$archive/data/tweets.js" ] || python3 Benchmarks/generators/twitter_archive.py "$size" "$archive"
bytes=$(du -cb "$archive"/data/tweets*.js | tail -1 | cut -f1)
echo
echo "### twitter archive, $size MB ($bytes bytes of tweets)"
entries=("after twitter archive --format ndjson|$bin twitter archive $archive --format ndjson" "cat (read only)|cat $archive/data/tweets*.js")
flags=(--ratio "after twitter archive --format ndjson/cat (read only)")
if [ -n "$base" ]; then
    entries+=("before twitter archive --format ndjson|$base twitter archive $archive --format ndjson")
    flags+=(--ratio "before twitter archive --format ndjson/after twitter archive --format ndjson")
fi
python3 Benchmarks/measure.py --runs "$runs" --bytes "$bytes" "${flags[@]}" "${entries[@]}"
fi

if [[ ",$sections," == *,net,* ]]; then
source Benchmarks/speed-net.sh
fi
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
