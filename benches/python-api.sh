#!/usr/bin/env bash
# The Python API against the Rust API, side by side in one run (issue 18's benchmark):
# crates/choreo/benches/api.rs writes the behaviors (one Python box that echoes its input;
# a chain of 10,000 Python boxes) and measures the Rust API; benches/python_api.py measures
# the Python package on the same files. PASSES passes alternate the two (ROUNDS rounds each);
# the table gives medians over every round and the ratio Python / Rust.
#
# Needs the Python package installed in target/wheel-venv-3.11 (scripts/test makes it).
# Usage: benches/python-api.sh            (PASSES=3 ROUNDS=3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
PASSES=${PASSES:-3}
ROUNDS=${ROUNDS:-3}
python=target/wheel-venv-3.11/bin/python
if [ ! -x "$python" ] || ! "$python" -c "import choreo" 2>/dev/null; then
    echo "NOTICE: target/wheel-venv-3.11 has no choreo package: run scripts/test first" >&2
    exit 1
fi
dir="$PWD/target/bench-api"
mkdir -p "$dir"
out="$dir/results.txt"
: > "$out"
cargo bench -q -p choreo --bench api --no-run
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for pass in $(seq "$PASSES"); do
    API_BENCH_ROUNDS=$ROUNDS cargo bench -q -p choreo --bench api -- "$dir" | tee -a "$out"
    (cd target && wheel-venv-3.11/bin/python ../benches/python_api.py "$dir" "$ROUNDS") | tee -a "$out"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3.11 - "$out" <<'PY'
import collections, statistics, sys
values = collections.defaultdict(list)
for line in open(sys.argv[1]):
    side, name, value = line.split()[:3]
    values[(side, name)].append(float(value))
med = {k: statistics.median(v) for k, v in values.items()}
print("%-28s %12s %12s %8s" % ("measurement (median)", "Rust API", "Python API", "ratio"))
rows = [("stimulate -> output (us)", "roundtrip", "roundtrip"),
        ("10,000 boxes unobserved (ms)", "unobserved", "unobserved"),
        ("every event, iterator (ms)", "observe", "observe"),
        ("every event, callback (ms)", "observe", "callback")]
for title, rust, py in rows:
    r, p = med[("rust", rust)], med[("python", py)]
    print("%-28s %12.1f %12.1f %7.2fx" % (title, r, p, p / r))
# The cost of observing: the observed run's time beyond the unobserved one's.
cost_r = med[("rust", "observe")] - med[("rust", "unobserved")]
for how in ("observe", "callback"):
    cost_p = med[("python", how)] - med[("python", "unobserved")]
    print("%-28s %12.1f %12.1f %7.2fx" % ("observing cost, %s (ms)" % ("iterator" if how == "observe" else "callback"),
          cost_r, cost_p, cost_p / cost_r if cost_r > 0 else float("nan")))
PY
