"""The official libqi Python client (PyPI qi 3.1.5) measured against a qi server that has a
"ChoreoTest" service with ping(i)->i, say(s)->v and emit(i) emitting textDone(s).
Prints one JSON object.

Usage: python official_client.py URL SECONDS
"""
import collections
import json
import sys
import threading
import time

import qi


def sequential(svc, seconds):
    for _ in range(200):
        svc.ping(1)
    samples = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end and len(samples) < 20000:
        t0 = time.perf_counter()
        svc.ping(1)
        samples.append(time.perf_counter() - t0)
    samples.sort()
    n = len(samples)
    return {
        "p50_us": samples[n // 2] * 1e6,
        "p99_us": samples[min(n - 1, int(n * 0.99))] * 1e6,
        "calls_per_s": n / sum(samples),
        "n": n,
    }


def in_flight(svc, depth, seconds):
    futs = collections.deque(svc.ping(1, _async=True) for _ in range(depth))
    done = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while time.perf_counter() < end and done < 40000:
        futs.popleft().value()
        done += 1
        futs.append(svc.ping(1, _async=True))
    elapsed = time.perf_counter() - t0
    while futs:
        futs.popleft().value()
    return done / elapsed


def signals(svc, count):
    got = [0]
    finished = threading.Event()
    last = [0.0]

    def on_event(_s):
        got[0] += 1
        last[0] = time.perf_counter()
        if got[0] >= count:
            finished.set()

    link = svc.textDone.connect(on_event)
    t0 = time.perf_counter()
    svc.emit(count)
    finished.wait(30)
    elapsed = (last[0] or time.perf_counter()) - t0
    svc.textDone.disconnect(link)
    return {"per_s": got[0] / elapsed if elapsed > 0 else 0, "received": got[0], "sent": count}


def main():
    url, seconds = sys.argv[1], float(sys.argv[2])
    t0 = time.perf_counter()
    session = qi.Session()
    session.connect(url)
    svc = session.service("ChoreoTest")
    connect_ms = (time.perf_counter() - t0) * 1e3
    result = {"connect_ms": connect_ms, "sequential": sequential(svc, seconds)}
    result["in_flight"] = {str(d): in_flight(svc, d, seconds) for d in (1, 8, 128)}
    result["signals"] = signals(svc, 20000)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
