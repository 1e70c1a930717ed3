#!/usr/bin/env python3
"""Finds the ways Swift code can trap on input: `try!`, `as!`, force unwraps, `fatalError`, `precondition` and
`preconditionFailure`, in the project's own sources (Sources/ and Providers/, generated data excepted).

Issue 26 asks that no input, output, file system or network path can reach a trap, so none is allowed at all:
a trap that "cannot happen" is rewritten to throw or to fall back, which costs a line and removes the argument.
String literals and comments are blanked before matching, so `"Hello!"` and `// why!` are not findings.
Prints `file:line: <kind>: <source line>` per finding and exits 1 when there is any.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FOLDERS = ["Sources", "Providers"]
SKIPPED = {os.path.join("Sources", "AggregateTestSupport")}  # test helpers, linked only by tests

PATTERNS = [
    ("try!", re.compile(r"\btry!")),
    ("as!", re.compile(r"\bas!")),
    ("fatalError", re.compile(r"\bfatalError\s*\(")),
    ("precondition", re.compile(r"\bprecondition(Failure)?\s*\(")),
    ("unsafelyUnwrapped", re.compile(r"\.unsafelyUnwrapped\b")),
    # `x!`, `f()!`, `a[0]!` followed by a member access, a separator or the end; `!=` and prefix `!x` are not.
    ("force unwrap", re.compile(r"(?<!\btry)(?<!\bas)(?<=[\w\)\]\?\}])!(?!=)(?=[\s\.\)\],;:\[\}]|$)")),
]


def blank_literals(line, in_block_comment):
    """The line with string contents and comments replaced by spaces, keeping the code of `\\(...)`
    interpolations; tracks /* */ across lines."""
    out = []
    i = 0
    # A stack of what encloses the current character: "string", or an int (the paren depth of an interpolation).
    stack = []
    while i < len(line):
        c = line[i]
        in_string = bool(stack) and stack[-1] == "string"
        if in_block_comment:
            if line.startswith("*/", i):
                in_block_comment = False
                i += 2
                continue
            out.append(" ")
        elif in_string:
            if line.startswith("\\(", i):
                stack.append(0)
                out.append("\\(")
                i += 2
                continue
            if c == "\\":
                out.append("  ")
                i += 2
                continue
            if c == '"':
                stack.pop()
                out.append('"')
            else:
                out.append(" ")
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block_comment = True
            i += 2
            continue
        elif c == '"':
            stack.append("string")
            out.append('"')
        else:
            if stack and c == "(":
                stack[-1] += 1
            elif stack and c == ")":
                if stack[-1] == 0:
                    stack.pop()  # the interpolation ends; back in its string
                else:
                    stack[-1] -= 1
            out.append(c)
        i += 1
    return "".join(out), in_block_comment


def scan(path):
    findings = []
    in_block = False
    in_multiline_string = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.count('"""') % 2 == 1:
                in_multiline_string = not in_multiline_string
                continue
            if in_multiline_string:
                continue
            code, in_block = blank_literals(line.rstrip("\n"), in_block)
            for kind, pattern in PATTERNS:
                if pattern.search(code):
                    findings.append(f"{os.path.relpath(path, ROOT)}:{number}: {kind}: {line.strip()}")
    return findings


def main():
    findings = []
    for folder in FOLDERS:
        for directory, _, files in os.walk(os.path.join(ROOT, folder)):
            relative = os.path.relpath(directory, ROOT)
            if any(relative == s or relative.startswith(s + os.sep) for s in SKIPPED) or "Generated" in relative.split(os.sep):
                continue
            for name in sorted(files):
                if name.endswith(".swift"):
                    findings.extend(scan(os.path.join(directory, name)))
    for finding in findings:
        print(f"no-traps: {finding}")
    if findings:
        print(f"no-traps: {len(findings)} way(s) to trap; throw, fall back or use a checked operation instead")
        return 1
    print("no-traps: no try!, as!, force unwrap, fatalError or precondition in Sources/ and Providers/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
