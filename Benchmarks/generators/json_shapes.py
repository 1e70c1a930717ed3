#!/usr/bin/env python3
"""Writes a deterministic JSON document of about SIZE megabytes in one of two shapes that stress other paths of a
JSON reader than the TMDb-like page does:

- `deep`: an array of records nested 40 levels deep (objects and arrays alternating), short keys and small values,
  so containers and punctuation dominate;
- `strings`: an array of records whose bytes are mostly long strings: ASCII prose, accented and CJK text, emoji,
  and escapes (`\\n`, `\\"`), so string scanning and UTF-8 checking dominate.

Usage: json_shapes.py deep|strings SIZE_MB OUT_FILE
The same arguments always give the same bytes (seeded).
"""
import json
import random
import sys

WORDS = "alpha beta gamma delta river stone light cloud paper window garden signal".split()
WIDE = ["café", "naïve", "日本語", "Zürich", "🎉", "São Paulo", "Ελληνικά", "привет"]


def deep(rng, number, levels=40):
    value = {"id": number, "ok": rng.random() < 0.5}
    for level in range(levels):
        if level % 2:
            value = [level, value, None]
        else:
            value = {"k%d" % level: value, "n": rng.randint(0, 999)}
    return value


def text(rng, words):
    parts = []
    for _ in range(words):
        pick = rng.random()
        if pick < 0.08:
            parts.append(rng.choice(WIDE))
        elif pick < 0.10:
            parts.append('"%s"\n' % rng.choice(WORDS))
        else:
            parts.append(rng.choice(WORDS))
    return " ".join(parts)


def strings(rng, number):
    return {"id": number, "title": text(rng, 8), "body": text(rng, rng.randint(60, 200)), "note": text(rng, 20)}


def main():
    shape, size, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    make = {"deep": deep, "strings": strings}[shape]
    rng = random.Random(24)
    target = size * 1_000_000
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("[\n")
        number = 0
        while written < target:
            line = ("" if number == 0 else ",\n") + json.dumps(make(rng, number), ensure_ascii=False, separators=(",", ":"))
            out.write(line)
            written += len(line.encode("utf-8"))
            number += 1
        out.write("\n]\n")


if __name__ == "__main__":
    main()
