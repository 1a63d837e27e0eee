#!/usr/bin/env python3
"""`choreo lsp` as an editor feels it (issue 32's targets), side by side with its anchor.

1. A generated topic of 1,000 rules (concepts, tags, variables) is opened; then one rule is
   edited N times, each edit a `didChange` with the whole text, as VS Code sends it. Timed:
   from the change sent to its `publishDiagnostics` read back (target: under 20 ms). Anchor,
   in the same run: `choreo check` of the same topic as a process (what an on-save hook
   without a server costs).
2. A project of 100 behaviors (a `manifest.xml`, each behavior a `.xar` with a Dialog box's
   topic beside it) is opened whole in the server; its resident memory is read from /proc
   (target: under 100 MB). Twice: every behavior the corpus's median `behavior.xar`, then
   its largest (the server holds every open text, as the editor does).

Usage: benches/lsp.py [BINARY] [EDITS]   (default target/release/choreo, 50 edits)
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


class Server:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next = 1
        self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        self.notify("initialized", {})

    def send(self, message):
        body = json.dumps(message).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            line = line.strip()
            if not line:
                break
            if line.startswith(b"Content-Length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        i = self.next
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == i:
                return m.get("result")

    def diagnostics(self, uri):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]

    def open(self, path, language, text):
        uri = path.resolve().as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})
        return uri

    def rss_mb(self):
        for line in Path(f"/proc/{self.p.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait(timeout=30)


def big_topic(rules):
    lines = ["topic: ~big()", "language: enu"]
    for i in range(rules // 10):
        lines.append(f"concept:(thing{i}) [apple{i} pear{i} \"green plum {i}\"]")
    for i in range(rules):
        c = i % max(1, rules // 10)
        lines.append(f"u:(do you like ~thing{c} {{please}} number {i}) %tag{i} yes $liked{i}=1")
        if i % 10 == 0:
            lines.append(f"    u1:(why) because ^goto(tag{(i + 1) % rules})")
    return "\n".join(lines) + "\n"


def ms(seconds):
    return f"{seconds * 1000:.2f} ms"


def edits(binary, n):
    text = big_topic(1000)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "big_enu.top"
        path.write_text(text)
        s = Server(binary)
        uri = s.open(path, "qichat", text)
        s.diagnostics(uri)
        took = []
        for k in range(n):
            edited = text.replace("number 500)", f"number 500 edit{k})")
            start = time.perf_counter()
            s.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": k + 2},
                "contentChanges": [{"text": edited}]})
            d_ = s.diagnostics(uri)
            took.append(time.perf_counter() - start)
        s.close()
        anchor = []
        for _ in range(min(n, 10)):
            start = time.perf_counter()
            subprocess.run([binary, "check", "-q", str(path)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            anchor.append(time.perf_counter() - start)
    lines = text.count("\n")
    p50, anchor50 = statistics.median(took), statistics.median(anchor)
    print(f"1,000-rule topic ({lines} lines, {len(d_)} diagnostics): diagnostics after an edit "
          f"p50 {ms(p50)}, max {ms(max(took))} over {n} edits (target < 20 ms)")
    print(f"  anchor, `choreo check` of the same file as a process: p50 {ms(anchor50)} "
          f"({anchor50 / p50:.1f}x the server's answer)")


def project(binary, count, largest):
    big = None
    if CORPUS.is_dir():
        xars = sorted(CORPUS.rglob("behavior.xar"), key=lambda p: p.stat().st_size)
        big = (xars[-1] if largest else xars[len(xars) // 2]) if xars else None
    xar = big.read_text(errors="replace") if big else None
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "manifest.xml").write_text('<package uuid="bench" version="0.0.1"/>')
        files = []
        for i in range(count):
            b = root / f"behavior_{i}"
            (b / "dlg").mkdir(parents=True)
            body = xar if xar is not None else "<ChoregrapheProject/>"
            (b / "behavior.xar").write_text(body)
            (b / "dlg" / f"dlg_{i}_enu.top").write_text(big_topic(50).replace("~big", f"~dlg{i}"))
            files += [(b / "behavior.xar", "xml"), (b / "dlg" / f"dlg_{i}_enu.top", "qichat")]
        s = Server(binary)
        base = s.rss_mb()
        start = time.perf_counter()
        for path, language in files:
            uri = s.open(path, language, path.read_text())
            s.diagnostics(uri)
        took = time.perf_counter() - start
        rss = s.rss_mb()
        s.close()
    which = "the largest" if largest else "the median"
    size = f"{which}, {len(xar) // 1024} KB each" if big else "empty"
    print(f"project of {count} behaviors ({size}) and {count} topics open: resident memory "
          f"{rss:.1f} MB (target < 100 MB; {base:.1f} MB before opening), opened and checked "
          f"in {took:.1f} s")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "choreo")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary}: build it first (cargo build --release -p choreo)")
    edits(binary, n)
    project(binary, 100, largest=False)
    project(binary, 100, largest=True)


if __name__ == "__main__":
    main()
