#!/usr/bin/env bash
# Builds the release binary of aggregate with the Swift runtime and Foundation linked in statically
# (--static-swift-stdlib): it starts faster (no Swift libraries to load and bind) and runs on a Linux machine
# without a Swift toolchain. Nothing it links uses FoundationNetworking: live requests go through libcurl, opened with
# dlopen by the first request (AggregateCurl), so the build needs no libcurl development package and the binary
# needs libcurl (the libcurl4 package) at run time only for live requests.
#
# The static binary needs no library from its own folder, so it is built without SwiftPM's default $ORIGIN run path
# (--disable-local-rpath): a libsqlite3.so.0 dropped next to the installed binary is never loaded, and the loader
# no longer tries some forty paths under that folder at every start.
#
# It is linked as a fixed-address executable (-no-pie). A position-independent one has about 80,000
# pointers in its own data that the dynamic loader rewrites at every start, and each page it rewrites is copied:
# about 0.7 ms of every run (--version 2.3 -> 1.6 ms). The price is that the executable's own code and data sit at
# the same address in every run (address-space randomisation still moves the stack, the heap and the shared
# libraries); --pie keeps the randomisation and pays the start-up. The plain build gains nothing from -no-pie (its
# start-up is the Swift libraries' own relocations), so it stays position-independent.
#
# Usage: scripts/build-release.sh [--plain | --pie] [OUTPUT]
#   --plain  an ordinary `swift build -c release` (dynamic Swift libraries), for comparison
#   --pie    the static build as a position-independent executable
#   OUTPUT   where to copy the binary (default: .build/aggregate-static, or .build/aggregate-release with --plain)
set -euo pipefail
cd "$(dirname "$0")/.."

plain=false
link=(-Xlinker -no-pie)
case "${1:-}" in
    --plain) plain=true; shift ;;
    --pie) link=(); shift ;;
esac
case "${1:-}" in
    -*) echo "build-release.sh: unknown option $1 (usage: scripts/build-release.sh [--plain | --pie] [OUTPUT])" >&2; exit 64 ;;
esac

if $plain; then
    output="${1:-.build/aggregate-release}"
    swift build -c release --product aggregate
    cp "$(swift build -c release --show-bin-path)/aggregate" "$output"
else
    output="${1:-.build/aggregate-static}"
    # A separate build folder keeps the static objects from replacing the ordinary release build's. Only the
    # product: the test support target imports Testing, which has no static library.
    static=(-c release --static-swift-stdlib --disable-local-rpath --build-path .build/static)
    swift build "${static[@]}" --product aggregate ${link[@]+"${link[@]}"}
    cp "$(swift build "${static[@]}" --show-bin-path)/aggregate" "$output"
fi
"$output" --version >/dev/null
# The ELF header's type (offset 16): 2 is a fixed-address executable, 3 a position-independent one.
case "$(od -An -tu2 -j16 -N2 "$output" | tr -d ' ')" in 2) pie=no ;; *) pie=yes ;; esac
echo "built $output ($(du -h "$output" | cut -f1)); position-independent: $pie; Swift libraries linked: $(ldd "$output" | grep -c 'libswift\|libFoundation' || true); libcurl linked: $(ldd "$output" | grep -c 'libcurl' || true) (opened by the first request)"
