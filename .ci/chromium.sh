# Sourced by the headless-Chromium checks. `have_chromium WHAT SKIPPED` installs Debian's chromium when it is missing
# (saying it is for WHAT) and returns 0 once it is there; where it cannot be installed it prints
# `SKIPPED: <SKIPPED>: Debian's chromium package could not be installed here` and returns 1, so only that step is skipped.
have_chromium() {
    command -v chromium >/dev/null 2>&1 && return 0
    echo "== installing chromium (to screenshot $1)"
    if { apt-get update -qq && apt-get install -y -qq chromium >/dev/null 2>&1; } && command -v chromium >/dev/null 2>&1; then
        return 0
    fi
    echo "SKIPPED: $2: Debian's chromium package could not be installed here"
    return 1
}
