#!/usr/bin/env bash
# Output snapshot: proves that a refactor keeps every output of the `aggregate` command line byte-identical.
#
#   scripts/output-snapshot.sh BINARY OUTDIR            run BINARY over a fixed list of commands into OUTDIR
#   scripts/output-snapshot.sh --compare OLDDIR NEWDIR  summarize what differs between two snapshots (exit 1 if any)
#
# Take one snapshot with the binary built before the refactor and one with the binary built after it, then compare:
#
#   scripts/output-snapshot.sh /tmp/before/aggregate /tmp/snap-before
#   SNAPSHOT_INPUTS=/tmp/snap-before/inputs scripts/output-snapshot.sh .build/debug/aggregate /tmp/snap-after
#   scripts/output-snapshot.sh --compare /tmp/snap-before /tmp/snap-after     # or: diff -r /tmp/snap-before /tmp/snap-after
#
# What a snapshot holds:
#   OUTDIR/index.txt                    one line per command: its number, a tab, the command line as run
#   OUTDIR/runs/NNN-<slug>.stdout       what the command printed on standard output   (masked, see below)
#   OUTDIR/runs/NNN-<slug>.stderr       what it printed on standard error             (masked, see below)
#   OUTDIR/runs/NNN-<slug>.exit         its exit status (124: killed by the per-command timeout)
#   OUTDIR/inputs/                      the JSON files and archives the commands read (copied in, see below)
#
# Every command is one line of shell below, in which `aggregate` is the binary under test. Each runs:
#   - with exactly the fixed environment SNAP_ENV (env -i: PATH, HOME, XDG_{CONFIG,CACHE,DATA}_HOME in a fresh
#     temporary folder per command, COLUMNS=80, NO_COLOR=1, TZ=UTC, LANG=C.UTF-8, umask 022), plus what a line
#     adds explicitly with `aggregate_env NAME=VALUE... ARGS`;
#   - in its own session (setsid: no controlling terminal), stdin from /dev/null unless the line redirects it,
#     stdout and stderr to files, under a timeout;
#   - in a fresh working folder holding `in/` (the inputs), so the paths it prints are short and the same each run.
# No command reaches the network: everything is --offline, reads local files, or is refused before sending
# (missing credentials, http:// to a non-loopback host, a bad option). Never add a command that would send.
#
# Inputs: copied into OUTDIR/inputs from wherever the fixtures are in the checkout this script belongs to (they are
# found by folder name, since a layout refactor may move them). Set SNAPSHOT_INPUTS=OLDDIR/inputs to reuse the exact
# inputs of an earlier snapshot instead (recommended for the "after" run: the fixtures may have moved or changed).
#
# Masking: a sed step (mask_stream) is applied to the stdout and stderr of every command, the same on both sides.
# Only values that vary from run to run with the same binary are masked:
#   - the temporary folder of the run (HOME, XDG_*, the working folder)  -> <TMP>   (random per run)
#   - "elapsedMs" in JSON results and in compare's "comparison"          -> "<ms>"  (wall-clock time)
#   - "recordedAt", "startedAt", "durationMs" in a --record cassette     -> "<t>"   (wall-clock time)
#   - `in 30 ms` at the end of --verbose trace lines (`← HTTP 200, ...`) -> in <t>  (wall-clock time)
#   - compare's text view: the `time` row side by side, the `... · 5.4 KiB · 61 ms` status line when stacked
#     (narrow terminal); its HTML report: the time card, the time bars' width, label position and value
#                                                                        -> <t>     (wall-clock time)
#   - today's date (UTC), with any time of day after it                  -> <today> (messageboard post dates a new
#                                                                           message now, as documented)
# Everything else must be byte-identical; a run twice with the same binary must compare equal (check it).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
TIMEOUT_SECONDS="${SNAPSHOT_TIMEOUT:-60}"

usage() {
    echo "usage: $0 BINARY OUTDIR" >&2
    echo "       $0 --compare OLDDIR NEWDIR" >&2
    exit 64
}

# ---------------------------------------------------------------------------------------------------------------
# --compare OLDDIR NEWDIR
# ---------------------------------------------------------------------------------------------------------------
compare_snapshots() {
    local old="$1" new="$2"
    local dir
    for dir in "$old" "$new"; do
        [[ -f "$dir/index.txt" && -d "$dir/runs" ]] || { echo "error: $dir is not a snapshot (no index.txt or runs/)" >&2; exit 64; }
    done
    local total=0 same=0 differ=0 missing=0
    local differing=()
    local num line base what stream
    while IFS=$'\t' read -r num line; do
        total=$((total + 1))
        base="$(cd "$old/runs" && ls -- "$num"-*.exit 2>/dev/null | head -n 1)"
        base="${base%.exit}"
        if [[ -z "$base" || ! -f "$new/runs/$base.exit" ]]; then
            missing=$((missing + 1)); differ=$((differ + 1))
            differing+=("$num  [missing in $new]  $line")
            continue
        fi
        what=""
        for stream in stdout stderr exit; do
            cmp -s -- "$old/runs/$base.$stream" "$new/runs/$base.$stream" || what+="${what:+,}$stream"
        done
        if [[ -z "$what" ]]; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            differing+=("$num  [$what]  $line")
        fi
    done < "$old/index.txt"

    local new_total
    new_total="$(wc -l < "$new/index.txt" | tr -d ' ')"
    echo "commands:  $total in $old, $new_total in $new"
    echo "identical: $same"
    echo "differ:    $differ"
    if ! cmp -s "$old/index.txt" "$new/index.txt"; then
        echo "note: the command lists differ (index.txt); compare snapshots taken with the same script"
        differ=$((differ + 1))
    fi
    if [[ -d "$old/inputs" && -d "$new/inputs" ]] && ! diff -rq "$old/inputs" "$new/inputs" > /dev/null; then
        echo "note: the inputs differ (diff -r $old/inputs $new/inputs); rerun with SNAPSHOT_INPUTS=$old/inputs"
        differ=$((differ + 1))
    fi
    local entry
    for entry in "${differing[@]+"${differing[@]}"}"; do
        echo "  $entry"
    done
    [[ "$differ" -eq 0 ]]
}

