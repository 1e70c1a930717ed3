#!/usr/bin/env bash
# `aggregate sql` against the provider command it wraps, and the --to export's speed.
# 1. `sql "SELECT * FROM tmdb_popular LIMIT 40" --offline --format json` against
#    `tmdb popular --limit 40 --offline --format json`: the same fetch (two pages, in-process) with SQLite between
#    the items and the output. Target: ratio <= 1.1.
# 2. A 10,000-row `--to` export (a generated run-time definition answering 10,000 records offline) against the
#    same run without --to; prints rows per second of the whole run and of the export alone (the difference of the
#    fastest runs).
#
# Usage: Benchmarks/sql.sh [RUNS]     (default 5; BENCH_DIR keeps the generated definition)
source "$(dirname "$0")/setup.sh"
runs="${1:-5}"
rows=10000
definition="$work/sql-rows-$rows"
[ -s "$definition/provider.json" ] || python3 Benchmarks/generators/sql_rows.py "$rows" "$definition"
export XDG_CACHE_HOME="$work/sql-cache" XDG_DATA_HOME="$work/sql-data"
machine
python3 Benchmarks/measure.py --runs "$runs" \
    --ratio "aggregate sql SELECT * FROM tmdb_popular LIMIT 40/aggregate tmdb popular --limit 40" \
    "aggregate tmdb popular --limit 40|$bin tmdb popular --limit 40 --offline --format json --quiet" \
    "aggregate sql SELECT * FROM tmdb_popular LIMIT 40|$bin sql 'SELECT * FROM tmdb_popular LIMIT 40' --offline --format json --quiet"

database="$work/sql-export.sqlite"
table="$(python3 Benchmarks/measure.py --runs "$runs" \
    "benchrows list --limit $rows|$bin --provider-file $definition/provider.json benchrows list --limit $rows --offline --format json --quiet" \
    "benchrows list --limit $rows --to FILE|bash -c 'rm -f $database; exec $bin --provider-file $definition/provider.json benchrows list --limit $rows --offline --format json --quiet --to $database'")"
echo "$table"
stored="$(sqlite3 "$database" 'SELECT count(*) FROM benchrows_list')"
echo "rows in $database: $stored"
echo "$table" | python3 -c '
import re, sys
rows = int(sys.argv[1])
fastest = []
for line in sys.stdin:
    match = re.match(r"\| .*? \| [\d.]+ (?:ms|s) \| ([\d.]+) (ms|s) \|", line)
    if match:
        fastest.append(float(match.group(1)) / (1000 if match.group(2) == "ms" else 1))
plain, export = fastest
# The fastest runs, which noise from other work on the machine inflates least.
print("whole run with --to: %.0f rows/s" % (rows / export))
if export > plain:
    print("the export alone (fastest with --to minus fastest without): %.0f ms for %d rows: %.0f rows/s" % ((export - plain) * 1000, rows, rows / (export - plain)))
else:
    print("the export alone: lost in the noise of this run (the fastest run with --to was not slower); run again")
' "$stored"
