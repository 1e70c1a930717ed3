#!/usr/bin/env bash
# Renders `aggregate compare --all --offline --format html` in headless Chromium to a PNG, checks that the picture
# is not trivial, and prints where it is (the CI artifact). Where Chromium cannot be installed, only this step is
# skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

source .ci/chromium.sh
have_chromium "the HTML compare report" "the HTML report screenshot" || exit 0

bin="$(swift build --show-bin-path)/aggregate"
artifacts="$PWD/.build/ci-artifacts"
mkdir -p "$artifacts"
report="$artifacts/compare-report.html"
png="$artifacts/compare-report.png"
rm -f "$png"
status=0
XDG_DATA_HOME="$(mktemp -d)" XDG_CONFIG_HOME="$(mktemp -d)" "$bin" compare --all --offline --quiet --format html >"$report" || status=$?
if [ "$status" -ne 0 ]; then
    echo "FAIL: aggregate compare --all --offline --format html exited $status"
    exit 1
fi
profile="$(mktemp -d)"
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --window-size=1280,2400 --screenshot="$png" "file://$report" >/dev/null 2>&1 || true
python3 .ci/check_png.py "$png" "the HTML report"
echo "artifact: $png"
echo "artifact: $report"
