"""Keeps the module layout true (docs/architecture.md): every import and every target dependency of every module is
one its rules allow, and the boundaries the architecture promises hold.

The rules come from the code, not from this file: each module under Sources/ says what it may import on the
`// May import:` line of its main file (`Sources/<Module>/<Module>.swift`, `main.swift` for the executable), and a
provider's client and emulator targets may import what `clientModules` and `emulatorModules` in Package.swift
list, and Foundation. `<Name>Sandbox` / `<Name>Provider` in a rule stand for every provider's target of that kind.

Usage: python3 .ci/layout.py PACKAGE_DESCRIPTION.json     (from `swift package describe --type json`)
Exits 1 with one line per violation.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE_LINE_LIMIT = 3500
IMPORT = re.compile(r'^\s*(?:@testable\s+|@_exported\s+)?(?:public\s+|package\s+|internal\s+)?import\s+(?:(?:struct|enum|class|func|protocol|typealias)\s+)?([A-Za-z_]\w*)')

description = json.load(open(sys.argv[1]))
targets = {t["name"]: t for t in description["targets"]}
problems = []


def swift_files(target):
    base = os.path.join(ROOT, target["path"])
    excluded = [os.path.join(base, e) for e in target.get("exclude", [])] if "exclude" in target else []
    for folder, subfolders, files in os.walk(base):
        # A provider's client target does not own its Sandbox/ folder, which is the emulator's target.
        if target["name"].endswith("Provider") and os.path.relpath(folder, base).split(os.sep)[0] in ("Sandbox", "SampleData"):
            continue
        for name in files:
            if name.endswith(".swift"):
                yield os.path.join(folder, name)


def imports(path):
    """The modules a file imports, outside multi-line string literals (templates hold import lines as text)."""
    found, in_string = [], False
    for line in open(path, encoding="utf-8"):
        if line.count('"""') % 2 == 1:
            in_string = not in_string
            continue
        if in_string:
            continue
        match = IMPORT.match(line)
        if match:
            found.append(match.group(1))
    return found


def package_list(name):
    text = open(os.path.join(ROOT, "Package.swift")).read()
    match = re.search(r'let %s: \[Target\.Dependency\] = \[([^\]]*)\]' % name, text)
    if not match:
        sys.exit(f"layout: Package.swift has no '{name}' list")
    return re.findall(r'"(\w+)"', match.group(1))


def expand(rule, name):
    allowed = set()
    for word in rule:
        if word == "<Name>Sandbox":
            allowed |= {t for t in targets if t.endswith("Sandbox") and targets[t]["path"].startswith("Providers/")}
        elif word == "<Name>Provider":
            allowed |= {t for t in targets if t.endswith("Provider") and targets[t]["path"].startswith("Providers/")}
        else:
            allowed.add(word)
    return allowed


def rule_of(name):
    target = targets[name]
    path = target["path"]
    if path.startswith("Providers/"):
        kind = "emulatorModules" if name.endswith("Sandbox") else "clientModules"
        return set(package_list(kind)) | {"Foundation"}, f"Package.swift's {kind}"
    main = os.path.join(ROOT, path, "main.swift" if target["type"] == "executable" else f"{name}.swift")
    if not os.path.exists(main):
        problems.append(f"{name}: no main file {os.path.relpath(main, ROOT)} saying what the module is for and may import")
        return None, None
    match = re.search(r'^// May import: (.*)$', open(main).read(), re.M)
    if not match:
        problems.append(f"{os.path.relpath(main, ROOT)}: no '// May import:' line")
        return None, None
    return expand([w.strip() for w in match.group(1).split(",")], name), os.path.relpath(main, ROOT)


def closure(name, seen=None):
    seen = set() if seen is None else seen
    for dependency in targets[name].get("target_dependencies", []):
        if dependency not in seen:
            seen.add(dependency)
            closure(dependency, seen)
    return seen


