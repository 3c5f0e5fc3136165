#!/usr/bin/env python3
"""Adds attachments to a generated journal: 50 × 20 MiB and 2000 × 16 KiB random files
(1 GiB), one per entry from the first on. Usage: gen_attachments.py IN.jsonl OUT_DIR
Writes OUT_DIR/entries.jsonl and OUT_DIR/media/…"""
import json, os, sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(out, "media"), exist_ok=True)
sizes = [20 << 20] * 50 + [16 << 10] * 2000
with open(src, encoding="utf-8") as f, open(os.path.join(out, "entries.jsonl"), "w", encoding="utf-8") as g:
    for i, line in enumerate(f):
        entry = json.loads(line)
        if i < len(sizes):
            name = f"media/file-{i:05d}.bin"
            with open(os.path.join(out, name), "wb") as m:
                m.write(os.urandom(sizes[i]))
            entry["media"] = [{"kind": "file", "path": name, "filename": f"file-{i:05d}.bin"}]
        g.write(json.dumps(entry, ensure_ascii=False) + "\n")
