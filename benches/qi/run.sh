#!/usr/bin/env bash
# qi messaging benchmark: both sides in one run, on loopback.
#   1. our client vs the official qi Python client, both against the libqi server (a Python
#      service in a libqi standalone directory): sequential ping p50/p99, calls/s with 1, 8
#      and 128 in flight, signals/s (20,000 events, lost ones counted);
#   2. the official client against our server vs against the libqi server.
# Needs target/qi-venv (scripts/test creates it) or CHOREO_QI_PYTHON. SECONDS per
# measurement: first argument (default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS="${1:-3}"
PY="${CHOREO_QI_PYTHON:-$PWD/target/qi-venv/bin/python}"
[ -x "$PY" ] || { echo "no libqi venv at $PY (run scripts/test first)" >&2; exit 2; }
cargo build -q --release -p choreo-qi --example qi_bench
BENCH=target/release/examples/qi_bench
OUT="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT"' EXIT

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { for _ in $(seq 200); do grep -q READY "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "server did not start: $(cat "$1")" >&2; exit 1; }

# The libqi server (the interop fixture: ping, say, emit/textDone).
PORT=$(free_port)
mkfifo "$OUT/libqi.in"
"$PY" crates/choreo-qi/tests/fixtures/libqi_server.py "$PORT" < "$OUT/libqi.in" > "$OUT/libqi.out" 2>/dev/null &
exec 3>"$OUT/libqi.in"
wait_ready "$OUT/libqi.out"
LIBQI="tcp://127.0.0.1:$PORT"
echo "official client -> libqi server" >&2
"$PY" benches/qi/official_client.py "$LIBQI" "$SECS" | grep "^{" > "$OUT/official_libqi.json"
echo "our client -> libqi server" >&2
"$BENCH" client "$LIBQI" "$SECS" > "$OUT/ours_libqi.json"
exec 3>&-
sleep 0.5

# Our server.
mkfifo "$OUT/ours.in"
"$BENCH" serve tcp://127.0.0.1:0 < "$OUT/ours.in" > "$OUT/ours.out" &
exec 4>"$OUT/ours.in"
wait_ready "$OUT/ours.out"
OURS=$(awk '/READY/ {print $2}' "$OUT/ours.out")
echo "official client -> our server" >&2
"$PY" benches/qi/official_client.py "$OURS" "$SECS" | grep "^{" > "$OUT/official_ours.json"
echo "our client -> our server" >&2
"$BENCH" client "$OURS" "$SECS" > "$OUT/ours_ours.json"
exec 4>&-

"$PY" - "$OUT" <<'PY'
import json, sys, os
d = sys.argv[1]
r = {k: json.load(open(os.path.join(d, k + ".json"))) for k in ("official_libqi", "ours_libqi", "official_ours", "ours_ours")}
cols = [("official client → libqi server", "official_libqi"), ("our client → libqi server", "ours_libqi"),
        ("official client → our server", "official_ours"), ("our client → our server", "ours_ours")]
def row(name, f):
    print("| " + name + " | " + " | ".join(f(r[k]) for _, k in cols) + " |")
print("| Measurement | " + " | ".join(c for c, _ in cols) + " |")
print("|---|" + "---|" * len(cols))
row("connect + authenticate + service()", lambda x: "%.1f ms" % x["connect_ms"])
row("ping sequential p50", lambda x: "%.0f µs" % x["sequential"]["p50_us"])
row("ping sequential p99", lambda x: "%.0f µs" % x["sequential"]["p99_us"])
row("ping sequential calls/s", lambda x: "%.0f" % x["sequential"]["calls_per_s"])
for n in ("1", "8", "128"):
    row("ping calls/s, %s in flight" % n, lambda x, n=n: "%.0f" % x["in_flight"][n])
row("signals/s (received / sent)", lambda x: "%.0f (%d / %d)" % (x["signals"]["per_s"], x["signals"]["received"], x["signals"]["sent"]))
ol, ul, oo = r["official_libqi"], r["ours_libqi"], r["official_ours"]
print()
print("Ratios (same run):")
for n in ("1", "8", "128"):
    print("- our client / official client, %s in flight, libqi server: %.2f×" % (n, ul["in_flight"][n] / ol["in_flight"][n]))
print("- our client / official client, sequential p50 latency: %.2f" % (ul["sequential"]["p50_us"] / ol["sequential"]["p50_us"]))
for n in ("1", "8", "128"):
    print("- official client, our server / libqi server, %s in flight: %.2f×" % (n, oo["in_flight"][n] / ol["in_flight"][n]))
print("- official client, our server / libqi server, sequential calls/s: %.2f×" % (oo["sequential"]["calls_per_s"] / ol["sequential"]["calls_per_s"]))
print("- official client, signals/s, our server / libqi server: %.2f× (lost: %d and %d)" % (
    oo["signals"]["per_s"] / ol["signals"]["per_s"], oo["signals"]["sent"] - oo["signals"]["received"], ol["signals"]["sent"] - ol["signals"]["received"]))
print("- our client, signals/s from the libqi server: lost %d" % (ul["signals"]["sent"] - ul["signals"]["received"]))
PY