checked = 0
for name, target in sorted(targets.items()):
    # A system library (CSQLite) is a module map over the machine's headers, and a C target (CCurlShim) is C: no
    # Swift, nothing to import. What may depend on them is the Swift modules' rules.
    if target["type"] in ("test", "system-target") or target.get("module_type") == "ClangTarget":
        continue
    allowed, source = rule_of(name)
    if allowed is None:
        continue
    for dependency in target.get("target_dependencies", []):
        if dependency not in allowed:
            problems.append(f"{name}: depends on {dependency} in Package.swift, which {source} does not allow")
    for path in swift_files(target):
        checked += 1
        for module in imports(path):
            if module == name:
                continue
            if module not in allowed:
                problems.append(f"{os.path.relpath(path, ROOT)}: imports {module}, which {source} does not allow for {name}")
            elif module in targets and module not in target.get("target_dependencies", []):
                problems.append(f"{os.path.relpath(path, ROOT)}: imports {module}, which {name} does not depend on in Package.swift")

# A test target imports only modules it depends on (a build that happens to have built them first would hide it).
for name, target in sorted(targets.items()):
    if target["type"] != "test":
        continue
    reachable = closure(name)
    for path in swift_files(target):
        checked += 1
        for module in imports(path):
            if module in targets and module != name and module not in reachable:
                problems.append(f"{os.path.relpath(path, ROOT)}: imports {module}, which the test target {name} does not depend on in Package.swift")

# An app that links the providers links no emulator code: no emulator target, no kit, no Sandbox* file.
providers = closure("AggregateProviders")
emulator_side = sorted(t for t in providers if t.endswith("Sandbox") or t == "AggregateSandboxKit")
if emulator_side:
    problems.append(f"AggregateProviders links emulator code: {emulator_side}")
for name in sorted(providers | {"AggregateProviders"}):
    for path in swift_files(targets[name]):
        if os.path.basename(path).startswith("Sandbox"):
            problems.append(f"{os.path.relpath(path, ROOT)}: a Sandbox file in {name}, which AggregateProviders links")
# No emulator depends on a client.
emulators = sorted(t for t in targets if t.endswith("Sandbox") and targets[t]["path"].startswith("Providers/"))
for emulator in emulators:
    clients = sorted(t for t in closure(emulator) if t.endswith("Provider"))
    if clients:
        problems.append(f"{emulator} depends on the clients {clients}")
# The executable reaches providers through the umbrellas only.
named = sorted(t for t in closure("aggregate") & set(targets["aggregate"].get("target_dependencies", [])) if targets[t]["path"].startswith("Providers/"))
if named:
    problems.append(f"the executable depends on provider targets by name: {named}")
# The executable links no FoundationNetworking (libcurl and OpenSSL at every start): only AggregateURLSession, which
# it links on Apple platforms alone, may import it.
for name in sorted(closure("aggregate") | {"aggregate"}):
    if name == "AggregateURLSession" or targets[name]["type"] in ("system-target",) or targets[name].get("module_type") == "ClangTarget":
        continue
    for path in swift_files(targets[name]):
        if "FoundationNetworking" in imports(path):
            problems.append(f"{os.path.relpath(path, ROOT)}: imports FoundationNetworking, which the executable must not link (see AggregateURLSession)")
# The core stays small.
core_lines = sum(sum(1 for _ in open(p)) for p in swift_files(targets["AggregateCore"]) if "/Generated/" not in p)
if core_lines > CORE_LINE_LIMIT:
    problems.append(f"AggregateCore is {core_lines} lines, over the {CORE_LINE_LIMIT} the architecture allows; move what is not shared out")

for problem in problems:
    print(f"layout: {problem}")
if problems:
    sys.exit(1)
clients = [t for t in providers if t.endswith("Provider")]
print(f"ok: {checked} files in {len([t for t in targets.values() if t['type'] != 'test'])} modules import only what their rules allow; "
      f"AggregateProviders links {len(clients)} clients and no emulator; {len(emulators)} emulators depend on no client; "
      f"AggregateCore is {core_lines} lines")
