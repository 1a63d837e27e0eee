"""Type hints of choreo's native module (the Rust API, `choreo::Run`)."""

from os import PathLike
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from choreo.errors import Ending

_Path = Union[str, "PathLike[str]"]

def load(path: Union[_Path, "Project"], behavior: Optional[str] = None,
         **options: Any) -> "Run":
    """The loader behind `choreo.load` (typed and documented there)."""

class Project:
    """An opened input: `choreo.load` takes it instead of a path (read once)."""

    path: str
    name: str
    behaviors: List[str]
    """Its behaviors' names, in project order (the first is run by default)."""
    warnings: List[str]
    """What reading it found to say (missing files...), each located."""
    model: Optional[str]
    """"NAO" or "Pepper" as its manifest asks, or None."""
    language: Optional[str]
    """The language a robot running it speaks when not English, or None."""

    def __init__(self, path: _Path) -> None:
        """Opens any input; LoadError if a behavior of it cannot be read."""

def load_fleet(path: Union[_Path, "Project"], robots: List[str], behavior: Optional[str] = None,
               **options: Any) -> "Fleet":
    """The loader behind `choreo.load_fleet` (typed and documented there)."""

class Fleet:
    """One behavior loaded on several robots, timelines started together; a context manager
    that closes every run."""

    runs: List["Run"]
    """Each robot's run, in the order of the robots given."""
    together: int
    """Timeline starts released with every running robot at the rendezvous."""
    partial: int
    """Timeline starts released without some robot (it never came within 10 s)."""

    def start(self) -> None:
        """Starts the behavior on every robot at once."""
    def wait_end(self, timeout: float = 60.0) -> List[Ending]:
        """Waits at most `timeout` real seconds for every run's end: an Ending per robot."""
    def report(self) -> List[str]:
        """Each robot's delay and clock, and how far apart the timelines started."""
    def close(self) -> None:
        """Closes every run."""
    def __enter__(self) -> "Fleet": ...
    def __exit__(self, *exc: Any) -> bool: ...

def check(*paths: _Path, body: bool = False, cache: bool = False) -> List[Dict[str, Any]]:
    """Checks the files below `paths` without running them (`choreo check`): one dict per
    file, in order, as `choreo check --json` prints it (`file`, `kind`, `status`: "ok",
    "warning" or "error", `summary`, `diagnostics`; `body` with `body=True`: the physics of
    its motion timelines). NotFoundError for a path that does not exist."""

class Chat:
    """A conversation with QiChat topics, `.dlg` dialogs or the Dialog boxes of behaviors
    (`choreo chat`). LoadError when one does not read."""
    warnings: List[str]
    def __init__(self, *paths: _Path, lang: str = "enu", seed: int = 0,
                 sandbox: bool = True) -> None: ...
    def start(self) -> List[Dict[str, Any]]:
        """Starts every Dialog box (its topic activated, its onStart raised): the answers."""
    def hear(self, line: str) -> List[Optional[Dict[str, Any]]]:
        """What the robot answers `line` (`e:Key`: the event Key), then what the memory
        events its answers raise answer: each a dict (`text`, `topic`, `failed`, `tags`,
        `shown`: the line `choreo chat` prints), or None where no rule matches."""

def explore(path: _Path, behavior: Optional[str] = None, max_paths: int = 200, depth: int = 6,
            time: float = 30.0, timeout: float = 60.0, jobs: Optional[int] = None,
            executor: Any = None, journal: Optional[_Path] = None) -> Dict[str, Any]:
    """Tries every branch a person could take (`choreo explore`): the dict `choreo explore
    --json` prints (`paths`, `complete`, `boxes`, `entered`, `loaded`, `rules_matched`,
    `rules_unmatched`, `unproduced`, `faults` with their `steps`). With `executor` (any
    `concurrent.futures.Executor`: a process pool, a Dask client's `get_executor()`, Ray's),
    each path runs where it sends `explore_path`, `jobs` at a time; the search and its
    report are the same. With `journal` (a file), the paths it holds are not run again and
    the others are written down: an exploration resumed. ValueError for a bound that is not
    a positive number of seconds; LoadError for a journal of another exploration."""

def explore_path(path: _Path, behavior: Optional[str], steps: str, timeout: float) -> str:
    """Runs one path of an exploration (its inputs as JSON) and returns what it showed as
    JSON: what `explore(..., executor=...)` hands to the executor's workers."""

def cli_main(argv: List[str]) -> int:
    """Runs the choreo command (argv[0] its name); returns its exit code."""

class Run:
    """A loaded behavior on its robot; a context manager that closes it."""

    now: float
    """Behavior time, in seconds."""
    behavior: str
    """The behavior's name in its project."""
    model: str
    """"NAO" or "Pepper"."""
    seed: int
    """The seed of the run's chance: `choreo.load(..., seed=run.seed)` repeats it."""
    refused: List[str]
    """What the sandbox refused box code, each with the flag that allows it."""
    start_time: str
    """The UTC date and time at behavior time 0 ("2026-01-05T10:00:00Z")."""

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def close(self) -> None:
        """Stops the behavior if it runs and waits for its unload; later calls raise
        ClosedError."""
    def __enter__(self) -> "Run": ...
    def __exit__(self, *exc: object) -> bool: ...
    def stimulate(self, path: str, input: str, value: Any = None) -> None:
        """Stimulates an input of the box at `path` (`root/` optional); None is a bang.
        BoxError for an unknown box or input, TypeError for a value NAOqi cannot carry."""
    def events(self) -> Iterator[Dict[str, Any]]:
        """Every trace event from now on (dicts as `--trace` writes them); ends with the
        run."""
    def on_event(self, callback: Callable[[Dict[str, Any]], None]) -> int: ...
    def on_output(self, path: str, output: str, callback: Callable[[Any], None]) -> int: ...
    def unobserve(self, id: int) -> None: ...
    def parameter(self, path: str, name: str) -> Any: ...
    def set_parameter(self, path: str, name: str, value: Any) -> None: ...
    def timeline(self, path: str) -> "Timeline": ...
    def state(self) -> Dict[str, Any]:
        """The simulated robot now: time, said, speaking, posture, awake, joints, position,
        leds, memory, sounds. NotSimulatedError on a real robot."""
    def said(self) -> List[str]: ...
    def joints(self) -> Dict[str, float]: ...
    def memory(self, key: str) -> Any: ...
    def raise_event(self, key: str, value: Any = None) -> None: ...
    def box_path(self, path: str) -> str: ...
    def awaited(self) -> List[str]: ...
    def wait(self, timeout: float = 60.0) -> str:
        """What comes next: "finished", "stopped", "idle", "time_limit", "failed",
        "robot_lost", "crashed". WaitTimeout if nothing came."""
    def wait_end(self, timeout: float = 60.0) -> Ending:
        """The end (an idle run, or one at its time limit, is stopped then)."""

class Timeline:
    """The timeline of one box."""

    def play(self) -> None: ...
    def pause(self) -> None: ...
    def stop(self) -> None: ...
    def go_to_frame(self, frame: int) -> None: ...
    def go_to_label(self, label: str) -> None: ...
    def set_fps(self, fps: int) -> None: ...

class Events(Iterator[Dict[str, Any]]):
    def __next__(self) -> Dict[str, Any]: ...
