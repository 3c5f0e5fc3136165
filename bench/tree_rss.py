#!/usr/bin/env python3
"""tree_rss.py FILE CMD...: runs CMD and writes `PEAK_SUM_KIB PEAK_ONE_KIB` to FILE: the
largest resident set CMD and all its descendants held together at one moment (sampled every
100 ms from /proc), and the largest any one of them reached (each process's own high-water
mark, VmHWM, so a spike between samples still counts there). For `quire transcribe`, whose
engine is a worker process with the model: the sum is what the machine must have free.
CMD's stdout and stderr pass through; the exit code is CMD's."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peak_rss import status as memory  # noqa: E402  (VmRSS and VmHWM of one process)


def children():
    """pid -> parent pid, for every process now."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                parents[int(name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                pass
    return parents


def tree(root):
    parents = children()
    found, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def main():
    process = subprocess.Popen(sys.argv[2:])
    peak_sum, peak_one = 0, 0
    while process.poll() is None:
        total = 0
        for pid in tree(process.pid):
            seen = memory(pid)
            total += seen.get("VmRSS", 0)
            peak_one = max(peak_one, seen.get("VmHWM", 0))
        peak_sum = max(peak_sum, total)
        time.sleep(0.1)
    with open(sys.argv[1], "w") as f:
        f.write(f"{peak_sum} {peak_one}\n")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
