"""Whether the corpus's runs give the same trace with box code in the box host (the default)
and on choreo's threads (`--sandbox=threads`): each input run once each way with
`run --fast --timeout 60 --trace`, the traces compared byte for byte (the run's temporary
folder shows as the robot's paths: docs/trace.md).

    python3 scripts/same-trace.py [MORE_FLAGS...]

Needs target/release/choreo (`cargo build --release -p choreo`) and ../shared/corpus. Prints
each input whose traces differ and the count; exits 1 when some differ. docs/security.md
says today's count.
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHOREO = os.path.join(ROOT, "target", "release", "choreo")
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")


def inputs():
    found = []
    for folder, _, files in os.walk(CORPUS):
        found.extend(os.path.join(folder, f) for f in files
                     if f.endswith((".pml", ".xar", ".crg")))
    return sorted(found)


def trace(path, mode, folder):
    out = os.path.join(folder, "trace.jsonl")
    subprocess.run([CHOREO, "run", path, "--fast", "--timeout", "60", "-q", "--trace", out]
                   + mode + sys.argv[1:], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=ROOT)
    try:
        with open(out, "rb") as f:
            return f.read()
    except OSError:
        return b""
    finally:
        if os.path.exists(out):
            os.remove(out)


def main():
    if not os.path.isdir(CORPUS):
        sys.exit("%s is absent" % CORPUS)
    differ = []
    all_inputs = inputs()
    with tempfile.TemporaryDirectory() as folder:
        for path in all_inputs:
            if trace(path, [], folder) != trace(path, ["--sandbox=threads"], folder):
                differ.append(path)
                print("differs: %s" % os.path.relpath(path, CORPUS), flush=True)
    print("%d of %d inputs give the same trace in the box host and on choreo's threads"
          % (len(all_inputs) - len(differ), len(all_inputs)))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
