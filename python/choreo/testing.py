"""Assertions that read like the robot's life, for tests of behaviors.

``Recorded`` keeps every trace event of a run from its load on; the ``assert_*`` helpers
take a run (or a ``Recorded``) and raise ``AssertionError`` with what the robot did
instead. The pytest plugin (``choreo.pytest_plugin``) gives tests recorded runs.
"""

import threading
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

import choreo

_ANY = object()

Colour = Union[str, Sequence[float]]


class Recorded:
    """A run, and every trace event since it was made (``events``, dicts as ``--trace``
    writes them). Everything else is the run's: ``start``, ``wait_end``, ``said``..."""

    def __init__(self, run: "choreo.Run") -> None:
        self.run = run
        self.events: List[dict] = []
        self._lock = threading.Lock()
        run.on_event(self._keep)

    def _keep(self, event: dict) -> None:
        with self._lock:
            self.events.append(event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.run, name)

    def __enter__(self) -> "Recorded":
        return self

    def __exit__(self, *exc: object) -> bool:
        self.run.close()
        return False

    def history(self) -> List[dict]:
        """The events so far (a copy)."""
        with self._lock:
            return list(self.events)

    def outputs(self, box: str, output: str) -> List[Any]:
        """The values output ``output`` of the box at ``box`` fired, in order."""
        path = self.run.box_path(box)
        return [e.get("value") for e in self.history()
                if e.get("path") == path and e.get("event") == "out" and e.get("port") == output]

    def errors(self) -> List[dict]:
        """The errors box code raised (``event == "err"``)."""
        return [e for e in self.history() if e.get("event") == "err"]


def _run_of(run: Union["choreo.Run", Recorded]) -> "choreo.Run":
    return run.run if isinstance(run, Recorded) else run


def assert_said(run: Union["choreo.Run", Recorded], text: str, *, contains: bool = False) -> None:
    """The simulated robot said ``text`` (a whole sentence; ``contains``: a part of one)."""
    said = _run_of(run).said()
    if any((text in s) if contains else (s == text) for s in said):
        return
    raise AssertionError("the robot did not say %r; it said: %r" % (text, said))


def assert_joint(run: Union["choreo.Run", Recorded], joint: str, angle: float, *,
                 tolerance: float = 0.01) -> None:
    """Joint ``joint`` is at ``angle`` now (radians; a hand: its opening, 0 to 1)."""
    joints = _run_of(run).joints()
    if joint not in joints:
        raise AssertionError("the robot has no joint %r (it has: %s)" % (joint, ", ".join(joints)))
    if abs(joints[joint] - angle) > tolerance:
        raise AssertionError("%s is at %.4f, not %.4f (± %g)" % (joint, joints[joint], angle, tolerance))


