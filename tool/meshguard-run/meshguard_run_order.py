"""The order in which meshguard-run checks files when each check run also
writes the file's summaries (docs/tools/whole-program.md, "One parse per
file").

A check run sees the summaries of the files checked before it. So a file
should run after the files that define the helpers it calls; when it ran too
early (a guessed order was wrong, or files call each other), it is checked
again, but only if an entry it looked up has changed since: each summary file
lists the entries its TU looked up ("lookups": [[usr, hash]]; hash "" when
there was none), and each entry has a "hash" of its facts.

Where the dependencies come from:
  * the previous database (precise): a file's lookups name the USRs it used,
    the other files' "functions" say which TU defines each;
  * a lexical scan of the main files (a guess, for files the database does
    not know yet): names defined at namespace scope with a body, and names
    called in bodies; `ns::f(` matches a definition whose qualified name ends
    in ns::f, a bare `f(` any definition named f unless the file defines an f
    itself.
Only dependencies on files that will be rewritten matter (an up-to-date
file's entries will not change), so a database that is current costs no
waiting at all.
"""

import hashlib
import json
import os
import re

SUMMARY_VERSION = 2
MAX_RUNS = 3  # check runs per file: the first, and at most two re-checks

KEYWORDS = frozenset("""
    if for while switch catch return sizeof alignof decltype static_assert
    noexcept new delete throw operator case do else typeid defined
    """.split())
TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<pre>^[ \t]*\#[^\n]*(?:\\\n[^\n]*)*)
  | (?P<name>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)
  | (?P<punct>[{}();:])
""", re.S | re.M | re.X)


def summary_file_name(tu):
    """The database file of TU (as SummaryExport names it)."""
    return hashlib.md5(tu.encode()).hexdigest()[:16] + ".json"


def read_summary_doc(path):
    """The summary file at PATH as a dict, or None when it is unreadable or of
    another version (then it is rewritten when its TU runs)."""
    try:
        with open(path) as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or doc.get("version") != SUMMARY_VERSION:
            return None
    except (OSError, ValueError):
        return None
    # The shape meshguard-run relies on (meshguard-tidy reports the rest).
    files = doc.get("files", [])
    if (not isinstance(doc.get("tu"), str)
            or not isinstance(doc.get("functions", []), list)
            or not isinstance(doc.get("lookups", []), list)
            or not isinstance(files, list)
            or not all(isinstance(f, list) and len(f) == 2
                       and all(isinstance(x, str) for x in f) for f in files)):
        return None
    return doc


def entry_hashes(doc):
    """usr -> hash of the entries DOC defines."""
    out = {}
    for fn in doc.get("functions") or []:
        if isinstance(fn, dict) and isinstance(fn.get("usr"), str):
            out[fn["usr"]] = fn.get("hash", "")
    return out


def lookups(doc):
    """usr -> hash the TU of DOC saw when it ran."""
    out = {}
    for pair in doc.get("lookups") or []:
        if isinstance(pair, list) and len(pair) == 2:
            out[str(pair[0])] = str(pair[1])
    return out


def scan(path):
    """(definitions, calls) of the main file PATH: qualified names of the
    functions it defines at namespace scope, qualified-as-written names it
    calls inside bodies. Unreadable: nothing."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return set(), set()
    defs, calls = set(), set()
    scopes = []         # one per open '{': a namespace name, or None (a body)
    pending_ns = None   # `namespace X` seen, its '{' not yet
    last_name = None    # the name just before a '(' (a call or a declarator)
    candidate = None    # a declarator at namespace scope: defined if '{' follows
    depth_paren = 0
    linkage = 0         # 1: `extern` seen, 2: `extern "C"`: a '{' opens no body
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "string" and linkage == 1:
            linkage = 2
        if kind in ("comment", "string", "pre"):
            continue
        tok = re.sub(r"\s+", "", m.group(kind))
        in_body = any(s is None for s in scopes)
        if kind == "name":
            linkage = 1 if tok == "extern" else 0
            if tok == "namespace":
                pending_ns = ""
            elif pending_ns == "" and depth_paren == 0:
                pending_ns = tok
            last_name = None if tok.split("::")[-1] in KEYWORDS else tok
            continue
        if tok == "(":
            if depth_paren == 0 and last_name:
                if in_body:
                    calls.add(last_name)
                elif candidate is None:
                    candidate = last_name
            elif last_name and in_body:
                calls.add(last_name)
            depth_paren += 1
        elif tok == ")":
            depth_paren = max(0, depth_paren - 1)
        elif tok == ";":
            linkage = 0
            if depth_paren == 0:
                candidate = None
                pending_ns = None
        elif tok == "{":
            if linkage == 2:
                scopes.append("")
                linkage = 0
            elif pending_ns is not None:
                scopes.append(pending_ns)
                pending_ns = None
            else:
                if candidate and not in_body and depth_paren == 0:
                    prefix = "::".join(s for s in scopes if s)
                    defs.add(prefix + "::" + candidate if prefix else candidate)
                scopes.append(None)
            candidate = None
        elif tok == "}":
            if scopes:
                scopes.pop()
            candidate = None
        last_name = None
    return defs, calls


