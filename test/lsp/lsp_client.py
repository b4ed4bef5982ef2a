#!/usr/bin/env python3
"""A small LSP client for meshguard's clangd tests.

Starts a language server over stdio, opens one file and waits (never longer
than --timeout seconds) for a textDocument/publishDiagnostics that contains a
diagnostic with the given code. Prints every diagnostic of that publish, one
per line, with its relatedInformation indented below it:

    <file>:<line>:<col>: <severity>: <message> [<code>]
      related: <file>:<line>:<col>: <message>

(lines and columns 1-based, as compilers print them). With --fix it then asks
for textDocument/codeAction at that diagnostic, applies the WorkspaceEdit of
the first quick fix, sends didChange with the edited text and waits for the
diagnostics of the new version, printing them the same way after a line
`after fix:`; --print-fixed prints the edited text too.

    lsp_client.py [options] FILE -- SERVER [SERVER ARGS...]

Exit status: 0 success; 1 the diagnostic did not come (or is still there after
--fix); 2 bad usage; 3 the server failed (died, timed out, malformed reply).
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}


class ServerError(Exception):
    pass


def path_to_uri(path):
    return "file://" + urllib.request.pathname2url(os.path.abspath(path))


def uri_to_path(uri):
    if uri.startswith("file://"):
        return urllib.request.url2pathname(urllib.parse.urlparse(uri).path)
    return uri


class Server:
    """A language server process and a reader thread for its messages."""

    def __init__(self, argv, stderr_file):
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE,
                                         stderr=stderr_file)
        except OSError as e:
            raise ServerError("cannot start %s: %s" % (argv[0], e))
        self.messages = queue.Queue()
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        try:
            while True:
                headers = {}
                while True:
                    line = out.readline()
                    if not line:
                        self.messages.put(None)
                        return
                    line = line.decode("ascii", "replace").strip()
                    if not line:
                        break
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                body = out.read(length)
                if len(body) < length:
                    self.messages.put(None)
                    return
                self.messages.put(json.loads(body.decode("utf-8")))
        except Exception as e:  # malformed output: report, do not hang
            self.messages.put(ServerError("unreadable message from server: %s" % e))

    def send(self, message):
        message["jsonrpc"] = "2.0"
        body = json.dumps(message).encode("utf-8")
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise ServerError("server closed its input: %s" % e)

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"id": rid, "method": method, "params": params})
        return rid

    def wait_for(self, predicate, deadline, what):
        """Returns the first message for which predicate is true; answers the
        server's own requests on the way; raises ServerError at the deadline."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServerError("timed out waiting for %s" % what)
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                raise ServerError("timed out waiting for %s" % what)
            if msg is None:
                raise ServerError("server exited (status %s) while waiting for %s"
                                  % (self.proc.poll(), what))
            if isinstance(msg, Exception):
                raise msg
            if "method" in msg and "id" in msg:
                # A request from the server (workspace/configuration,
                # client/registerCapability, ...): a null result is always
                # acceptable for the ones clangd sends.
                self.send({"id": msg["id"], "result": None})
                continue
            if predicate(msg):
                return msg

    def response(self, rid, deadline, what):
        msg = self.wait_for(lambda m: m.get("id") == rid and "method" not in m,
                            deadline, what)
        if "error" in msg:
            raise ServerError("%s failed: %s" % (what, msg["error"]))
        return msg.get("result")

    def close(self, deadline):
        try:
            if self.proc.poll() is None:
                rid = self.request("shutdown", None)
                self.response(rid, min(deadline, time.monotonic() + 5), "shutdown")
                self.notify("exit", None)
                self.proc.wait(timeout=5)
        except (ServerError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def cpu_seconds(pid):
    """user+system CPU time of a process (all its threads) so far, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def format_diag(diag, path):
    rng = diag["range"]["start"]
    code = diag.get("code")
    line = "%s:%d:%d: %s: %s" % (path, rng["line"] + 1, rng["character"] + 1,
                                 SEVERITY.get(diag.get("severity"), "diagnostic"),
                                 diag["message"])
    if code is not None:
        line += " [%s]" % code
    out = [line]
    for rel in diag.get("relatedInformation") or []:
        loc = rel["location"]
        start = loc["range"]["start"]
        out.append("  related: %s:%d:%d: %s" % (
            uri_to_path(loc["uri"]), start["line"] + 1, start["character"] + 1,
            rel["message"]))
    return "\n".join(out)


def offset_of(text, position):
    """Offset in text of an LSP position (UTF-16 code units per line)."""
    lines = text.split("\n")
    line = position["line"]
    if line >= len(lines):
        return len(text)
    offset = sum(len(l) + 1 for l in lines[:line])
    units = 0
    col = 0
    for ch in lines[line]:
        if units >= position["character"]:
            break
        units += 2 if ord(ch) > 0xFFFF else 1
        col += 1
    return offset + col


def apply_edits(text, edits):
    spans = []
    for e in edits:
        spans.append((offset_of(text, e["range"]["start"]),
                      offset_of(text, e["range"]["end"]), e["newText"]))
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def edits_for(workspace_edit, uri):
    edits = []
    for doc_uri, doc_edits in (workspace_edit.get("changes") or {}).items():
        if doc_uri == uri:
            edits.extend(doc_edits)
    for change in workspace_edit.get("documentChanges") or []:
        if change.get("textDocument", {}).get("uri") == uri:
            edits.extend(change.get("edits", []))
    return edits


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print("usage: lsp_client.py [options] FILE -- SERVER [ARGS...]", file=sys.stderr)
        return 2
    split = argv.index("--")
    ours, server_argv = argv[:split], argv[split + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--code", default="dtensor-collective-without-mesh",
                    help="diagnostic code to wait for")
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds for the whole session (default 120)")
    ap.add_argument("--expect-none", action="store_true",
                    help="wait for the first diagnostics and require that the code is absent")
    ap.add_argument("--fix", action="store_true",
                    help="apply the diagnostic's quick fix and check that it is gone")
    ap.add_argument("--print-fixed", action="store_true",
                    help="with --fix, print the edited file")
    ap.add_argument("--timing", action="store_true",
                    help="print seconds from didOpen to the diagnostics, and the server's "
                         "CPU time until then, on stderr")
    ap.add_argument("--server-log", help="keep the server's stderr in this file")
    args = ap.parse_args(ours)
    if not server_argv:
        ap.error("no server command after --")

    path = os.path.abspath(args.file)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print("lsp_client: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 2
    uri = path_to_uri(path)
    deadline = time.monotonic() + args.timeout

    log = open(args.server_log, "w+b") if args.server_log else tempfile.TemporaryFile()
    server = None
    status = 0
    try:
        server = Server(server_argv, log)
        rid = server.request("initialize", {
            "processId": os.getpid(),
            "rootUri": path_to_uri(os.path.dirname(path)),
            "capabilities": {
                "textDocument": {
                    "publishDiagnostics": {"relatedInformation": True,
                                           "versionSupport": True},
                    "codeAction": {"codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix", "refactor", ""]}}},
                    "synchronization": {"didSave": False},
                },
                "workspace": {"applyEdit": True,
                              "workspaceEdit": {"documentChanges": True}},
            },
        })
        server.response(rid, deadline, "the initialize response")
        server.notify("initialized", {})
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": text}})
        opened = time.monotonic()

        def publish(version=None, need_code=False):
            def pred(m):
                if m.get("method") != "textDocument/publishDiagnostics":
                    return False
                p = m["params"]
                if p.get("uri") != uri:
                    return False
                if version is not None and p.get("version") not in (None, version):
                    return False
                if need_code:
                    return any(d.get("code") == args.code for d in p["diagnostics"])
                return True
            return pred

        if args.expect_none:
            msg = server.wait_for(publish(), deadline, "diagnostics")
        else:
            msg = server.wait_for(publish(need_code=True), deadline,
                                  "a %s diagnostic" % args.code)
        if args.timing:
            cpu = cpu_seconds(server.proc.pid)
            print("lsp_client: didOpen -> diagnostics: %.3f s (server CPU so far: %s s)"
                  % (time.monotonic() - opened, "%.2f" % cpu if cpu is not None else "?"),
                  file=sys.stderr)
        diags = msg["params"]["diagnostics"]
        for d in diags:
            print(format_diag(d, path))
        ours_diags = [d for d in diags if d.get("code") == args.code]
        if args.expect_none:
            if ours_diags:
                print("lsp_client: unexpected %s diagnostic" % args.code, file=sys.stderr)
                status = 1
            return status

        if args.fix:
            target = ours_diags[0]
            rid = server.request("textDocument/codeAction", {
                "textDocument": {"uri": uri},
                "range": target["range"],
                "context": {"diagnostics": [target], "only": ["quickfix"]},
            })
            actions = server.response(rid, deadline, "the codeAction response") or []
            fixes = [a for a in actions if isinstance(a, dict) and "edit" in a
                     and edits_for(a["edit"], uri)]
            if not fixes:
                print("lsp_client: no quick fix with an edit offered for the %s diagnostic "
                      "(%d code actions)" % (args.code, len(actions)), file=sys.stderr)
                return 1
            print("code action: %s" % fixes[0].get("title", ""))
            text = apply_edits(text, edits_for(fixes[0]["edit"], uri))
            server.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [{"text": text}]})
            msg = server.wait_for(publish(version=2), deadline,
                                  "diagnostics after the fix")
            print("after fix:")
            diags = msg["params"]["diagnostics"]
            for d in diags:
                print(format_diag(d, path))
            if args.print_fixed:
                print("fixed text:")
                sys.stdout.write(text)
            if any(d.get("code") == args.code for d in diags):
                print("lsp_client: the %s diagnostic is still there after the fix"
                      % args.code, file=sys.stderr)
                status = 1
        return status
    except ServerError as e:
        print("lsp_client: %s" % e, file=sys.stderr)
        log.flush()
        log.seek(0)
        tail = log.read()[-4000:].decode("utf-8", "replace")
        if tail:
            print("lsp_client: last server output:\n%s" % tail, file=sys.stderr)
        return 3
    finally:
        if server:
            server.close(deadline + 10)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