def _rgb(colour: Colour) -> Tuple[float, float, float]:
    if isinstance(colour, str):
        text = colour.lstrip("#")
        if len(text) != 6:
            raise ValueError("colour %r: expected #rrggbb" % colour)
        return tuple(int(text[i:i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore
    r, g, b = colour
    return (float(r), float(g), float(b))


def assert_led(run: Union["choreo.Run", Recorded], group: str, colour: Colour, *,
               tolerance: float = 0.02) -> None:
    """LED group ``group`` (``FaceLeds``, ``ChestLeds``, ``LeftEarLeds``...) shows ``colour``
    now (``#rrggbb``, or red, green, blue from 0 to 1)."""
    leds = _run_of(run).state()["leds"]
    if group not in leds:
        raise AssertionError("no LED group %r (there are: %s)" % (group, ", ".join(leds)))
    want = _rgb(colour)
    have = leds[group]
    if any(abs(h - w) > tolerance for h, w in zip(have, want)):
        raise AssertionError("%s shows %s, not %s" % (group, _hex(have), _hex(want)))


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join("%02x" % round(max(0.0, min(1.0, c)) * 255) for c in rgb)


def assert_output_fired(run: Recorded, box: str, output: str, *, value: Any = _ANY,
                        times: Optional[int] = None) -> None:
    """Output ``output`` of the box at ``box`` fired (with ``value``, if given; ``times``
    times, if given). Needs a ``Recorded`` run (the pytest fixtures give one)."""
    fired = run.outputs(box, output)
    matching = fired if value is _ANY else [v for v in fired if v == value]
    if times is None and matching:
        return
    if times is not None and len(matching) == times:
        return
    what = "%s.%s" % (run.run.box_path(box), output)
    if value is not _ANY:
        what += " with %r" % (value,)
    expected = "at least once" if times is None else "%d time(s)" % times
    raise AssertionError("%s fired %d time(s), expected %s; its values: %r"
                         % (what, len(matching), expected, fired))


def _comparable(event: dict) -> str:
    """An event as compared across runs: its JSON, with the temporary folders a run makes
    (an archive unpacked, the simulated robot's files) written ``<tmp>``."""
    import json
    import re
    import tempfile

    text = json.dumps(event, sort_keys=True)
    tmp = re.escape(tempfile.gettempdir().rstrip("/"))
    return re.sub(tmp + r"/(?:\.tmp|choreo-)[A-Za-z0-9_]+", "<tmp>", text)


def assert_reproducible(path: Any, behavior: Optional[str] = None, *, runs: int = 3,
                        timeout: float = 60.0, **options: Any) -> List[dict]:
    """Runs the behavior ``runs`` times in virtual time (each on a new simulated robot, with
    ``options`` as ``choreo.load`` takes them, the same seed) for up to ``timeout`` behavior
    seconds, and raises ``AssertionError`` at the first event where a run's trace differs
    from the first run's (what ``choreo run --fast --repeat N`` does). Returns the first
    run's events."""
    if runs < 2:
        raise ValueError("runs: at least 2")
    options.setdefault("fast", True)
    options.setdefault("timeout", timeout)
    first: Optional[List[dict]] = None
    for n in range(1, runs + 1):
        run = Recorded(choreo.load(path, behavior, **options))
        try:
            run.start()
            run.wait_end()
        finally:
            run.close()
        events = run.history()
        if first is None:
            first = events
            continue
        a = [_comparable(e) for e in first]
        b = [_comparable(e) for e in events]
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else "(the end)"
            y = b[i] if i < len(b) else "(the end)"
            if x != y:
                raise AssertionError(
                    "run %d differs from run 1 at event %d:\n  run 1: %s\n  run %d: %s"
                    % (n, i, x, n, y))
    return first or []


def assert_explored(path: Any, behavior: Optional[str] = None, *, coverage: float = 0.0,
                    faults: bool = False, **bounds: Any) -> dict:
    """Explores the behavior (``choreo.explore``, every branch a person could take, within
    ``bounds``: ``max_paths``, ``depth``, ``time``, ``timeout``, ``jobs``) and raises
    ``AssertionError`` if a path showed a fault (unless ``faults``), with each fault's
    inputs, or if fewer than ``coverage`` (0 to 1) of the boxes loaded were entered. What a
    course's CI asserts; returns the exploration's dict."""
    found = choreo.explore(path, behavior, **bounds)
    if not faults and found["faults"]:
        lines = []
        for f in found["faults"]:
            inputs = ", ".join("%s at %s s" % (_describe(s["input"]), s["at"]) for s in f["steps"])
            where = " %s" % f["path"] if f["path"] else ""
            lines.append("  %s%s: %s\n    after: %s"
                         % (f["kind"], where, f["text"], inputs or "nothing (a plain run)"))
        raise AssertionError("%d fault(s) found:\n%s" % (len(found["faults"]), "\n".join(lines)))
    loaded = found["loaded"]
    entered = found["entered"]
    if loaded and entered / loaded < coverage:
        raise AssertionError("%d of %d boxes entered (%.0f%%), expected at least %.0f%%"
                             % (entered, loaded, 100.0 * entered / loaded, 100.0 * coverage))
    return found


def _describe(step_input: dict) -> str:
    """One input of a path, in words (as `choreo explore` prints it)."""
    kind = step_input.get("kind")
    if kind == "say":
        return "say %r" % step_input.get("words")
    if kind == "mishear":
        return "say something else (heard %r, unsure)" % step_input.get("word")
    if kind == "touch":
        return "touch %s" % step_input.get("sensor")
    if kind == "wait":
        return "wait ten minutes more"
    if kind == "chance":
        return "draw %s by chance takes %s of %s" % (
            step_input.get("draw"), step_input.get("outcome"), step_input.get("of"))
    if kind == "posture":
        return "the robot starts in %s" % step_input.get("name")
    if kind == "face":
        return "the person seen is %s, %s" % (step_input.get("gender"), step_input.get("expression"))
    return "raise %s = %r" % (step_input.get("key"), step_input.get("value"))
