# Sourced by .ci/run: installs the tools that some tests need and marks each one as required, so the tests that a
# developer's machine may skip ("tmux is not installed ...") always run in CI. Each AGGREGATE_REQUIRE_<TOOL>=1 makes a
# missing tool a test failure instead of a skip.
apt_packages=()
for tool in tmux zsh fish jq sqlite3; do
    command -v "$tool" >/dev/null 2>&1 || apt_packages+=("$tool")
done
command -v pgrep >/dev/null 2>&1 || apt_packages+=(procps)
if [ "${#apt_packages[@]}" -gt 0 ]; then
    echo "== installing ${apt_packages[*]} (for the terminal, shell-completion and --to tests)"
    apt-get update -qq && apt-get install -y -qq "${apt_packages[@]}" >/dev/null
fi

# Python's html5lib validates the compare command's HTML report, and PyYAML is the reference reading of the real
# OpenAPI documents for the YAML reader's tests; they live in CI's venv (shared with the schema check).
source .ci/venv.sh
ci_venv aggregate-ci-venv "html5lib>=1.1" "pyyaml>=6.0"
export AGGREGATE_PYTHON="$venv/bin/python"

export AGGREGATE_REQUIRE_TMUX=1 AGGREGATE_REQUIRE_PYTHON3=1 AGGREGATE_REQUIRE_BASH=1 AGGREGATE_REQUIRE_ZSH=1 \
    AGGREGATE_REQUIRE_FISH=1 AGGREGATE_REQUIRE_PGREP=1 AGGREGATE_REQUIRE_HTML5LIB=1 AGGREGATE_REQUIRE_JQ=1 \
    AGGREGATE_REQUIRE_SQLITE3=1 AGGREGATE_REQUIRE_YAML=1
