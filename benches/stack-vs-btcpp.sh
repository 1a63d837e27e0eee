#!/usr/bin/env bash
# The behavior stack's tick cost per in-scope behavior (crates/choreo-stack/benches/tick.rs)
# side by side with BehaviorTree.CPP's per node on a flat tree of the same size, through its
# PyPI bindings (benches/btcpp_flat.py, behaviortreepy 0.1.4): the two sides alternate
# PASSES times in one run, every round goes to one file, and the table compares medians.
#
#   benches/stack-vs-btcpp.sh            (about 1.5 minutes)
#   PASSES=4 ROUNDS=10 STACK_BENCH_N=1,10,1000,10000 benches/stack-vs-btcpp.sh
#
# Needs /usr/bin/python3.11 and PyPI (once: a venv in target/bench-venv with behaviortreepy).
# Builds `cargo bench -p choreo-stack --bench tick` (the release profile).
# Results: docs/benchmarks.md, section "Behavior stack: tick cost per in-scope behavior,
# against BehaviorTree.CPP".
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=/usr/bin/python3.11
VENV=target/bench-venv
PASSES=${PASSES:-4}
ROUNDS=${ROUNDS:-10}
NS=${STACK_BENCH_N:-1,10,1000,10000}

if [ ! -x "$PYTHON" ]; then
    echo "NOTICE: $PYTHON is absent: benchmark skipped" >&2
    exit 0
fi
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
if [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("behaviortreepy"))' 2>/dev/null)" != 0.1.4 ]; then
    if ! "$VENV/bin/pip" install -q behaviortreepy==0.1.4; then
        echo "NOTICE: behaviortreepy 0.1.4 could not be installed: benchmark skipped" >&2
        exit 0
    fi
fi

cargo bench -q -p choreo-stack --bench tick --no-run

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TSV="$WORK/rounds.tsv"
LOAD_BEFORE=$(cat /proc/loadavg)
echo "load average before: $LOAD_BEFORE"

ours() {
    STACK_BENCH_TSV="$TSV" STACK_BENCH_PASS="$1" STACK_BENCH_N="$NS" STACK_BENCH_ROUNDS="$ROUNDS" \
        cargo bench -q -p choreo-stack --bench tick
}
theirs() {
    # The first pass checks, with BT.CPP's own logger, that every tick visits every node.
    local verify=()
    if [ "$1" = 1 ]; then verify=(--verify); fi
    "$VENV/bin/python" benches/btcpp_flat.py --ns "$NS" --rounds "$ROUNDS" \
        --tsv "$TSV" --pass "$1" "${verify[@]}"
}

for pass in $(seq "$PASSES"); do
    echo "== pass $pass of $PASSES"
    # The order flips every pass, so that a drift in the machine's load hits both sides.
    if [ $((pass % 2)) = 1 ]; then
        theirs "$pass"
        ours "$pass"
    else
        ours "$pass"
        theirs "$pass"
    fi
done

LOAD_AFTER=$(cat /proc/loadavg)
echo "load average after: $LOAD_AFTER"

"$VENV/bin/python" - "$TSV" <<'EOF'
import collections, statistics, sys

# side pass n column round ticks total_ns ns_per_node
rounds = collections.defaultdict(list)            # (column, n) -> ns/node of every round
per_pass = collections.defaultdict(list)          # (column, n, pass) -> ns/node
for line in open(sys.argv[1], encoding="utf-8"):
    side, pas, n, column, _round, _ticks, _total, ns = line.rstrip("\n").split("\t")
    rounds[(column, int(n))].append(float(ns))
    per_pass[(column, int(n), pas)].append(float(ns))

ns = sorted({n for _, n in rounds})
passes = sorted({p for _, _, p in per_pass})
med = statistics.median
print()
print(f"Every round of {len(passes)} passes (ns per in-scope behavior / per node per tick):")
print(f"{'N':>7} | {'ours plain med (min)':>21} | {'ours budget med (min)':>22} | "
      f"{'BT.CPP med (min)':>19} | {'ratio BT/ours':>13} | {'per pass':>19}")
for n in ns:
    o, b, t = rounds[("plain", n)], rounds[("budget", n)], rounds[("btcpp", n)]
    if not (o and b and t):
        continue
    ratios = [med(per_pass[("btcpp", n, p)]) / med(per_pass[("plain", n, p)]) for p in passes]
    cell = lambda v: f"{med(v):.2f} ({min(v):.2f})"
    print(f"{n:>7} | {cell(o):>21} | {cell(b):>22} | {cell(t):>19} | "
          f"{med(t) / med(o):>12.2f}x | {min(ratios):.2f}x-{max(ratios):.2f}x")
print()
if 1 in ns and rounds[("btcpp", 1)]:
    print(f"N = 1 is the fixed cost of a tick: ours {med(rounds[('plain', 1)]):.0f} ns "
          f"(the tick's bookkeeping, the base and one leaf), BT.CPP {med(rounds[('btcpp', 1)]):.0f} ns "
          "(the Python loop, one Python -> C++ call, tickRoot, the Sequence and one node).")
print("NOTE: BT.CPP's time includes one Python -> C++ call per tick (the pybind11 call and "
      "the Python loop): negligible per node at N = 10,000, not at N = 10 (see N = 1).")
if 10000 in ns and rounds[("plain", 10000)]:
    o = med(rounds[("plain", 10000)])
    print(f"target <= 30 ns per in-scope behavior, median at N = 10,000: "
          f"{'met' if o <= 30 else 'MISSED'} ({o:.2f} ns)")
for n in ns:
    if n == 1 or not rounds[("btcpp", n)]:
        continue
    r = med(rounds[("btcpp", n)]) / med(rounds[("plain", n)])
    print(f"target >= 5x cheaper per node at N = {n}: {'met' if r >= 5 else 'MISSED'} ({r:.2f}x)")
EOF
