#!/usr/bin/env bash
# Times `choreo check ../shared/corpus` (the whole corpus, every format) with a release build:
# cold (`--no-cache`: every file checked) and warm (nothing changed since the last check: every
# result from the cache, in a cache folder of this script's own); 1 warm-up run, then N timed
# runs of each; prints each time and the medians. Targets (issue 33): cold under 250 ms, warm
# under 50 ms.
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
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME="$cache"
files=$("$bin" check --no-cache --json "$corpus" | tail -n 1 || true)  # exit 1: broken files
echo "corpus: $files"
median() {
    local sorted
    sorted=$(printf '%s\n' "$@" | sort -n)
    echo "$sorted" | sed -n "$(( ($# + 1) / 2 ))p"
}
time_runs() {
    local times=()
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s%N)
        "$bin" check -q "$@" "$corpus" >/dev/null || true
        end=$(date +%s%N)
        times+=($(( (end - start) / 1000000 )))
    done
    echo "${times[*]}"
}
"$bin" check -q --no-cache "$corpus" >/dev/null || true   # warm the file cache
# The check uses every core: any other load lengthens it, so the load is part of the result.
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
cold=$(time_runs --no-cache)
"$bin" check -q "$corpus" >/dev/null || true              # fill the check cache
warm=$(time_runs)
# shellcheck disable=SC2086
echo "cold runs (ms): $cold; median $(median $cold) ms (target: < 250 ms)"
# shellcheck disable=SC2086
echo "warm runs (ms): $warm; median $(median $warm) ms (target: < 50 ms)"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
