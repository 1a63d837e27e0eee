#!/usr/bin/env python3
"""`choreo explore` on every behavior of the shared corpus (each .xar and .crg), against the
plain run: pooled box coverage (boxes entered / boxes loaded, summed over behaviors) of the
plain run (the exploration's first path alone, `--max-paths 1`: the behavior run with no
input, as `choreo run --fast --timeout 60`) and of the exploration with the default bounds;
the wall time of both over the whole corpus, one behavior after another, each using every
core (`--jobs` default).

    python3 benches/explore.py [--only plain|explored] [--rows FILE] [--replay] [EXTRA ARGS...]

`--replay` also writes each exploration's faults (`--out`) and replays each fault's scenario
twice with `choreo run --fast --events` and `--trace`, horizon as the exploration's: the
traces must be byte-identical (run it with a busy loop on each core for the determinism
target).

Builds `cargo build --release -p choreo`. Results: docs/benchmarks.md, "choreo explore".
"""

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
CHOREO = os.path.join(ROOT, "target", "release", "choreo")
# A behavior whose exploration outlasts this is stopped and counted as such (none should).
WALL_LIMIT = 900


def behaviors():
    found = []
    for folder, _, files in os.walk(CORPUS):
        for f in files:
            if f.endswith((".xar", ".crg")):
                found.append(os.path.join(folder, f))
    return sorted(found)


def explore(path, extra, out=None):
    start = time.monotonic()
    if out:
        extra = extra + ["--out", out]
    try:
        done = subprocess.run([CHOREO, "explore", path, "--json"] + extra,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, timeout=WALL_LIMIT)
    except subprocess.TimeoutExpired:
        return {"input": path, "outcome": "stopped", "seconds": time.monotonic() - start}
    seconds = time.monotonic() - start
    row = {"input": path, "exit": done.returncode, "seconds": seconds}
    try:
        found = json.loads(done.stdout)
    except ValueError:
        row["outcome"] = "no report"
        row["stderr"] = done.stderr.decode("utf-8", "replace")[-400:]
        return row
    row["outcome"] = "explored"
    for key in ("paths", "complete", "entered", "loaded", "rules_matched", "rules_unmatched"):
        row[key] = found.get(key)
    row["faults"] = [{"kind": f["kind"], "path": f["path"], "text": f["text"],
                      "steps": len(f["steps"])} for f in found.get("faults", [])]
    row["unproduced"] = found.get("unproduced", [])
    row["causes"] = {}
    for diagram in found.get("boxes", []):
        for box in diagram.get("never_entered", []):
            kind = cause(box["why"])
            row["causes"][kind] = row["causes"].get(kind, 0) + 1
            row.setdefault("never_entered", []).append([box["path"], box["why"]])
    if out:
        row["replays"] = [replay(path, out, i + 1, f) for i, f in enumerate(found.get("faults", []))]
    return row


# The kinds of `why` (docs/explore.md, "Why a box was never entered"), each told by its words.
CAUSES = [("its output", "an output never fired"), ("its input", "an input never stimulated"),
          ("its frame", "a frame never came"), ("its diagram", "a diagram never loaded"),
          ("it waits for ALMemory", "a key explore cannot produce"),
          ("no link leads", "no link"), ("nothing that leads", "a loop with no way in"),
          ("behavior the run started", "in a behavior the run started")]


def cause(why):
    """The kind of cause `why` says."""
    return next((kind for words, kind in CAUSES if words in why), why)


def replay(path, out, n, fault):
    """Replays fault `n`'s scenario twice: whether both traces are the same bytes."""
    steps = fault["steps"]
    horizon = 60.0 + max([s["at"] for s in steps] + [0.0])
    if steps and steps[-1]["input"].get("kind") == "wait":
        horizon += 600.0  # the exploration's WAIT_SECONDS
    try:
        os.stat(os.path.join(out, "fault-%d.yaml" % n))
    except OSError:
        return {"fault": n, "same": False, "why": "no scenario written"}
    traces = []
    for k in (1, 2):
        trace = os.path.join(out, "replay-%d-%d.jsonl" % (n, k))
        try:
            subprocess.run([CHOREO, "run", path, "--fast", "--events",
                            os.path.join(out, "fault-%d.yaml" % n), "--trace", trace,
                            "--timeout", "%g" % horizon, "-q"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, timeout=WALL_LIMIT)
        except subprocess.TimeoutExpired:
            return {"fault": n, "same": False, "why": "timed out"}
        with open(trace, "rb") as f:
            traces.append(f.read())
    return {"fault": n, "same": traces[0] == traces[1] and bool(traces[0])}


def sweep(name, extra, rows_file, replaying=False):
    import tempfile
    inputs = behaviors()
    rows = []
    start = time.monotonic()
    for path in inputs:
        with tempfile.TemporaryDirectory() as out:
            row = explore(path, extra, out if replaying else None)
        rows.append(row)
        if rows_file:
            with open(rows_file, "a") as out:
                out.write(json.dumps(dict(row, sweep=name)) + "\n")
    wall = time.monotonic() - start
    explored = [r for r in rows if r["outcome"] == "explored"]
    entered = sum(r["entered"] for r in explored)
    loaded = sum(r["loaded"] for r in explored)
    paths = sum(r["paths"] for r in explored)
    print("%-9s %3d behaviors (%d explored, %d not loaded, %d stopped): boxes entered %d of %d"
          " = %.1f%%; %d paths in %.1f s (%.1f ms a path); %d incomplete; %d with faults"
          % (name, len(rows), len(explored), sum(r["outcome"] == "no report" for r in rows),
             sum(r["outcome"] == "stopped" for r in rows), entered, loaded,
             100.0 * entered / max(loaded, 1), paths, wall, 1000.0 * wall / max(paths, 1),
             sum(not r["complete"] for r in explored), sum(bool(r["faults"]) for r in explored)))
    causes = {}
    for r in explored:
        for kind, n in r.get("causes", {}).items():
            causes[kind] = causes.get(kind, 0) + n
    print("never entered, by cause: " + "; ".join(
        "%s %d" % (kind, n) for kind, n in sorted(causes.items(), key=lambda c: -c[1])))
    if replaying:
        replays = [p for r in explored for p in r.get("replays", [])]
        differ = [(r["input"], p) for r in explored for p in r.get("replays", []) if not p["same"]]
        print("replayed  %d fault scenarios twice each: %d the same trace, %d not"
              % (len(replays), len(replays) - len(differ), len(differ)))
        for path, p in differ:
            print("    not the same: %s fault %d %s" % (os.path.relpath(path, CORPUS), p["fault"],
                                                      p.get("why", "")))
    slowest = sorted(rows, key=lambda r: -r["seconds"])[:5]
    for r in slowest:
        print("    slowest: %6.1f s %s" % (r["seconds"], os.path.relpath(r["input"], CORPUS)))
    sys.stdout.flush()
    return rows


def main():
    args = sys.argv[1:]
    only, rows_file, replaying = None, None, False
    while args[:1] in (["--only"], ["--rows"], ["--replay"]):
        if args[0] == "--replay":
            replaying, args = True, args[1:]
            continue
        if args[0] == "--only":
            only = args[1]
        else:
            rows_file = args[1]
        args = args[2:]
    if not os.path.isdir(CORPUS):
        print("NOTICE: %s is absent: benchmark skipped" % CORPUS)
        return
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "choreo"], cwd=ROOT, check=True)
    if only in (None, "plain"):
        sweep("plain", ["--max-paths", "1"] + args, rows_file)
    if only in (None, "explored"):
        sweep("explored", args, rows_file, replaying)


if __name__ == "__main__":
    main()
