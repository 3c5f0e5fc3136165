#!/usr/bin/env python3
"""Power cuts at every durability call of a Quire command (DESIGN.md: "a power cut at any
fsync loses nothing the user was told is done").

A SIGKILL keeps the kernel's page cache, so it cannot catch a missing fsync. Here each case
puts the store (and, where the case says, the repository) on ext4 in a loop file, runs one
quire command under strace with the K-th fsync, fdatasync, rename or pwrite64 turned into a
SIGKILL, then cuts the power of that file system (`xfs_io -x -c shutdown`: what was not
flushed is gone), remounts it and checks:
  - SQLite's integrity_check passes;
  - everything acknowledged is there byte for byte (an entry once `add` printed its id, an
    attachment once `attach` printed its, everything the setup finished before the cut);
  - every attachment the database names is in blobs/ with the bytes its name says;
  - the search index has one row for each live entry, with its title and place (outside a
    restore, which builds its index at the end);
  - running the command again ends exactly as the uncut run did, the search index's every
    row and what a search finds included.
K runs from 1 to the number of such calls the command makes, sampled to at most --samples.

Usage: scripts/powercut.py --quire BIN [--samples N] [--cases a,b] [--jobs J] [--work DIR]
Needs root, loop devices, strace, xfs_io and mkfs.ext4 (./scripts/powercut installs them).
Exits 0 when every cut passed, 1 when one did not, 77 (with the reason) when it cannot run here.
"""
import argparse, concurrent.futures, hashlib, json, os, re, shutil, sqlite3, subprocess, sys, tempfile, time

CALLS = ["fsync", "fdatasync", "rename", "pwrite64"]
ENV = {"QUIRE_PASSPHRASE": "power-cut-pw", "QUIRE_KDF_COST": "1,8192", "QUIRE_NEW_PASSPHRASE": "power-cut-new-pw"}


