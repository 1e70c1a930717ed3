#!/usr/bin/env bash
# Builds the release binary of aggregate with the Swift runtime and Foundation linked in statically
# (--static-swift-stdlib): it starts faster (no Swift libraries to load and bind) and runs on a Linux machine
# without a Swift toolchain. Static FoundationNetworking still links libcurl from the system, so the build needs
# its development package (libcurl4-openssl-dev on Debian/Ubuntu), which this script installs when it is missing.
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
    # -lcurl needs the unversioned libcurl.so that only the development package ships.
    if ! ls /usr/lib/*/libcurl.so /usr/lib/libcurl.so >/dev/null 2>&1; then
        if command -v apt-get >/dev/null 2>&1; then
            echo "== installing libcurl4-openssl-dev (static FoundationNetworking links libcurl)"
            sudo_cmd=""
            [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
            $sudo_cmd apt-get update -qq
            DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq libcurl4-openssl-dev >/dev/null
        else
            echo "error: the static build links libcurl: install its development package (libcurl4-openssl-dev or curl-devel)" >&2
            exit 1
        fi
    fi
    # A separate build folder keeps the static objects from replacing the ordinary release build's. Only the
    # product: the test support target imports Testing, which has no static library.
    swift build -c release --static-swift-stdlib --build-path .build/static --product aggregate
    cp "$(swift build -c release --static-swift-stdlib --build-path .build/static --show-bin-path)/aggregate" "$output"
fi
"$output" --version >/dev/null
echo "built $output ($(du -h "$output" | cut -f1)); Swift libraries linked: $(ldd "$output" | grep -c 'libswift\|libFoundation' || true)"
