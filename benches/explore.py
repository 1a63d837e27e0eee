#!/usr/bin/env python3
"""`choreo explore` on every behavior of the shared corpus (each .xar and .crg), against the
plain run: pooled box coverage (boxes entered / boxes loaded, summed over behaviors) of the
plain run (the exploration's first path alone, `--max-paths 1`: the behavior run with no
input, as `choreo run --fast --timeout 60`) and of the exploration with the default bounds;
the wall time of both over the whole corpus, one behavior after another, each using every
core (`--jobs` default).

    python3 benches/explore.py [--only plain|explored] [--rows FILE] [EXTRA EXPLORE ARGS...]

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


def explore(path, extra):
    start = time.monotonic()
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
    return row


def sweep(name, extra, rows_file):
    inputs = behaviors()
    rows = []
    start = time.monotonic()
    for path in inputs:
        row = explore(path, extra)
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
    slowest = sorted(rows, key=lambda r: -r["seconds"])[:5]
    for r in slowest:
        print("    slowest: %6.1f s %s" % (r["seconds"], os.path.relpath(r["input"], CORPUS)))
    sys.stdout.flush()
    return rows


def main():
    args = sys.argv[1:]
    only, rows_file = None, None
    while args[:1] in (["--only"], ["--rows"]):
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
        sweep("explored", args, rows_file)


if __name__ == "__main__":
    main()
