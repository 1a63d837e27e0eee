#!/usr/bin/env python3.11
"""What box scripts' `re` costs now that it takes Python 2's byte strings (py2.py,
`_re_taking_byte_strings`): `re.sub` on text, as Python's own and wrapped, side by side in
one process, 5 rounds each of 20,000 calls, fastest round; the ratio per pass.

    python3.11 benches/py2-re.py

Results: docs/benchmarks.md, section "Python 2's `str.encode`"."""

import importlib.util
import pathlib
import re
import sys
import timeit
import types

PY2 = pathlib.Path(__file__).resolve().parent.parent / "crates/choreo-python/src/python/py2.py"
CALLS = 20000

# py2.py imports the host's native module only for `__py2div__`, which this does not use.
sys.modules["_choreo"] = types.SimpleNamespace(py2div=None)
spec = importlib.util.spec_from_file_location("py2", PY2)
py2 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(py2)

text = "Tom and  Jerry   went  home " * 4
plain = re.sub
py2._re_taking_byte_strings(re)
wrapped = re.sub
for n in range(3):
    a = min(timeit.repeat(lambda: plain(r"\s+", " ", text), number=CALLS, repeat=5)) / CALLS
    b = min(timeit.repeat(lambda: wrapped(r"\s+", " ", text), number=CALLS, repeat=5)) / CALLS
    print("pass %d: re.sub on text: Python's %.2f us, wrapped %.2f us, ratio %.2f"
          % (n + 1, a * 1e6, b * 1e6, b / a))
