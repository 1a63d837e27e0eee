#!/usr/bin/env bash
# Times `choreo check ../shared/corpus` (the whole corpus, every format) with a release build:
# 1 warm-up run, then N timed runs; prints each time and the median. Target: under 1 s.
# Usage: benches/check-corpus.sh [runs]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
corpus=../shared/corpus
if [ ! -d "$corpus" ]; then
    echo "NOTICE: $corpus is absent: nothing to time" >&2
    exit 0
fi
cargo build -q --release -p choreo
bin=target/release/choreo
files=$("$bin" check --json "$corpus" | tail -n 1 || true)  # exit 1: the corpus has broken files
echo "corpus: $files"
"$bin" check -q "$corpus" >/dev/null || true   # warm the file cache
times=()
for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$bin" check -q "$corpus" >/dev/null || true
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
echo "runs (ms): ${times[*]}"
echo "median: ${median} ms (target: < 1000 ms)"
