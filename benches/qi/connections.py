"""A qi server under ten thousand hostile connections (issue 33, part 5).

    target/qi-venv/bin/python benches/qi/connections.py [COUNT] [CALLS]

Starts `choreo sim` (release build) on a free port; the official libqi client (PyPI qi) calls
`ALTextToSpeech.getLanguage` CALLS times (default 2,000) in sequence, first with no other
connection (the anchor), then while COUNT connections (default 10,000) that never finish a
handshake are opened by crates/choreo/tests/fixtures/hostile_clients.py (idle, garbage, half a
header, half a message, 2 GiB payloads declared), then once they are all open. Prints the
calls' p50 and p99 latency for each phase (while opening: calls in a loop until all are open), the sim's thread count and peak memory (VmHWM), and
how long the server took to close every hostile connection. Targets: under 64 threads, under
200 MB, a call answered within 5 ms.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

import qi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHOREO = os.path.join(ROOT, "target", "release", "choreo")
HOSTILE = os.path.join(ROOT, "crates", "choreo", "tests", "fixtures", "hostile_clients.py")


def status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def latencies(tts, calls):
    out = []
    for _ in range(calls):
        t = time.perf_counter()
        tts.getLanguage()
        out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return out[len(out) // 2], out[int(len(out) * 0.99)]


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "choreo"], cwd=ROOT, check=True)
    port = free_port()
    sim = subprocess.Popen([CHOREO, "sim", "--listen", f"tcp://127.0.0.1:{port}", "-q"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        session = qi.Session()
        session.connect(f"tcp://127.0.0.1:{port}")
        tts = session.service("ALTextToSpeech")
        latencies(tts, 200)  # warm-up
        result = {"anchor_p50_ms": None}
        result["anchor_p50_ms"], result["anchor_p99_ms"] = latencies(tts, calls)
        result["threads_before"] = status(sim.pid, "Threads")
        hostile = subprocess.Popen([sys.executable, HOSTILE, "127.0.0.1", str(port), str(count)],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        during = []
        opening = threading.Event()
        opening.set()

        def measure_during():
            while opening.is_set():
                t = time.perf_counter()
                tts.getLanguage()
                during.append((time.perf_counter() - t) * 1000)

        t = threading.Thread(target=measure_during)
        started = time.monotonic()
        t.start()
        opened = hostile.stdout.readline().split()[-1]
        opening.clear()
        result["hostile_opened"] = int(opened)
        result["open_seconds"] = round(time.monotonic() - started, 2)
        t.join()
        during.sort()
        result["calls_while_opening"] = len(during)
        result["while_opening_p50_ms"] = during[len(during) // 2]
        result["while_opening_p99_ms"] = during[int(len(during) * 0.99)]
        result["while_opening_max_ms"] = round(during[-1], 3)
        result["while_opening_over_5ms"] = sum(1 for d in during if d > 5)
        result["threads_with_them"] = status(sim.pid, "Threads")
        result["after_p50_ms"], result["after_p99_ms"] = latencies(tts, calls)
        while True:
            hostile.stdin.write("check\n")
            hostile.stdin.flush()
            counts = json.loads(hostile.stdout.readline())
            if counts["closed"] == counts["open"] or time.monotonic() - started > 120:
                break
            time.sleep(0.5)
        result["all_closed_after_s"] = round(time.monotonic() - started, 1)
        result["closed"] = counts["closed"]
        result["peak_memory_mb"] = round(status(sim.pid, "VmHWM") / 1024, 1)
        result["threads_at_end"] = status(sim.pid, "Threads")
        hostile.stdin.close()
        hostile.wait()
        for k in ("anchor_p50_ms", "anchor_p99_ms", "while_opening_p50_ms", "while_opening_p99_ms",
                  "after_p50_ms", "after_p99_ms"):
            result[k] = round(result[k], 3)
        print(json.dumps(result))
    finally:
        sim.terminate()
        try:
            _, log = sim.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            sim.kill()
            _, log = sim.communicate()
        lines = [l for l in log.splitlines() if "qi server" in l]
        print(f"the sim's log: {len(lines)} server lines", file=sys.stderr)
        for l in lines:
            print("  " + l, file=sys.stderr)


if __name__ == "__main__":
    main()
