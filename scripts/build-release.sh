#!/usr/bin/env bash
# Builds the release binary of aggregate with the Swift runtime and Foundation linked in statically
# (--static-swift-stdlib): it starts faster (no Swift libraries to load and bind) and runs on a Linux machine
# without a Swift toolchain. Nothing it links uses FoundationNetworking: live requests go through libcurl, opened with
# dlopen by the first request (AggregateCurl), so the build needs no libcurl development package and the binary
# needs libcurl (the libcurl4 package) at run time only for live requests.
#
# Usage: scripts/build-release.sh [--plain] [OUTPUT]
#   --plain  an ordinary `swift build -c release` (dynamic Swift libraries), for comparison
#   OUTPUT   where to copy the binary (default: .build/aggregate-static, or .build/aggregate-release with --plain)
set -euo pipefail
cd "$(dirname "$0")/.."

plain=false
if [ "${1:-}" = "--plain" ]; then
    plain=true
    shift
fi

if $plain; then
    output="${1:-.build/aggregate-release}"
    swift build -c release --product aggregate
    cp "$(swift build -c release --show-bin-path)/aggregate" "$output"
else
    output="${1:-.build/aggregate-static}"
    # A separate build folder keeps the static objects from replacing the ordinary release build's. Only the
    # product: the test support target imports Testing, which has no static library.
    swift build -c release --static-swift-stdlib --build-path .build/static --product aggregate
    cp "$(swift build -c release --static-swift-stdlib --build-path .build/static --show-bin-path)/aggregate" "$output"
fi
"$output" --version >/dev/null
echo "built $output ($(du -h "$output" | cut -f1)); Swift libraries linked: $(ldd "$output" | grep -c 'libswift\|libFoundation' || true); libcurl linked: $(ldd "$output" | grep -c 'libcurl' || true) (opened by the first request)"
