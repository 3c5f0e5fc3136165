#!/usr/bin/env python3
"""peak_rss.py FILE CMD...: runs CMD and writes `TOTAL_KIB AFTER_KDF_KIB` to FILE: the
peak resident set of the whole run, and the peak once the key derivation's memory was given
back (Argon2id maps its memory, 64 MiB to 1 GiB, and unmaps it when done; that drop is seen
as RSS falling below half its peak after passing 48 MiB). From the drop on, the kernel's high-water mark is reset (`clear_refs` 5) and read
every 20 ms, so a spike between samples still counts. AFTER_KDF is TOTAL when no drop is
seen (a run that derives no key). CMD's stdout and stderr pass through; the exit code is CMD's."""
import subprocess
import sys
import time


def status(pid):
    values = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0])
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    return values


def main():
    process = subprocess.Popen(sys.argv[2:])
    peak, after, dropped = 0, 0, False
    while process.poll() is None:
        seen = status(process.pid)
        if seen:
            peak = max(peak, seen.get("VmHWM", 0))
            rss = seen.get("VmRSS", 0)
            if not dropped and peak > 48 * 1024 and rss < peak // 2:
                dropped = True
                try:
                    with open(f"/proc/{process.pid}/clear_refs", "w") as f:
                        f.write("5")
                except OSError:
                    pass
                after = rss
            elif dropped:
                after = max(after, seen.get("VmHWM", 0))
        time.sleep(0.02)
    with open(sys.argv[1], "w") as f:
        f.write(f"{peak} {after if dropped else peak}\n")
    sys.exit(process.returncode)


if __name__ == "__main__":
    main()
