#!/usr/bin/env python3
"""A static HTML report of meshguard-tidy's findings, laid out on the source.

Usage:
  findings-report.py FIXES_YAML OUT_HTML [--root DIR] [--title TEXT]
  findings-report.py --check REPORT_HTML TIDY_LOG

The first form reads the YAML that `meshguard-tidy -export-fixes=FIXES_YAML`
writes (clang-tidy's format: Diagnostics, each with a DiagnosticMessage
{Message, FilePath, FileOffset, Replacements} and Notes) and writes one
self-contained HTML file (inline CSS, no script, nothing fetched): the main
source file with line numbers, each warning highlighted on its line with its
message and check, each note at its own line, numbered and coloured like its
warning and linked both ways, the fix-it edits of each warning, and the diff
that applying every fix-it gives. Other files that diagnostics point into are
shown as excerpts. File offsets are bytes; columns are byte columns, as
clang-tidy prints them. Paths under --root (default: the current directory)
are shown relative to it.

The second form checks a report against meshguard-tidy's text output: every
"FILE:LINE:COL: warning|error|note: MESSAGE" line (but the FIX-IT notes of
-fix) must be in the report at that line and column with that message, and the
report must hold no other warning. It prints a one-line summary; exit status 1
names what is missing.
"""
import argparse
import bisect
import difflib
import html
import html.parser
import os
import re
import sys

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
CONTEXT = 3  # lines around a diagnostic in a file shown as excerpts

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
code, .src, .diff { font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
a { color: inherit; } .meta { color: #666; }
table.sum { border-collapse: collapse; width: 100%; } table.sum td, table.sum th { border-bottom: 1px solid #eee; padding: .3em .5em; text-align: left; vertical-align: top; }
.badge { display: inline-block; min-width: 1.6em; padding: 0 .35em; border-radius: .8em; background: var(--c); color: #fff; font-weight: 600; text-align: center; text-decoration: none; font-size: .85em; }
.note-badge { background: #fff; color: var(--c); border: 1.5px solid var(--c); }
.src, .diff { border: 1px solid #ddd; border-radius: 4px; background: #fcfcfc; overflow-x: auto; }
.line { display: flex; white-space: pre; }
.line:target, .ann:target { outline: 2px solid var(--c, #fc0); }
.no { flex: none; width: 4.5em; padding-right: .8em; text-align: right; color: #999; text-decoration: none; user-select: none; border-right: 1px solid #eee; }
.code { padding-left: .8em; }
.line.hl { background: var(--bg); box-shadow: inset 4px 0 var(--c); }
.line.nl { box-shadow: inset 4px 0 var(--c); }
mark { background: var(--bg); border-bottom: 2px solid var(--c); color: inherit; padding: 0 1px; }
mark.note { border-bottom-style: dashed; background: transparent; }
.ann { margin: .15em 0 .45em 5.3em; padding: .35em .7em; border-left: 4px solid var(--c); background: #fff; font-family: system-ui, sans-serif; font-size: 13px; white-space: normal; border-radius: 0 4px 4px 0; box-shadow: 0 1px 2px rgba(0,0,0,.12); }
.ann.note { border-left-style: dashed; background: #fafafa; }
.kind { font-weight: 600; } .warning .kind, .error .kind { color: #b00; } .note .kind { color: #555; }
.check { color: #666; font-family: ui-monospace, monospace; }
.ann ul { margin: .3em 0 0; padding-left: 1.3em; } .ann li { margin: .1em 0; }
.fix code { background: #eef; padding: 0 .2em; border-radius: 2px; white-space: pre; }
.fixmark { margin-left: 1.2em; font: 11px system-ui, sans-serif; color: var(--c); border: 1px dotted var(--c); border-radius: 3px; padding: 0 .3em; text-decoration: none; align-self: center; }
.gap { color: #aaa; padding-left: 5.3em; }
.diff .line { padding-left: .8em; } .diff .add { background: #e6ffec; } .diff .del { background: #ffebe9; } .diff .hunk { color: #0550ae; background: #f0f6ff; }
.diff .hdr { color: #666; }
"""


def fail(message):
    print("findings-report: " + message, file=sys.stderr)
    sys.exit(1)


# --- reading clang-tidy's exported fixes -------------------------------------

class SourceFile:
    """A file's bytes and where its lines start; offsets and columns are bytes."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                self.data = f.read()
        except OSError:
            self.data = None
            return
        self.starts = [0] + [m.end() for m in re.finditer(b"\n", self.data)]
        self.lines = self.data.split(b"\n")
        if self.lines and self.lines[-1] == b"":
            self.lines.pop()

    def position(self, offset):
        """(line, column), both from 1, of a byte offset."""
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def text(self, line):
        return self.lines[line - 1].decode("utf-8", "replace") if 0 < line <= len(self.lines) else ""


class Message:
    def __init__(self, raw, kind, files):
        self.kind = kind
        self.message = str(raw.get("Message", ""))
        self.path = str(raw.get("FilePath") or "")
        self.offset = int(raw.get("FileOffset") or 0)
        self.replacements = [
            (str(r.get("FilePath") or self.path), int(r.get("Offset", 0)), int(r.get("Length", 0)),
             str(r.get("ReplacementText") or ""))
            for r in (raw.get("Replacements") or [])]
        self.file = files.setdefault(self.path, SourceFile(self.path)) if self.path else None
        if self.file is not None and self.file.data is not None:
            self.line, self.col = self.file.position(self.offset)
        else:
            self.line, self.col = 0, 0
        self.anchor = ""


class Diagnostic:
    def __init__(self, raw, number, files):
        self.number = number
        self.check = str(raw.get("DiagnosticName", ""))
        level = str(raw.get("Level", "Warning")).lower()
        self.main = Message(raw.get("DiagnosticMessage") or {}, level if level in ("warning", "error") else "warning", files)
        self.main.anchor = "d%d" % number
        self.main.owner = self
        self.notes = []
        for i, note in enumerate(raw.get("Notes") or [], 1):
            m = Message(note, "note", files)
            m.anchor = "d%d-n%d" % (number, i)
            m.owner, m.index = self, i
            self.notes.append(m)
        for r_path in {r[0] for r in self.main.replacements}:
            files.setdefault(r_path, SourceFile(r_path))

    @property
    def colour(self):
        return "c%d" % ((self.number - 1) % len(PALETTE))


def load(path):
    try:
        import yaml
    except ImportError:
        fail("PyYAML is missing (Debian: python3-yaml, which scripts/bootstrap.sh installs)")
    try:
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
    except (OSError, yaml.YAMLError) as e:
        fail("cannot read %s: %s" % (path, e))
    files = {}
    diags = [Diagnostic(raw, i, files) for i, raw in enumerate(doc.get("Diagnostics") or [], 1)]
    main = str(doc.get("MainSourceFile") or "")
    if main:
        files.setdefault(main, SourceFile(main))
    return main, diags, files


# --- rendering ---------------------------------------------------------------

def esc(text):
    return html.escape(str(text), quote=True)


class Report:
    def __init__(self, main, diags, files, root, yaml_path, title):
        self.main, self.diags, self.files = main, diags, files
        self.root, self.yaml_path, self.title = root, yaml_path, title
        self.file_ids = {}
        order = [main] + sorted(p for p in files if p != main)
        for i, path in enumerate(p for p in order if p):
            self.file_ids[path] = "f%d" % i

    def rel(self, path):
        if not path:
            return "(no file)"
        real = os.path.realpath(path)
        if self.root and (real + os.sep).startswith(self.root + os.sep):
            return os.path.relpath(real, self.root)
        return path

    def where(self, m):
        if not m.path:
            return "(no location)"
        if not m.line:
            return "%s, offset %d" % (self.rel(m.path), m.offset)
        return "%s:%d:%d" % (self.rel(m.path), m.line, m.col)

    def line_link(self, m, text):
        if not m.line:
            return esc(text)
        return '<a href="#%s-L%d">%s</a>' % (self.file_ids[m.path], m.line, esc(text))

    def old_text(self, path, offset, length):
        f = self.files.get(path)
        if f is None or f.data is None:
            return None
        return f.data[offset:offset + length].decode("utf-8", "replace")

    def fix_text(self, r):
        path, offset, length, text = r
        old = self.old_text(path, offset, length) or ""
        if length == 0:
            return "insert '%s'" % text
        return "replace '%s' with '%s'" % (old, text) if text else "remove '%s'" % old

    def fix_item(self, r):
        path, offset, length, text = r
        f = self.files.get(path)
        at = "offset %d" % offset
        if f is not None and f.data is not None:
            at = "%d:%d" % f.position(offset)
            if path != self.main:
                at = "%s:%s" % (self.rel(path), at)
        old = self.old_text(path, offset, length)
        if length == 0:
            what = "insert <code>%s</code>" % esc(text)
        elif not text:
            what = "remove <code>%s</code>" % esc(old)
        else:
            what = "replace <code>%s</code> with <code>%s</code>" % (esc(old), esc(text))
        return '<li class="fix">fix-it at %s: %s</li>' % (esc(at), what)

    def annotation(self, m):
        d = m.owner
        if m.kind == "note":
            badge = '<a class="badge note-badge" href="#%s">%d.%d</a>' % (m.anchor, d.number, m.index)
            back = ' <span class="meta">(note of <a href="#%s">warning %d</a>, %s)</span>' % (
                d.main.anchor, d.number, esc(self.where(d.main)))
            body, extra = back, ""
            if m.replacements:  # clang-tidy applies a note's fix-its only with --fix-notes
                extra = '<ul>%s</ul><span class="meta">(this note\'s fix-it is applied only with --fix-notes; ' \
                        'the diff below leaves it out)</span>' % "".join(self.fix_item(r) for r in m.replacements)
        else:
            badge = '<a class="badge" href="#%s">%d</a>' % (m.anchor, d.number)
            body = ' <a class="check" href="#sum-%d">[%s]</a>' % (d.number, esc(d.check))
            items = ['<li>note %d.%d at <a href="#%s">%s</a>: %s</li>' % (
                d.number, n.index, n.anchor, esc(self.where(n)), esc(n.message)) for n in d.notes]
            items += [self.fix_item(r) for r in m.replacements]
            extra = "<ul>%s</ul>" % "".join(items) if items else ""
        return ('<div class="ann %s %s" id="%s" data-kind="%s" data-file="%s" data-line="%d" data-col="%d"'
                ' data-check="%s">%s <span class="kind">%s:</span> <span class="msg">%s</span>%s%s</div>'
                % (m.kind, d.colour, m.anchor, m.kind, esc(os.path.realpath(m.path) if m.path else ""),
                   m.line, m.col, esc(d.check), badge, m.kind, esc(m.message), body, extra))

    def marked_line(self, f, line, here):
        """The line's text, HTML-escaped, with the token at each diagnostic's column marked."""
        raw = f.lines[line - 1] if 0 < line <= len(f.lines) else b""
        spans = []
        for m in sorted(here, key=lambda m: (m.col, m.kind == "note")):
            start = m.col - 1
            if start >= len(raw) or any(s <= start < e for s, e, _ in spans):
                continue
            tok = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_~][A-Za-z0-9_]*)*").match(raw, start)
            end = tok.end() if tok else start + 1
            end = min([end] + [s for s, _, _ in spans if s > start])
            spans.append((start, end, m))
        out, pos = [], 0
        for start, end, m in sorted(spans, key=lambda s: s[0]):
            out.append(esc(raw[pos:start].decode("utf-8", "replace")))
            label = "%s %s: %s" % ("note %d.%d" % (m.owner.number, m.index) if m.kind == "note"
                                   else "%s %d" % (m.kind, m.owner.number), self.where(m), m.message)
            out.append('<mark class="%s %s" title="%s">%s</mark>' % (
                m.owner.colour, "note" if m.kind == "note" else "diag", esc(label),
                esc(raw[start:end].decode("utf-8", "replace"))))
            pos = end
        out.append(esc(raw[pos:].decode("utf-8", "replace")))
        return "".join(out)

    def listing(self, path, messages):
        f = self.files[path]
        fid = self.file_ids[path]
        by_line = {}
        for m in messages:
            by_line.setdefault(m.line, []).append(m)
        if path == self.main:
            shown = range(1, len(f.lines) + 1)
        else:
            keep = sorted({n for line in by_line for n in range(line - CONTEXT, line + CONTEXT + 1)
                           if 0 < n <= len(f.lines)})
            shown = keep
        fixes = {}  # line -> {diagnostic: [replacement]} of the fix-it edits that start there
        for d in self.diags:
            for r in d.main.replacements:
                if r[0] == path and r[1] <= len(f.data):
                    fixes.setdefault(f.position(r[1])[0], {}).setdefault(d, []).append(r)
        out, prev = ['<div class="src">'], 0
        for line in shown:
            if prev and line != prev + 1:
                out.append('<div class="gap">⋮</div>')
            prev = line
            here = by_line.get(line, [])
            cls = "line"
            if here:
                first = min(here, key=lambda m: (m.kind == "note", m.owner.number))
                cls += " %s %s" % ("nl" if first.kind == "note" else "hl", first.owner.colour)
            marks = "".join(
                '<a class="fixmark %s" href="#%s" title="%s">fix-it %d</a>'
                % (d.colour, d.main.anchor, esc("fix-it of warning %d: %s" % (
                    d.number, "; ".join(self.fix_text(r) for r in reps))), d.number)
                for d, reps in fixes.get(line, {}).items())
            out.append('<div class="%s" id="%s-L%d"><a class="no" href="#%s-L%d">%d</a><span class="code">%s</span>%s</div>'
                       % (cls, fid, line, fid, line, line, self.marked_line(f, line, here), marks))
            for m in sorted(here, key=lambda m: (m.col, m.kind == "note", m.owner.number)):
                out.append(self.annotation(m))
        out.append("</div>")
        return "\n".join(out)

    def fixed_texts(self):
        """Per file: (old text, new text, [(offset, length, diagnostic number)], skipped count)."""
        edits = {}
        for d in self.diags:
            for path, offset, length, text in d.main.replacements:
                edits.setdefault(path, {}).setdefault((offset, length, text), d.number)
        result = {}
        for path, reps in edits.items():
            f = self.files.get(path)
            if f is None or f.data is None:
                continue
            data, applied, skipped, end = f.data, [], 0, -1
            for (offset, length, text), number in sorted(reps.items()):
                if offset < end or offset + length > len(data):
                    skipped += 1  # overlaps an edit already taken, as clang-tidy -fix would refuse it
                    continue
                applied.append((offset, length, text, number))
                end = offset + length
            new = data
            for offset, length, text, _ in reversed(applied):
                new = new[:offset] + text.encode("utf-8") + new[offset + length:]
            result[path] = (data.decode("utf-8", "replace"), new.decode("utf-8", "replace"),
                            [(o, l, n) for o, l, _, n in applied], skipped)
        return result

    def diff(self):
        out = []
        texts = self.fixed_texts()
        for path in sorted(texts, key=lambda p: (p != self.main, p)):  # the main file first
            old, new, applied, skipped = texts[path]
            f = self.files[path]
            lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "a/" + self.rel(path),
                                              "b/" + self.rel(path), lineterm=""))
            out.append('<div class="diff">')
            for text in lines:
                cls = "line"
                if text.startswith("@@"):
                    cls += " hunk"
                    m = re.match(r"@@ -(\d+)(?:,(\d+))?", text)
                    first = int(m.group(1))
                    last = first + (int(m.group(2)) if m.group(2) is not None else 1) - 1
                    nums = sorted({n for o, _, n in applied if first <= f.position(o)[0] <= last})
                    badges = " ".join('<a class="badge %s" href="#d%d">%d</a>' % (
                        self.diags[n - 1].colour, n, n) for n in nums)
                    out.append('<div class="%s">%s  %s</div>' % (cls, esc(text), badges))
                    continue
                if text.startswith(("---", "+++")):
                    cls += " hdr"
                elif text.startswith("+"):
                    cls += " add"
                elif text.startswith("-"):
                    cls += " del"
                out.append('<div class="%s">%s</div>' % (cls, esc(text)))
            out.append("</div>")
            if skipped:
                out.append('<p class="meta">%d fix-it edit(s) overlap another and are not applied.</p>' % skipped)
        return "\n".join(out)

    def render(self):
        notes = sum(len(d.notes) for d in self.diags)
        edits = sum(len(d.main.replacements) for d in self.diags)
        title = self.title or "meshguard-tidy findings: %s" % self.rel(self.main)
        palette = "\n".join(".c%d { --c: %s; --bg: %s22; }" % (i, c, c) for i, c in enumerate(PALETTE))
        out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
               '<meta name="viewport" content="width=device-width, initial-scale=1">',
               "<title>%s</title>" % esc(title), "<style>%s%s</style></head><body>" % (CSS, palette),
               "<h1>%s</h1>" % esc(title),
               '<p class="meta">%d warning%s, %d note%s, %d fix-it edit%s; from <code>%s</code> '
               "(meshguard-tidy <code>-export-fixes</code>). Hover a marked token for its message; "
               "numbers link a warning, its notes and its fix-its.</p>"
               % (len(self.diags), "" if len(self.diags) == 1 else "s", notes, "" if notes == 1 else "s",
                  edits, "" if edits == 1 else "s", esc(self.rel(self.yaml_path)))]
        if not self.diags:
            out.append("<p>No findings.</p>")
        else:
            out.append('<h2 id="summary">Findings</h2><table class="sum"><tr><th>#</th><th>where</th>'
                       "<th>check</th><th>message</th><th>notes</th><th>fix-it edits</th></tr>")
            for d in self.diags:
                out.append('<tr id="sum-%d" class="%s"><td><a class="badge" href="#%s">%d</a></td><td>%s</td>'
                           "<td><code>%s</code></td><td>%s</td><td>%d</td><td>%d</td></tr>"
                           % (d.number, d.colour, d.main.anchor, d.number, self.line_link(d.main, self.where(d.main)),
                              esc(d.check), esc(d.main.message), len(d.notes), len(d.main.replacements)))
            out.append("</table>")
        messages = {}
        nowhere = []
        for d in self.diags:
            for m in [d.main] + d.notes:
                if m.path and m.line:
                    messages.setdefault(m.path, []).append(m)
                else:
                    nowhere.append(m)
        for path in sorted(self.file_ids, key=lambda p: self.file_ids[p]):
            f = self.files[path]
            if path != self.main and path not in messages:
                continue
            out.append('<h2 id="%s">%s</h2>' % (self.file_ids[path], esc(self.rel(path))))
            if f.data is None:
                out.append('<p class="meta">cannot read this file.</p>')
                continue
            out.append(self.listing(path, messages.get(path, [])))
        if nowhere:
            out.append('<h2 id="elsewhere">Without a line in a readable file</h2><div class="src">')
            out += [self.annotation(m) for m in nowhere]
            out.append("</div>")
        out.append('<h2 id="fixits">Fix-its as a diff</h2>')
        diff = self.diff()
        if diff:
            out.append('<p class="meta">Every warning\'s fix-it edits applied to the source (what '
                       "<code>meshguard-tidy -fix</code> does); each hunk names its warnings.</p>")
            out.append(diff)
        else:
            out.append('<p class="meta">No fix-its.</p>')
        out.append("</body></html>\n")
        return "\n".join(out)


# --- checking a report against meshguard-tidy's text output ------------------

DIAG_LINE = re.compile(r"^(.+?):(\d+):(\d+): (warning|error|note): (.*)$")


class AnnotationParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found, self.current, self.depth, self.in_msg = [], None, 0, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.current is None and tag == "div" and "ann" in (a.get("class") or "").split():
            self.current = {"kind": a.get("data-kind"), "file": a.get("data-file"), "line": int(a.get("data-line", 0)),
                            "col": int(a.get("data-col", 0)), "check": a.get("data-check"), "msg": ""}
            self.depth = 0
        elif self.current is not None:
            if tag == "div":
                self.depth += 1
            if tag == "span" and "msg" in (a.get("class") or "").split():
                self.in_msg = True

    def handle_endtag(self, tag):
        if self.current is None:
            return
        if tag == "span" and self.in_msg:
            self.in_msg = False
        elif tag == "div":
            if self.depth == 0:
                self.found.append(self.current)
                self.current = None
            else:
                self.depth -= 1

    def handle_data(self, data):
        if self.in_msg:
            self.current["msg"] += data


def check(report_path, log_path):
    try:
        with open(report_path, encoding="utf-8") as f:
            report = f.read()
        with open(log_path, errors="replace") as f:
            log = f.read().splitlines()
    except OSError as e:
        fail(str(e))
    parser = AnnotationParser()
    parser.feed(report)
    have = {(a["kind"], os.path.basename(a["file"] or ""), a["line"], a["col"], a["msg"]) for a in parser.found}
    want, missing = [], []
    for text in log:
        m = DIAG_LINE.match(text)
        if not m or m.group(5).startswith("FIX-IT "):
            continue
        path, line, col, kind, msg = m.groups()
        if kind != "note":
            msg = re.sub(r" \[[\w.,-]+\]$", "", msg)  # the check's name, which the report shows apart
        key = (kind, os.path.basename(path), int(line), int(col), msg)
        want.append(key)
        if key not in have:
            missing.append("%s:%s:%s: %s: %s" % (path, line, col, kind, msg))
    warnings = sum(1 for k in want if k[0] != "note")
    reported = sum(1 for a in parser.found if a["kind"] != "note")
    if not want:
        missing.append("no warning or note in %s" % log_path)
    if reported != warnings:
        missing.append("the report has %d warnings, %s has %d" % (reported, log_path, warnings))
    if missing:
        print("%s lacks what %s says:\n  %s" % (report_path, log_path, "\n  ".join(missing)))
        return 1
    print("%s has every finding of %s: %d warnings, %d notes"
          % (report_path, log_path, warnings, len(want) - warnings))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="the YAML of -export-fixes (or, with --check, the report)")
    parser.add_argument("output", help="the HTML to write (or, with --check, meshguard-tidy's text output)")
    parser.add_argument("--root", default=os.getcwd(), help="paths under it are shown relative to it")
    parser.add_argument("--title")
    parser.add_argument("--check", action="store_true", help="check a report against meshguard-tidy's output")
    args = parser.parse_args()
    if args.check:
        return check(args.input, args.output)
    main_file, diags, files = load(args.input)
    if not main_file and not diags:
        fail("%s holds no MainSourceFile and no Diagnostics: is it -export-fixes output?" % args.input)
    text = Report(main_file, diags, files, os.path.realpath(args.root), args.input, args.title).render()
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
