"""The Python API's costs, beside the Rust API's (crates/choreo/benches/api.rs writes the
behaviors and measures the same; benches/python-api.sh runs both):

- roundtrip: Run.stimulate of a Python box's input -> its output seen by an on_output
  callback, one at a time (real time; us per round trip, median of 2,000);
- observe: the 10,000-box chain of Python boxes run to its end in real time with every
  event taken from Run.events() as a dict (ms from the start to the last event), and with
  every event given to an on_event callback; and the same run not observed.

Usage: python benches/python_api.py DIR [ROUNDS] (DIR: where the Rust bench wrote them).
Prints one line per measurement: `python <name> <value> <unit>`.
"""

import queue
import sys
import time

import choreo


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def roundtrip(path, trips):
    with choreo.load(path) as run:
        seen = queue.SimpleQueue()
        run.on_output("echo", "out", seen.put)
        run.start()
        times = []
        for i in range(trips):
            t = time.perf_counter()
            run.stimulate("echo", "in", i)
            got = seen.get(timeout=10)
            times.append((time.perf_counter() - t) * 1e6)
            assert got == i, (got, i)
    return median(times)


def observe(path, how):
    with choreo.load(path) as run:
        count = [0]
        if how == "callback":
            def counted(_event):
                count[0] += 1
            run.on_event(counted)
        events = run.events() if how == "iterator" else None
        t = time.perf_counter()
        run.start()
        if events is not None:
            for _ in events:
                count[0] += 1
        assert run.wait_end(600) == "finished"
        if how == "callback":
            run.close()  # every event delivered
        return (time.perf_counter() - t) * 1e3, count[0]


def main():
    folder = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    chain = "%s/chain10000.xar" % folder
    for _ in range(rounds):
        print("python roundtrip %.2f us" % roundtrip("%s/echo.xar" % folder, 2000), flush=True)
        ms, n = observe(chain, "iterator")
        print("python observe %.1f ms %d events" % (ms, n), flush=True)
        ms, n = observe(chain, "callback")
        print("python callback %.1f ms %d events" % (ms, n), flush=True)
        ms, _ = observe(chain, None)
        print("python unobserved %.1f ms" % ms, flush=True)


if __name__ == "__main__":
    main()