def sh(*argv, check=True, **kw):
    return subprocess.run(argv, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


class Skip(Exception):
    pass


def can_run():
    if os.geteuid() != 0:
        raise Skip("needs root (it mounts loop files)")
    for tool in ["strace", "xfs_io", "mkfs.ext4", "losetup"]:
        if not shutil.which(tool):
            raise Skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as d:
        img, mnt = d + "/probe.img", d + "/m"
        os.mkdir(mnt)
        sh("truncate", "-s", "16M", img)
        sh("mkfs.ext4", "-q", "-F", img)
        r = sh("mount", "-o", "loop", img, mnt, check=False)
        if r.returncode != 0:
            raise Skip("loop devices do not work here: " + r.stderr.strip())
        sh("umount", mnt)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def index_problems(con):
    """What must hold of the search index in any store whose last transaction committed, as
    every write refreshes it in its own transaction: one row for each live entry and none
    else, one size record for each row, titles (and places, in a schema that indexes them)
    as the entries have them. The other columns are made by Quire's own SQL functions, and
    are compared with the uncut run's instead. A cut between two migrations leaves an
    older schema, hence the columns looked up by name."""
    declared = con.execute("SELECT sql FROM sqlite_master WHERE name = 'search'").fetchone()
    names = re.findall(r"(\w+)\s*(?:,|=)", declared[0].split("(", 1)[1]) if declared else []
    columns = [n for n in names if n not in ("tokenize", "prefix", "content", "content_rowid")]
    if "title" not in columns:
        return []
    place = f"s.c{columns.index('place')}" if "place" in columns else "''"
    problems = []
    for entry, title, expected_place, c0, indexed_place, sized in con.execute(f"""
            SELECT e.id, e.title, {"coalesce(e.place, '')" if "place" in columns else "''"}, s.c{columns.index("title")},
                   {place}, (SELECT count(*) FROM search_docsize d WHERE d.id = s.id)
            FROM search_content s LEFT JOIN entries e ON e.rowid = s.id AND e.deleted = 0"""):
        if entry is None:
            problems.append(f"the index has a row for no live entry: {c0!r}")
        elif (c0, indexed_place) != (title, expected_place) or sized != 1:
            problems.append(f"the index row of {title!r} says {c0!r}, {indexed_place!r}, with {sized} size records")
    rows = con.execute("SELECT count(*) FROM search_content").fetchone()[0]
    live = con.execute("SELECT count(*) FROM entries WHERE deleted = 0").fetchone()[0]
    if rows != live:
        problems.append(f"the index has {rows} rows for {live} live entries")
    return problems


class Case:
    """One command under power cuts. Subclasses set `name`, and say how to set up, what to
    run, what its output acknowledged, and what state counts as the same ending."""
    image_mb = 256
    repo_inside = False  # the repository folder on the cut file system too

    def __init__(self, quire, work):
        self.quire, self.work = quire, work
        self.mnt = f"{work}/{self.name}/mnt"          # the cut file system
        self.outside = f"{work}/{self.name}/outside"  # sources, and a repository elsewhere
        self.store = self.mnt + "/store"
        self.repo = (self.mnt if self.repo_inside else self.outside) + "/repo"

    # What the case does.
    def setup(self): pass
    def command(self): raise NotImplementedError
    def acknowledged(self, stdout, stderr, rc): return {}
    def again(self, acked): return self.command()
    def ending(self): return self.dump(self.store)
    def extra_checks(self, acked): return []

    # Helpers.
    def q(self, *args, store=None, check=True, env=None):
        e = {**os.environ, **ENV, "HOME": self.outside + "/home", **(env or {})}
        r = subprocess.run([self.quire, "--store", store or self.store, *args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=e)
        if check and r.returncode != 0:
            raise RuntimeError(f"quire {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
        return r

    def dump(self, store, drop=()):
        out = tempfile.mkdtemp(dir=self.outside)
        try:
            self.q("export", "json", out + "/d", store=store)
            lines = []
            with open(out + "/d/entries.jsonl") as f:
                for line in f:
                    o = json.loads(line)
                    for key in drop:
                        o.pop(key, None)
                        for m in o.get("media", []):
                            m.pop(key, None)
                    lines.append(json.dumps(o, sort_keys=True))
            return "\n".join(sorted(lines)) + self.index(store, by_id="id" not in drop)
        finally:
            shutil.rmtree(out, ignore_errors=True)

    def index(self, store, by_id):
        """The search index as part of the ending: an export never reads it, and a cut could
        leave it behind the text (a row missing, stale or twice). Every row FTS5 holds, each
        column (transcripts and tags as sets: their order is the order rows arrived in), keyed
        by entry id where ids are stable across runs, and what a search for the first title
        finds, so the index itself is read too."""
        con = sqlite3.connect(f"file:{store}/journal.sqlite?mode=ro", uri=True)
        try:
            problems = index_problems(con)
            rows = con.execute("SELECT e.id, s.c0, s.c1, s.c2, s.c3, s.c4 FROM search_content s LEFT JOIN entries e ON e.rowid = s.id").fetchall()
        finally:
            con.close()
        kept = sorted(json.dumps([entry if by_id else None, c0, c1, "\n".join(sorted((c2 or "").split("\n"))),
                                  " ".join(sorted((c3 or "").split(" "))), c4], ensure_ascii=False)
                      for entry, c0, c1, c2, c3, c4 in rows)
        titles = sorted(row[1] for row in rows if row[1])
        found = ""
        if titles:
            words = " ".join(w for w in (p.strip("*_[]()#.,!?:;\"'`-") for p in titles[0].split()) if w)
            r = self.q("search", "--json", "--limit", "1000", words, store=store, check=False)
            try:
                found = f"search {words!r}: {sorted(e['title'] for e in json.loads(r.stdout))}"
            except (ValueError, KeyError, TypeError):
                found = f"search {words!r} failed ({r.returncode}): {r.stderr.strip()}"
        return "\n=== index\n" + "\n".join(problems + kept + [found])

    def file(self, name, size, seed):
        path = f"{self.outside}/{name}"
        block = hashlib.sha256(str(seed).encode()).digest() * 2048  # 64 KiB
        with open(path, "wb") as f:
            left = size
            while left > 0:
                f.write(block[:min(left, len(block))])
                left -= len(block)
                block = hashlib.sha256(block[:32]).digest() * 2048
        return path

    # The checks every cut must pass.
    def checks(self, acked):
        problems = []
        db = self.store + "/journal.sqlite"
        if not os.path.exists(db):
            return problems + [f"{db} is gone"] if acked.get("store") else problems
        try:
            con = sqlite3.connect(db)
        except sqlite3.Error as e:
            return problems + [f"sqlite: {e}"]
        try:
            result = con.execute("PRAGMA integrity_check").fetchall()
            if result != [("ok",)]:
                problems.append(f"integrity_check: {result}")
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            restoring = "meta" in tables and con.execute("SELECT 1 FROM meta WHERE key = 'restoring'").fetchall()
            # A restore merges text before its attachments come in; nothing reads the store
            # as whole until it is done (and running it again finishes it: checked below).
            if "media" in tables and not restoring:
                for blob, in con.execute("SELECT DISTINCT blob_id FROM media WHERE deleted = 0 AND blob_id <> ?", ("0" * 64,)):
                    path = f"{self.store}/blobs/{blob[:2]}/{blob}"
                    if not os.path.exists(path):
                        problems.append(f"the database names attachment {blob[:12]}, which blobs/ lacks")
                    elif sha256(path) != blob:
                        problems.append(f"blobs/{blob[:2]}/{blob[:12]}… does not hold the bytes its name says")
            if "search_content" in tables and not restoring:
                problems += index_problems(con)
            if "entries" in tables:
                have = {r[0]: (r[1], r[2]) for r in con.execute("SELECT id, title, body FROM entries WHERE deleted = 0")}
                for entry, text in acked.get("entries", {}).items():
                    if entry not in have:
                        problems.append(f"acknowledged entry {entry[:8]} is gone")
                    elif text is not None and have[entry] != text:
                        problems.append(f"acknowledged entry {entry[:8]} changed: {have[entry]!r}")
        except sqlite3.Error as e:
            problems.append(f"sqlite: {e}")
        finally:
            con.close()
        for blob, source in acked.get("blobs", {}).items():
            path = f"{self.store}/blobs/{blob[:2]}/{blob}"
            if not os.path.exists(path) or sha256(path) != blob:
                problems.append(f"acknowledged attachment {blob[:12]} is missing or changed")
        return problems + self.extra_checks(acked)


class Add(Case):
    name = "add"
    def setup(self):
        self.first = self.q("add", "--title", "Утро", "--body", "written before the cut").stdout.strip()
    def command(self): return ["add", "--title", "夜", "--body", "the entry being written"]
    def acknowledged(self, stdout, stderr, rc):
        acked = {"store": True, "entries": {self.first: ("Утро", "written before the cut")}}
        if re.fullmatch(r"[0-9a-f-]{36}", stdout.strip()):
            acked["entries"][stdout.strip()] = ("夜", "the entry being written")
        return acked
    def again(self, acked): return None if len(acked.get("entries", {})) > 1 else self.command()
    def ending(self): return self.dump(self.store, drop=("id", "created", "modified"))


class FirstAdd(Add):
    """The first entry of a store that does not exist yet: the command makes its folder."""
    name = "first-add"
    def setup(self): self.first = None
    def acknowledged(self, stdout, stderr, rc):
        ok = bool(re.fullmatch(r"[0-9a-f-]{36}", stdout.strip()))
        return {"store": ok, "entries": {stdout.strip(): ("夜", "the entry being written")} if ok else {}}
    def again(self, acked): return None if acked.get("entries") else self.command()


class Init(Case):
    """`remote init` of a folder repository on the cut file system, then a first sync: once
    both said so, another machine restores the journal from it."""
    name = "init"
    repo_inside = True
    def setup(self):
        self.q("add", "--title", "the first entry", "--body", "to be kept safe")
        self.q("remote", "set", "file://" + self.repo)
    def command(self): return ["remote", "init"]
    def acknowledged(self, stdout, stderr, rc): return {"store": True, "initialised": rc == 0}
    def again(self, acked):
        initialised = os.path.exists(self.repo + "/quire-repo.json")
        if acked.get("initialised") and not initialised:
            raise RuntimeError("remote init said it was done, and the repository is gone")
        return None if initialised else self.command()
    def ending(self):
        self.q("sync")
        fresh = tempfile.mkdtemp(dir=self.outside)
        try:
            self.q("restore", "file://" + self.repo, store=fresh + "/s")
            return self.dump(fresh + "/s")
        finally:
            shutil.rmtree(fresh, ignore_errors=True)


class Attach(Case):
    name = "attach"
    def setup(self):
        self.entry = self.q("add", "--title", "a long recording").stdout.strip()
        self.source = self.file("recording.ogg", 50 << 20, 7)
        self.blob = sha256(self.source)
    def command(self): return ["attach", self.entry, self.source, "--kind", "voice"]
    def acknowledged(self, stdout, stderr, rc):
        acked = {"store": True, "entries": {self.entry: None}}
        if re.fullmatch(r"[0-9a-f-]{36}", stdout.strip()):
            acked["blobs"] = {self.blob: self.source}
        return acked
    def again(self, acked): return None if acked.get("blobs") else self.command()
    def ending(self): return self.dump(self.store, drop=("id", "modified"))


class Import(Case):
    name = "import"
    def setup(self):
        self.q("add", "--title", "before the import")
        shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "demo", "journal"), self.outside + "/journal")
    def command(self): return ["import", self.outside + "/journal/entries.jsonl"]
    def acknowledged(self, stdout, stderr, rc): return {"store": True}


class FirstImport(Case):
    """An archive's first import, into a store the command makes: written under a rollback
    journal rather than the write-ahead log (Database.withRollbackJournal), whose deletion
    is what commits."""
    name = "first-import"
    def setup(self):
        shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "demo", "journal"), self.outside + "/journal")
        with open(self.outside + "/journal/entries.jsonl") as f:
            self.titles = sorted(json.loads(line)["title"] for line in f if line.strip())
    def command(self): return ["import", self.outside + "/journal/entries.jsonl"]
    def acknowledged(self, stdout, stderr, rc): return {"store": rc == 0, "imported": rc == 0}
    def again(self, acked): return None if acked.get("imported") else self.command()
    def extra_checks(self, acked):
        db = self.store + "/journal.sqlite"
        if not os.path.exists(db):
            return []
        con = sqlite3.connect(db)
        try:
            titles = sorted(r[0] for r in con.execute("SELECT title FROM entries WHERE deleted = 0"))
        except sqlite3.Error:
            titles = []  # cut before its tables were made
        finally:
            con.close()
        if acked.get("imported") and titles != self.titles:
            return [f"the import said it was done, and the store holds {len(titles)} of its {len(self.titles)} entries"]
        if titles and titles != self.titles:
            return [f"half an import: the store holds {len(titles)} of its {len(self.titles)} entries"]
        return []


