#!/usr/bin/env python3
"""Fleet scale: one `choreo run --robots FILE` driving N simulated robots at once.

    benches/fleet.py [--latency LIST] [N ...]          (default: 1 8 32 128)

With --latency (issue 33), every sim is started with `--latency LIST` (its robots take the
list's entries in turn, e.g. `5±20,20±20,50±20,100±20`): robots far away, over a simulated
Wi-Fi; the fleet measures each robot's delay and sends its orders early by it.

For each N, the robots are served by one `choreo sim --count N` process, and (N > 8) by
N/8 processes of 8. Measured per configuration, all in one run of this script, from the
robots' own call logs (`sim --calls`, the Unix time each call was received), max - min in ms (one frame
is 40 ms at 25 fps):
- start spread: how far apart the robots got the motion order a timeline sends when it
  starts (`angleInterpolationBezier` of crates/choreo/tests/fixtures/motion.xar): the
  fleet's rendezvous itself;
- frame-1 spread: the same of the order of a box of the dance's first frame ("arms up"),
  started with the timeline (a fleet loads the first frame's boxes at the rendezvous);
- frame-50 spread: how far apart they got the order of the dance's frame 50 (the
  `arms down` keyframe of examples/dance, 1.96 s after its timeline starts, sent by a
  Python box);
- CPU of the `choreo run` process of the dance (user + system), per robot, and its ratio to the same
  measure with one robot (the anchor, measured in the same run);
- CPU of the sim processes per robot; wall time; peak memory of `choreo run`;
- how many robots finished;
- the start spread as the fleet's own report says it (`start spread` in `choreo run`'s
  fleet section: each robot's start frame played plus its measured delay, the fleet's part
  without the network's jitter), beside the one from the call logs;
- with --latency, the frame-50 orders by latency entry: each entry's median and range.
Builds `cargo build --release -p choreo`, or runs CHOREO_BIN if set (an older build, side
by side). Results: docs/benchmarks.md, section "Fleets".
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHOREO = os.environ.get("CHOREO_BIN") or os.path.join(ROOT, "target", "release", "choreo")


LATENCY = []


def serve(count, calls):
    """`choreo sim --count` on free ports: the process and its URLs."""
    sim = subprocess.Popen(
        [CHOREO, "sim", "--listen", "tcp://127.0.0.1:0", "--count", str(count), "-q",
         "--calls", calls] + LATENCY,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    urls = []
    for line in sim.stderr:
        m = re.search(r" at (tcp://[0-9.]+:[0-9]+)", line)
        if m:
            urls.append(m.group(1))
        if "robots served" in line or (count == 1 and "Ctrl-C" in line):
            break
    assert len(urls) == count, urls
    return sim, urls


def cpu_of(pid):
    """User + system CPU seconds of a live process (from /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def measure(n, per_sim, work, behavior, wanted):
    """One fleet run of `behavior`; `wanted` names pickers, `pick(call)`, of the calls whose
    arrival times are compared: their spreads, by name."""
    sims, urls, logs = [], [], []
    for i in range(0, n, per_sim):
        log = os.path.join(work, f"calls-{n}-{per_sim}-{i}.jsonl")
        sim, u = serve(min(per_sim, n - i), log)
        sims.append(sim)
        urls += u
        logs.append(log)
    robots = os.path.join(work, "robots.txt")
    with open(robots, "w") as f:
        f.write("\n".join(urls) + "\n")
    usage = os.path.join(work, "usage.txt")
    run = subprocess.run(["/usr/bin/time", "-o", usage, "-f", "%e %U %S %M",
                          CHOREO, "run", behavior, "--robots" if n > 1 else "--robot",
                          robots if n > 1 else urls[0], "-q"],
                         cwd=ROOT, capture_output=True, text=True)
    with open(usage) as f:
        wall, user, system, peak = f.read().split()[-4:]
    wall, cpu, peak = float(wall), float(user) + float(system), int(peak)
    sim_cpu = sum(cpu_of(s.pid) for s in sims)
    if LATENCY:
        # A call is logged when it returns: a robot far away returns after the run ended.
        time.sleep(1.0)
    for s in sims:
        s.send_signal(signal.SIGINT)
    for s in sims:
        s.wait()
    finished = run.stdout.count("outcome        finished")
    at = {name: [] for name in wanted}
    for log in logs:
        with open(log) as f:
            for line in f:
                c = json.loads(line)
                for name, pick in wanted.items():
                    if pick(c):
                        at[name].append((c["t"], c["robot"]))
    row = {
        "robots": n, "sims": len(sims), "finished": finished,
        "cpu_s": cpu, "sim_cpu_s": sim_cpu, "wall_s": wall,
        "peak_rss_mb": peak / 1024, "exit": run.returncode,
    }
    said = re.search(r"start spread +([0-9.]+) ms at most", run.stdout)
    row["said_ms"] = float(said.group(1)) if said else None
    for name, calls in at.items():
        times = [t for t, _ in calls]
        row[name] = (max(times) - min(times)) * 1000 if len(times) > 1 else 0.0
        row[name + "_classes"] = by_class(calls)
    return row


def by_class(calls):
    """With --latency: per entry of the list (a sim's robots take them in turn), the
    median and the range of the arrivals, in ms from the first arrival of all: whether the
    delays were compensated (medians together) and what the jitter left (each range)."""
    if not LATENCY or not calls:
        return []
    entries = LATENCY[1].split(",")
    first = min(t for t, _ in calls)
    rows = []
    for k, entry in enumerate(entries):
        # Robots are numbered from 1, and take the entries in turn from the first.
        times = sorted((t - first) * 1000 for t, robot in calls
                       if (robot - 1) % len(entries) == k)
        if times:
            rows.append((entry, times[len(times) // 2], times[0], times[-1]))
    return rows


def both(n, per_sim, work):
    """The dance (its CPU, memory, frame-1 and frame-50 spreads) and the timeline start's
    spread."""
    def arms(to):
        return lambda c: c["method"] == "ALMotion.angleInterpolation" and c["args"][1] == to
    dance = measure(n, per_sim, work, "examples/dance",
                    {"frame1_ms": arms([-1.2, -1.2]), "spread_ms": arms([1.4, 1.4])})
    start = measure(n, per_sim, work, "crates/choreo/tests/fixtures/motion.xar",
                    {"start_ms": lambda c: c["method"] == "ALMotion.angleInterpolationBezier"})
    dance["start_ms"] = start["start_ms"]
    dance["said_start_ms"] = start["said_ms"]
    dance["finished"] = min(dance["finished"], start["finished"])
    return dance


def main():
    args = sys.argv[1:]
    if args[:1] == ["--latency"]:
        LATENCY.extend(args[:2])
        args = args[2:]
    sizes = [int(a) for a in args] or [1, 8, 32, 128]
    if not os.environ.get("CHOREO_BIN"):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "choreo"], cwd=ROOT,
                       check=True)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        anchor = both(1, 1, work)
        rows.append(anchor)
        for n in sizes:
            if n == 1:
                continue
            rows.append(both(n, n, work))
            if n > 8:
                rows.append(both(n, 8, work))
    base = anchor["cpu_s"]
    print("| robots | sim processes | finished | start spread | start spread, fleet's report | frame-1 spread | frame-50 spread | run CPU / robot | ratio to 1 robot | sim CPU / robot | wall | run peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        per = r["cpu_s"] / r["robots"]
        said = r["said_start_ms"]
        said = "-" if said is None else f"{said:.1f} ms"
        print(f"| {r['robots']} | {r['sims']} | {r['finished']}/{r['robots']} | "
              f"{r['start_ms']:.1f} ms | {said} | {r['frame1_ms']:.1f} ms | "
              f"{r['spread_ms']:.1f} ms | "
              f"{per * 1000:.0f} ms | {per / base:.2f} | "
              f"{r['sim_cpu_s'] / r['robots'] * 1000:.0f} ms | {r['wall_s']:.1f} s | "
              f"{r['peak_rss_mb']:.0f} MB |")
    if LATENCY:
        print("\nBy latency entry, frame-50 orders (ms from the first arrival): median [first–last]")
        for r in rows[1:]:
            classes = "; ".join(f"{e}: {m:.1f} [{lo:.1f}–{hi:.1f}]"
                                for e, m, lo, hi in r["spread_ms_classes"])
            print(f"- {r['robots']} robots, {r['sims']} sims: {classes}")


if __name__ == "__main__":
    main()
