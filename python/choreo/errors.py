"""The exceptions of choreo, and how a run ended.

Every error names what it is about: ``path`` (the input file), ``box`` (the box path, as the
trace names it: ``root/Say``) and ``line`` (the box script's line, or the file's), each
``None`` when it does not apply.
"""

from typing import List, Optional


class ChoreoError(Exception):
    """Any error of choreo."""

    def __init__(self, message: str, *, path: Optional[str] = None,
                 box: Optional[str] = None, line: Optional[int] = None) -> None:
        super().__init__(message)
        self.path = None if path is None else str(path)
        self.box = box
        self.line = line


class NotFoundError(ChoreoError, FileNotFoundError):
    """Nothing at the path given."""


class LoadError(ChoreoError):
    """The input could not be read, has no such behavior, or could not be loaded (a box
    whose code failed: ``box`` and ``line`` say where)."""


class BoxError(ChoreoError, LookupError):
    """No box at that path, or the box has no such input, output, parameter or timeline."""


class RobotError(ChoreoError):
    """The robot cannot be reached, or answered a call with an error."""


class NotSimulatedError(ChoreoError):
    """Asked of a real robot what only the simulated one has (its state, virtual time, a
    scenario)."""


class WaitTimeout(ChoreoError, TimeoutError):
    """A wait ended before the run did."""


class ClosedError(ChoreoError):
    """The run was used after it was closed."""


class Ending:
    """How a run ended (``Run.wait_end``): ``kind`` is one of "finished", "stopped",
    "idle" (it waited for the world: ``awaiting`` lists the ALMemory keys it was
    subscribed to), "time_limit", "failed" (strict mode: ``box``, ``hook`` and ``message``
    say where), "robot_lost", "crashed", "box_host_ended" (box code's own process ended:
    ``message`` says how, ``box`` where when known). It compares equal to its kind:
    ``run.wait_end() == "finished"``."""

    def __init__(self, kind: str, *, awaiting: Optional[List[str]] = None,
                 box: Optional[str] = None, hook: Optional[str] = None,
                 message: Optional[str] = None) -> None:
        self.kind = kind
        self.awaiting = list(awaiting or [])
        self.box = box
        self.hook = hook
        self.message = message

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.kind == other
        if isinstance(other, Ending):
            return vars(self) == vars(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.kind)

    def __repr__(self) -> str:
        extra = {k: v for k, v in vars(self).items() if k != "kind" and v}
        return "Ending(%r%s)" % (self.kind, "".join(", %s=%r" % kv for kv in extra.items()))
