#!/usr/bin/env python3
"""Checks the sandbox's X API v2 emulator against X's OpenAPI document (Schemas/twitter/openapi-2.62.yaml).

Starts `aggregate sandbox` on a free port and, for the document's two paths our provider uses
(`GET /2/users/by/username/{username}` and `GET /2/users/{id}/tweets`):

1. sends requests that cover every status the routes answer (200 with data, 200 with errors, empty pages,
   every filter and expansion, 401) and every injected fault status, at the root and under /twitter, and
   validates each body against the document's response schema for that status and content type (Problem
   bodies also against the schema their `type` maps to, the document's discriminator);
2. sends, for each parameter the document declares on those paths, one value the document's schema forbids,
   and expects a 400 `application/problem+json` invalid-request problem that names the parameter.

Usage: twitter_conformance.py path/to/aggregate
"""
import json
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml
from jsonschema import FormatChecker
from openapi_schema_validator import OAS30Validator

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "Schemas" / "twitter" / "openapi-2.62.yaml"
TOKEN = "sandbox-x-bearer-token"
ORBITAL = "1587369841290375168"
# The sandbox's timeline of ORBITAL has 32 posts; these bound a few of them.
SINCE, UNTIL = "1990420361353339517", "1994151406409104487"


class NoTimestampLoader(yaml.SafeLoader):
    """Keeps `2021-02-01 18:40:40+00:00` examples as strings, as JSON would."""


NoTimestampLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}


class Spec:
    def __init__(self, path):
        with open(path, encoding="utf-8") as handle:
            self.document = yaml.load(handle, Loader=NoTimestampLoader)
        self.components = self.document["components"]
        problem = self.components["schemas"]["Problem"]
        self.problem_types = {name: ref for name, ref in problem["discriminator"]["mapping"].items()}

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node:
            node = self.lookup(node["$ref"])
        return node

    def lookup(self, ref):
        node = self.document
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        return node

    def operation(self, path):
        return self.document["paths"][path]["get"]

    def parameters(self, path):
        return [self.resolve(parameter) for parameter in self.operation(path)["parameters"]]

    def validator(self, schema):
        return OAS30Validator({**schema, "components": self.components}, format_checker=FormatChecker())

    def errors(self, path, status, content_type, body):
        """The ways `body` departs from the document's response for `status` and `content_type`."""
        responses = self.operation(path)["responses"]
        response = self.resolve(responses.get(str(status)) or responses.get("default"))
        if response is None:
            return [f"the document defines no response for HTTP {status}"]
        content = response.get("content", {})
        if content_type not in content:
            return [f"HTTP {status} as {content_type!r}: the document allows only {sorted(content)}"]
        schema = content[content_type]["schema"]
        problems = [f"{'/'.join(map(str, e.path)) or '(body)'}: {e.message}" for e in self.validator(schema).iter_errors(body)]
        # The document's discriminator: each Problem also matches the schema its `type` names.
        candidates = []
        if self.resolve(schema) is self.components["schemas"]["Problem"]:
            candidates.append(body)
        elif isinstance(body, dict):
            candidates.extend(body.get("errors", []) if status == 200 else [])
        for problem in candidates:
            kind = problem.get("type") if isinstance(problem, dict) else None
            if kind not in self.problem_types:
                problems.append(f"problem type {kind!r} is not one the document maps")
                continue
            for e in self.validator({"$ref": self.problem_types[kind]}).iter_errors(problem):
                problems.append(f"{kind}: {'/'.join(map(str, e.path)) or '(problem)'}: {e.message}")
        return problems


