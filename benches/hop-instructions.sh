#!/usr/bin/env bash
# Counts what an inline signal hop costs in ways that do not depend on the host's load:
# `hop_cycle` (release) under valgrind's cachegrind, once with 400,000 hops and once with
# 200,000; the difference over 200,000 is one hop's, load and unload taken out. Two counts:
# the instructions a hop executes around a cycle of K boxes, and the level-1 data cache
# misses (cachegrind's model of this machine's caches) around a cycle of 10,000 boxes, where
# every box's data has left the cache by the time the hop comes back to it
# (docs/benchmarks.md).
# Usage: benches/hop-instructions.sh [K]   (default 64; with a git revision as second
# argument, that revision's counts too, built in a worktree of its own)
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-64}
if ! command -v valgrind >/dev/null; then
    echo "NOTICE: valgrind is absent (Debian: apt install valgrind): nothing to count" >&2
    exit 0
fi
# count BIN BOXES HOPS SIM: "instructions D1-misses" of one run.
count() {
    valgrind --tool=cachegrind --cache-sim="$4" --cachegrind-out-file=/dev/null \
        "$1" "$2" "$3" 1 2>&1 >/dev/null |
        sed -n 's/.*\(I *refs\|D1 *misses\): *\([0-9,]*\).*/\2/p' | tr -d , | tr '\n' ' '
}
per_hop() {
    local bin=$1 a b
    read -r -a a <<<"$(count "$bin" "$k" 400000 no)"
    read -r -a b <<<"$(count "$bin" "$k" 200000 no)"
    echo -n "$(( (a[0] - b[0]) / 200000 )) instructions per inline hop ($k boxes); "
    read -r -a a <<<"$(count "$bin" 10000 400000 yes)"
    read -r -a b <<<"$(count "$bin" 10000 200000 yes)"
    awk -v m=$(( a[1] - b[1] )) 'BEGIN { printf "%.1f D1 misses per hop (10,000 boxes)\n", m / 200000 }'
}
cargo build -q --release -p choreo-engine --example hop_cycle
echo "this tree: $(per_hop target/release/examples/hop_cycle)"
if [ -n "${2:-}" ]; then
    tree=$(mktemp -d)
    trap 'git worktree remove --force "$tree"' EXIT
    git worktree add -q --detach "$tree" "$2"
    (cd "$tree" && cargo build -q --release -p choreo-engine --example hop_cycle \
        --target-dir "$OLDPWD/target/hop-instructions")
    echo "$2: $(per_hop target/hop-instructions/release/examples/hop_cycle)"
fi
