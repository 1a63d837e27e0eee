#!/usr/bin/env python3.11
"""BehaviorTree.CPP's side of benches/stack-vs-btcpp.sh: the tick cost per node of a flat
tree, through the PyPI bindings `behaviortreepy` 0.1.4 (BehaviorTree.CPP 4.8.2 compiled in).

The tree: one `Sequence` over N built-in `AlwaysSuccess` nodes, from XML. A Sequence whose
children all succeed at once ticks every one of them in one tick, then resets them to IDLE
and returns SUCCESS (the tree is then reset too), so every `tick_exactly_once` visits all N
nodes, all in C++: no Python callback per node. A round times `ticks` consecutive
`tick_exactly_once` calls (ticks = UPDATES / N, at most 200,000) with
`time.perf_counter_ns`, the garbage collector off; ns per node = round time / ticks / N.
One untimed warm-up round first.

Each tick includes one Python -> C++ call (the loop, the pybind11 call, BT.CPP's
`tickRoot`) and the root Sequence: negligible per node at N = 10,000, not at N = 10. N = 1
measures that fixed cost (Sequence + 1 node + the call) per tick.

Verified with `--verify`: for each N, a child process builds the same tree, attaches
BT.CPP's `StdCoutLogger` (a status-change logger in C++, fed by every node's status
change) and ticks it a few times; every one of the N nodes must show exactly one
IDLE -> SUCCESS transition per tick, the Sequence one IDLE -> RUNNING per tick, and every
tick must return SUCCESS. The timed trees have no logger.

    python3.11 benches/btcpp_flat.py [--ns 10,1000,10000] [--rounds 15] [--updates 2000000]
                                     [--verify] [--tsv FILE --pass K]

Exits 2 with a NOTICE if behaviortreepy cannot be imported. Results: docs/benchmarks.md,
section "Behavior stack: tick cost per in-scope behavior, against BehaviorTree.CPP"."""

import argparse
import collections
import gc
import re
import statistics
import subprocess
import sys
import time

try:
    import behaviortreepy as bt
except ImportError as e:
    print(f"NOTICE: behaviortreepy cannot be imported ({e}): pip install behaviortreepy==0.1.4",
          file=sys.stderr)
    sys.exit(2)


def flat_xml(n):
    """A Sequence over n AlwaysSuccess nodes named n0 .. n{n-1}."""
    leaves = "".join(f'<AlwaysSuccess name="n{i}"/>' for i in range(n))
    return ('<root BTCPP_format="4" main_tree_to_execute="Flat">'
            f'<BehaviorTree ID="Flat"><Sequence name="seq">{leaves}</Sequence></BehaviorTree>'
            '</root>')


def build(n):
    """The factory (kept alive with the tree) and the tree."""
    factory = bt.BehaviorTreeFactory()
    return factory, factory.create_tree_from_text(flat_xml(n))


def time_ticks(tick, ticks):
    """ns for `ticks` ticks, and the last status."""
    status = None
    started = time.perf_counter_ns()
    for _ in range(ticks):
        status = tick()
    return time.perf_counter_ns() - started, status


def logger_child(n, ticks):
    """Runs in a child process: the tree with BT.CPP's StdCoutLogger, `ticks` ticks."""
    _factory, tree = build(n)
    logger = bt.StdCoutLogger(tree)
    for _ in range(ticks):
        status = tree.tick_exactly_once()
        logger.flush()
        sys.stdout.flush()
        print(f"STATUS {status.name}", flush=True)
    logger.flush()


# At most this many ticks per round (as the Rust side: N = 1 would tick 2,000,000 times).
MAX_TICKS = 200_000

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LINE = re.compile(r"^\[[0-9.]+\]: (\S+)\s+(\w+) -> (\w+)$")


