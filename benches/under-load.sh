#!/usr/bin/env bash
# A virtual-time run on a busy machine against the same run on a quiet one, side by side:
# `choreo run --fast --timeout 60` of the corpus's NaoDice (a dice game whose 60 virtual
# seconds hold thousands of hand-overs between the control thread, box code and the
# simulated robot), ROUNDS times quiet, then ROUNDS times beside a busy loop on every core.
# The ratio busy ÷ quiet is what a loaded machine costs a run (choreo_engine::slice says why
# it is not larger).
#
# Needs ../shared/corpus. Usage: benches/under-load.sh   (ROUNDS=3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
behavior="../shared/corpus/chiarasabaini__3CI_assignments/INI/nao/Nao Robot Project/NaoDice-v4.2.crg"
if [ ! -f "$behavior" ]; then
    echo "NOTICE: $behavior is absent (../shared/corpus): nothing measured" >&2
    exit 1
fi
cargo build -q --release -p choreo
run() {
    local start end
    start=$(date +%s.%N)
    target/release/choreo run "$behavior" --fast --timeout 60 >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
quiet=()
for _ in $(seq "$ROUNDS"); do quiet+=("$(run)"); done
hogs=()
for _ in $(seq "$(nproc)"); do
    sh -c 'while :; do :; done' &
    hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
busy=()
for _ in $(seq "$ROUNDS"); do busy+=("$(run)"); done
kill "${hogs[@]}"
trap - EXIT
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
q=$(median "${quiet[@]}")
b=$(median "${busy[@]}")
echo "quiet: ${quiet[*]} s (median $q)"
echo "a busy loop on each of $(nproc) cores: ${busy[*]} s (median $b)"
echo "busy ÷ quiet: $(echo "scale=2; $b / $q" | bc)"