class Migrate(Case):
    """A store of the oldest frozen schema, migrated by the first command that opens it."""
    name = "migrate"
    def setup(self):
        os.makedirs(self.store, mode=0o700)
        fixture = os.path.join(os.path.dirname(__file__), "..", "Tests", "QuireTests", "Fixtures", "schema-0001.sqlite")
        shutil.copy(fixture, self.store + "/journal.sqlite")
        # The fixture names an empty attachment (its id is the SHA-256 of no bytes); its file
        # stands beside it.
        empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        os.makedirs(self.store + "/blobs/" + empty[:2], mode=0o700)
        open(self.store + "/blobs/" + empty[:2] + "/" + empty, "wb").close()
    def command(self): return ["add", "--title", "after the upgrade", "--date", "2026-01-02"]
    def acknowledged(self, stdout, stderr, rc): return {"store": True}
    def again(self, acked):
        return self.command() if "after the upgrade" not in self.q("list", check=False).stdout else ["list"]
    def ending(self): return self.dump(self.store, drop=("id", "modified"))


class SyncBoth(Case):
    """Pull and push: edits on this device and on another, through a folder repository."""
    name = "sync"
    def setup(self):
        other = self.outside + "/other"
        self.q("add", "--title", "shared", "--body", "one")
        self.q("remote", "set", "file://" + self.repo)
        self.q("remote", "init")
        self.q("sync")
        self.q("restore", "file://" + self.repo, store=other)
        entry = self.q("list", "--json").stdout
        self.shared = json.loads(entry)[0]["id"]
        self.q("edit", self.shared[:8], "--title", "shared, edited elsewhere", "--body", "one, edited elsewhere", store=other)
        self.q("add", "--title", "from the other machine", store=other)
        self.q("sync", store=other)
        self.q("edit", self.shared[:8], "--body", "one, edited here")
        self.q("attach", self.shared[:8], self.file("photo.jpg", 300_000, 9))
        self.q("add", "--title", "written here", "--body", "before the sync")
    def command(self): return ["sync"]
    def acknowledged(self, stdout, stderr, rc): return {"store": True, "entries": {self.shared: None}}
    def ending(self):
        # The other machine syncs too: both hold the same journal, as after an uncut run.
        self.q("sync", store=self.outside + "/other")
        self.q("sync")
        here, there = (self.dump(store) + self.conflicts(store) for store in (self.store, self.outside + "/other"))
        return here if here == there else "DIVERGED\n" + here + "\n---\n" + there
    def conflicts(self, store):
        """The conflicts a device lists: both bodies were edited before a sync, so each lists
        the one that lost, and a cut must neither lose it nor invent another."""
        listed = json.loads(self.q("conflicts", "--json", store=store).stdout)
        return "\n=== conflicts\n" + "\n".join(sorted(json.dumps([c["field"], c["value"], c["current"]], ensure_ascii=False) for c in listed))
    def extra_checks(self, acked):
        r = self.q("verify", "--read-data", check=False)
        return [] if r.returncode == 0 else [f"verify after the cut and a sync: {r.stdout.strip()} {r.stderr.strip()}"]


