"""Checks that a headless-Chromium screenshot is a real picture, not a blank or single-colour page.

Usage: python3 .ci/check_png.py PNG LABEL [MIN_BYTES]
Exits 1 with a FAIL line when the file is missing, not a PNG, or looks trivial; prints an ok line otherwise.
"""
import struct
import sys
import zlib

path, label = sys.argv[1], sys.argv[2]
min_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 50_000
try:
    data = open(path, "rb").read()
except OSError:
    sys.exit(f"FAIL: chromium wrote no screenshot at {path}")
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"FAIL: {path} is not a PNG")
width, height = struct.unpack(">II", data[16:24])
# Decompress the image data and count distinct bytes: a blank or single-colour page has very few.
chunks, offset = [], 8
while offset < len(data):
    length, kind = struct.unpack(">I4s", data[offset:offset + 8])
    if kind == b"IDAT":
        chunks.append(data[offset + 8:offset + 8 + length])
    offset += 12 + length
pixels = zlib.decompress(b"".join(chunks))
distinct = len(set(pixels))
if width < 800 or height < 800 or len(data) < min_bytes or distinct < 64:
    sys.exit(f"FAIL: the screenshot looks trivial: {width}x{height}, {len(data)} bytes, {distinct} distinct byte values")
print(f"ok   {label} renders: {width}x{height} PNG, {len(data)} bytes")
