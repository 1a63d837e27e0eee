"""The official libqi Python client (PyPI qi 3.1.5) measured against a qi server that has a
"ChoreoTest" service with ping(i)->i, say(s)->v and emit(i) emitting textDone(s).
Prints one JSON object.

With --sd METHOD it calls a method of the ServiceDirectory itself instead (machineId(),
services() or service("ServiceDirectory")): sequential latency and calls/s in flight only.
In the libqi standalone directory these methods are C++, not held by Python's GIL.

Usage: python official_client.py URL SECONDS [--sd METHOD]
"""
import collections
import json
import os
import sys
import threading
import time

import qi


def cpu_seconds():
    """This process's CPU time (user + system, all threads, libqi's included)."""
    t = os.times()
    return t.user + t.system


def sequential(call, seconds):
    for _ in range(200):
        call()
    samples = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end and len(samples) < 20000:
        t0 = time.perf_counter()
        call()
        samples.append(time.perf_counter() - t0)
    samples.sort()
    n = len(samples)
    return {
        "p50_us": samples[n // 2] * 1e6,
        "p99_us": samples[min(n - 1, int(n * 0.99))] * 1e6,
        "calls_per_s": n / sum(samples),
        "n": n,
    }


def in_flight(call_async, depth, seconds):
    futs = collections.deque(call_async() for _ in range(depth))
    done = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while time.perf_counter() < end and done < 40000:
        futs.popleft().value()
        done += 1
        futs.append(call_async())
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


SD_ARGS = {"machineId": (), "services": (), "service": ("ServiceDirectory",)}


def main():
    url, seconds = sys.argv[1], float(sys.argv[2])
    sd_method = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--sd" else None
    t0 = time.perf_counter()
    session = qi.Session()
    session.connect(url)
    if sd_method:
        svc = session.service("ServiceDirectory")
        method, args = getattr(svc, sd_method), SD_ARGS[sd_method]
    else:
        svc = session.service("ChoreoTest")
        method, args = svc.ping, (1,)
    connect_ms = (time.perf_counter() - t0) * 1e3
    call = lambda: method(*args)
    call_async = lambda: method(*args, _async=True)
    result = {"connect_ms": connect_ms, "sequential": sequential(call, seconds)}
    result["in_flight"], cpu = {}, {}
    total = 200 + result["sequential"]["n"]  # every call made, to divide the server's CPU time by
    for d in (1, 8, 128):
        c0, t0 = cpu_seconds(), time.perf_counter()
        rate = in_flight(call_async, d, seconds)
        calls = rate * (time.perf_counter() - t0)
        total += calls
        result["in_flight"][str(d)] = rate
        cpu[str(d)] = (cpu_seconds() - c0) / max(calls, 1.0) * 1e6
    if sd_method:
        result["cpu_us_per_call"] = cpu
        result["calls"] = total
    else:
        result["signals"] = signals(svc, 20000)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
