#!/usr/bin/env bash
# Counts the instructions an inline signal hop executes: `hop_cycle` (release) under
# valgrind's cachegrind, once with 400,000 hops around a cycle of K boxes and once with
# 200,000; the difference over 200,000 is one hop's, load and unload taken out. A count does
# not depend on what else the machine runs, where a time does (docs/benchmarks.md).
# Usage: benches/hop-instructions.sh [K]   (default 64; with a git revision as second
# argument, that revision's count too, built in a worktree of its own)
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-64}
if ! command -v valgrind >/dev/null; then
    echo "NOTICE: valgrind is absent (Debian: apt install valgrind): nothing to count" >&2
    exit 0
fi
count() {
    local bin=$1 hops=$2
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$bin" "$k" "$hops" 1 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}
per_hop() {
    local bin=$1
    echo $(( ($(count "$bin" 400000) - $(count "$bin" 200000)) / 200000 ))
}
cargo build -q --release -p choreo-engine --example hop_cycle
echo "this tree: $(per_hop target/release/examples/hop_cycle) instructions per inline hop ($k boxes)"
if [ -n "${2:-}" ]; then
    tree=$(mktemp -d)
    trap 'git worktree remove --force "$tree"' EXIT
    git worktree add -q --detach "$tree" "$2"
    (cd "$tree" && cargo build -q --release -p choreo-engine --example hop_cycle \
        --target-dir "$OLDPWD/target/hop-instructions")
    echo "$2: $(per_hop target/hop-instructions/release/examples/hop_cycle) instructions per inline hop"
fi