def _matches(defined, called):
    d = defined.split("::")
    c = called.split("::")
    return len(c) <= len(d) and d[-len(c):] == c


def lexical_dependencies(paths):
    """path -> set of other paths that define a function it calls (a guess)."""
    scanned = {p: scan(p) for p in paths}
    by_last = {}
    for p, (defs, _) in scanned.items():
        for d in defs:
            by_last.setdefault(d.split("::")[-1], []).append((d, p))
    deps = {}
    for p, (defs, calls) in scanned.items():
        own_last = {d.split("::")[-1] for d in defs}
        out = set()
        for c in calls:
            last = c.split("::")[-1]
            if "::" not in c and last in own_last:
                continue  # its own helper
            for d, q in by_last.get(last, ()):
                if q != p and _matches(d, c):
                    out.add(q)
        deps[p] = out
    return deps


def database_dependencies(docs):
    """path -> set of other paths whose entries its last run looked up, from
    the previous database DOCS (tu -> doc)."""
    defined_in = {}
    for tu, doc in docs.items():
        for usr in entry_hashes(doc):
            defined_in.setdefault(usr, tu)
    deps = {}
    for tu, doc in docs.items():
        deps[tu] = {defined_in[u] for u in lookups(doc) if u in defined_in} - {tu}
    return deps


class Schedule:
    """Which file to run next, and which finished files to run again.

    jobs: the paths to run (each once at least); deps: path -> paths it
    should follow (only those among jobs count)."""

    def __init__(self, jobs, deps, docs=None):
        self.deps = {p: set(deps.get(p, ())) & set(jobs) - {p} for p in jobs}
        self.waiting = list(jobs)   # not started, in database order
        self.running = set()
        self.finished = set()
        self.runs = {p: 0 for p in jobs}
        self.seen = {}              # path -> {usr: hash} of its last run
        self.entries = {}           # usr -> hash now in the database
        self.defined = {}           # path -> {usr: hash} its summary file defines
        self.definers = {}          # usr -> paths whose summary file defines it
        self.lookers = {}           # usr -> paths whose last run looked it up
        self.again = {}             # path -> why it runs again
        for tu, doc in (docs or {}).items():
            self._define(tu, doc)

    def _define(self, path, doc):
        """Puts DOC's entries in place of PATH's old ones; the usrs whose
        entry changed (a removed entry is hash ""). A usr defined by several
        files has the entry meshguard-tidy reads: that of the first database
        file by name."""
        new = entry_hashes(doc) if doc is not None else {}
        old = self.defined.get(path, {})
        self.defined[path] = new
        changed = set()
        for usr in set(old) | set(new):
            definers = self.definers.setdefault(usr, set())
            if usr in new:
                definers.add(path)
            else:
                definers.discard(path)
            first = min(definers, key=summary_file_name, default=None)
            h = self.defined[first][usr] if first is not None else ""
            if self.entries.get(usr) != h:
                changed.add(usr)
            self.entries[usr] = h
        return changed

    def next(self):
        """The next path to start, or None when none should start now (wait
        for a running one to finish), or all are done."""
        if not self.waiting:
            return None
        for p in self.waiting:
            if not (self.deps[p] - self.finished):
                return self._start(p)
        if self.running:
            return None
        # A cycle, or dependencies that will not finish: the file with the
        # fewest unfinished ones goes first (it may be checked again).
        best = min(self.waiting, key=lambda p: len(self.deps[p] - self.finished))
        return self._start(best)

    def _start(self, p):
        self.waiting.remove(p)
        self.running.add(p)
        self.runs[p] += 1
        return p

    def _outdated(self, path):
        """A usr whose entry changed after PATH's last run looked it up."""
        for usr, h in sorted(self.seen.get(path, {}).items()):
            if self.entries.get(usr, "") != h:
                return usr
        return None

    def done(self, path, doc):
        """PATH finished with summary file DOC (None: it wrote none). Returns
        the paths to run again (queued): finished ones that looked up an
        entry that has changed since, PATH itself included."""
        self.running.discard(path)
        self.finished.add(path)
        changed = self._define(path, doc)
        if doc is not None:
            for usr in self.seen.get(path, {}):
                self.lookers.get(usr, set()).discard(path)
            self.seen[path] = lookups(doc)
            for usr in self.seen[path]:
                self.lookers.setdefault(usr, set()).add(path)
        candidates = {path}
        for usr in changed:
            candidates |= self.lookers.get(usr, set())
        requeued = []
        for other in sorted(candidates & self.finished):
            usr = self._outdated(other)
            if usr is None or self.runs[other] >= MAX_RUNS:
                continue
            self.finished.discard(other)
            self.waiting.append(other)
            self.again[other] = usr
            requeued.append(other)
        return requeued

    def unsettled(self):
        """Paths whose last run saw an entry that has changed since (they ran
        MAX_RUNS times): their findings may miss what the new entry says."""
        out = []
        for p in self.seen:
            if self._outdated(p) is not None:
                out.append(p)
        return sorted(out)