class SyncRepoInside(SyncBoth):
    """The same with the repository folder itself on the cut file system: what it
    acknowledged may be lost with the power, and the next sync puts it back."""
    name = "sync-repo-cut"
    repo_inside = True


class Restore(Case):
    name = "restore"
    def setup(self):
        source = self.outside + "/source"
        self.q("import", os.path.join(os.path.dirname(__file__), "..", "demo", "journal", "entries.jsonl"), store=source)
        media = self.q("attach", json.loads(self.q("list", "--json", store=source).stdout)[0]["id"][:8],
                       self.file("big.bin", 3 << 20, 3), store=source).stdout.strip()
        # A transcript is searched like the text: the restored index must hold it too.
        self.q("transcript", media, "--text", "Голос у Красной площади, записанный вечером", store=source)
        self.q("remote", "set", "file://" + self.repo, store=source)
        self.q("remote", "init", store=source)
        self.q("sync", store=source)
        self.expected = self.dump(source)
    def command(self): return ["restore", "file://" + self.repo]
    def acknowledged(self, stdout, stderr, rc): return {"store": rc == 0, "done": rc == 0}
    def again(self, acked): return None if acked.get("done") else self.command()
    def ending(self):
        here = self.dump(self.store)
        return "RESTORED AS THE SOURCE" if here == self.expected else here


