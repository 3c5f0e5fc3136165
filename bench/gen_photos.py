#!/usr/bin/env python3
"""Adds photos to a synthetic journal: every (N/PHOTOS)-th entry of IN.jsonl gets one
distinct PNG (200×150, different pixels each, ~60 KB) written under OUTDIR/media; writes
OUTDIR/entries.jsonl. Deterministic.
Usage: gen_photos.py IN.jsonl OUTDIR PHOTOS"""
import json, os, random, struct, sys, zlib

def png(width, height, rnd):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    base = [rnd.randrange(256) for _ in range(3)]
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            noise = rnd.randrange(64)
            rows += bytes(((base[0] + x + noise) & 255, (base[1] + y + noise) & 255, (base[2] + x * y // 97) & 255))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))

def main():
    source, outdir, photos = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(os.path.join(outdir, "media"), exist_ok=True)
    lines = open(source, encoding="utf-8").read().splitlines()
    every = max(1, len(lines) // photos)
    rnd = random.Random(7)
    made = 0
    with open(os.path.join(outdir, "entries.jsonl"), "w", encoding="utf-8") as out:
        for i, line in enumerate(lines):
            entry = json.loads(line)
            if i % every == 0 and made < photos:
                name = "photo-%05d.png" % made
                with open(os.path.join(outdir, "media", name), "wb") as f:
                    f.write(png(200, 150, rnd))
                entry["media"] = [{"kind": "photo", "path": "media/" + name, "filename": "IMG_%04d.PNG" % made}]
                made += 1
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")

main()
