#!/usr/bin/env bash
# `aggregate twitter archive` on a generated X archive of about SIZE MB (default 500) in today's layout
# (data/tweets.js and tweets-partN.js parts of ~100 MB, pretty-printed, ids and counts as strings).
# Prints wall time, MB/s and peak RSS for NDJSON (streamed), NDJSON with --limit 100, and CSV of one part with
# --limit, against reading the same bytes with cat and parsing them with python3's json.
# Target: <= 64 MB RSS for NDJSON at disk-ish speed.
#
# Usage: Benchmarks/archive.sh [SIZE_MB]     (RUNS=1 by default; BENCH_DIR keeps the generated archive)
source "$(dirname "$0")/setup.sh"
size="${1:-500}"
runs="${RUNS:-1}"
archive="$work/archive-$size"
[ -s "$archive/data/tweets.js" ] || python3 Benchmarks/generators/twitter_archive.py "$size" "$archive"
bytes=$(du -cb "$archive"/data/tweets*.js | tail -1 | cut -f1)
machine
echo "archive: $archive ($bytes bytes of tweets in $(ls "$archive"/data/tweets*.js | wc -l) files)"
python3 Benchmarks/measure.py --runs "$runs" --bytes "$bytes" \
    --ratio "aggregate twitter archive --format ndjson/cat (read only)" \
    "cat (read only)|cat $archive/data/tweets*.js > /dev/null" \
    "aggregate twitter archive --format ndjson|$bin twitter archive $archive --format ndjson" \
    "aggregate twitter archive --limit 100 --format ndjson|$bin twitter archive $archive --limit 100 --format ndjson" \
    "python3 json.loads of each part|python3 -c 'import json,sys; [json.loads(open(f).read().split(\"=\", 1)[1]) for f in sys.argv[1:]]' $archive/data/tweets*.js"
