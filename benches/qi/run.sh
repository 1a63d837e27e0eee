#!/usr/bin/env bash
# qi messaging benchmark: both sides in one run, on loopback.
#   1. our client vs the official qi Python client, both against the libqi server (a Python
#      service in a libqi standalone directory): sequential ping p50/p99, calls/s with 1, 8
#      and 128 in flight, signals/s (20,000 events, lost ones counted);
#   2. the official client against our server vs against the libqi server;
#   3. "C++-served": both clients calling the libqi standalone ServiceDirectory's own methods
#      (machineId() and service("ServiceDirectory"), C++ in libqi, so the server is not held
#      by the GIL as the Python ChoreoTest service of 1. is): sequential p50/p99, calls/s with
#      1, 8 and 128 in flight, each client's own CPU time per call; ROUNDS rounds (default 4),
#      the two clients' order alternating round by round so that machine load hits both alike;
#      medians over rounds and the per-round ratios' range.
# Needs target/qi-venv (scripts/test creates it) or CHOREO_QI_PYTHON. CHOREO_QI_BEFORE: an
# older build of qi_bench, run as a third client in every C++-served round (before/after
# side by side; its table follows the others). SECONDS per
# measurement: first argument (default 3); ROUNDS: second argument (default 4).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS="${1:-3}"
ROUNDS="${2:-4}"
PY="${CHOREO_QI_PYTHON:-$PWD/target/qi-venv/bin/python}"
[ -x "$PY" ] || { echo "no libqi venv at $PY (run scripts/test first)" >&2; exit 2; }
cargo build -q --release -p choreo-qi --example qi_bench
BENCH=target/release/examples/qi_bench
BEFORE="${CHOREO_QI_BEFORE:-}"
OUT="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT"' EXIT

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { for _ in $(seq 200); do grep -q READY "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "server did not start: $(cat "$1")" >&2; exit 1; }

# The libqi server (the interop fixture: ping, say, emit/textDone).
PORT=$(free_port)
mkfifo "$OUT/libqi.in"
"$PY" crates/choreo-qi/tests/fixtures/libqi_server.py "$PORT" < "$OUT/libqi.in" > "$OUT/libqi.out" 2>/dev/null &
exec 3>"$OUT/libqi.in"
LIBQI_PID=$!
wait_ready "$OUT/libqi.out"
LIBQI="tcp://127.0.0.1:$PORT"
echo "official client -> libqi server" >&2
"$PY" benches/qi/official_client.py "$LIBQI" "$SECS" | grep "^{" > "$OUT/official_libqi.json"
echo "our client -> libqi server" >&2
"$BENCH" client "$LIBQI" "$SECS" > "$OUT/ours_libqi.json"
exec 3>&-
sleep 0.5
kill "$LIBQI_PID" 2>/dev/null || true # libqi's app.stop() may not return: do not let it linger

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
sleep 0.5

# C++-served: the libqi standalone directory's own methods, a fresh libqi server.
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
PORT=$(free_port)
mkfifo "$OUT/sd.in"
"$PY" crates/choreo-qi/tests/fixtures/libqi_server.py "$PORT" < "$OUT/sd.in" > "$OUT/sd.out" 2>/dev/null &
SD_PID=$!
exec 5>"$OUT/sd.in"
wait_ready "$OUT/sd.out"
SD="tcp://127.0.0.1:$PORT"
sd_run() { # CLIENT METHOD ROUND: one measurement, plus the libqi server's CPU use meanwhile
  local c0 t0 c1 t1
  c0=$(cpu_ticks "$SD_PID"); t0=$(date +%s.%N)
  if [ "$1" = official ]; then
    "$PY" benches/qi/official_client.py "$SD" "$SECS" --sd "$2" | grep "^{" > "$OUT/sd_$1_$2_$3.json"
  elif [ "$1" = before ]; then
    "$BEFORE" sd-client "$SD" "$SECS" "$2" > "$OUT/sd_$1_$2_$3.json"
  else
    "$BENCH" sd-client "$SD" "$SECS" "$2" > "$OUT/sd_$1_$2_$3.json"
  fi
  c1=$(cpu_ticks "$SD_PID"); t1=$(date +%s.%N)
  echo "{\"server_cpu\": $(awk -v c="$((c1 - c0))" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.3f", c / 100 / (t1 - t0) }'), \"server_cpu_s\": $(awk -v c="$((c1 - c0))" 'BEGIN { printf "%.2f", c / 100 }'), \"load\": $(cut -d' ' -f1 /proc/loadavg)}" > "$OUT/sdx_$1_$2_$3.json"
}
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="official ours"; else order="ours official"; fi
  [ -n "$BEFORE" ] && { if [ $((r % 2)) = 1 ]; then order="before $order"; else order="$order before"; fi; }
  for m in machineId service; do
    for c in $order; do
      echo "C++-served round $r/$ROUNDS: client $c, $m()" >&2
      sd_run "$c" "$m" "$r"
    done
  done
