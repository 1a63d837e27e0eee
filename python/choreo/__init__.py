"""choreo: run Choregraphe (NAO / Pepper) behaviors anywhere, from Python.

    import choreo

    with choreo.load("examples/hello", fast=True) as run:
        run.start()
        assert run.wait_end() == "finished"
        assert run.said() == ["Hello! I am running in choreo."]

``load`` opens any input choreo reads (a ``.xar``, a behavior or project folder, a ``.pml``,
a ``.crg``/``.cbl``/``.pkg`` archive), sets up its run (a simulated NAO or Pepper, or a real
robot at a ``tcp://`` URL; real or virtual time; a time limit; parameters; a scenario) and
loads it. The ``Run`` starts, stops, stimulates box inputs, observes outputs and every trace
event, reads and sets parameters, drives timelines, reads the simulated robot (what it said,
its joints, LEDs, posture, ALMemory) and waits for the end. Box scripts run in this
interpreter; the ``qi``, ``naoqi``, ``almath`` and ``motion`` they import are choreo's, and
never replace modules of those names that the program imports itself.

The ``choreo`` command comes with the package (``python -m choreo`` too), and a pytest plugin
(``choreo.pytest_plugin``: the ``behavior`` and ``choreo_load`` fixtures; ``choreo.testing``: assertions).

``load_fleet(path, robots, ...)`` loads one behavior on several robots (qi URLs), its
timelines started together, as ``choreo run --robot A --robot B`` does.
``check(*paths, body=False, cache=False)`` checks files of every format without running them,
as ``choreo check`` does: one dict per file, the object ``choreo check --json`` prints for it.
``explore(path, max_paths=200, depth=6, ...)`` tries every branch a person could take, as
``choreo explore`` does: the dict ``choreo explore --json`` prints (coverage, faults with
their shortest inputs).
``Chat(*paths, lang="enu")`` talks to QiChat topics, ``.dlg`` dialogs or a behavior's Dialog
boxes as ``choreo chat`` does: ``start()`` starts the Dialog boxes, ``hear(line)`` says a line
(``e:Key`` raises an event); each answer a dict (``text``, ``topic``, ``shown``...).
"""

import atexit as _atexit
import os as _os
import sys as _sys
import weakref as _weakref
from typing import Any, Mapping, Optional, Sequence, Union

from choreo._native import Chat, Events, Fleet, Project, Run, Timeline, check, explore
from choreo._native import _set_box_host
from choreo._native import load_fleet as _load_fleet
from choreo._native import load as _load
from choreo.errors import (
    BoxError,
    ChoreoError,
    ClosedError,
    Ending,
    LoadError,
    NotFoundError,
    NotSimulatedError,
    RobotError,
    WaitTimeout,
)

# A run's box host (box code's process of its own, the default) is this interpreter importing this package.
_set_box_host(_sys.executable, _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))

__all__ = [
    "load",
    "load_fleet",
    "check",
    "explore",
    "Chat",
    "Project",
    "Run",
    "Timeline",
    "Events",
    "Fleet",
    "Ending",
    "ChoreoError",
    "NotFoundError",
    "LoadError",
    "BoxError",
    "RobotError",
    "NotSimulatedError",
    "WaitTimeout",
    "ClosedError",
]

# The runs not closed yet: closed when the program exits, so that their boxes are unloaded
# (onUnload, the robot left as a stop leaves it) as when a run is closed by hand.
_open_runs = _weakref.WeakSet()


