"""Writes a large YAML document made of a real OpenAPI document repeated under numbered keys (its lines indented
two spaces), so the benchmark reads real block structure, scalars of every style and anchors at any size.

Usage: python3 Benchmarks/generators/yaml_document.py SOURCE.yml SIZE_MB OUT.yml
"""
import sys

source, size_mb, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
body = "".join("  " + line if line.strip() else line for line in open(source, encoding="utf-8"))
# Anchors must stay unique per copy's scope only as YAML allows redefinition; aliases refer to the latest one.
target = int(size_mb * 1_000_000)
with open(out, "w", encoding="utf-8") as file:
    written, index = 0, 0
    while written < target:
        chunk = f"copy{index}:\n{body}"
        if not chunk.endswith("\n"):
            chunk += "\n"
        file.write(chunk)
        written += len(chunk.encode("utf-8"))
        index += 1