done
exec 5>&-
sleep 0.5
kill "$SD_PID" 2>/dev/null || true

"$PY" - "$OUT" "$ROUNDS" <<'PY'
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

# C++-served.
import statistics
rounds = int(sys.argv[2])
med = statistics.median
def load(c, m, r):
    x = json.load(open(os.path.join(d, "sd_%s_%s_%d.json" % (c, m, r))))
    x.update(json.load(open(os.path.join(d, "sdx_%s_%s_%d.json" % (c, m, r)))))
    return x
for m, call in (("machineId", "machineId()"), ("service", 'service("ServiceDirectory")')):
    o = [load("official", m, r) for r in range(1, rounds + 1)]
    u = [load("ours", m, r) for r in range(1, rounds + 1)]
    print()
    print("C++-served: libqi ServiceDirectory.%s, %d rounds (medians; ratio = median of the per-round ratios [min–max])" % (call, rounds))
    print()
    print("| Measurement | official client | our client | ours / official |")
    print("|---|---|---|---|")
    def line(name, f, fmt, inverse=False):
        a, b = [f(x) for x in o], [f(x) for x in u]
        rs = [(y / x if not inverse else x / y) for x, y in zip(a, b)]
        print("| %s | %s | %s | %.2f× [%.2f–%.2f] |" % (name, fmt % med(a), fmt % med(b), med(rs), min(rs), max(rs)))
    line("sequential p50 (ratio: official / ours)", lambda x: x["sequential"]["p50_us"], "%.0f µs", inverse=True)
    line("sequential p99 (ratio: official / ours)", lambda x: x["sequential"]["p99_us"], "%.0f µs", inverse=True)
    line("sequential calls/s", lambda x: x["sequential"]["calls_per_s"], "%.0f")
    for n in ("1", "8", "128"):
        line("calls/s, %s in flight" % n, lambda x, n=n: x["in_flight"][n], "%.0f")
    for n in ("1", "8", "128"):
        line("client CPU per call, %s in flight (ratio: official / ours)" % n, lambda x, n=n: x["cpu_us_per_call"][n], "%.1f µs", inverse=True)
    print("| libqi server CPU during the client's run (cores) | %.2f | %.2f | |" % (med([x["server_cpu"] for x in o]), med([x["server_cpu"] for x in u])))
    line("libqi server CPU per call, whole run (ratio: official / ours)", lambda x: x["server_cpu_s"] / x["calls"] * 1e6, "%.1f µs", inverse=True)
    print("| load average (1 min) at the end of each run | %s | %s | |" % (" ".join("%.2f" % x["load"] for x in o), " ".join("%.2f" % x["load"] for x in u)))
    print()
    if os.path.exists(os.path.join(d, "sd_before_%s_1.json" % m)):
        b = [load("before", m, r) for r in range(1, rounds + 1)]
        print()
        print("Before and after (CHOREO_QI_BEFORE, the same rounds; ratio = median of the per-round ratios):")
        print()
        print("| Measurement | before | after | after / before | before / official | after / official |")
        print("|---|---|---|---|---|---|")
        def side(name, f, fmt):
            x, y, z = [f(v) for v in b], [f(v) for v in u], [f(v) for v in o]
            def rr(p, q):
                return med([j / i for i, j in zip(p, q)])
            print("| %s | %s | %s | %.2f | %.2f | %.2f |" % (name, fmt % med(x), fmt % med(y), rr(x, y), rr(z, x), rr(z, y)))
        side("sequential p50", lambda v: v["sequential"]["p50_us"], "%.0f µs")
        for n in ("1", "8", "128"):
            side("calls/s, %s in flight" % n, lambda v, n=n: v["in_flight"][n], "%.0f")
        for n in ("1", "8", "128"):
            side("client CPU per call, %s in flight" % n, lambda v, n=n: v["cpu_us_per_call"][n], "%.1f µs")
        print()
    print("Per round, calls/s 1 / 8 / 128 in flight, official → ours:")
    for r, (x, y) in enumerate(zip(o, u), 1):
        print("- round %d: %s → %s" % (r, " / ".join("%.0f" % x["in_flight"][n] for n in ("1", "8", "128")),
                                       " / ".join("%.0f" % y["in_flight"][n] for n in ("1", "8", "128"))))
PY
