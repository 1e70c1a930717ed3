#!/usr/bin/env bash
# The engine's fixture definitions (Tests/**/Fixtures/Definitions/*/provider.json) and any compiled-in ones
# (Providers/*/provider.json) against Schemas/provider-definition.schema.json, with a real JSON Schema validator,
# so the schema and the Swift loader cannot drift apart on the definitions the tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/venv.sh
ci_venv aggregate-ci-venv "jsonschema>=4.18"
"$venv/bin/python" - <<'PYTHON'
import json
import pathlib
import sys

from jsonschema import Draft202012Validator

root = pathlib.Path.cwd()
schema = json.loads((root / "Schemas/provider-definition.schema.json").read_text(encoding="utf-8"))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
files = sorted(root.glob("Tests/*/Fixtures/Definitions/*/provider.json")) + sorted(root.glob("Providers/*/provider.json"))
if not files:
    sys.exit("no definitions found")
failed = 0
for path in files:
    definition = json.loads(path.read_text(encoding="utf-8"))
    errors = sorted(validator.iter_errors(definition), key=lambda error: list(error.absolute_path))
    label = path.relative_to(root)
    for error in errors:
        print(f"FAIL {label}: /{'/'.join(map(str, error.absolute_path))}: {error.message}")
    missing = [file for files in definition.get("samples", {}).values() for file in files if not (path.parent / file).is_file()]
    for file in missing:
        print(f"FAIL {label}: the sample {file} does not exist")
    failed += bool(errors or missing)
    if not errors and not missing:
        print(f"ok   {label}")
sys.exit(1 if failed else 0)
PYTHON
