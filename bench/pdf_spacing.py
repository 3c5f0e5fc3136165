"""Word spacing of a PDF's justified lines, read with poppler's `pdftotext -bbox-layout`.

A line of 4+ words whose right end is within 0.6 pt of its page's text edge is a justified
one (not a paragraph's last). For each, the mean gap between its words, divided by the line's
median word height (so books in other fonts and sizes compare). Prints how many such lines,
the 50th, 90th and 99th percentiles of that mean gap, and its spread (standard deviation
over mean): lower percentiles are tighter spacing, a lower spread is more even.

    python3 bench/pdf_spacing.py BOOK.pdf [NAME]
"""
import re
import statistics
import subprocess
import sys

xml = subprocess.run(["pdftotext", "-bbox-layout", sys.argv[1], "-"], capture_output=True, text=True, check=True).stdout
gaps = []
for page in re.findall(r"<page[^>]*>(.*?)</page>", xml, re.S):
    lines = []
    for line in re.findall(r"<line[^>]*>(.*?)</line>", page, re.S):
        words = [tuple(map(float, m)) for m in
                 re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"', line)]
        if len(words) >= 4:
            lines.append(words)
    if len(lines) < 5:
        continue
    right = statistics.median(sorted(w[-1][2] for w in lines)[-len(lines) // 2:])
    for words in lines:
        if abs(words[-1][2] - right) > 0.6:
            continue
        height = statistics.median(w[3] - w[1] for w in words)
        gaps.append(statistics.mean(words[i + 1][0] - words[i][2] for i in range(len(words) - 1)) / height)
if not gaps:
    sys.exit(f"{sys.argv[1]}: no justified lines found")
gaps.sort()
n = len(gaps)
name = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
print(f"{name:10} spacing: {n} justified lines, mean gap per line p50 {gaps[n // 2]:.3f} p90 {gaps[n * 9 // 10]:.3f} "
      f"p99 {gaps[n * 99 // 100]:.3f} (word heights), spread {statistics.pstdev(gaps) / statistics.mean(gaps):.3f}")
