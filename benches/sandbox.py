"""The cost of the sandbox: `choreo run` confined and supervised (the default) beside the same
run with `--no-sandbox` (the anchor), in turn in one process so both see the same machine.

    python3 benches/sandbox.py [ROUNDS] [--threads]   (default 15; the corpus part: 3 rounds)

The confined runs put box code in a process of its own, the box host (the default), and the
box host's memory is measured too (its three processes' resident memory while a behavior
waits); with `--threads` they run it on choreo's confined threads (`run --sandbox=threads`).

The script runs itself in a network namespace of its own (`unshare --net`, once, where the
kernel allows it; else a NOTICE): both runs of a pair then see the same world, a machine
without network, and box code's path depends on the sandbox alone. On this machine's own
network the stock Internet Connection box blocks 2 s in the name server without the
sandbox, where the sandbox refuses the lookup at once and the engine stops the box's busy
loop after 5 s of CPU: that measures the machine's resolver, not the sandbox.

Needs target/release/choreo (`cargo build --release -p choreo`); the corpus part needs
../shared/corpus (else a NOTICE). Each figure is wall time of the command from outside (the
fork and the parent's wait included); a ratio is that of the best rounds, with the median of
the differences within rounds beside it (`side_by_side`); the corpus's sums each input's
medians, and again over the inputs whose confined runs refuse nothing (a refusal changes
the path box code takes), then lists the inputs that differ most. Results:
docs/benchmarks.md, "The sandbox".
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


def timed(args, any_exit=False):
    """The wall time of `choreo ARGS`; exits unless it ended 0 or 5 (or `any_exit`: a corpus
    input may end in error, the same with and without the sandbox). No `timeout=` here:
    Python then waits by polling with sleeps, which rounds every time up to its steps."""
    started = time.perf_counter()
    done = subprocess.run([CHOREO] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          stdin=subprocess.DEVNULL, cwd=ROOT)
    took = time.perf_counter() - started
    if done.returncode not in (0, 5) and not any_exit:
        sys.exit("choreo %s exited %d" % (" ".join(args), done.returncode))
    return took


def paired(commands, rounds, any_exit=False):
    """Runs each command of `commands` (confined, anchor) once a round, in turn, the order
    swapped every round so that neither always runs on a warmer machine: the two lists of
    times, paired by round."""
    confined, anchor = [], []
    for r in range(rounds):
        order = ((confined, commands[0]), (anchor, commands[1]))
        for times, args in (order if r % 2 == 0 else order[::-1]):
            times.append(timed(args, any_exit))
    return confined, anchor


CONFINED = []
# How many of the corpus's inputs with the largest differences are listed.
GAPS = 8


def side_by_side(name, args, rounds, per=1):
    """The ratio of the best rounds (as timeit advises: a slower round measures the machine's
    other work, not the command's), and the median of the rounds' differences beside it (a
    difference within a round cancels what the machine did to both)."""
    confined, anchor = paired((args + CONFINED, args + ["--no-sandbox"]), rounds)
    c, a = min(confined) / per, min(anchor) / per
    extra = statistics.median(x - y for x, y in zip(confined, anchor)) / per
    unit, scale = ("µs", 1e6) if a < 1e-3 else ("ms", 1e3)
    print("%-44s best: confined %8.2f %s, --no-sandbox %8.2f %s, ratio %.3f;"
          "  median difference %6.2f %s (%.3f)"
          % (name, c * scale, unit, a * scale, unit, c / a, extra * scale, unit,
             1 + extra * per / statistics.median(anchor)))


def corpus_inputs():
    listing = os.path.join(ROOT, "..", "shared", "corpus")
    found = []
    for folder, _, files in os.walk(listing):
        for f in files:
            if f.endswith((".pml", ".xar", ".crg")):
                found.append(os.path.join(folder, f))
    return sorted(found)


def refuses(args):
    """Whether the confined run's report lists refusals: box code then takes another path
    than without the sandbox (a loop that retries a refused lookup at once where the anchor
    waits for a name server), which measures the sandbox's rules, not its cost."""
    done = subprocess.run([CHOREO] + args + CONFINED, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=ROOT)
    return any(line.split()[:1] == ["refused"]
               for line in done.stdout.decode("utf-8", "replace").splitlines())


def corpus(rounds):
    if not os.path.isdir(CORPUS):
        print("NOTICE: %s is absent: the corpus part is skipped" % CORPUS)
        return
    inputs = corpus_inputs()
    # All inputs, and those whose confined runs refuse nothing.
    confined, anchor = [0.0, 0.0], [0.0, 0.0]
    refusing = 0
    gaps = []
    for path in inputs:
        args = ["run", path, "--fast", "--timeout", "60", "-q"]
        c, a = paired((args + CONFINED, args + ["--no-sandbox"]), rounds, any_exit=True)
        refused = refuses(args)
        refusing += refused
        gaps.append((statistics.median(c) - statistics.median(a), path, refused))
        for i in ((0,) if refused else (0, 1)):
            confined[i] += statistics.median(c)
            anchor[i] += statistics.median(a)
    print("%-44s confined %9.2f s    --no-sandbox %9.2f s    ratio %.3f"
          % ("the corpus, %d inputs, run --fast" % len(inputs), confined[0], anchor[0],
             confined[0] / anchor[0]))
    print("%-44s confined %9.2f s    --no-sandbox %9.2f s    ratio %.3f"
          % ("  the %d whose runs refuse nothing" % (len(inputs) - refusing), confined[1],
             anchor[1], confined[1] / anchor[1]))
    # Where the difference lies: the inputs that cost the most more (or less) confined.
    gaps.sort(reverse=True)
    for gap, path, refused in gaps[:GAPS] + gaps[-2:]:
        print("    %+8.3f s  %s%s" % (gap, os.path.relpath(path, CORPUS),
                                       "  (refuses)" if refused else ""))


def asks(n):
    """One box asking the engine n times for the time (`time.time()`: a round trip through
    the box host's lane)."""
    script = ("class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n"
              "        for i in range(%d):\n            time.time()\n        self.onStopped()\n" % n)
    return behavior([script_box("Asks", 1, script)], [link(0, 2, 1, 2), link(1, 4, 0, 4)])


def waiting():
    """A box that waits 3 s of real time: the box host's memory is read meanwhile."""
    script = ("class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n"
              "        time.sleep(3)\n        self.onStopped()\n")
    return behavior([script_box("Wait", 1, script)], [link(0, 2, 1, 2), link(1, 4, 0, 4)])


def descendants(pid):
    """The processes under `pid`, from /proc's parent links."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def box_host_memory(path):
    """Resident memory of the box host's processes (waiter, init, box host), beside that of
    choreo's process that runs the engine, 1.5 s into a run whose box sleeps."""
    run = subprocess.Popen([CHOREO, "run", path, "-q"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, cwd=ROOT)
    time.sleep(1.5)
    # Below choreo's supervising parent: its child (the engine), then the box host's three.
    under = descendants(run.pid)
    sizes = [rss_kib(pid) for pid in under]
    run.wait()
    if len(sizes) < 4:
        print("memory: the box host's processes were not found (%d under choreo)" % len(sizes))
        return
    engine, host = sizes[0], sizes[1:]
    print("%-44s box host %.1f MiB (waiter, init, box host: %s KiB); choreo's engine %.1f MiB"
          % ("memory while a box sleeps", sum(host) / 1024, ", ".join(map(str, host)),
             engine / 1024))


# Set in the copy of this script that runs in a network namespace of its own.
NO_NETWORK = "CHOREO_BENCH_NO_NETWORK"


def without_network():
    """Runs this script again in a network namespace of its own (no network), its user mapped
    to itself; returns only where the kernel or util-linux cannot (after a NOTICE), or in
    that copy."""
    if os.environ.get(NO_NETWORK):
        return
    prefix = ["unshare", "--net", "--map-current-user"]
    try:
        works = subprocess.run(prefix + ["true"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        works = False
    if not works:
        print("NOTICE: no network namespace (%s failed): the runs see this machine's network"
              % " ".join(prefix))
        return
    sys.stdout.flush()
    os.environ[NO_NETWORK] = "1"
    os.execvp(prefix[0], prefix + [sys.executable, os.path.abspath(__file__)] + sys.argv[1:])


def main():
    global CONFINED
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--threads" in sys.argv:
        CONFINED = ["--sandbox=threads"]
    rounds = int(args[0]) if args else 15
    if not os.access(CHOREO, os.X_OK):
        sys.exit("build it first: cargo build --release -p choreo")
    without_network()
    work = tempfile.mkdtemp()
    files = {}
    for name, text in (("chain", chain(2000)), ("calls", robot_calls(20000)),
                       ("now", asks(20000))):
        files[name] = os.path.join(work, name + ".xar")
        with open(files[name], "w") as f:
            f.write(text)
    side_by_side("a run's start (examples/hello --fast)", ["run", "examples/hello", "--fast", "-q"], rounds)
    side_by_side("signal hop, 2,000 Python boxes, gross per hop", ["run", files["chain"], "--fast", "-q"],
                 rounds, per=2000)
    side_by_side("box code asks the engine, 20,000 time.time()", ["run", files["now"], "--fast", "-q"],
                 rounds, per=20000)
    side_by_side("a box's robot call, 20,000 calls, gross per call", ["run", files["calls"], "--fast", "-q"],
                 rounds, per=20000)
    side_by_side("run --fast of examples/dance", ["run", "examples/dance", "--fast", "-q"], rounds)
    if not CONFINED:
        path = os.path.join(work, "waiting.xar")
        with open(path, "w") as f:
            f.write(waiting())
        box_host_memory(path)
    corpus(3)


if __name__ == "__main__":
    main()
