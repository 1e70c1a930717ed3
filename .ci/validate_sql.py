#!/usr/bin/env python3
"""Runs `aggregate sql` statements offline and validates what they print.

- `--format json` output must validate against Schemas/sql-result.schema.json, with one value per column in each row
  (which a schema cannot say) and the exit code and failures each case expects;
- `--plan --format json` output must validate against Schemas/sql-plan.schema.json, with the scans each case expects.

Usage: validate_sql.py path/to/aggregate
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from jsonschema import Draft202012Validator

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (label, statement, extra options, expected exit code, expected failing tables)
RESULTS = [
    ("a filter", "SELECT title, vote_average FROM tmdb_popular WHERE vote_average > 8", [], 0, []),
    ("key columns", "SELECT title, created_at FROM tmdb_search('leon') WHERE year = 1994", [], 0, []),
    ("an IN list", "SELECT movie_id, title, extra ->> '$.directors[0]' AS director FROM tmdb_movie WHERE movie_id IN (1930, 603)", [], 0, []),
    ("a join", "SELECT p.title, m.runtime FROM tmdb_popular p JOIN tmdb_movie m ON m.movie_id = p.id LIMIT 3", [], 0, []),
    ("a join across providers",
     "SELECT g.title AS repo, h.title AS story FROM github_search('swift') g JOIN hackernews_search h ON h.query = g.extra ->> 'language' LIMIT 4",
     [], 0, []),
    ("an aggregate", "SELECT extra ->> 'language' AS lang, count(*) AS repos, sum(stars) AS stars FROM github_search('swift') GROUP BY lang", [], 0, []),
    ("every column", "SELECT * FROM kiva_newest LIMIT 2", [], 0, []),
    ("no provider table", "SELECT 1 AS one, 'two' AS two, NULL AS three, 2.5 AS four", [], 0, []),
    ("--partial with a failing table",
     "SELECT title, likes FROM twitter_timeline('nosuchuser99') UNION ALL SELECT title, vote_count FROM tmdb_popular LIMIT 2",
     ["--partial"], 3, ["twitter_timeline"]),
]

# (label, statement, expected tables in loop order, expected totalRequests is known)
PLANS = [
    ("a constant key and LIMIT", "SELECT title FROM tmdb_search WHERE query = 'leon' AND year = 1994 LIMIT 5", ["tmdb_search"], True),
    ("a join", "SELECT s.title, m.subtitle FROM tmdb_search('batman') s JOIN tmdb_movie m ON m.movie_id = s.id", ["tmdb_search", "tmdb_movie"], True),
    ("an IN list", "SELECT title FROM tmdb_movie WHERE movie_id IN (1930, 603)", ["tmdb_movie"], False),
    ("no provider table", "SELECT 1", [], True),
]


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def validator(name):
    schema = load(ROOT / "Schemas" / name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def main():
    binary = sys.argv[1]
    home = tempfile.mkdtemp(prefix="aggregate-ci-sql-")
    env = dict(os.environ, XDG_DATA_HOME=home + "/data", XDG_CACHE_HOME=home + "/cache", XDG_CONFIG_HOME=home + "/config", NO_COLOR="1")
    results, plans = validator("sql-result.schema.json"), validator("sql-plan.schema.json")
    passed, failed = 0, 0

    def check(label, arguments, schema, expected_code):
        nonlocal failed
        completed = subprocess.run([binary, "sql", *arguments, "--offline", "--quiet", "--format", "json"],
                                   capture_output=True, text=True, env=env, timeout=120)
        if completed.returncode != expected_code:
            failed += 1
            print(f"FAIL sql {label}: exit {completed.returncode}, expected {expected_code}: {completed.stderr.strip()}")
            return None
        document = json.loads(completed.stdout)
        errors = sorted(schema.iter_errors(document), key=lambda e: list(e.path))
        if errors:
            failed += 1
            print(f"FAIL sql {label}: does not match the schema: {errors[0].message} at {list(errors[0].path)}")
            return None
        return document

    def verdict(label, problem):
        nonlocal passed, failed
        if problem:
            failed += 1
            print(f"FAIL sql {label}: {problem}")
        else:
            passed += 1
            print(f"ok   sql {label}")

    for label, statement, options, code, failing in RESULTS:
        document = check(label, [statement, *options], results, code)
        if document is None:
            continue
        widths = {len(row) for row in document["rows"]}
        tables = [failure["table"] for failure in document["meta"]["failures"]]
        if widths - {len(document["columns"])}:
            verdict(label, f"rows of {sorted(widths)} values for {len(document['columns'])} columns")
        elif document["meta"]["rowCount"] != len(document["rows"]):
            verdict(label, f"rowCount {document['meta']['rowCount']} for {len(document['rows'])} rows")
        elif tables != failing:
            verdict(label, f"failing tables {tables}, expected {failing}")
        elif not document["rows"]:
            verdict(label, "no rows (every case here has some)")
        else:
            verdict(label, None)

    for label, statement, tables, known in PLANS:
        document = check("--plan " + label, [statement, "--plan"], plans, 0)
        if document is None:
            continue
        seen = [scan["table"] for scan in document["scans"]]
        if seen != tables:
            verdict("--plan " + label, f"scans {seen}, expected {tables}")
        elif (document["totalRequests"] is not None) != known:
            verdict("--plan " + label, f"totalRequests {document['totalRequests']}")
        else:
            verdict("--plan " + label, None)

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