if [[ "${1:-}" == "--compare" ]]; then
    [[ $# -eq 3 ]] || usage
    if compare_snapshots "$2" "$3"; then exit 0; else exit 1; fi
fi
[[ $# -eq 2 ]] || usage

BINARY="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
OUT="$2"
[[ -x "$BINARY" && -f "$BINARY" ]] || { echo "error: $1 is not an executable file" >&2; exit 64; }
if [[ -e "$OUT" ]] && [[ -n "$(ls -A "$OUT" 2>/dev/null)" ]]; then
    echo "error: $OUT exists and is not empty; give a new folder" >&2
    exit 64
fi
mkdir -p "$OUT/runs" "$OUT/inputs"
OUT="$(cd "$OUT" && pwd)"

# A fixed-length name, so that paths printed inside wrapped text wrap the same way in every run.
WORK="$(mktemp -d /tmp/aggsnap.XXXXXXXX)"
trap 'rm -rf "$WORK"' EXIT
RUN="$WORK/run"

SETSID="$(command -v setsid)"
TIMEOUT="$(command -v timeout)"
BASH_BIN="$(command -v bash)"
FIXED_PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# ---------------------------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------------------------
# The one folder of the checkout whose path ends in SUFFIX (e.g. Fixtures/browse), wherever a refactor put it.
find_dir() {
    local suffix="$1" found
    found="$(cd "$REPO_ROOT" && find . -path ./.build -prune -o -type d -path "*/$suffix" -print 2>/dev/null | LC_ALL=C sort | head -n 1)"
    [[ -n "$found" ]] || { echo "error: no folder */$suffix in $REPO_ROOT; set SNAPSHOT_INPUTS=OLDDIR/inputs" >&2; exit 1; }
    echo "$REPO_ROOT/${found#./}"
}

stage_inputs() {
    local in="$1" name
    mkdir -p "$in/fixtures" "$in/samples" "$in/made"
    cp -R "$(find_dir Fixtures/browse)" "$in/browse"
    for name in tmdb kiva meetup twitter; do
        cp -R "$(find_dir "Fixtures/$name")" "$in/fixtures/$name"
    done
    cp -R "$(find_dir Fixtures/twitter_archive)" "$in/archive"
    cp -R "$(find_dir Fixtures/Definitions)" "$in/definitions"
    for name in Meetup Kiva TMDb Twitter MessageBoard GitHub HackerNews; do
        mkdir -p "$in/samples/${name,,}"
        cp "$(find_dir "Providers/$name/SampleData")"/*.json "$in/samples/${name,,}/"
    done
    # Small documents made here, for the edge cases of browse and normalize.
    local m="$in/made"
    printf '{"a": [1, 2,\n' > "$m/invalid.json"
    : > "$m/empty.json"
    printf '{"a": 1} trailing' > "$m/trailing.json"
    printf '\xef\xbb\xbf{"bom": true}\n' > "$m/bom.json"
    printf '{"name": "caf\xe9"}\n' > "$m/latin1.json"
    printf '\xff\xfe{\x00}\x00' > "$m/utf16.json"
    printf '"just text"\n' > "$m/scalar.json"
    printf '[]' > "$m/empty-array.json"
    printf '%0.s[' $(seq 600) > "$m/deep.json"
    printf '%s\n' '{"a.b": {"c d": [1, 2, 3]}, "byNumber": {"0": "zero", "1": "one"}, "arr": [[1], [2, {"x": null}]],' \
        ' "big": 123456789012345678901234567890, "dec": 1.50, "neg": -0.0, "exp": 1e400,' \
        ' "s": "tab\there \"quoted\" \u00e9 \ud83d\ude00 \u0000 end", "empty": {}, "none": [], "key with \"quote\"": true}' \
        > "$m/edge.json"
    printf '%s' '{"page":1,"results":[{"id":1,"title":"Broken \ud800 title","original_title":"Broken","release_date":"2020-01-01","genre_ids":[18],"overview":"x","popularity":1.5,"vote_average":5,"vote_count":1,"adult":false,"original_language":"en","poster_path":null}],"total_pages":1,"total_results":1}' \
        > "$m/tmdb-surrogate.json"
    printf '%s\n' '{"page":1,"results":[{"id":2,"title":"A"}],"total_pages":2,"total_results":2}' \
        '{"page":2,"results":[{"id":3,"title":"B"}],"total_pages":2,"total_results":2}' > "$m/tmdb-pages.ndjson"
    printf '%s\n' '{"not": "a tmdb page"}' > "$m/wrong-shape.json"
}

if [[ -n "${SNAPSHOT_INPUTS:-}" ]]; then
    [[ -d "$SNAPSHOT_INPUTS" ]] || { echo "error: SNAPSHOT_INPUTS=$SNAPSHOT_INPUTS is not a folder" >&2; exit 64; }
    cp -R "$SNAPSHOT_INPUTS/." "$OUT/inputs/"
else
    stage_inputs "$OUT/inputs"
fi
# The commands read a private copy, so nothing they do can touch the snapshot's inputs (checked at the end).
cp -R "$OUT/inputs" "$WORK/in"

# ---------------------------------------------------------------------------------------------------------------
# The commands
# ---------------------------------------------------------------------------------------------------------------
# Each provider's documented examples (`aggregate describe <provider>`), each run in every format and with --raw.
EXAMPLES="$(cat <<'EOF'
meetup groups --lat 51.509980 --lon -0.133700 --offline
meetup --lat 48.8566 --lon 2.3522 --radius 10 --limit 5 --offline
meetup groups --lat 51.5 --lon -0.12 --query photography --api graphql --offline
kiva newest --limit 8 --offline
kiva search --sector agriculture --gender female --limit 5 --offline
kiva newest --api rest --limit 5 --offline
kiva search --status paid --api rest --offline
tmdb search 'the amazing spider-man' --offline
tmdb movie 1930 --offline
tmdb popular --limit 25 --offline
tmdb search leon --year 1994 --offline
twitter orbitalnotes --limit 5 --offline
twitter timeline @matcha_mori --exclude replies,retweets --limit 6 --offline
twitter swiftbytes --api v1.1 --limit 8 --offline
messageboard list --offline
messageboard list --limit 3 --offline
github search swift --offline
github search swift --sort stars --language Swift --limit 40 --offline
hackernews search swift --offline
hackernews search swift --limit 30 --offline
EOF
)"

# Everything else, one shell line each. Helpers: `aggregate ARGS`, `aggregate_env NAME=VALUE... ARGS`,
# `files DIR` (mode, sha256 and path of every file under DIR), `make_package DIR` (a skeleton of this package
# that `new-provider --dir` accepts). $XDG_CONFIG_HOME etc. are the command's own fresh folders.
COMMANDS="$(cat <<'EOF'
# --- help, version, providers, describe, completions
aggregate
aggregate --help
aggregate -h
aggregate help
aggregate --version
aggregate providers
aggregate providers --format json
aggregate providers --format xml
aggregate help providers
aggregate help describe
aggregate help compare
aggregate help browse
aggregate help sandbox
aggregate help config
aggregate help auth
aggregate help completions
aggregate help normalize
aggregate help cache
aggregate help new-provider
aggregate help help
aggregate help nosuch
aggregate compare --help
aggregate new-provider --help
aggregate help meetup
aggregate help kiva
aggregate help tmdb
aggregate help twitter
aggregate help messageboard
aggregate help github
aggregate help hackernews
aggregate tmdb --help
aggregate github --help
aggregate kiva search --help
aggregate tmdb movie --help
aggregate messageboard post --help
aggregate twitter archive --help
aggregate describe meetup
aggregate describe kiva
aggregate describe tmdb
aggregate describe twitter
aggregate describe messageboard
aggregate describe github
aggregate describe hackernews
aggregate describe kiva --format json
aggregate describe tmdb --format json
aggregate describe github --format json
aggregate describe
aggregate describe nosuch
aggregate completions bash
aggregate completions zsh
aggregate completions fish
aggregate completions tcsh
aggregate completions
aggregate_env COLUMNS=40 --help
aggregate_env COLUMNS=200 describe kiva
# --- provider runs beyond the examples: other APIs, options, limits, concurrent pages
aggregate meetup --lat 51.509980 --lon -0.133700 --api v2 --offline
aggregate meetup --lat 51.509980 --lon -0.133700 --api v2 --query python --offline
aggregate meetup --lat 51.509980 --lon -0.133700 --limit 100 --offline --format ndjson
aggregate_env MEETUP_API_KEY=k0123456789 meetup --lat 51.509980 --lon -0.133700 --offline --limit 3
aggregate kiva newest --limit 45 --offline --format json
aggregate kiva newest --limit 45 --api rest --offline --format csv
aggregate kiva search --query water --offline --format markdown
aggregate kiva search --country KE --offline --limit 5
aggregate tmdb 'the amazing spider-man' --offline --limit 1
aggregate tmdb search batman --offline
aggregate tmdb search 'LÉON' --offline
aggregate tmdb search zzzznothing --offline --format json
aggregate tmdb popular --limit 60 --offline --format ndjson
aggregate tmdb popular --offline
aggregate tmdb movie 1930 --offline --limit 3
aggregate twitter nasa --limit 5 --offline
aggregate twitter @orbitalnotes --limit 50 --offline --format csv
aggregate twitter orbitalnotes --exclude replies --offline --format ndjson
aggregate twitter swiftbytes --api v1.1 --limit 30 --offline --format json
aggregate messageboard --offline --format csv
aggregate github search 'swift stars:>100' --offline --format csv
aggregate github search swift --sort forks --order asc --limit 5 --offline
aggregate github search swift --sort updated --limit 5 --offline --format json
aggregate hackernews search swift --by-date --offline
aggregate hackernews search swift --tags story --offline --format csv
aggregate hackernews search swift --tags comment --offline --format json
aggregate hackernews search swift --limit 1000 --offline --format ndjson
# --- --verbose traces (offline; timings masked)
aggregate kiva newest --limit 2 --offline --verbose
aggregate tmdb search batman --offline --verbose --format json
aggregate github search swift --limit 3 --offline --verbose
aggregate twitter orbitalnotes --limit 2 --offline --verbose
# --- --fields and --sort
aggregate tmdb popular --offline --fields title,createdAt,metrics.voteAverage --sort -metrics.voteAverage
aggregate tmdb popular --offline --fields title,createdAt,metrics.voteAverage --sort -metrics.voteAverage --format json
aggregate tmdb popular --offline --fields title,createdAt,metrics.voteAverage --sort -metrics.voteAverage --format ndjson
aggregate tmdb popular --offline --fields title,createdAt,metrics.voteAverage --sort -metrics.voteAverage --format csv
aggregate tmdb popular --offline --fields title,createdAt,metrics.voteAverage --sort -metrics.voteAverage --format markdown
aggregate tmdb popular --offline --limit 25 --sort metrics.popularity --format ndjson
aggregate tmdb movie 1930 --offline --fields title,extra.directors,extra.cast --format json
aggregate tmdb search batman --offline --fields provider,kind,id,url,imageUrl --format csv
aggregate tmdb search batman --offline --fields title,title --format csv
aggregate tmdb search batman --offline --sort -metrics.nosuch
aggregate tmdb search batman --offline --fields nosuch
aggregate tmdb search batman --offline --sort nosuch
aggregate tmdb search batman --offline --fields ''
aggregate tmdb search batman --offline --fields title, --format csv
aggregate github search swift --offline --fields title,metrics.stars,extra.language --sort -metrics.stars
aggregate github search swift --offline --fields title,url,tags --format csv --limit 10
aggregate github search swift --offline --sort -createdAt --limit 10 --format markdown
aggregate hackernews search swift --offline --sort -createdAt --fields title,createdAt,metrics.points
aggregate hackernews search swift --offline --sort -metrics.comments --fields title,metrics --format ndjson
aggregate kiva newest --offline --fields title,location,metrics.percentFunded --format json --limit 5
aggregate kiva newest --offline --fields location.city,location.country,title --sort location.country
aggregate meetup --lat 51.509980 --lon -0.133700 --offline --fields title,location.latitude,location.longitude --sort -location.latitude --format csv
aggregate meetup --lat 51.509980 --lon -0.133700 --offline --fields title,metrics.members --sort -metrics.members --format markdown
aggregate twitter orbitalnotes --offline --fields id,createdAt,metrics.likes --sort -metrics.likes --format csv
aggregate twitter orbitalnotes --offline --fields extra --format json --limit 2
aggregate messageboard list --offline --sort createdAt --fields author,title,createdAt
aggregate messageboard list --offline --fields extra.createdAt,title --format csv
# --- compare (timings masked)
aggregate compare 'github search swift' 'hackernews search swift' --offline
aggregate compare 'github search swift' 'hackernews search swift' --offline --format json
aggregate compare 'github search swift' 'hackernews search swift' --offline --format html
aggregate compare 'github search swift' 'hackernews search swift' --offline --format ndjson
aggregate compare 'github search swift' 'hackernews search swift' --offline --format csv
aggregate compare 'github search swift' 'hackernews search swift' --offline --format markdown
aggregate compare 'meetup --lat 51.509980 --lon -0.133700' 'kiva newest' 'tmdb search batman' --offline --limit 5
aggregate compare 'meetup --lat 51.509980 --lon -0.133700' 'kiva newest' 'tmdb search batman' --offline --limit 5 --format json
aggregate compare 'meetup --lat 51.509980 --lon -0.133700' 'kiva newest' 'tmdb search batman' --offline --limit 5 --format html
aggregate compare 'meetup --lat 51.509980 --lon -0.133700' 'kiva newest' 'tmdb search batman' 'twitter nasa' --offline --limit 5
aggregate compare 'meetup --lat 51.509980 --lon -0.133700' 'kiva newest' 'tmdb search batman' 'twitter nasa' --offline --limit 5 --format json
aggregate_env COLUMNS=200 compare 'meetup --lat 51.509980 --lon -0.133700' 'kiva newest' 'tmdb search batman' 'twitter nasa' --offline --limit 5
aggregate_env COLUMNS=40 compare 'github search swift' 'hackernews search swift' --offline --limit 3
aggregate compare --all --offline
aggregate compare --all --offline --format json
aggregate compare --all --offline --format html
aggregate compare 'kiva newest --limit 2' 'kiva newest --api rest --limit 3' --offline --format json
aggregate compare 'tmdb search batman' 'twitter nobody' --offline --limit 2
aggregate compare 'tmdb search batman' 'twitter nobody' --offline --limit 2 --format json
aggregate compare 'tmdb search batman' 'twitter nobody' --offline --limit 2 --format html
aggregate compare 'twitter nobody' 'tmdb movie 999999' --offline
aggregate compare 'tmdb search batman' 'twitter nasa'
aggregate compare 'nosuch x' 'kiva newest' --offline
aggregate compare 'tmdb search batman --limit abc' 'kiva newest' --offline
aggregate compare --offline
aggregate compare 'github search swift' --offline --format xml
# --- browse (docs/browse.md)
aggregate browse in/browse/meetup_v2_groups.json
aggregate browse in/browse/meetup_v2_groups.json --paths
aggregate browse in/browse/meetup_v2_groups.json --depth 1
aggregate browse in/browse/meetup_v2_groups.json --items 2
aggregate browse in/browse/meetup_v2_groups.json --path 'results[0].topics'
aggregate browse in/browse/meetup_v2_groups.json --path results.0.topics
aggregate browse in/browse/meetup_v2_groups.json --path 'results[-1]'
aggregate browse in/browse/meetup_v2_groups.json --path results.-1 --paths
aggregate browse in/browse/meetup_v2_groups.json --path .
aggregate browse in/browse/meetup_v2_groups.json --path results.0.topcs
aggregate browse in/browse/meetup_v2_groups.json --path 'results[3]'
aggregate browse in/browse/meetup_v2_groups.json --path 'a..b'
aggregate browse in/browse/meetup_v2_groups.json --path 'a[x]'
aggregate browse in/browse/meetup_v2_groups.json --paths | grep -i name
aggregate browse in/browse/kiva_v1_loan.json
aggregate browse in/browse/kiva_v1_loan.json --paths
aggregate browse in/browse/rails_index_empty.json
aggregate browse in/browse/rails_index_empty.json --paths
aggregate browse in/browse/rails_index_rails3.json
aggregate browse in/browse/rails_index_rails3.json --paths
aggregate browse in/browse/tmdb_movie_append.json
aggregate browse in/browse/tmdb_movie_append.json --paths
aggregate browse in/browse/tmdb_search_movie.json
aggregate browse in/browse/tmdb_search_movie.json --paths
aggregate browse in/browse/twitter_v1_timeline.json
aggregate browse in/browse/twitter_v1_timeline.json --paths
aggregate browse in/browse/twitter_v2_search.json
aggregate browse in/browse/twitter_v2_search.json --paths
aggregate browse in/samples/github/search-1.json --depth 1
aggregate browse in/samples/github/search-1.json --path 'items[0]' --depth 1
aggregate browse in/samples/hackernews/search-1.json --path 'hits[-1]'
aggregate browse in/samples/messageboard/messages.json --paths
aggregate browse in/samples/tmdb/configuration.json --paths
aggregate browse in/made/edge.json
aggregate browse in/made/edge.json --paths
aggregate browse in/made/edge.json --path '"a.b"'
aggregate browse in/made/edge.json --path "'a.b'.'c d'"
aggregate browse in/made/edge.json --path '["a.b"]["c d"][-1]'
aggregate browse in/made/edge.json --path byNumber.0
aggregate browse in/made/edge.json --path 'byNumber["0"]'
aggregate browse in/made/edge.json --path 'byNumber[0]'
aggregate browse in/made/edge.json --path arr.1.1
aggregate browse in/made/edge.json --path big
aggregate browse in/made/edge.json --path '"key with \"quote\""'
aggregate browse in/made/scalar.json
aggregate browse in/made/empty-array.json
aggregate browse in/made/bom.json
aggregate browse - < in/browse/kiva_v1_loan.json
aggregate browse - --paths < in/browse/tmdb_search_movie.json
aggregate browse -
aggregate meetup --lat 51.5 --lon -0.13 --offline --raw | aggregate browse - --depth 2
aggregate meetup --lat 51.5 --lon -0.13 --offline --raw | aggregate browse - --path 'data.groupSearch.edges[0].node'
aggregate browse in/made/invalid.json
aggregate browse in/made/empty.json
aggregate browse in/made/trailing.json
aggregate browse in/made/latin1.json
aggregate browse in/made/utf16.json
aggregate browse in/made/deep.json
aggregate browse - < in/made/invalid.json
aggregate browse in/nosuch.json
aggregate browse in/browse
aggregate browse
aggregate browse in/browse/kiva_v1_loan.json --depth 0
aggregate browse in/browse/kiva_v1_loan.json --depth 101
aggregate browse in/browse/kiva_v1_loan.json --items 0
aggregate browse in/browse/kiva_v1_loan.json --max-size 10
aggregate browse in/browse/kiva_v1_loan.json --max-size 1Q
aggregate browse in/browse/kiva_v1_loan.json -i
aggregate browse in/browse/kiva_v1_loan.json --nosuch
aggregate browse http://example.com/things.json
aggregate browse ftp://example.com/things.json
# --- normalize (saved bodies, from files and stdin)
aggregate normalize tmdb search in/browse/tmdb_search_movie.json
aggregate normalize tmdb search in/browse/tmdb_search_movie.json --format json
aggregate normalize tmdb search in/browse/tmdb_search_movie.json --format csv
aggregate normalize tmdb search in/browse/tmdb_search_movie.json --format ndjson --limit 2
aggregate normalize tmdb in/fixtures/tmdb/search_page_quirks.json --format json
aggregate normalize tmdb popular in/fixtures/tmdb/popular_capped.json
aggregate normalize tmdb movie in/fixtures/tmdb/movie_details_credits.json
aggregate normalize tmdb movie in/browse/tmdb_movie_append.json
aggregate normalize tmdb search in/made/tmdb-surrogate.json --verbose --format json
aggregate normalize tmdb search in/made/tmdb-pages.ndjson --pages --verbose
aggregate normalize tmdb search in/made/tmdb-pages.ndjson
aggregate normalize tmdb search in/made/wrong-shape.json
aggregate normalize tmdb search in/made/invalid.json
aggregate normalize tmdb search in/nosuch.json
aggregate normalize tmdb < in/browse/tmdb_search_movie.json
aggregate normalize tmdb search - --format csv < in/browse/tmdb_search_movie.json
aggregate tmdb search 'the amazing spider-man' --offline --raw | aggregate normalize tmdb search --format csv
aggregate tmdb popular --limit 25 --offline --raw | aggregate normalize tmdb popular --pages --format json
aggregate github search swift --sort stars --language Swift --limit 40 --offline --raw | aggregate normalize github search --pages
aggregate hackernews search swift --limit 30 --offline --raw | aggregate normalize hackernews --pages --format csv
aggregate kiva newest --limit 8 --offline --raw | aggregate normalize kiva newest --format json
aggregate meetup --lat 51.5 --lon -0.13 --offline --raw | aggregate normalize meetup groups
aggregate messageboard list --offline --raw | aggregate normalize messageboard list --format csv
aggregate twitter orbitalnotes --limit 5 --offline --raw | aggregate normalize twitter timeline
aggregate normalize kiva in/fixtures/kiva/graphql-page.json --format json
aggregate normalize kiva in/fixtures/kiva/graphql-validation-error.json
aggregate normalize kiva search in/fixtures/kiva/rest-listing-2015.json
aggregate normalize meetup in/fixtures/meetup/gql_groupSearch_page.json --format json
aggregate normalize meetup in/fixtures/meetup/gql_error_rate_limited.json
aggregate normalize meetup in/fixtures/meetup/v2_groups_page1_next.json
aggregate normalize twitter in/fixtures/twitter/v2-timeline-page.json
aggregate normalize github search in/samples/github/search-1.json --limit 5
aggregate normalize nosuch in/made/edge.json
aggregate normalize tmdb nosuchop in/made/edge.json
aggregate normalize
aggregate normalize tmdb search in/browse/tmdb_search_movie.json --format xml
# --- twitter archive (Tests fixtures of each era)
aggregate twitter archive in/archive/2024_parts
aggregate twitter archive in/archive/2024_parts --format json
aggregate twitter archive in/archive/2024_parts --format ndjson
aggregate twitter archive in/archive/2024_parts --format csv
aggregate twitter archive in/archive/2024_parts/data
aggregate twitter archive in/archive/2024_parts/data/tweets.js
aggregate twitter archive in/archive/2024_parts --since 2024-01-01 --exclude retweets --format csv
aggregate twitter archive in/archive/2024_parts --until 2024-01-01
aggregate twitter archive in/archive/2024_parts --since 2024-03-11T18:00:00Z --until 2024-12-31
aggregate twitter archive in/archive/2024_parts --exclude replies,retweets --limit 1
aggregate twitter archive in/archive/2021_wrapped
aggregate twitter archive in/archive/2019_root
aggregate twitter archive in/archive/2019_root/tweet.js --format csv
aggregate twitter archive in/archive/2016_grailbird
aggregate twitter archive in/archive/2016_grailbird/data/js/tweets/2016_01.js --format ndjson
(cd in/archive/2024_parts && zip -qrX "$OLDPWD/archive.zip" .) && aggregate twitter archive archive.zip --format csv
aggregate twitter archive in/archive/2024_parts --since yesterday
aggregate twitter archive in/archive/2024_parts --exclude likes
aggregate twitter archive in/archive/2024_parts --format xml
aggregate twitter archive in/nosuch
aggregate twitter archive in/made
aggregate twitter archive in/made/invalid.json
aggregate twitter archive
# --- provider definitions (--provider-file), Tests fixtures
aggregate --provider-file in/definitions/pager/provider.json providers
aggregate --provider-file in/definitions/pager/provider.json describe pager
aggregate --provider-file in/definitions/pager/provider.json pager swift --limit 7 --offline
aggregate --provider-file in/definitions/pager/provider.json pager pages swift --limit 7 --offline --format json
aggregate --provider-file in/definitions/pager/provider.json pager pages swift --limit 7 --offline --raw
aggregate --provider-file in/definitions/pager/provider.json pager offsets swift --limit 7 --offline
aggregate --provider-file in/definitions/pager/provider.json pager cursors swift --limit 7 --offline --format ndjson
aggregate --provider-file in/definitions/pager/provider.json pager links swift --limit 7 --offline --format markdown
aggregate --provider-file in/definitions/pager/provider.json pager pages swift --offline --format csv
aggregate --provider-file in/definitions/pager/provider.json pager single swift --offline
aggregate --provider-file in/definitions/pager/provider.json pager pages --offline
aggregate --provider-file in/definitions/pager/provider.json compare 'pager pages swift --limit 3' 'pager links swift --limit 3' --offline --format json
aggregate --provider-file in/definitions/boardlist/provider.json describe boardlist
aggregate --provider-file in/definitions/boardlist/provider.json boardlist --offline
aggregate --provider-file in/definitions/pager/provider.json --provider-file in/definitions/boardlist/provider.json providers --format json
aggregate --provider-file in/nosuch.json providers
aggregate --provider-file in/made/invalid.json providers
aggregate --provider-file in/made/invalid.json kiva newest --offline --limit 1
aggregate --provider-file in/made/edge.json providers
# --- errors: usage, bad values, missing credentials, insecure URLs (all refused before anything is sent)
aggregate nosuch
aggregate --nosuch
aggregate tmdb --nosuch --offline
aggregate tmdb search batman --offline --limit abc
aggregate tmdb search batman --offline --limit 0
aggregate tmdb search batman --offline --limit 10001
aggregate tmdb search batman --offline --limit
aggregate tmdb search batman --offline --timeout 0x10
aggregate tmdb search batman --offline --timeout 0
aggregate tmdb search batman --offline --format xml
aggregate tmdb search batman --offline --cache-ttl -5
aggregate tmdb search batman --offline --no-cache --refresh
aggregate tmdb search --offline
aggregate tmdb search batman --year nineteen --offline
aggregate tmdb nosuchop --offline
aggregate tmdb movie abc --offline
aggregate tmdb movie 999999 --offline
aggregate meetup --offline
aggregate meetup --lat 1e1 --lon 2 --offline
aggregate meetup --lat 51.5 --lon -0.13 --api v3 --offline
aggregate kiva search --sector nosuch --offline
aggregate kiva search --country Kenya --offline
aggregate twitter 'bad handle!' --offline
aggregate twitter averyveryverylonghandle --offline
aggregate twitter nobody --offline
aggregate twitter orbitalnotes --exclude likes --offline
aggregate github search swift --order sideways --offline
aggregate github search swift --limit 1001 --offline
aggregate hackernews search swift --tags job --offline
aggregate messageboard post --offline
aggregate messageboard post --name Joe --message '' --offline
aggregate tmdb search batman
aggregate meetup --lat 51.5 --lon -0.13
aggregate twitter nasa
aggregate messageboard list
aggregate_env TMDB_API_KEY=0123456789abcdef0123456789abcdef tmdb search batman --base-url http://example.com
aggregate_env TMDB_API_KEY=0123456789abcdef0123456789abcdef AGGREGATE_TMDB_BASE_URL=http://example.com tmdb search batman
aggregate_env X_BEARER_TOKEN=AAAAtoken twitter nasa --base-url http://example.com:8080
aggregate messageboard list --base-url http://example.com
aggregate_env MESSAGEBOARD_URL=http://example.com messageboard list
aggregate messageboard list --base-url ftp://example.com
aggregate messageboard list --base-url http://127.0.0.1:70000
aggregate messageboard list --base-url ''
aggregate tmdb search batman --base-url http://example.com --offline
aggregate tmdb search batman --offline --replay in/nosuch
aggregate sandbox --port 99999
aggregate sandbox --fail-rate 2
aggregate sandbox --fault bogus
aggregate sandbox --rate-limit kiva=abc
aggregate sandbox --rate-limit nosuch=5/2s
aggregate sandbox --latency -1
# --- messageboard post into the offline store (dates of now masked)
aggregate messageboard post --name Joe --message 'Learning about JSON' --offline
aggregate messageboard post --name Joe --message 'Learning about JSON' --offline --format json
printf 'line one\nline two\n\n' | aggregate messageboard post --name Ann --message - --offline --format csv
aggregate messageboard post --name Joe --message 'JSON is fun!' --offline --quiet && aggregate messageboard list --offline --limit 2
# --- --record into a folder of the command (cassette times masked)
aggregate tmdb search batman --offline --record rec --limit 2 && cat rec/cassette.json && ls rec
aggregate tmdb search batman --replay rec --limit 2
# --- config
aggregate config path
aggregate config show
aggregate config set providers.tmdb.limit 5 && aggregate config show && files "$XDG_CONFIG_HOME"
aggregate config set defaults.format json && aggregate kiva newest --offline --limit 1
aggregate config set providers.kiva.limit 2 && aggregate kiva newest --offline --verbose
aggregate config set profiles.small.defaults.limit 1 && aggregate tmdb popular --offline --profile small && aggregate_env AGGREGATE_PROFILE=small tmdb popular --offline --format csv
aggregate config set providers.tmdb.credentials.TMDB_ACCESS_TOKEN.env MY_TMDB_TOKEN && aggregate config show && aggregate_env MY_TMDB_TOKEN=eyJabcdefghijklmnop auth status tmdb
aggregate config set providers.tmdb.credentials.TMDB_API_KEY 0123456789abcdef0123456789abcdef && aggregate config show && aggregate auth status tmdb
aggregate config set providers.tmdb.limit 5 && aggregate config unset providers.tmdb.limit && aggregate config show
aggregate config set providers.kiva.limit abc
aggregate config set providers.nosuch.limit 5
aggregate config set nosuch 5
aggregate config unset providers.tmdb.limit
aggregate config set
aggregate config nosuch
aggregate config
aggregate tmdb popular --offline --profile nosuch
mkdir -p "$XDG_CONFIG_HOME/aggregate" && printf '{"defaults": {' > "$XDG_CONFIG_HOME/aggregate/config.json" && aggregate kiva newest --offline --limit 1
mkdir -p "$XDG_CONFIG_HOME/aggregate" && printf '{"providers": {"kiva": {"limit": 0}}}' > "$XDG_CONFIG_HOME/aggregate/config.json" && aggregate kiva newest --offline
mkdir -p "$XDG_CONFIG_HOME/aggregate" && printf '{"providers": {"tmdb": {"credentials": {"TMDB_API_KEY": "abcdef"}}}}' > "$XDG_CONFIG_HOME/aggregate/config.json" && chmod 644 "$XDG_CONFIG_HOME/aggregate/config.json" && aggregate tmdb search batman --offline
# --- auth (status only: --check would send requests)
aggregate auth status
aggregate auth status tmdb twitter
aggregate auth status nosuch
aggregate auth
aggregate auth status --profile nosuch
aggregate_env TMDB_API_KEY=0123456789abcdef0123456789abcdef X_BEARER_TOKEN=AAAAAAAAbearer MEETUP_TOKEN=tok123456 auth status
aggregate_env TWITTER_BEARER_TOKEN=oldname0123 GITHUB_TOKEN=ghp_0123456789 KIVA_APP_ID=org.example.loans auth status
aggregate_env TMDB_ACCESS_TOKEN=eyJtoken0123 TMDB_API_KEY=0123456789abcdef0123456789abcdef auth status tmdb
# --- cache (an empty cache in the command's own folder)
aggregate cache path
aggregate cache stats
aggregate cache stats --format json
aggregate cache clear
aggregate cache clear tmdb
aggregate cache clear nosuch
aggregate cache
aggregate tmdb search batman --offline --limit 1 && aggregate cache stats
aggregate_env XDG_CACHE_HOME= cache path
# --- new-provider (files written listed with their modes and checksums)
aggregate new-provider bookshelf --dir out && files out
aggregate new-provider bookshelf --definition --dir out && files out && aggregate --provider-file out/bookshelf.json bookshelf search swift --offline
aggregate new-provider bookshelf && files "$XDG_CONFIG_HOME" && aggregate providers && aggregate bookshelf search swift --offline --format json
make_package pkg && aggregate new-provider bookshelf --swift --dir pkg && files pkg
make_package pkg && aggregate new-provider shelf --definition --dir pkg && files pkg
make_package pkg && aggregate new-provider my-api-2 --swift --dir pkg && files pkg
make_package pkg && aggregate new-provider tmdb --swift --dir pkg && files pkg
make_package pkg && mkdir -p pkg/Providers/Bookshelf && { aggregate new-provider bookshelf --swift --dir pkg; rc=$?; files pkg; exit $rc; }
mkdir -p empty && aggregate new-provider bookshelf --swift --dir empty
aggregate new-provider tmdb --dir out
aggregate new-provider browse --dir out
aggregate new-provider Bad_Name --dir out
aggregate new-provider double--hyphen --dir out
aggregate new-provider
aggregate new-provider bookshelf --swift --definition --dir out
aggregate new-provider bookshelf --dir out && aggregate new-provider bookshelf --dir out
EOF
)"

# The full list, in order: the examples in every format and raw, then the rest.
ALL=()
while IFS= read -r example; do
    [[ -n "$example" ]] || continue
    ALL+=("aggregate $example")
    for format in json ndjson csv markdown; do
        ALL+=("aggregate $example --format $format")
    done
    ALL+=("aggregate $example --raw")
done <<< "$EXAMPLES"
while IFS= read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    ALL+=("$line")
done <<< "$COMMANDS"

# ---------------------------------------------------------------------------------------------------------------
# Running one command
# ---------------------------------------------------------------------------------------------------------------
SNAP_ENV=(
    "PATH=$FIXED_PATH"
    "HOME=$RUN/home"
    "XDG_CONFIG_HOME=$RUN/config"
    "XDG_CACHE_HOME=$RUN/cache"
    "XDG_DATA_HOME=$RUN/data"
    "COLUMNS=80"
    "NO_COLOR=1"
    "TZ=UTC"
    "LANG=C.UTF-8"
)

# Prepended to every command line; runs in `bash --noprofile --norc` with SNAP_ENV.
PRELUDE="set -o pipefail
umask 022
SNAP_BIN=$(printf '%q' "$BINARY")
SNAP_ENV=($(printf '%q ' "${SNAP_ENV[@]}"))
aggregate() { env -i \"\${SNAP_ENV[@]}\" \"\$SNAP_BIN\" \"\$@\"; }
aggregate_env() {
    local extra=()
    while [[ \$# -gt 0 && \$1 == [A-Z_]*=* ]]; do extra+=(\"\$1\"); shift; done
    env -i \"\${SNAP_ENV[@]}\" \"\${extra[@]}\" \"\$SNAP_BIN\" \"\$@\"
}
files() {
    echo \"files under \$1:\"
    (cd \"\$1\" && find . -type f | LC_ALL=C sort | while IFS= read -r f; do
        printf '%s %s  %s\n' \"\$(stat -c %a \"\$f\")\" \"\$(sha256sum < \"\$f\" | cut -c1-64)\" \"\$f\"
    done)
}
make_package() {
    mkdir -p \"\$1/Providers\" \"\$1/Sources/AggregateProviders/Generated\" \"\$1/Sources/AggregateSandbox/Generated\" \"\$1/Tests/AggregateProvidersTests\"
    touch \"\$1/Package.swift\" \"\$1/Sources/AggregateProviders/AllProviders.swift\" \"\$1/Sources/AggregateSandbox/AllSandboxes.swift\" \\
        \"\$1/Sources/AggregateProviders/Generated/BuiltInDefinitions.swift\" \"\$1/Sources/AggregateSandbox/Generated/BuiltInDefinitionSamples.swift\"
}
"

# The masking described in the header. $1: today's date(s) (UTC) as a sed alternation, e.g. 2026-12-01|2026-12-02.
mask_stream() {
    local days="$1"
    local work_re
    work_re="$(printf '%s' "$WORK" | sed 's/[.[\*^$/]/\\&/g')"
    sed -E \
        -e "s/$work_re/<TMP>/g" \
        -e 's/("elapsedMs": ?)-?[0-9][0-9.eE+-]*/\1"<ms>"/g' \
        -e 's/("(recordedAt|startedAt)": ?)"[^"]*"/\1"<t>"/g' \
        -e 's/("durationMs": ?)-?[0-9][0-9.eE+-]*/\1"<t>"/g' \
        -e 's/(← .*) in [0-9][0-9.]* ?(µs|ms|s|min)$/\1 in <t>/' \
        -e '/^time  /{s/[0-9][0-9.]* ?(µs|ms|s|min)( +|$)/<t>\2/g; s/<t> +/<t>  /g}' \
        -e '/ requests, [0-9]+ pages · /s/ · [0-9][0-9.]* ?(µs|ms|s|min)$/ · <t>/' \
        -e '/^[0-9][0-9.]* ?(B|KiB|MiB|GiB) · [0-9][0-9.]* ?(µs|ms|s|min)$/s/ · [0-9][0-9.]* ?(µs|ms|s|min)$/ · <t>/' \
        -e 's#(<dt>time</dt><dd>)[^<]*(</dd>)#\1<t>\2#g' \
        -e '/class="bar-time"/{s/ width="[0-9.]+"/ width="<t>"/; s#(<title>[^<]*: )[^<]*(</title>)#\1<t>\2#}' \
        -e '/class="chart-value".*>[0-9][0-9.]* ?(µs|ms|s|min)<\/text>/{s/ x="[0-9.]+"/ x="<t>"/; s#>[0-9][0-9.]* ?(µs|ms|s|min)</text>#><t></text>#}' \
        -e "s/($days)(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?Z?| [0-9]{2}:[0-9]{2}(:[0-9]{2})?)?/<today>/g"
}

slug() {
    printf '%s' "$1" | sed -E 's/aggregate(_env)? //g; s/[^A-Za-z0-9._-]+/-/g; s/^-+//; s/-+$//' | cut -c1-60
}

run_one() {
    local num="$1" line="$2" base rc day1 day2
    base="$num-$(slug "$line")"
    rm -rf "$RUN"
    mkdir -p "$RUN/home" "$RUN/config" "$RUN/cache" "$RUN/data" "$RUN/cwd"
    ln -s "$WORK/in" "$RUN/cwd/in"
    day1="$(date -u +%F)"
    rc=0
    (cd "$RUN/cwd" && env -i "${SNAP_ENV[@]}" "$SETSID" -w "$TIMEOUT" -k 5 "$TIMEOUT_SECONDS" \
        "$BASH_BIN" --noprofile --norc -c "$PRELUDE$line" < /dev/null > "$RUN/stdout" 2> "$RUN/stderr") || rc=$?
    day2="$(date -u +%F)"
    mask_stream "$day1|$day2" < "$RUN/stdout" > "$OUT/runs/$base.stdout"
    mask_stream "$day1|$day2" < "$RUN/stderr" > "$OUT/runs/$base.stderr"
    echo "$rc" > "$OUT/runs/$base.exit"
    printf '%s\t%s\n' "$num" "$line" >> "$OUT/index.txt"
    # Odd outcomes, reported at the end: killed by a signal or the timeout, or a crash report on stderr.
    if [[ "$rc" -ge 124 ]] || grep -qE 'Fatal error|[Cc]rashed|Backtrace|Segmentation fault|Illegal instruction|Aborted|Trace/breakpoint' "$RUN/stderr"; then
        ODD+=("$num  exit $rc  $line")
    fi
}

ODD=()
: > "$OUT/index.txt"
start=$SECONDS
total=${#ALL[@]}
for i in "${!ALL[@]}"; do
    run_one "$(printf '%03d' $((i + 1)))" "${ALL[$i]}"
    if [[ -t 2 ]]; then printf '\r%d/%d' $((i + 1)) "$total" >&2; fi
done
[[ -t 2 ]] && printf '\r' >&2

if ! diff -rq "$WORK/in" "$OUT/inputs" > /dev/null; then
    echo "warning: a command changed its inputs (diff -r of the private copy and $OUT/inputs differs)" >&2
fi
echo "snapshot: $total commands of $BINARY in $OUT ($((SECONDS - start)) s)"
if [[ ${#ODD[@]} -gt 0 ]]; then
    echo "odd outcomes (signal, timeout or crash report):"
    printf '  %s\n' "${ODD[@]}"
fi
