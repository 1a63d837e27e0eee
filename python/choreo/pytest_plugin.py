"""pytest for behaviors: fixtures that load behaviors on a simulated robot.

- ``choreo_load(path, behavior=None, **options)``: loads a behavior (``choreo.load``'s
  options; ``fast=True`` unless given or on a ``robot``) as a ``choreo.testing.Recorded`` run, closed after
  the test. A relative path is taken from the test file's folder, then from the current one.
- ``behavior``: the behavior a test's ``@pytest.mark.behavior(path, **options)`` names,
  loaded the same way.
- ``scenario`` options take a YAML/JSON file or a dict (the world: touches, words heard,
  people seen, calls answered).
- ``choreo_sim``: a simulated NAO served over qi messaging (``choreo sim`` on a free port)
  for the test: ``choreo_sim.url`` for ``choreo_load(path, robot=choreo_sim.url)`` or for a
  program's own qi client (PyPI ``qi``: ``qi.Session().connect(choreo_sim.url)``). Its
  options come from ``@pytest.mark.choreo_sim(model="pepper", scenario=..., naoqi="2.8")``.

The assertion helpers are in ``choreo.testing``: ``assert_said``, ``assert_joint``,
``assert_led``, ``assert_output_fired``.
"""

import os
import re
import subprocess
import sys
from typing import Any, Callable, List

import pytest

import choreo
from choreo.testing import Recorded


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        "behavior(path, behavior=None, **options): the behavior the `behavior` fixture loads",
    )
    config.addinivalue_line(
        "markers",
        "choreo_sim(model=None, scenario=None, naoqi=None): the robot `choreo_sim` serves",
    )


def _resolve(request: Any, path: Any) -> Any:
    if isinstance(path, choreo.Project):
        return path
    path = os.fspath(path)
    if os.path.isabs(path):
        return path
    beside = os.path.join(os.path.dirname(str(request.path)), path)
    return beside if os.path.exists(beside) else path


@pytest.fixture
def choreo_load(request: Any) -> Any:
    """Loads behaviors for the test; each is closed after it."""
    runs: List[Recorded] = []

    def load(path: Any, behavior: Any = None, **options: Any) -> Recorded:
        if not options.get("robot"):
            options.setdefault("fast", True)  # virtual time, on the simulated robot
        scenario = options.get("scenario")
        if isinstance(scenario, (str, os.PathLike)):
            options["scenario"] = _resolve(request, scenario)
        run = Recorded(choreo.load(_resolve(request, path), behavior, **options))
        runs.append(run)
        return run

    yield load
    for run in runs:
        run.close()


@pytest.fixture
def behavior(request: Any, choreo_load: Callable[..., Recorded]) -> Recorded:
    """The behavior of the test's ``@pytest.mark.behavior(...)``, loaded (not started)."""
    marker = request.node.get_closest_marker("behavior")
    if marker is None:
        pytest.fail("the `behavior` fixture needs @pytest.mark.behavior(path, ...)")
    return choreo_load(*marker.args, **marker.kwargs)


class ServedRobot:
    """A simulated robot served over qi for a test (the ``choreo_sim`` fixture)."""

    def __init__(self, process: "subprocess.Popen[str]", host: str, port: int) -> None:
        self.process = process
        self.host = host
        self.port = port
        self.url = "tcp://%s:%d" % (host, port)

    def __repr__(self) -> str:
        return "ServedRobot(%r)" % self.url


@pytest.fixture
def choreo_sim(request: Any) -> Any:
    """A simulated robot served over qi on a free port of the loopback, stopped after the
    test."""
    marker = request.node.get_closest_marker("choreo_sim")
    options = dict(marker.kwargs) if marker else {}
    command = [sys.executable, "-m", "choreo", "sim", "--listen", "tcp://127.0.0.1:0"]
    if options.get("model"):
        command += ["--robot-model", str(options["model"])]
    if options.get("scenario"):
        command += ["--events", _resolve(request, options["scenario"])]
    if options.get("naoqi"):
        command += ["--naoqi", str(options["naoqi"])]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    # Its first line says where it serves: "serving a simulated NAO ... at tcp://HOST:PORT".
    line = process.stderr.readline() if process.stderr else ""
    found = re.search(r"tcp://([0-9.]+):([0-9]+)", line)
    if not found:
        process.kill()
        rest = process.stderr.read() if process.stderr else ""
        pytest.fail("choreo sim did not start: %s%s" % (line, rest))
    robot = ServedRobot(process, found.group(1), int(found.group(2)))
    yield robot
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
