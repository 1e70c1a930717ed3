#!/usr/bin/env bash
# Counts the hand-written Swift of each provider: client code, sandbox (emulator) code and tests.
# Generated/ folders are excluded. Prints the figures measured before the provider SDK (issue 11) beside them.
#
#   Benchmarks/provider-size.sh
#
# A file counts as sandbox code when its path below the provider's folder names "Sandbox" (a `Sandbox/`
# subfolder or a `*Sandbox*.swift` file); everything else in the folder is client code. Tests are the files
# under Tests/ whose path names the provider.
set -euo pipefail
cd "$(dirname "$0")/.."

providers=(Meetup Kiva TMDb Twitter MessageBoard)
# Measured on main before the SDK (commit 8a7fd79): client, sandbox, tests.
declare -A before_client=([Meetup]=317 [Kiva]=707 [TMDb]=531 [Twitter]=700 [MessageBoard]=381)
declare -A before_sandbox=([Meetup]=241 [Kiva]=531 [TMDb]=267 [Twitter]=620 [MessageBoard]=251)
declare -A before_tests=([Meetup]=309 [Kiva]=1235 [TMDb]=1056 [Twitter]=1416 [MessageBoard]=1245)

lines() { # counts the lines of the files named on stdin (0 when there are none)
    local total=0 file
    while IFS= read -r file; do
        [ -n "$file" ] || continue
        total=$((total + $(wc -l <"$file")))
    done
    echo "$total"
}

provider_files() { # every hand-written Swift file of provider $1 (its client and sandbox folders)
    local dir
    for dir in "Providers/$1" "Sandboxes/$1"; do
        [ -d "$dir" ] && find "$dir" -name '*.swift' -not -path '*/Generated/*'
    done
    return 0
}

printf '%-13s %21s %21s %21s %21s\n' provider "client (before)" "sandbox (before)" "client+sandbox" "tests (before)"
sum_client=0 sum_sandbox=0 sum_tests=0 sum_before_client=0 sum_before_sandbox=0 sum_before_tests=0
for name in "${providers[@]}"; do
    client=$(provider_files "$name" | grep -v 'Sandbox' | lines)
    sandbox=$(provider_files "$name" | grep 'Sandbox' | lines)
    tests=$(find Tests -name '*.swift' | grep -v '/DocExample' | grep "$name" | lines)
    hand=$((client + sandbox))
    before_hand=$((before_client[$name] + before_sandbox[$name]))
    printf '%-13s %10d (%8d) %10d (%8d) %10d (%8d) %10d (%8d)\n' "$name" \
        "$client" "${before_client[$name]}" "$sandbox" "${before_sandbox[$name]}" \
        "$hand" "$before_hand" "$tests" "${before_tests[$name]}"
    sum_client=$((sum_client + client)); sum_sandbox=$((sum_sandbox + sandbox)); sum_tests=$((sum_tests + tests))
    sum_before_client=$((sum_before_client + before_client[$name]))
    sum_before_sandbox=$((sum_before_sandbox + before_sandbox[$name]))
    sum_before_tests=$((sum_before_tests + before_tests[$name]))
done
total=$((sum_client + sum_sandbox))
before_total=$((sum_before_client + sum_before_sandbox))
printf '%-13s %10d (%8d) %10d (%8d) %10d (%8d) %10d (%8d)\n' total \
    "$sum_client" "$sum_before_client" "$sum_sandbox" "$sum_before_sandbox" "$total" "$before_total" \
    "$sum_tests" "$sum_before_tests"
echo
echo "hand-written provider lines: $total (before: $before_total, issue 11's figure: 4,546); tests: $sum_tests (before: $sum_before_tests, issue: ~5,500)"
awk -v now="$total" -v was="$before_total" 'BEGIN { printf "change: %+.1f%% (target: -35%%, i.e. at most 2,950 lines)\n", (now - was) * 100 / was }'
if [ -d Sources/AggregateCore/Provider ]; then
    echo "shared SDK code in Sources/AggregateCore/Provider and Sources/AggregateSandboxKit (written once, for every provider): $(find Sources/AggregateCore/Provider Sources/AggregateSandboxKit -name '*.swift' | lines)"
fi
