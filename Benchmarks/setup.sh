#!/usr/bin/env bash
# Shared by the benchmark scripts (sourced, not run): installs the tools they compare against, builds the release
# binary, and sets $bin, $work (a scratch folder kept between runs so generated inputs are made once) and $venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

work="${BENCH_DIR:-${TMPDIR:-/tmp}/aggregate-bench}"
mkdir -p "$work"

need_apt=()
command -v jq >/dev/null 2>&1 || need_apt+=(jq)
[ -x /usr/bin/time ] || need_apt+=(time)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
if [ "${#need_apt[@]}" -gt 0 ]; then
    echo "== installing ${need_apt[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# orjson is optional: compared against when pip can install it.
venv="$work/venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || true
fi
if [ -x "$venv/bin/pip" ] && ! "$venv/bin/python" -c "import orjson" >/dev/null 2>&1; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check orjson >/dev/null 2>&1 || echo "(orjson could not be installed: skipped)" >&2
fi

swift build -c release --product aggregate >/dev/null
bin="$(swift build -c release --show-bin-path)/aggregate"

# The machine the figures come from, for the README.
machine() {
    echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ { print $2 }') GiB, $(uname -sm), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "tools: $(swift --version 2>&1 | head -1 | sed 's/ (.*//'), $(jq --version), $(python3 --version)"
}
