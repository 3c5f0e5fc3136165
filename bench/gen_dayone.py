#!/usr/bin/env python3
"""Turns a synthetic journal (DIR/entries.jsonl and DIR/media, from gen_journal.py and
gen_photos.py) into the Day One JSON export of the same journal: one Journal.json and
photos/<md5>.png, each photo referred to in its entry's text as Day One does
(`![](dayone-moment://ID)`), punctuation escaped as Day One escapes it. Times become UTC with
a time zone of the same offset. Deterministic.
Usage: gen_dayone.py DIR OUT.zip"""
import datetime, hashlib, json, os, sys, zipfile

ZONES = {"+00:00": "UTC", "Z": "UTC", "+03:00": "Etc/GMT-3", "+05:30": "Asia/Kolkata",
         "-09:30": "Pacific/Marquesas", "+09:00": "Etc/GMT-9", "-03:00": "Etc/GMT+3"}

def main():
    folder, out = sys.argv[1], sys.argv[2]
    entries, files = [], []
    for i, line in enumerate(open(os.path.join(folder, "entries.jsonl"), encoding="utf-8")):
        e = json.loads(line)
        created = datetime.datetime.fromisoformat(e["created"].replace("Z", "+00:00"))
        offset = e["created"][-6:] if not e["created"].endswith("Z") else "Z"
        entry = {
            "uuid": "%032X" % (0xD1 << 120 | i),
            "creationDate": created.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "modifiedDate": created.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "timeZone": ZONES[offset], "starred": e.get("starred", False), "tags": e.get("tags", []),
            "text": "# " + e["title"] + "\n\n" + e["body"].replace(".", "\\."),
        }
        photos = []
        for k, m in enumerate(e.get("media", [])):
            data = open(os.path.join(folder, m["path"]), "rb").read()
            md5 = hashlib.md5(data).hexdigest()
            ident = "%032X" % (0xF0 << 120 | i << 8 | k)
            photos.append({"identifier": ident, "md5": md5, "type": "png", "orderInEntry": k})
            entry["text"] += "\n\n![](dayone-moment://%s)" % ident
            files.append(("photos/%s.png" % md5, os.path.join(folder, m["path"])))
        if photos:
            entry["photos"] = photos
        entries.append(entry)
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": entries}, ensure_ascii=False, indent=2),
                   compress_type=zipfile.ZIP_DEFLATED)
        for name, path in files:
            z.write(path, name, compress_type=zipfile.ZIP_STORED)  # Day One stores media as they are

main()
