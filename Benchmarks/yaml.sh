#!/usr/bin/env bash
# YAML reading speed of AggregateYAML (release, -O) against PyYAML (its C loader when libyaml is there, else the pure
# Python one) on a document made of the Spotify OpenAPI document repeated to SIZE MB.
#
# Prints, per size, each reader's median wall time and MB/s, and the ratio the target is stated in:
#   AggregateYAML / PyYAML <= 0.5, and a 20 MB document in under 2 s.
#
# Usage: Benchmarks/yaml.sh [SIZES_MB...]    (default: 20; RUNS=3; BENCH_DIR keeps the generated inputs)
source "$(dirname "$0")/setup.sh"
runs="${RUNS:-3}"
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(20)
machine

shared="${AGGREGATE_SHARED_SPECS:-../shared/api/specs/openapi}"
[ -d "$shared" ] || shared="$(cd .. && cd .. && pwd)/shared/api/specs/openapi"
source_doc="$shared/spotify.com-official-spotify-open-api.yml"
[ -f "$source_doc" ] || { echo "no $source_doc (set AGGREGATE_SHARED_SPECS)" >&2; exit 66; }

# One module of the reader's sources and a main that reads the file given (as scripts/fuzz.sh builds harnesses).
reader_dir="$work/yaml-reader"
mkdir -p "$reader_dir/src"
rm -f "$reader_dir/src/"*.swift
index=0
for file in $(find Sources/AggregateText Sources/AggregateJSON Sources/AggregateYAML -name '*.swift' | sort); do
    index=$((index + 1))
    sed -E '/^(public |internal )?import Aggregate[A-Za-z]+$/d' "$file" > "$reader_dir/src/$index-$(basename "$file")"
done
cat > "$reader_dir/src/main.swift" <<'SWIFT'
import Foundation
let data = FileManager.default.contents(atPath: CommandLine.arguments[1]) ?? Data()
do {
    let value = try YAMLParser.parse(data)
    if case .object(let object) = value { print(object.count) }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(65)
}
SWIFT
swiftc -O -swift-version 6 -suppress-warnings -enable-upcoming-feature ExistentialAny \
    -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature MemberImportVisibility \
    -module-name YAMLBench "$reader_dir/src/"*.swift -o "$reader_dir/read-yaml"

"$venv/bin/python" -c "import yaml" >/dev/null 2>&1 || "$venv/bin/pip" install --quiet --disable-pip-version-check pyyaml
loader="yaml.CSafeLoader if hasattr(yaml, 'CSafeLoader') else yaml.SafeLoader"
for size in "${sizes[@]}"; do
    file="$work/openapi-$size.yml"
    [ -s "$file" ] || python3 Benchmarks/generators/yaml_document.py "$source_doc" "$size" "$file"
    bytes=$(stat -c %s "$file")
    echo
    echo "### ${size} MB of repeated OpenAPI document ($bytes bytes)"
    python3 Benchmarks/measure.py --runs "$runs" --bytes "$bytes" \
        --ratio "AggregateYAML (release)/PyYAML" \
        "AggregateYAML (release)|$reader_dir/read-yaml $file" \
        "PyYAML|$venv/bin/python -c 'import sys, yaml; yaml.load(open(sys.argv[1]), Loader=$loader)' $file"
done