def invalid_value(spec, parameter):
    """One value the parameter's schema forbids."""
    schema = spec.resolve(parameter["schema"])
    if schema.get("type") == "array":
        return "not_in_the_enum"
    if schema.get("type") == "integer":
        return str(schema.get("maximum", 0) + 1)
    if schema.get("format") == "date-time":
        return "2021-02-01 18:40:40"
    if "pattern" in schema:
        return "abc!"
    if schema.get("minLength"):
        return ""
    raise ValueError(f"no invalid value known for {parameter['name']}: {schema}")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_sandbox(binary):
    port = free_port()
    process = subprocess.Popen(
        [binary, "sandbox", "--port", str(port), "--data-dir", tempfile.mkdtemp(prefix="aggregate-conformance-")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"the sandbox did not start: {process.stderr.read()}")
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the sandbox did not start within 20 s")


def get(base, target, headers=None):
    request = urllib.request.Request(base + target, headers=headers if headers is not None else {"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, content_type, body = response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        status, content_type, body = error.code, error.headers.get("Content-Type", ""), error.read()
    return status, content_type.split(";")[0].strip(), body


def main():
    binary = sys.argv[1]
    spec = Spec(DOCUMENT)
    lookup, timeline = "/2/users/by/username/{username}", "/2/users/{id}/tweets"
    every = lambda name: ",".join(spec.resolve({"$ref": f"#/components/parameters/{name}"})["schema"]["items"]["enum"])
    cases = [
        (lookup, "/2/users/by/username/orbitalnotes", None),
        (lookup, f"/2/users/by/username/orbitalnotes?user.fields={every('UserFieldsParameter')}", None),
        (lookup, f"/2/users/by/username/orbitalnotes?expansions=pinned_tweet_id&tweet.fields={every('TweetFieldsParameter')}", None),
        (lookup, "/2/users/by/username/QuietVault", None),
        (lookup, "/2/users/by/username/nobody_here", None),
        (lookup, "/2/users/by/username/orbitalnotes", {}),
        (timeline, f"/2/users/{ORBITAL}/tweets", None),
        (timeline, f"/2/users/{ORBITAL}/tweets?max_results=100&tweet.fields={every('TweetFieldsParameter')}"
            f"&expansions={every('TweetExpansionsParameter')}&user.fields={every('UserFieldsParameter')}"
            f"&media.fields={every('MediaFieldsParameter')}&poll.fields={every('PollFieldsParameter')}"
            f"&place.fields={every('PlaceFieldsParameter')}", None),
        (timeline, f"/2/users/{ORBITAL}/tweets?max_results=5&exclude=replies,retweets", None),
        (timeline, f"/2/users/{ORBITAL}/tweets?since_id={SINCE}&until_id={UNTIL}", None),
        (timeline, f"/2/users/{ORBITAL}/tweets?start_time=2025-11-12T00:00:00Z&end_time=2025-11-20T00:00:00.000Z", None),
        (timeline, f"/2/users/{ORBITAL}/tweets?since_id={UNTIL}&until_id={SINCE}", None),
        (timeline, "/2/users/1720044553189023744/tweets", None),
        (timeline, "/2/users/880129472/tweets", None),
        (timeline, "/2/users/1234/tweets", None),
        (timeline, f"/2/users/{ORBITAL}/tweets", {}),
    ]
    process, base = start_sandbox(binary)
    passed, failed = 0, 0

    def check(label, path, status, content_type, body, expect_status=None):
        nonlocal passed, failed
        problems = []
        if expect_status is not None and status != expect_status:
            problems.append(f"expected HTTP {expect_status}, got {status}")
        try:
            document = json.loads(body)
        except ValueError:
            problems.append(f"the body is not JSON: {body[:60]!r}")
        else:
            problems += spec.errors(path, status, content_type, document)
        if problems:
            failed += 1
            print(f"FAIL {label} -> {status} {content_type}: " + "; ".join(problems[:3]))
        else:
            passed += 1
            print(f"ok   {label} -> {status} {content_type}")
        return problems

    try:
        # 1. Responses, at the root and mounted, with and without a page token from the first page.
        for path, target, headers in cases:
            for prefix in ("", "/twitter"):
                status, content_type, body = get(base, prefix + target, headers)
                check(prefix + target, path, status, content_type, body)
                token = json.loads(body).get("meta", {}).get("next_token") if status == 200 else None
                if token and prefix == "":
                    paged = f"{target}{'&' if '?' in target else '?'}pagination_token={token}"
                    status, content_type, body = get(base, paged, headers)
                    check(paged, path, status, content_type, body)
                    previous = json.loads(body).get("meta", {}).get("previous_token")
                    if previous:
                        back = f"{target}{'&' if '?' in target else '?'}pagination_token={previous}"
                        check(back, path, *get(base, back, headers))
        # Injected faults, in X's shape at the root and mounted.
        for path, target in ((lookup, "/2/users/by/username/orbitalnotes"), (timeline, f"/2/users/{ORBITAL}/tweets")):
            for fault in (400, 401, 403, 404, 429, 500, 502, 503, 504):
                for prefix in ("", "/twitter"):
                    headers = {"Authorization": f"Bearer {TOKEN}", "X-Sandbox-Fault": f"status={fault}"}
                    check(f"{prefix}{target} [fault status={fault}]", path, *get(base, prefix + target, headers), expect_status=fault)

        # 2. One invalid value per declared parameter.
        examples = {lookup: "/2/users/by/username/orbitalnotes", timeline: f"/2/users/{ORBITAL}/tweets"}
        for path, target in examples.items():
            for parameter in spec.parameters(path):
                name, value = parameter["name"], invalid_value(spec, parameter)
                if parameter["in"] == "path":
                    bad = path.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
                else:
                    bad = f"{target}?{urllib.parse.quote(name)}={urllib.parse.quote(value)}"
                status, content_type, body = get(base, bad)
                label = f"{bad} (invalid {name})"
                problems = check(label, path, status, content_type, body, expect_status=400)
                if not problems:
                    document = json.loads(body)
                    named = [key for error in document.get("errors", []) for key in error.get("parameters", {})]
                    if content_type != "application/problem+json" or name not in named:
                        passed -= 1
                        failed += 1
                        print(f"FAIL {label}: expected an application/problem+json naming {name}, got {content_type} naming {named}")
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
