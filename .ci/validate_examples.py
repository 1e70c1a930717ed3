#!/usr/bin/env python3
"""Runs every provider example offline and validates what it prints.

- `--format json` output must validate against Schemas/aggregate-result.schema.json and report status "ok";
- every raw response body (`--raw`) must validate against at least one schema in Schemas/<provider>/.

Usage: validate_examples.py path/to/aggregate
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from jsonschema import Draft202012Validator, FormatChecker

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def run(binary, arguments, env):
    completed = subprocess.run([binary, *arguments], capture_output=True, text=True, env=env, timeout=120)
    return completed.returncode, completed.stdout, completed.stderr


def main():
    binary = sys.argv[1]
    env = dict(os.environ, XDG_DATA_HOME=tempfile.mkdtemp(prefix="aggregate-ci-"), NO_COLOR="1")
    result_schema = load(ROOT / "Schemas" / "aggregate-result.schema.json")
    Draft202012Validator.check_schema(result_schema)
    result_validator = Draft202012Validator(result_schema, format_checker=FormatChecker())

    code, out, err = run(binary, ["providers", "--format", "json"], env)
    if code != 0:
        print(f"aggregate providers failed ({code}): {err}")
        return 1
    providers = json.loads(out)
    passed, failed = 0, 0

    def fail(message):
        nonlocal failed
        failed += 1
        print(f"FAIL {message}")

    for provider in providers:
        name = provider["name"]
        schema_dir = ROOT / "Schemas" / name
        raw_validators = []
        for path in sorted(schema_dir.glob("*.schema.json")):
            schema = load(path)
            Draft202012Validator.check_schema(schema)
            raw_validators.append((path.name, Draft202012Validator(schema)))
        if not raw_validators:
            fail(f"{name}: no raw response schemas in Schemas/{name}/")
            continue
        for example in provider["examples"]:
            arguments = example["arguments"]
            label = "aggregate " + " ".join(arguments)
            code, out, err = run(binary, arguments + ["--offline", "--format", "json", "--quiet"], env)
            if code != 0:
                fail(f"{label}: exit {code}: {err.strip()}")
                continue
            document = json.loads(out)
            errors = sorted(result_validator.iter_errors(document), key=lambda e: list(e.path))
            if errors:
                fail(f"{label}: --format json does not match the result schema: {errors[0].message} at {list(errors[0].path)}")
                continue
            result = document["results"][0]
            if result["status"] != "ok" or not result["items"]:
                fail(f"{label}: expected status ok with items, got {result['status']} and {len(result['items'])} items")
                continue
            if example is provider["examples"][0]:
                # --fields narrows the items and --sort reorders them; meta says so, and the schema must still hold.
                shaped = arguments + ["--offline", "--format", "json", "--quiet", "--fields", "title,url,metrics,location.city", "--sort", "-createdAt"]
                code, out, err = run(binary, shaped, env)
                document = json.loads(out) if code == 0 else None
                errors = list(result_validator.iter_errors(document)) if document else []
                meta = document["results"][0]["meta"] if document else {}
                if code != 0 or errors or meta.get("sortedLocally") != "-createdAt" or not meta.get("fields"):
                    fail(f"{label} --fields/--sort: exit {code}, {errors[0].message if errors else 'meta ' + str(meta)}")
                    continue
            code, out, err = run(binary, arguments + ["--offline", "--raw", "--quiet"], env)
            if code != 0:
                fail(f"{label} --raw: exit {code}: {err.strip()}")
                continue
            raw = json.loads(out)
            bodies = raw if result["meta"]["pages"] > 1 else [raw]
            for index, body in enumerate(bodies):
                matches = [schema for schema, validator in raw_validators if validator.is_valid(body)]
                if not matches:
                    fail(f"{label} --raw: page {index + 1} matches none of Schemas/{name}/*.schema.json")
                    break
            else:
                passed += 1
                print(f"ok   {label}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
