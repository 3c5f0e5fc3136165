#!/usr/bin/env python3
"""Adds attachments to a generated journal, one per entry from the first on, random bytes:
the 1 GiB set (50 × 20 MiB and 2000 × 16 KiB) or, with SET `home`, the bytes issue's set
(30 × 5 MiB and 1000 × 16 KiB, 184 MB on disk with 10k entries).
Usage: gen_attachments.py IN.jsonl OUT_DIR [1gib|home]
Writes OUT_DIR/entries.jsonl and OUT_DIR/media/…"""
import json, os, sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(out, "media"), exist_ok=True)
sets = {"1gib": [20 << 20] * 50 + [16 << 10] * 2000, "home": [5 << 20] * 30 + [16 << 10] * 1000}
chosen = sys.argv[3] if len(sys.argv) > 3 else "1gib"
if chosen not in sets:
    sys.exit(f"gen_attachments.py: no set {chosen!r} (1gib or home)")
sizes = sets[chosen]
with open(src, encoding="utf-8") as f, open(os.path.join(out, "entries.jsonl"), "w", encoding="utf-8") as g:
    for i, line in enumerate(f):
        entry = json.loads(line)
        if i < len(sizes):
            name = f"media/file-{i:05d}.bin"
            with open(os.path.join(out, name), "wb") as m:
                m.write(os.urandom(sizes[i]))
            entry["media"] = [{"kind": "file", "path": name, "filename": f"file-{i:05d}.bin"}]
        g.write(json.dumps(entry, ensure_ascii=False) + "\n")
