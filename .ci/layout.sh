#!/usr/bin/env bash
# Checks the package layout (docs/architecture.md): each module imports and depends on only what its rules allow
# (its main file's `// May import:` line; Package.swift's clientModules and emulatorModules for providers), an app
# that links AggregateProviders gets no emulator code, no emulator depends on a client, the executable names no
# provider target, and AggregateCore stays within its size. See .ci/layout.py.
set -euo pipefail
cd "$(dirname "$0")/.."
description="$(mktemp)"
trap 'rm -f "$description"' EXIT
swift package describe --type json > "$description"
python3 .ci/layout.py "$description"
