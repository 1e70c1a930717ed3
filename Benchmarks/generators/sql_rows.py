#!/usr/bin/env python3
"""Writes a run-time provider definition, `benchrows`, whose one operation answers N records offline from one
sample page: the input of Benchmarks/sql.sh's --to export.

Usage: sql_rows.py N FOLDER
"""
import json
import os
import sys

count, folder = int(sys.argv[1]), sys.argv[2]
os.makedirs(os.path.join(folder, "SampleData"), exist_ok=True)
definition = {
    "name": "benchrows",
    "displayName": "Bench rows",
    "summary": "Generated records for the SQL export benchmark.",
    "docsURL": "https://example.com/benchrows",
    "baseURL": "https://example.com/api",
    "paginationStyle": "one page",
    "operations": [{
        "name": "list",
        "summary": "Every generated record.",
        "kind": "record",
        "request": {"path": "/records"},
        "records": "records",
        "item": {"id": "id", "title": "name", "url": "link", "author": "owner", "summary": "text",
                 "metrics": {"score": "score", "count": "count"}, "extra": {"group": "group"}},
    }],
    "samples": {"list": ["SampleData/list-1.json"]},
    "examples": [{"arguments": ["benchrows", "list", "--limit", "3"], "summary": "Three records."}],
}
records = [{
    "id": str(index), "name": "Record %d" % index, "link": "https://example.com/records/%d" % index,
    "owner": "owner-%d" % (index % 97), "text": "A generated record, number %d, with a short description." % index,
    "score": index % 1000 / 10, "count": index, "group": "g%d" % (index % 13),
} for index in range(count)]
with open(os.path.join(folder, "provider.json"), "w") as out:
    json.dump(definition, out, indent=2)
with open(os.path.join(folder, "SampleData", "list-1.json"), "w") as out:
    json.dump({"records": records}, out)
