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
(``choreo.pytest_plugin``: the ``behavior`` and ``robot_run`` fixtures, assertion helpers).
"""

from choreo._native import Events, Run, Timeline, behaviors, load
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

__all__ = [
    "load",
    "behaviors",
    "Run",
    "Timeline",
    "Events",
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