def load(
    path: "Union[str, _os.PathLike[str], Project]",
    behavior: Optional[str] = None,
    *,
    robot: Optional[str] = None,
    user: Optional[str] = None,
    token: Optional[str] = None,
    model: Optional[str] = None,
    fast: bool = False,
    timeout: Optional[float] = None,
    strict: bool = False,
    params: Optional[Mapping[str, Any]] = None,
    scenario: "Union[str, _os.PathLike[str], Mapping[str, Any], None]" = None,
    language: Optional[str] = None,
    seed: Optional[int] = None,
    start_time: Optional[str] = None,
    sandbox: "Union[bool, str, Mapping[str, Any]]" = True,
) -> Run:
    """Opens any input (.xar, folder, .pml, .crg/.cbl/.pkg; or takes a `Project` opened
    before), sets up the run of `behavior` (the first one by default) and loads it.
    `robot`: a `tcp://host:port` URL (else a simulated robot), reached as `user` with
    `token` when it asks (a NAOqi 2.9 robot: `nao` and its password; `choreo sim` beyond
    loopback prints its token); `model`: "nao" or "pepper" (else the manifest's, else NAO);
    `fast`: virtual time; `timeout`: a time limit in behavior seconds; `strict`: an error in box
    code stops the behavior; `params`: {"box/path/Name": value}; `scenario`: a YAML/JSON
    file or a dict; `language`: the simulated robot's (a NAOqi name: "French"); `seed`: of
    everything random in the run (box code's `random`, the dialog's random choices; by
    default 1 when `fast`, a random one otherwise: `run.seed` says which); `start_time`:
    the UTC date and time box code's `datetime.now()` reads at the start
    ("2026-03-01T18:30:00Z"; by default 2026-01-05T10:00:00Z when `fast`, now otherwise);
    `sandbox`: box code reaches only its project, the run's folders and its Python, as
    `choreo run` confines it (docs/security.md); a dict allows more, with the command's
    flags as keys (`{"allow_write": ["/tmp/out"], "allow_net": ["host:80"], "allow_read":
    [...], "allow_run": True}`); False runs it unconfined; "require" (or `"require": True`
    in the dict) refuses to run where the kernel cannot confine box code (no Landlock):
    elsewhere such a machine gets a RuntimeWarning. `run.refused` lists what was refused.
    Raises NotFoundError, LoadError (with `box` and `line` for a box that failed),
    RobotError, NotSimulatedError."""
    run = _load(path, behavior, robot=robot, user=user, token=token, model=model, fast=fast,
                timeout=timeout, strict=strict, params=params, scenario=scenario,
                language=language, seed=seed, start_time=start_time, sandbox=sandbox)
    _open_runs.add(run)
    return run


def load_fleet(
    path: "Union[str, _os.PathLike[str], Project]",
    robots: "Sequence[str]",
    behavior: Optional[str] = None,
    *,
    user: Optional[str] = None,
    token: Optional[str] = None,
    model: Optional[str] = None,
    timeout: Optional[float] = None,
    strict: bool = False,
    params: Optional[Mapping[str, Any]] = None,
    language: Optional[str] = None,
    seed: Optional[int] = None,
    start_time: Optional[str] = None,
    sandbox: "Union[bool, str, Mapping[str, Any]]" = True,
) -> Fleet:
    """Loads `behavior` of `path` on each robot of `robots` (`tcp://host:port` URLs), as
    `choreo run --robot A --robot B` does: one run per robot (`fleet.runs`), every robot's
    delay measured on its connection, each timeline started on every robot at once (a robot
    that ended or did not come within 10 s is not waited for). The options are `load`'s
    (`user` and `token` for every robot).
    `fleet.start()`, `fleet.wait_end()` (a `choreo.Ending` per robot), `fleet.report()`,
    `fleet.together` / `fleet.partial` (timeline starts with every robot / without some),
    `fleet.close()`; a context manager. Raises NotFoundError, LoadError, RobotError."""
    fleet = _load_fleet(path, list(robots), behavior, user=user, token=token, model=model,
                        timeout=timeout, strict=strict, params=params, language=language,
                        seed=seed, start_time=start_time, sandbox=sandbox)
    for run in fleet.runs:
        _open_runs.add(run)
    return fleet


@_atexit.register
def _close_open_runs():
    for run in list(_open_runs):
        try:
            run.close()
        except ChoreoError:
            pass
