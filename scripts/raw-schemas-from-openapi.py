#!/usr/bin/env python3
"""Writes the raw-shape schemas (Schemas/<name>/<operation>.schema.json) of a provider imported from an OpenAPI
document: for each operation of Providers/<Folder>/provider.json, the document's 200 response schema of the same
GET path, as JSON Schema 2020-12 with its local $refs inlined (a schema that names itself again becomes `{}` below
the first level), OpenAPI 3.0's `nullable` as a type list, and OpenAPI-only keywords dropped. .ci/definitions.sh then
checks every sample page against them, so a hand edit or a synthesized sample that strays from the document fails CI.

Usage: scripts/raw-schemas-from-openapi.py Providers/<Folder>/provider.json Providers/<Folder>/<document> Schemas/<name>
(YAML documents need PyYAML.)
"""
import json
import pathlib
import sys

KEEP = {"type", "properties", "items", "required", "enum", "format", "minimum", "maximum", "allOf", "anyOf", "oneOf",
        "additionalProperties", "minItems", "maxItems", "pattern", "minLength", "maxLength", "const"}


def load(path):
    text = pathlib.Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("{"):
        return json.loads(text)
    import yaml
    return yaml.safe_load(text)


def resolve(document, ref):
    node = document
    for token in ref[2:].split("/"):
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node


def convert(document, schema, seen):
    if not isinstance(schema, dict):
        return {}
    if "$ref" in schema:
        ref = schema["$ref"]
        if ref in seen:
            return {}
        return convert(document, resolve(document, ref), seen | {ref})
    out = {}
    for key, value in schema.items():
        if key not in KEEP:
            continue
        if key == "properties":
            out[key] = {name: convert(document, sub, seen) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = convert(document, value, seen)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [convert(document, sub, seen) for sub in value]
        elif key in ("minimum", "maximum") and isinstance(value, str):
            out[key] = float(value) if "." in value else int(value)  # Jikan writes maximum: '5'
        elif key == "type":
            # Jikan writes `type: float`; JSON Schema knows number and integer.
            names = {"float": "number", "double": "number", "int": "integer", "long": "integer"}
            out[key] = [names.get(t, t) for t in value] if isinstance(value, list) else names.get(value, value)
        elif key == "required" and not isinstance(value, list):
            continue  # Spotify's `required: true` inside a schema
        else:
            out[key] = value
    if schema.get("nullable") is True and "type" in out:
        out["type"] = [out["type"], "null"] if isinstance(out["type"], str) else out["type"] + ["null"]
    if "format" in out and out["format"] not in ("date-time", "date", "uri", "email"):
        del out["format"]
    return out


def main():
    definition_path, document_path, target = sys.argv[1:4]
    definition = load(definition_path)
    document = load(document_path)
    base = document.get("basePath", "")
    target = pathlib.Path(target)
    target.mkdir(parents=True, exist_ok=True)
    for operation in definition["operations"]:
        path = operation["request"]["path"]
        candidates = [path, path[len(base):] if base and path.startswith(base) else path]
        item = next((document["paths"][p] for p in candidates if p in document["paths"]), None)
        if item is None:
            sys.exit(f"{operation['name']}: {path} is not a path of {document_path}")
        response = item["get"]["responses"]["200"]
        schema = response.get("schema") or response["content"]["application/json"]["schema"]
        raw = {"$schema": "https://json-schema.org/draft/2020-12/schema",
               "title": f"{definition['name']} {operation['name']}: GET {path}, 200",
               "description": f"From {pathlib.Path(document_path).name} (paths/{path}/get/responses/200) by scripts/raw-schemas-from-openapi.py."}
        raw.update(convert(document, schema, frozenset()))
        (target / f"{operation['name']}.schema.json").write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")


main()
