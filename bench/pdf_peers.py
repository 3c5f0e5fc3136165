#!/usr/bin/env python3
"""Makes the peers' inputs for bench/pdf from the same journal:
  html EPUB OUTDIR  — the EPUB export's own chapters joined into OUTDIR/book.html (its
                      style sheet, its images), with an A5 @page rule, for WeasyPrint;
  typst DUMP OUTDIR — OUTDIR/book.typ from `quire export json` (DUMP/entries.jsonl and
                      DUMP/media/): the same book in Typst (headings by year and month, each
                      entry's title, date and tags, its paragraphs and photos) with an outline.
Deterministic; the standard library only."""
import html
import json
import os
import re
import sys
import zipfile


def from_epub(epub, outdir):
    os.makedirs(outdir, exist_ok=True)
    with zipfile.ZipFile(epub) as book:
        book.extractall(outdir)
        opf = book.read("EPUB/package.opf").decode()
    hrefs = dict(re.findall(r'<item id="([^"]+)" href="([^"]+)"', opf))
    spine = [hrefs[i] for i in re.findall(r'<itemref idref="([^"]+)"', opf) if hrefs[i].startswith("text/")]
    bodies = []
    for href in spine:
        page = open(os.path.join(outdir, "EPUB", href), encoding="utf-8").read()
        body = page.split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]
        bodies.append(body.replace('src="../', 'src="'))
    with open(os.path.join(outdir, "EPUB", "book.html"), "w", encoding="utf-8") as out:
        out.write('<!DOCTYPE html>\n<html><head><meta charset="utf-8"/><link rel="stylesheet" href="style.css"/>'
                  '<style>@page { size: A5; margin: 18mm 14mm 20mm 19mm; @bottom-center { content: counter(page) } }'
                  ' section, .chapter { break-before: right } img { max-width: 100%; }</style></head><body>\n')
        out.write("\n".join(bodies))
        out.write("\n</body></html>\n")


def typst_text(text):
    return re.sub(r'([\\#*_`$<>@=\-+/\[\]~"\'])', r"\\\1", text)


def from_dump(dump, outdir):
    os.makedirs(outdir, exist_ok=True)
    media = os.path.abspath(os.path.join(dump, "media"))
    out = open(os.path.join(outdir, "book.typ"), "w", encoding="utf-8")
    out.write('#set page(paper: "a5", margin: (inside: 19mm, outside: 14mm, top: 18mm, bottom: 20mm), numbering: "1")\n'
              '#set text(font: ("Noto Serif", "Noto Serif CJK JP", "Noto Naskh Arabic"), size: 9.5pt)\n'
              '#set par(justify: true)\n#set heading(numbering: none)\n'
              '#outline(depth: 2)\n')
    year = month = None
    for line in open(os.path.join(dump, "entries.jsonl"), encoding="utf-8"):
        entry = json.loads(line)
        created = entry["created"]
        if created[:4] != year:
            year = created[:4]
            out.write("\n#pagebreak(to: \"odd\")\n= " + year + "\n")
        if created[:7] != month:
            month = created[:7]
            out.write("\n#pagebreak(to: \"odd\")\n== " + month + "\n")
        out.write("\n=== " + typst_text(entry.get("title") or created[:10]) + "\n")
        meta = created[:16].replace("T", " ")
        if entry.get("tags"):
            meta += " · " + " ".join("#" + t for t in entry["tags"])
        out.write("#text(size: 7.5pt, fill: gray)[" + typst_text(meta) + "]\n\n")
        for paragraph in (entry.get("body") or "").split("\n\n"):
            if paragraph.strip():
                out.write(typst_text(paragraph.strip()) + "\n\n")
        for item in entry.get("media", []):
            if item.get("kind") == "photo":
                path = os.path.relpath(os.path.join(dump, item["path"]), outdir)
                out.write('#image("' + path + '", width: 60%)\n\n')
    out.close()


if __name__ == "__main__":
    kind, source, outdir = sys.argv[1:4]
    {"html": from_epub, "typst": from_dump}[kind](source, outdir)
