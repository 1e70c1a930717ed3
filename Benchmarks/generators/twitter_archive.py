#!/usr/bin/env python3
"""Writes a deterministic X archive of about SIZE_MB megabytes into OUT_DIR/data: tweets.js and tweets-partN.js
(~100 MB each, as X splits them), account.js and manifest.js, in the 2022+ pretty-printed shape.

Usage: twitter_archive.py SIZE_MB OUT_DIR
"""
import json
import os
import random
import sys

WORDS = "tide quay harbour ferry buoy storm lighthouse gull net rope sail anchor dock wave pier mist".split()
PART_BYTES = 100_000_000


def tweet(rng, number):
    tweet_id = str(1_100_000_000_000_000_000 + number * 7919)
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
    if number % 7 == 0:
        text = "RT @tidewatch: " + text
    body = {
        "edit_info": {"initial": {"editTweetIds": [tweet_id], "editableUntil": "2024-01-01T00:30:00.000Z",
                                  "editsRemaining": "5", "isEditEligible": False}},
        "retweeted": False,
        "source": "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
        "entities": {"hashtags": [{"text": rng.choice(WORDS), "indices": ["0", "5"]}], "symbols": [],
                     "user_mentions": [], "urls": []},
        "display_text_range": ["0", str(len(text))],
        "favorite_count": str(rng.randint(0, 500)),
        "id_str": tweet_id,
        "truncated": False,
        "retweet_count": str(rng.randint(0, 50)),
        "id": tweet_id,
        "created_at": "Mon Jan %02d %02d:%02d:%02d +0000 2024" % (1 + number % 28, number % 24, number % 60, number % 60),
        "favorited": False,
        "full_text": text,
        "lang": "en",
    }
    if number % 5 == 0:
        body["in_reply_to_status_id_str"] = body["in_reply_to_status_id"] = str(int(tweet_id) - 1)
        body["in_reply_to_user_id"] = body["in_reply_to_user_id_str"] = "4410001"
    return json.dumps({"tweet": body}, indent=2, separators=(",", " : "), ensure_ascii=False)


def main():
    total = float(sys.argv[1]) * 1_000_000
    data = os.path.join(sys.argv[2], "data")
    os.makedirs(data, exist_ok=True)
    rng = random.Random(42)
    written, part, number = 0, 0, 0
    while written < total:
        name = "tweets.js" if part == 0 else "tweets-part%d.js" % part
        with open(os.path.join(data, name), "w", encoding="utf-8") as f:
            f.write("window.YTD.tweets.part%d = [\n" % part)
            size, first = 0, True
            while size < PART_BYTES and written + size < total:
                chunk = ("" if first else ",\n") + "  " + tweet(rng, number).replace("\n", "\n  ")
                f.write(chunk)
                size += len(chunk)
                first = False
                number += 1
            f.write("\n]")
        written += size
        part += 1
    with open(os.path.join(data, "account.js"), "w") as f:
        f.write('window.YTD.account.part0 = [\n  {\n    "account" : {\n      "username" : "quaykeeper",\n      "accountId" : "44100002"\n    }\n  }\n]')


if __name__ == "__main__":
    main()
