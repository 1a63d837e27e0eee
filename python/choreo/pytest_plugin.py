"""pytest for behaviors: fixtures that load behaviors on a simulated robot.

- ``choreo_load(path, behavior=None, **options)``: loads a behavior (``choreo.load``'s
  options; ``fast=True`` unless given) as a ``choreo.testing.Recorded`` run, closed after
  the test. A relative path is taken from the test file's folder, then from the current one.
- ``behavior``: the behavior a test's ``@pytest.mark.behavior(path, **options)`` names,
  loaded the same way.
- ``scenario`` options take a YAML/JSON file or a dict (the world: touches, words heard,
  people seen, calls answered).

The assertion helpers are in ``choreo.testing``: ``assert_said``, ``assert_joint``,
``assert_led``, ``assert_output_fired``.
"""

import os
from typing import Any, Callable, List

import pytest

import choreo
from choreo.testing import Recorded


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        "behavior(path, behavior=None, **options): the behavior the `behavior` fixture loads",
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
        options.setdefault("fast", True)
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
