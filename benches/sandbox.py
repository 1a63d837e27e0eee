"""The cost of the sandbox: `choreo run` confined and supervised (the default) beside the same
run with `--no-sandbox` (the anchor), alternated in one process so both see the same machine.

    python3 benches/sandbox.py [ROUNDS]      (default 15; the corpus part: 2 rounds)

Needs target/release/choreo (`cargo build --release -p choreo`); the corpus part needs
../shared/corpus (else a NOTICE). Each figure is the median wall time of the command, from
outside (the fork and the parent's wait included). Results: docs/benchmarks.md, "The
sandbox".
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHOREO = os.path.join(ROOT, "target", "release", "choreo")
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")

PORTS = (
    '<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1"/>'
    '<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2"/>'
    '<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3"/>'
    '<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4"/>'
)


def link(src, src_port, dst, dst_port):
    return ('<Link inputowner="%d" indexofinput="%d" outputowner="%d" indexofoutput="%d"/>'
            % (dst, dst_port, src, src_port))


def behavior(boxes, links):
    inner = ('<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1">'
             '<Diagram>%s%s</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>'
             % ("".join(boxes), "".join(links)))
    return ('<ChoregrapheProject xar_version="3"><Box name="root" id="-1">%s%s</Box>'
            '</ChoregrapheProject>' % (PORTS, inner))


def script_box(name, box_id, script):
    return ('<Box name="%s" id="%d">%s<script language="4"><content><![CDATA[%s]]></content>'
            '</script></Box>' % (name, box_id, PORTS, script))


def chain(n):
    """n Python boxes in a row: a signal hop through each (input to output)."""
    script = "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n        self.onStopped()\n"
    boxes = [script_box("B%d" % i, i, script) for i in range(1, n + 1)]
    links = [link(0, 2, 1, 2)] + [link(i, 4, i + 1, 2) for i in range(1, n)] + [link(n, 4, 0, 4)]
    return behavior(boxes, links)


def robot_calls(n):
    """One box calling the robot n times (ALMemory.insertData)."""
    script = ("class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n"
              "        memory = ALProxy('ALMemory')\n        for i in range(%d):\n"
              "            memory.insertData('k', i)\n        self.onStopped()\n" % n)
    return behavior([script_box("Calls", 1, script)], [link(0, 2, 1, 2), link(1, 4, 0, 4)])


def timed(args):
    started = time.perf_counter()
    done = subprocess.run([CHOREO] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          stdin=subprocess.DEVNULL, cwd=ROOT)
    took = time.perf_counter() - started
    if done.returncode not in (0, 5):
        sys.exit("choreo %s exited %d" % (" ".join(args), done.returncode))
    return took


def side_by_side(name, args, rounds, per=1):
    confined, anchor = [], []
    for _ in range(rounds):
        confined.append(timed(args) / per)
        anchor.append(timed(args + ["--no-sandbox"]) / per)
    c, a = statistics.median(confined), statistics.median(anchor)
    unit, scale = ("µs", 1e6) if a < 1e-3 else ("ms", 1e3)
    print("%-44s confined %9.2f %s   --no-sandbox %9.2f %s   ratio %.3f"
          % (name, c * scale, unit, a * scale, unit, c / a))


def corpus_inputs():
    listing = os.path.join(ROOT, "..", "shared", "corpus")
    found = []
    for folder, _, files in os.walk(listing):
        for f in files:
            if f.endswith((".pml", ".xar", ".crg")):
                found.append(os.path.join(folder, f))
    return sorted(found)


def corpus(rounds):
    if not os.path.isdir(CORPUS):
        print("NOTICE: %s is absent: the corpus part is skipped" % CORPUS)
        return
    inputs = corpus_inputs()
    totals = {"confined": [], "anchor": []}
    for _ in range(rounds):
        for which, extra in (("confined", []), ("anchor", ["--no-sandbox"])):
            started = time.perf_counter()
            for path in inputs:
                subprocess.run([CHOREO, "run", path, "--fast", "--timeout", "60", "-q"] + extra,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, cwd=ROOT, timeout=300)
            totals[which].append(time.perf_counter() - started)
    c, a = min(totals["confined"]), min(totals["anchor"])
    print("%-44s confined %9.2f s    --no-sandbox %9.2f s    ratio %.3f"
          % ("the corpus, %d inputs, run --fast (best)" % len(inputs), c, a, c / a))


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    if not os.access(CHOREO, os.X_OK):
        sys.exit("build it first: cargo build --release -p choreo")
    work = tempfile.mkdtemp()
    files = {}
    for name, text in (("chain", chain(2000)), ("calls", robot_calls(20000))):
        files[name] = os.path.join(work, name + ".xar")
        with open(files[name], "w") as f:
            f.write(text)
    side_by_side("a run's start (examples/hello --fast)", ["run", "examples/hello", "--fast", "-q"], rounds)
    side_by_side("signal hop, 2,000 Python boxes, gross per hop", ["run", files["chain"], "--fast", "-q"],
                 rounds, per=2000)
    side_by_side("a box's robot call, 20,000 calls, gross per call", ["run", files["calls"], "--fast", "-q"],
                 rounds, per=20000)
    side_by_side("run --fast of examples/dance", ["run", "examples/dance", "--fast", "-q"], rounds)
    corpus(2)


if __name__ == "__main__":
    main()
