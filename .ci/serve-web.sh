#!/usr/bin/env bash
# Screenshots the web page of `aggregate serve` (docs/serve-web.md) in headless Chromium, one PNG per view, checks
# that each picture is not trivial, and that the page's script ran under its Content-Security-Policy (the hash in
# the policy matches the script). Prints where the PNGs are (the CI artifacts).
#
# Without AGGREGATE_SERVE_URL, the views are the pages the tests write (WebPageSampleTests, and
# WebPageProvidersSampleTests from real offline runs), with the policy as a <meta>; with
# AGGREGATE_SERVE_URL=http://127.0.0.1:PORT they are fetched from a running server (.ci/serve.sh does that, with
# `serve --offline`, and also drives the form with .ci/serve_form.py).
# Where Chromium cannot be installed, only this step is skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

source .ci/chromium.sh
have_chromium "the serve web page" "the serve web page screenshots" || exit 0

artifacts="$PWD/.build/ci-artifacts/serve-web"
rm -rf "$artifacts"
mkdir -p "$artifacts"

# name, address (a file or a URL), window height
views=()
if [ -n "${AGGREGATE_SERVE_URL:-}" ]; then
    base="${AGGREGATE_SERVE_URL%/}"
    views+=("query-empty $base/ 1400")
    views+=("query-results $base/?provider=tmdb&operation=search&query=batman&limit=8 2000")
    views+=("query-error $base/?provider=tmdb&operation=search&query=batman&limit=0 1400")
    views+=("compare $base/compare?i=tmdb+search+batman&i=kiva+newest&i=hackernews+search+swift&limit=5 2600")
    views+=("compare-error $base/compare?i=tmdb+search+batman&i=hackernews&limit=5 1000")
else
    pages="$artifacts/pages"
    status=0
    AGGREGATE_WEB_PAGES_DIR="$pages" swift test --filter "WebPageSampleTests|WebPageProvidersSampleTests" >"$artifacts/swift-test.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ] || [ ! -f "$pages/query-empty.html" ] || [ ! -f "$pages/real-compare.html" ]; then
        tail -n 30 "$artifacts/swift-test.log"
        echo "FAIL: WebPageSampleTests did not write the pages (exit $status)"
        exit 1
    fi
    for view in query-empty:1400 query-results:1400 query-hostile:1400 query-error:1400 compare-empty:1000 compare:2600 \
        real-query-results:2000 real-compare:2600; do
        views+=("${view%%:*} file://$pages/${view%%:*}.html ${view##*:}")
    done
fi

shoot() {  # name address height [extra chromium flags]
    local name="$1" address="$2" height="$3"
    shift 3
    local profile
    profile="$(mktemp -d)"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" "$@" \
        --window-size=1280,"$height" --screenshot="$artifacts/$name.png" "$address" >/dev/null 2>&1 || true
    rm -rf "$profile"
    python3 .ci/check_png.py "$artifacts/$name.png" "the serve web page's $name view" 20000
}

for view in "${views[@]}"; do
    read -r name address height <<<"$view"
    shoot "$name" "$address" "$height"
done
# The same results in the dark palette.
read -r _ address height <<<"${views[1]}"
shoot "query-results-dark" "$address" "$height" --force-dark-mode --blink-settings=preferredColorScheme=0

# The script marks the page (<html class="js">) when it runs: it ran, so the policy's hash allows it.
read -r _ address _ <<<"${views[0]}"
profile="$(mktemp -d)"
dom="$(timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$profile" --dump-dom "$address" 2>/dev/null || true)"
rm -rf "$profile"
if ! grep -q '<html lang="en" class="js">' <<<"$dom"; then
    echo "FAIL: the page's script did not run under its Content-Security-Policy (no class=\"js\" on <html>)"
    exit 1
fi
echo "ok   the page's script runs under its Content-Security-Policy"

# The script's switch, in the files only: the empty form with the second provider picked (as a browser that restores
# a form would have it) must show that provider's operations and fields, and hide and disable the first one's.
if [ -z "${AGGREGATE_SERVE_URL:-}" ]; then
    sed -e 's|<option value="films" selected>|<option value="films">|' -e 's|<option value="books">|<option value="books" selected>|' \
        "$pages/query-empty.html" >"$pages/query-switched.html"
    profile="$(mktemp -d)"
    dom="$(timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$profile" --dump-dom "file://$pages/query-switched.html" 2>/dev/null || true)"
    rm -rf "$profile"
    for expected in '<div data-operations="films" hidden="">' '<select id="operation-books" name="operation">' \
        '<fieldset data-provider="films" data-operation="search" hidden="" disabled="">' '<fieldset data-provider="books" data-operation="find">'; do
        if ! grep -qF "$expected" <<<"$dom"; then
            echo "FAIL: after switching the provider, the page lacks $expected"
            exit 1
        fi
    done
    echo "ok   the script switches the operations and fields to the provider picked"
fi
echo "artifacts: $artifacts/*.png"
