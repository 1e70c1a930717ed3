#!/usr/bin/env bash
# JSON speed and memory of `aggregate browse` and `aggregate normalize` against jq, Python's json and orjson, on
# deterministic TMDb-like search pages (one `results` array of movies) of 50 MB and 200 MB.
#
# Prints, per size, each command's median wall time, MB/s and peak RSS, then the ratios the targets are stated in:
#   browse (outline) / jq -c keys <= 0.5; browse --paths / jq -c paths <= 0.5; parse >= 150 MB/s;
#   200 MB --paths <= 64 MB RSS.
#
# Usage: Benchmarks/json.sh [SIZES_MB...]    (default: 50 200; RUNS=3; BENCH_DIR keeps the generated inputs)
source "$(dirname "$0")/setup.sh"
runs="${RUNS:-3}"
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(50 200)
machine

for size in "${sizes[@]}"; do
    file="$work/tmdb-$size.json"
    [ -s "$file" ] || python3 Benchmarks/generators/tmdb_page.py "$size" "$file"
    bytes=$(stat -c %s "$file")
    echo
    echo "### ${size} MB TMDb-like page ($bytes bytes)"
    orjson=()
    if "$venv/bin/python" -c "import orjson" >/dev/null 2>&1; then
        orjson=("orjson.loads|$venv/bin/python -c 'import orjson,sys; orjson.loads(open(sys.argv[1], \"rb\").read())' $file")
    fi
    python3 Benchmarks/measure.py --runs "$runs" --bytes "$bytes" \
        --ratio "aggregate browse (outline)/jq -c keys" \
        --ratio "aggregate browse --paths/jq -c paths" \
        --ratio "aggregate browse --path results[1000]/jq -c .results[1000]" \
        --ratio "aggregate normalize tmdb/python3 json.load" \
        "aggregate browse (outline)|$bin browse $file" \
        "jq -c keys|jq -c keys $file" \
        "aggregate browse --paths|$bin browse $file --paths" \
        "jq -c paths|jq -c paths $file" \
        "aggregate browse --path results[1000]|$bin browse $file --path 'results[1000]' --depth 1" \
        "jq -c .results[1000]|jq -c '.results[1000]' $file" \
        "aggregate tree parse (browse - , whole document in memory)|$bin browse - --max-size 4G < $file" \
        "aggregate normalize tmdb|$bin normalize tmdb search $file --format ndjson" \
        "python3 json.load|python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $file" \
        "python3 -m json.tool|python3 -m json.tool $file" \
        "${orjson[@]}"
done