def verify(n, ticks=3):
    """Whether every tick visited all n nodes, as BT.CPP's own logger saw it; why not."""
    try:
        out = subprocess.run([sys.executable, __file__, "--logger-child", str(n), str(ticks)],
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        return False, f"the logger child did not run: {e}"
    if out.returncode != 0:
        return False, f"the logger child failed ({out.returncode}): {out.stderr.strip()[-500:]}"
    transitions = collections.Counter()
    statuses = []
    for raw in out.stdout.splitlines():
        line = ANSI.sub("", raw).strip()
        if line.startswith("STATUS "):
            statuses.append(line.split()[1])
        elif m := LINE.match(line):
            transitions[m.groups()] += 1
    if statuses != ["SUCCESS"] * ticks:
        return False, f"tick statuses {statuses}"
    wrong = [f"n{i}" for i in range(n) if transitions[(f"n{i}", "IDLE", "SUCCESS")] != ticks]
    if wrong:
        return False, f"{len(wrong)} nodes not ticked once per tick, e.g. {wrong[:3]}"
    if transitions[("seq", "IDLE", "RUNNING")] != ticks:
        return False, "the Sequence did not start once per tick"
    seen = sum(c for (_, a, b), c in transitions.items() if (a, b) == ("IDLE", "SUCCESS"))
    return True, (f"{seen} IDLE -> SUCCESS transitions in {ticks} ticks = {ticks} per node "
                  f"for all {n} nodes")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--logger-child":
        logger_child(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ns", default="10,1000,10000", help="tree sizes, comma-separated")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--updates", type=int, default=2_000_000, help="node ticks per round")
    p.add_argument("--verify", action="store_true", help="check every tick visits every node")
    p.add_argument("--tsv", help="append every round to this file")
    p.add_argument("--pass", dest="pass_", default="1", help="the pass number for --tsv")
    args = p.parse_args()
    try:
        ns = [int(x.replace("_", "")) for x in args.ns.split(",")]
    except ValueError:
        p.error(f"--ns {args.ns}: numbers, comma-separated")
    if any(n < 1 for n in ns) or args.rounds < 1 or args.updates < 1:
        p.error("N, rounds and updates must be positive")

    print(f"BehaviorTree.CPP (behaviortreepy {bt.__version__}) flat Sequence: "
          f"{args.rounds} rounds of {args.updates} node ticks")
    if args.verify:
        for n in ns:
            ok, why = verify(n)
            print(f"  verify N = {n}: {'ok' if ok else 'FAILED'}: {why}")
            if not ok:
                return 1
    try:
        tsv = open(args.tsv, "a", encoding="utf-8") if args.tsv else None
    except OSError as e:
        print(f"--tsv {args.tsv}: {e}", file=sys.stderr)
        return 1
    print(f"{'N':>7} {'ticks':>9} | {'ns/node med (min)':>20} | {'tick':>12}")
    gc.disable()
    try:
        for n in ns:
            _factory, tree = build(n)
            tick = tree.tick_exactly_once
            ticks = min(max(args.updates // n, 1), MAX_TICKS)
            per_node, per_tick = [], []
            _, status = time_ticks(tick, ticks)  # warm-up
            for r in range(args.rounds):
                took, status = time_ticks(tick, ticks)
                if status != bt.NodeStatus.SUCCESS:
                    print(f"N = {n}: a tick returned {status}, not SUCCESS", file=sys.stderr)
                    return 1
                per_node.append(took / ticks / n)
                per_tick.append(took / ticks)
                if tsv:
                    tsv.write(f"btcpp\t{args.pass_}\t{n}\tbtcpp\t{r}\t{ticks}\t{took}\t"
                              f"{took / ticks / n:.3f}\n")
            t = statistics.median(per_tick)
            t = f"{t / 1e3:.1f} µs" if t >= 1e4 else f"{t:.0f} ns"
            cell = f"{statistics.median(per_node):.2f} ({min(per_node):.2f})"
            print(f"{n:>7} {ticks:>9} | {cell:>20} | {t:>12}", flush=True)
    finally:
        gc.enable()
        if tsv:
            tsv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
