#!/usr/bin/env bash
# `choreo run --fast` (virtual time) against the same run in real time, on a 60-second dance
# of the corpus: the speed-up, and whether the two traces are the same.
#
#   benches/run-fast.sh [BEHAVIOR.xar]      (default: the stock Tai Chi Chuan dance)
#
# Needs ../shared/corpus and python3. Builds `cargo build --release -p choreo`.
# Results: docs/benchmarks.md, section "choreo run --fast".
set -euo pipefail
cd "$(dirname "$0")/.."

CORPUS=../shared/corpus
if [ ! -d "$CORPUS" ]; then
    echo "NOTICE: $CORPUS is absent: benchmark skipped" >&2
    exit 0
fi
DANCE=${1:-"$CORPUS/chiarasabaini__3CI_assignments/INI/nao/choregraphe-suite-2.1.4.13-win32-vs2010/share/choregraphe/libraries/box/standard/Motions/Dances/Tai Chi Chuan/behavior.xar"}
FAST_RUNS=${FAST_RUNS:-10}

cargo build --release -q -p choreo
CHOREO=target/release/choreo

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The dance as it is in the corpus (resources included).
XAR="$DANCE"

now() { date +%s.%N; }

echo "behavior: $DANCE"
echo "real time run (takes as long as the dance) ..."
t0=$(now)
"$CHOREO" run "$XAR" -q --trace "$WORK/real.jsonl" > "$WORK/real.report" || true
t1=$(now)
REAL=$(echo "$t1 - $t0" | bc -l)

echo "fast runs ($FAST_RUNS) ..."
BEST=
for i in $(seq "$FAST_RUNS"); do
    t0=$(now)
    "$CHOREO" run "$XAR" -q --fast --trace "$WORK/fast.jsonl" > "$WORK/fast.report" || true
    t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$BEST" ] || [ "$(echo "$d < $BEST" | bc -l)" = 1 ]; then BEST=$d; fi
done

grep -E "outcome|duration" "$WORK/real.report" | sed 's/^/  real: /'
grep -E "outcome|duration" "$WORK/fast.report" | sed 's/^/  fast: /'

python3 - "$WORK/real.jsonl" "$WORK/fast.jsonl" "$REAL" "$BEST" <<'EOF'
import json, sys
from collections import defaultdict

real = [json.loads(l) for l in open(sys.argv[1])]
fast = [json.loads(l) for l in open(sys.argv[2])]
real_wall, fast_wall = float(sys.argv[3]), float(sys.argv[4])
behavior_s = max(e["time_ns"] for e in fast) / 1e9

# The comparison (docs/benchmarks.md):
# 1. Identity: an event without its sequence number and time (kind, box path, port, hook,
#    value, frame, ...).
# 2. Order: the same events in the same order *per box path*. Across boxes, events of
#    hooks running at the same time on different workers may legitimately interleave
#    otherwise in real time (two threads); within one box, order is the lifecycle's.
#    The whole-trace order is reported too.
#    One reordering is legitimate inside a box too: a hook that fires a Stopped output
#    makes its box unload, and the onUnload hook then runs on another worker while the
#    first hook returns; in real time their events interleave as the threads go. So per
#    box, events are compared as a sequence of virtual instants, each instant's events as a
#    multiset; boxes whose strict order differs are counted and shown.
# 3. Times: virtual time is exact (frame n at n/fps, a sleep of d at +d); real time is that
#    plus scheduling latency, which only delays: 0 <= real - virtual <= tolerance. The
#    tolerance covers the latency accumulated along a chain of hooks (each hop a thread
#    switch) and the real duration of Python code, which virtual time counts as 0.
TOL = 0.050

def ident(e):
    return json.dumps({k: v for k, v in e.items() if k not in ("seq", "time_ns")}, sort_keys=True)

def per_path(events):
    d = defaultdict(list)
    for e in events:
        d[e["path"]].append(e)
    return d

same_multiset = sorted(map(ident, real)) == sorted(map(ident, fast))
same_global_order = list(map(ident, real)) == list(map(ident, fast))
pr, pf = per_path(real), per_path(fast)
order_diffs = [p for p in set(pr) | set(pf) if list(map(ident, pr.get(p, []))) != list(map(ident, pf.get(p, [])))]
def instants(events):
    out, last = [], None
    for e in events:
        if e["time_ns"] != last:
            out.append([])
            last = e["time_ns"]
        out[-1].append(ident(e))
    return [sorted(g) for g in out]

# Instants are read from the fast (virtual) trace; the real trace's events are grouped by
# the fast trace's instants (same events per box, same count per instant).
def regroup(real_events, fast_events):
    sizes = [len(g) for g in instants(fast_events)]
    out, i = [], 0
    for n in sizes:
        out.append(sorted(map(ident, real_events[i:i + n])))
        i += n
    return out

instant_diffs = [p for p in order_diffs if regroup(pr.get(p, []), pf.get(p, [])) != instants(pf.get(p, []))]
lags = []
for p in set(pr) & set(pf):
    if sorted(map(ident, pr[p])) != sorted(map(ident, pf[p])):
        continue
    # Event by event (a pair swapped within an instant compares two events of that instant).
    for a, b in zip(pr[p], pf[p]):
        lags.append(((a["time_ns"] - b["time_ns"]) / 1e9, p, a["event"]))
lags.sort()
late = [l for l in lags if l[0] > TOL or l[0] < -0.001]
frames = sum(1 for e in fast if e["event"] == "frame")

print(f"events: real {len(real)}, fast {len(fast)} ({frames} frames); behavior time {behavior_s:.2f} s")
print(f"same events (as a multiset): {same_multiset}")
print(f"same order per box, instant by instant: {not instant_diffs} ({len(instant_diffs)} box paths differ)")
print(f"same order per box, strictly: {not order_diffs} ({len(order_diffs)} box paths differ: two hooks of the box at one instant)")
print(f"same order overall: {same_global_order}")
if lags:
    mid = lags[len(lags) // 2][0]
    print(f"time lag real - virtual: min {lags[0][0]*1000:.2f} ms, median {mid*1000:.2f} ms, max {lags[-1][0]*1000:.2f} ms; outside [0, {TOL*1000:.0f} ms]: {len(late)}")
    for l in late[:5]:
        print(f"  {l[0]*1000:.1f} ms  {l[1]} {l[2]}")
print(f"wall time: real run {real_wall:.2f} s, fast run {fast_wall*1000:.1f} ms (best of runs)")
print(f"speed-up over real time: {behavior_s / fast_wall:.0f}x (behavior time / fast wall time); {real_wall / fast_wall:.0f}x against the real run's wall time")
for p in sorted(order_diffs)[:5]:
    a, b = list(map(ident, pr.get(p, []))), list(map(ident, pf.get(p, [])))
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    print(f"  differs at {p!r} event {i}: real {a[i] if i < len(a) else None} / fast {b[i] if i < len(b) else None}")
EOF
