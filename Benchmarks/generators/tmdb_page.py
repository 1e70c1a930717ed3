#!/usr/bin/env python3
"""Writes a deterministic TMDb-like search page (one `results` array of movies) of about SIZE megabytes.

Usage: tmdb_page.py SIZE_MB OUT_FILE [--ndjson-pages N]
The same size always gives the same bytes (seeded), so runs compare like with like.
"""
import json
import random
import sys

WORDS = ("night dark return empire star lost city river shadow king queen last first war love summer winter "
         "island storm dream ghost iron glass golden silent broken wild secret house road sea sky fire").split()


def movie(rng, number):
    title = " ".join(rng.choice(WORDS).capitalize() for _ in range(rng.randint(1, 4)))
    return {
        "adult": False,
        "backdrop_path": "/%s.jpg" % "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(27)),
        "genre_ids": [rng.choice([12, 14, 16, 18, 27, 28, 35, 53, 80, 878, 10749]) for _ in range(rng.randint(1, 3))],
        "id": 100000 + number,
        "original_language": rng.choice(["en", "fr", "ja", "de", "es", "ko"]),
        "original_title": title,
        "overview": " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))) + " — “%s” été." % title,
        "popularity": round(rng.uniform(0.5, 900.0), 3),
        "poster_path": "/%s.jpg" % "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(27)),
        "release_date": "%04d-%02d-%02d" % (rng.randint(1950, 2025), rng.randint(1, 12), rng.randint(1, 28)),
        "title": title,
        "video": False,
        "vote_average": round(rng.uniform(0, 10), 3),
        "vote_count": rng.randint(0, 30000),
    }


def main():
    size = float(sys.argv[1]) * 1_000_000
    out = sys.argv[2]
    rng = random.Random(20261130)
    movies = []
    total = 0
    while total < size:
        m = movie(rng, len(movies))
        movies.append(m)
        total += len(json.dumps(m, ensure_ascii=False).encode()) + 2
    page = {"page": 1, "results": movies, "total_pages": 1, "total_results": len(movies)}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(page, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