class Prune(SyncBoth):
    name = "prune"
    def command(self): return ["prune"]
    def ending(self):
        fresh = self.outside + "/fresh"
        shutil.rmtree(fresh, ignore_errors=True)
        self.q("restore", "file://" + self.repo, store=fresh)
        return super().ending() + "\n=== restored\n" + self.dump(fresh)


class Passwd(Case):
    """The repository on the cut file system: after a cut, the old passphrase or the new one
    opens it, the new one once passwd said it was changed."""
    name = "passwd"
    repo_inside = True
    def setup(self):
        self.q("add", "--title", "locked away")
        self.q("remote", "set", "file://" + self.repo)
        self.q("remote", "init")
        self.q("sync")
    def command(self): return ["passwd"]
    def acknowledged(self, stdout, stderr, rc): return {"store": True, "new": rc == 0}
    def again(self, acked):
        return None if acked.get("new") or self.opens("power-cut-new-pw") else self.command()
    def opens(self, passphrase):
        other = tempfile.mkdtemp(dir=self.outside)
        try:
            return self.q("restore", "file://" + self.repo, store=other + "/s", check=False,
                          env={"QUIRE_PASSPHRASE": passphrase}).returncode == 0
        finally:
            shutil.rmtree(other, ignore_errors=True)
    def extra_checks(self, acked):
        old, new = self.opens("power-cut-pw"), self.opens("power-cut-new-pw")
        if acked.get("new") and not new:
            return ["passwd said the passphrase changed, but the new one opens nothing"]
        return [] if old or new else ["neither passphrase opens the repository"]
    def ending(self):
        return f"new opens: {self.opens('power-cut-new-pw')}"


