#!/usr/bin/env bash
# Checks the provider SDK's package layout (issue 11): an app that links AggregateProviders gets no emulator and
# no sample data, and no emulator depends on a client, whatever Package.swift picks up from Providers/.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package describe --type json | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
def closure(name, seen=None):
    seen = set() if seen is None else seen
    for dependency in targets[name].get("target_dependencies", []):
        if dependency not in seen:
            seen.add(dependency)
            closure(dependency, seen)
    return seen
providers = closure("AggregateProviders")
bad = sorted(name for name in providers if name.endswith("Sandbox"))
assert not bad, f"AggregateProviders links emulators: {bad}"
emulators = sorted(name for name in targets if name.endswith("Sandbox") and name != "AggregateSandbox")
assert emulators, "no <Name>Sandbox targets found"
for emulator in emulators:
    assert closure(emulator) == {"AggregateCore"}, f"{emulator} depends on {sorted(closure(emulator))}, not only AggregateCore"
clients = [name for name in providers if name.endswith("Provider")]
print(f"ok: AggregateProviders links {len(clients)} clients and no emulator; {len(emulators)} emulators depend only on AggregateCore")
'
