# Sourced by the CI scripts: `ci_venv NAME PACKAGE...` makes (once) the Python virtual environment
# ${TMPDIR:-/tmp}/NAME, installs PACKAGE... into it with pip, and sets $venv to its folder.
ci_venv() {
    venv="${TMPDIR:-/tmp}/$1"
    shift
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
}