CASES = [Add, FirstAdd, Init, Attach, Import, FirstImport, Migrate, SyncBoth, SyncRepoInside, Restore, Prune, Passwd]


def run_case(cls, quire, work, samples, log):
    case = cls(quire, work)
    base = f"{work}/{case.name}"
    os.makedirs(case.mnt)
    template, outside_template = base + "/template.img", base + "/outside.template"

    def mount(image):
        sh("mount", "-o", "loop", image, case.mnt)

    def reset(image):
        shutil.rmtree(case.outside, ignore_errors=True)
        shutil.copytree(outside_template, case.outside, symlinks=True)
        sh("cp", "--sparse=always", template, image)
        mount(image)

    # The state before the command, made once: an image and the folder beside it.
    os.makedirs(case.outside + "/home")
    sh("truncate", "-s", f"{case.image_mb}M", template)
    sh("mkfs.ext4", "-q", "-F", template)
    mount(template)
    os.chmod(case.mnt, 0o755)
    case.setup()
    sh("sync")
    sh("umount", case.mnt)
    shutil.copytree(case.outside, outside_template, symlinks=True)
    state = {k: v for k, v in vars(case).items() if k not in ("quire", "work", "mnt", "outside", "store", "repo")}

    # An uncut run: the ending every cut run must reach, and how many calls it makes.
    image = base + "/run.img"
    reset(image)
    trace = base + "/trace"
    args = case.command()
    env = dict(os.environ, **ENV, HOME=case.outside + "/home")
    subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e", "trace=" + ",".join(CALLS),
                    case.quire, "--store", case.store, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=True)
    counts = {c: 0 for c in CALLS}
    per_pid = {}
    with open(trace) as f:
        for line in f:
            m = re.match(r"(\d+)\s+(\w+)\(", line)
            if m and m.group(2) in counts:
                per_pid[(m.group(1), m.group(2))] = per_pid.get((m.group(1), m.group(2)), 0) + 1
    for (pid, call), n in per_pid.items():
        counts[call] = max(counts[call], n)
    expected = case.ending()
    sh("umount", case.mnt)

    failures, cuts = [], 0
    for call in CALLS:
        n = counts[call]
        ks = list(range(1, n + 1)) if n <= samples else sorted({1 + round(i * (n - 1) / (samples - 1)) for i in range(samples)})
        for k in ks:
            reset(image)
            vars(case).update(state)
            r = subprocess.run(["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + call,
                                "-e", f"inject={call}:signal=SIGKILL:when={k}", case.quire, "--store", case.store, *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            acked = case.acknowledged(r.stdout, r.stderr, r.returncode)
            sh("xfs_io", "-x", "-c", "shutdown", case.mnt)  # the power goes: nothing unflushed survives
            sh("umount", case.mnt)
            mount(image)
            problems = case.checks(acked)
            try:
                again = case.again(acked)
                if again:
                    case.q(*again)
                ending = case.ending()
                if ending != expected:
                    problems.append("running it again does not end as the uncut run did")
            except Exception as e:  # a failure to continue is a finding, not a crash of the harness
                problems.append(f"running it again failed: {e}")
            sh("umount", case.mnt)
            cuts += 1
            for p in problems:
                failures.append(f"{case.name}: cut at {call} #{k} of {n}: {p}")
                log("powercut: FAILED " + failures[-1])
    log(f"powercut: {case.name}: {cuts} cuts ({', '.join(f'{c} {counts[c]}' for c in CALLS)}), "
        f"{len(failures)} problem{'s' if len(failures) != 1 else ''}")
    return cuts, failures


def server_cut(quire, work, log):
    """The server's own power goes a moment after it answered a sync: Apache (mod_dav_fs,
    which never fsyncs) serving a folder on the cut file system. What it acknowledged and
    lost, the device that sent it puts back on its next sync; the other device then gets
    everything, and a third restores the journal whole."""
    here = os.path.dirname(os.path.abspath(__file__))
    base = f"{work}/server-cut"
    mnt, outside = base + "/mnt", base + "/outside"
    os.makedirs(mnt)
    os.makedirs(outside + "/home")
    image = base + "/server.img"
    sh("truncate", "-s", "128M", image)
    sh("mkfs.ext4", "-q", "-F", image)
    sh("mount", "-o", "loop", image, mnt)
    os.chmod(mnt, 0o755)
    port = sh("python3", "-c", 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])').stdout.strip()

    def start():
        if os.path.exists(mnt + "/server/httpd.pid"):
            os.unlink(mnt + "/server/httpd.pid")  # a stale one, from before the power went
        out = sh("bash", "-c", f'source "{here}/webdav.sh"; start_apache "$1" "$2" >>"$3" 2>&1; echo "$APACHE_URL $APACHE_PID"',
                 "start", mnt + "/server", port, outside + "/apache.log", cwd=outside).stdout.split()
        return out[0], int(out[1])

    url, pid = start()

    def stop():
        # Every Apache process of this configuration, at once, and gone before going on.
        subprocess.run(["pkill", "-9", "-f", mnt + "/server/httpd.conf"], check=False)
        for _ in range(100):
            if subprocess.run(["pgrep", "-f", mnt + "/server/httpd.conf"], stdout=subprocess.DEVNULL).returncode != 0:
                return
            time.sleep(0.1)
        raise RuntimeError("Apache did not stop")

    env = dict(os.environ, **ENV, HOME=outside + "/home", QUIRE_WEBDAV_PASSWORD="quire-test")

    def q(store, *args, check=True):
        r = subprocess.run([quire, "--store", store, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if check and r.returncode != 0:
            raise RuntimeError(f"quire {' '.join(args)} failed: {r.stderr.strip()}")
        return r

    def dump(store):
        out = tempfile.mkdtemp(dir=outside)
        q(store, "export", "json", out + "/d")
        with open(out + "/d/entries.jsonl") as f:
            text = f.read()
        shutil.rmtree(out)
        return text

    failures = []
    a, b, c = outside + "/a", outside + "/b", outside + "/c"
    repo = url + "repo/"
    try:
        q(a, "add", "--title", "before", "--body", "synced and flushed")
        q(a, "remote", "set", repo, "--user", "quire")
        q(a, "remote", "init")
        q(a, "sync")
        q(b, "restore", repo, "--user", "quire")
        sh("sync")  # the server's disk has all of that
        entry = q(a, "add", "--title", "acknowledged", "--body", "then lost with the server's power").stdout.strip()
        with open(outside + "/photo.jpg", "wb") as f:
            f.write(hashlib.sha256(b"photo").digest() * 20000)
        q(a, "attach", entry[:8], outside + "/photo.jpg")
        q(a, "sync")  # answered 201s, not yet on the server's disk
        sh("xfs_io", "-x", "-c", "shutdown", mnt)  # the power goes, and the server with it
        stop()
        sh("umount", mnt)
        sh("mount", "-o", "loop", image, mnt)
        url, pid = start()
        if subprocess.run(["pgrep", "-f", mnt + "/server/httpd.conf"], stdout=subprocess.DEVNULL).returncode != 0:
            raise RuntimeError("Apache did not start again after the cut")
        lost = q(a, "sync", "--json")
        repaired = json.loads(lost.stdout).get("repaired", 0)
        log(f"powercut: server-cut: the next sync put back {repaired} objects")
        if repaired == 0:
            failures.append("server-cut: the server lost nothing, or the next sync put nothing back")
        q(b, "sync")
        q(c, "restore", repo, "--user", "quire")
        if not (dump(a) == dump(b) == dump(c)):
            failures.append("server-cut: the devices do not hold the same journal after the repair")
        v = q(c, "verify", "--read-data", check=False)
        if v.returncode != 0:
            failures.append(f"server-cut: verify after the repair: {v.stdout.strip()}")
    except Exception as e:
        failures.append(f"server-cut: {e}")
    finally:
        try:
            stop()
        finally:
            subprocess.run(["umount", mnt], check=False, stderr=subprocess.DEVNULL)
    for f in failures:
        log("powercut: FAILED " + f)
    return failures


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quire", required=True)
    p.add_argument("--samples", type=int, default=50)
    p.add_argument("--cases", default=",".join(c.name for c in CASES))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--work")
    p.add_argument("--no-server", action="store_true", help="leave out the cut of a WebDAV server's own disk")
    a = p.parse_args()
    try:
        can_run()
    except Skip as s:
        print(f"powercut: skipped: {s}", file=sys.stderr)
        return 77
    wanted = a.cases.split(",")
    unknown = [w for w in wanted if w not in {c.name for c in CASES}]
    if unknown:
        print(f"powercut: no case {', '.join(unknown)} (cases: {', '.join(c.name for c in CASES)})", file=sys.stderr)
        return 2
    work = a.work or tempfile.mkdtemp(prefix="quire-powercut-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    started = time.monotonic()
    quire = os.path.abspath(a.quire)
    log = lambda line: print(line, file=sys.stderr, flush=True)
    total, failures = 0, []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            runs = [(c.name, pool.submit(run_case, c, quire, work, max(2, a.samples), log)) for c in CASES if c.name in wanted]
            for name, run in runs:
                try:
                    cuts, found = run.result()
                except Exception as e:  # a case that cannot even be set up is a failure of its own
                    cuts, found = 0, [f"{name}: {type(e).__name__}: {e}"]
                    log("powercut: FAILED " + found[0])
                total += cuts
                failures += found
        if not a.no_server and os.path.exists("/usr/sbin/apache2"):
            failures += server_cut(quire, work, log)
            total += 1
    finally:
        subprocess.run(["bash", "-c", f"grep -o ' {work}/[^ ]*' /proc/mounts | xargs -r -n1 umount"], check=False)
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print(f"powercut: {total} power cuts in {time.monotonic() - started:.0f} s, {len(failures)} problems", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
