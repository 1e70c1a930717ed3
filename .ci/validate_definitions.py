#!/usr/bin/env python3
"""Validates the raw response shapes of the compiled-in provider definitions (the definitions themselves are
checked against Schemas/provider-definition.schema.json by .ci/definition-fixtures.sh):

- every sample page a definition lists, and every response body in ../shared/api/samples/<name>/ (when that folder
  exists), against at least one of Schemas/<name>/*.schema.json; files the raw schemas do not cover (other
  endpoints such as Firebase items or /search/code) are listed in SKIP below, each with its reason.

Usage: validate_definitions.py
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "api" / "samples"

# Shared samples of endpoints the definitions do not call, so no raw schema describes them.
SKIP = {
    "github": ("search_code_",),  # GET /search/code: another endpoint
    "hackernews": ("firebase_", "item_"),  # the Firebase API and GET /items/:id: other endpoints
}


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def main():
    failed = 0
    for path in sorted(ROOT.glob("Providers/*/provider.json")):
        definition = load(path)
        label = path.relative_to(ROOT)
        name = definition["name"]
        raw = []
        for schema_path in sorted((ROOT / "Schemas" / name).glob("*.schema.json")):
            schema = load(schema_path)
            Draft202012Validator.check_schema(schema)
            raw.append(Draft202012Validator(schema))
        if not raw:
            failed += 1
            print(f"FAIL {label}: no raw response schemas in Schemas/{name}/")
            continue
        bodies = [path.parent / file for files in definition.get("samples", {}).values() for file in files]
        shared = SHARED / name
        if shared.is_dir():
            bodies += [
                file for file in sorted(shared.glob("*.json"))
                if ".headers" not in file.name and not file.name.startswith(SKIP.get(name, ()))
            ]
        else:
            print(f"note {name}: {shared} is absent; only the bundled samples are checked")
        for body in bodies:
            document = load(body)
            if not any(schema.is_valid(document) for schema in raw):
                failed += 1
                print(f"FAIL {body}: matches none of Schemas/{name}/*.schema.json")
            else:
                print(f"ok   {body.relative_to(ROOT.parent) if SHARED in body.parents else body.relative_to(ROOT)}")
    print("every sample matches its raw-shape schema" if not failed else f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
