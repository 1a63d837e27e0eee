"""What Choregraphe generated around a box script (docs/runtime-rules.md sections 3, 4, 7):
GeneratedClass with the box API, the namespace each script runs in, the guarded hook call
with the argument-count rule, and tracebacks that name the box and the script's own lines.

`_choreo.BoxApi` (Rust) is the box's handle on the engine; GeneratedClass takes the one of
the box being constructed, so every constructor form works, even none at all."""

import _thread
import datetime as _datetime
import os
import random
import sys
import threading
import time
import types
import weakref

import _choreo
import _choreo_almath as almath
import _choreo_packages as packages
import _choreo_paths as paths
import _choreo_naoqi as naoqi
import _choreo_py2 as py2
import _choreo_motion as motion
import _choreo_qi as qi
import _choreo_locks as locks
import _choreo_sandbox as sandbox


# `logging`, `traceback` and `linecache` (with `re` and `tokenize`: 8 ms) are imported on
# first use: most runs never need them, and every run would wait for them at start.
_logger_class = None


def _box_logger(box):
    """self.logger: a standard Logger named after the box (S5), `warn` included."""
    global _logger_class
    if _logger_class is None:
        _logger_class = _make_logger_class()
    return _logger_class(box)


def _make_logger_class():
    import logging

    def level(levelno):
        if levelno >= logging.CRITICAL:
            return "fatal"
        if levelno >= logging.ERROR:
            return "error"
        if levelno >= logging.WARNING:
            return "warning"
        if levelno >= logging.INFO:
            return "info"
        return "debug"

    class _BoxHandler(logging.Handler):
        """Sends log records to the engine's trace, under the box."""

        def __init__(self, box):
            logging.Handler.__init__(self)
            self._box = box

        def emit(self, record):
            try:
                message = record.getMessage()
                if record.exc_info:
                    message += "\n" + describe(record.exc_info[1])
                self._box.log(level(record.levelno), message)
            except Exception:
                self.handleError(record)

    class BoxLogger(logging.Logger):
        def __init__(self, box):
            logging.Logger.__init__(self, box.name)
            self.propagate = False
            self.addHandler(_BoxHandler(box))

        def warn(self, msg, *args, **kwargs):
            self.warning(msg, *args, **kwargs)

    return BoxLogger


class Timeline(object):
    """getTimeline() / getParentTimeline(): commands to a timeline (section 5, T4)."""

    def __init__(self, box, parent):
        self._box = box
        self._parent = parent

    def play(self):
        self._box.timeline(self._parent, "play")

    def pause(self):
        self._box.timeline(self._parent, "pause")

    def stop(self):
        self._box.timeline(self._parent, "stop")

    def goTo(self, frame):
        """Moves to a frame number or a keyframe name."""
        self._box.timeline(self._parent, "goto", frame)

    def gotoAndStop(self, frame):
        self.goTo(frame)
        self.pause()

    def gotoAndPlay(self, frame):
        self.goTo(frame)
        self.play()

    def setFPS(self, fps):
        self._box.timeline(self._parent, "fps", fps)

    def getFPS(self):
        return self._box.fps(self._parent)

    def getSize(self):
        return self._box.size(self._parent)


class _Given(object):
    """An attribute the reference's generated class sets in `__init__`, computed when read.
    A non-data descriptor: a script's `self.<name> = ...` (or its class attribute) takes
    its place, as it would replace the reference's plain attribute. With `only_if`, the box
    has it only when that flag of the box is true (the generator sets it conditionally)."""

    def __init__(self, read, only_if=None):
        self.read = read
        self.only_if = only_if

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if self.only_if and not getattr(instance._choreo_box, self.only_if):
            raise AttributeError("'%s' object has no attribute '%s'"
                                 % (type(instance).__name__, self.name))
        return self.read(instance)


class _Parameter(object):
    """One of `self.parameters`: the generator's qi.Property of a box parameter."""

    def __init__(self, box, name):
        self._box = box
        self._name = name

    def value(self):
        return self._box.getParameter(self._name)

    def setValue(self, value):
        self._box.setParameter(self._name, value)


class GeneratedClass(object):
    """The base of every box's MyClass (ALBehavior in the SDK)."""

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        box = _choreo.current()
        if box is None:
            raise RuntimeError("GeneratedClass: made outside the construction of a box")
        self.__dict__["_choreo_box"] = box
        return self

    def __init__(self, *args, **kwargs):
        """Accepts (self) and (self, autoBind) (S1); autoBind is ignored."""

    def __getattr__(self, name):
        # Outputs are methods (P8): self.onStopped() fires a bang, self.output(v) a value.
        box = self.__dict__.get("_choreo_box")
        if box is not None and box.has_output(name):

            def output(value=None):
                box.fire(name, value)

            output.__name__ = name
            self.__dict__[name] = output
            return output
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    # Memory subscriptions of the boxes whose code choreo generates (python/choice.py,
    # python/dialog.py): `callback(value)` on each update of `key`, until _choreo_unwatch.
    def _choreo_watch(self, memory, key, callback):
        subscriber = memory.subscriber(key)
        link = subscriber.signal.connect(callback)
        self.__dict__.setdefault("_choreo_watched", []).append((subscriber, link))

    def _choreo_unwatch(self):
        for subscriber, link in self.__dict__.pop("_choreo_watched", []):
            try:
                subscriber.signal.disconnect(link)
            except Exception:
                pass

    # Hooks a script may leave out but call itself (self.onUnload() in onStop, R10).
    def onLoad(self):
        pass

    def onUnload(self):
        pass

    # Identity and context (S6, S7), and the attributes the reference's generated class sets
    # in its __init__ (libqicore's Python box generator, docs/box-environment.md "The box
    # object"): read from the box, and a script's own assignment or class attribute wins.
    def getName(self):
        return self._choreo_box.name

    id = _Given(lambda self: self._choreo_box.name)
    name = _Given(lambda self: self._choreo_box.name)
    boxName = _Given(lambda self: self._choreo_box.box_name)
    behaviorId = _Given(lambda self: self._choreo_box.behavior_id)
    parentId = _Given(lambda self: self._choreo_box.parent_id)
    parentBoxName = _Given(lambda self: self._choreo_box.parent_id, "has_parent")
    behaviorPath = _Given(lambda self: self._choreo_box.behavior_path)
    resource = _Given(lambda self: self._choreo_box.has_resources)
    parameters = _Given(lambda self: {n: _Parameter(self, n) for n in self.getParametersList()})
    timeline = _Given(lambda self: self.getTimeline())
    parentTimeline = _Given(lambda self: self.getParentTimeline(), "has_parent")

    def stimulateIO(self, name, *args):
        """Fires output `name` (the generated class's way to send a signal); an unknown
        name is logged as an error, as the reference does."""
        if not self._choreo_box.has_output(name):
            self.logger.error("Signal " + name + " not found")
            return
        self._choreo_box.fire(name, None if not args or None in args else args[0])

    def behaviorAbsolutePath(self):
        return self._choreo_box.behavior_path

    def behaviorRelativePath(self):
        return self._choreo_box.relative_path

    def packageUid(self):
        return self._choreo_box.package_uid

    def session(self):
        session = self.__dict__.get("_choreo_session")
        if session is None:
            session = self.__dict__["_choreo_session"] = qi.Session(self._choreo_box)
        return session

    # Parameters (S3, S4).
    def getParameter(self, name):
        return self._choreo_box.parameter(name)

    def setParameter(self, name, value):
        self._choreo_box.set_parameter(name, value)

    def getParametersList(self):
        return self._choreo_box.parameter_names()

    def hasParameter(self, name):
        return name in self._choreo_box.parameter_names()

    # Logging (S5).
    @property
    def logger(self):
        logger = self.__dict__.get("_choreo_logger")
        if logger is None:
            logger = self.__dict__["_choreo_logger"] = _box_logger(self._choreo_box)
        return logger

    @logger.setter
    def logger(self, value):
        self.__dict__["_choreo_logger"] = value

    def log(self, message):
        self._choreo_box.log("info", str(message))

    # Timelines (section 5) and the deprecated methods (G7, T4).
    def getTimeline(self):
        return Timeline(self._choreo_box, False)

    def getParentTimeline(self):
        return Timeline(self._choreo_box, True)

    def playTimeline(self):
        self.getTimeline().play()

    def stopTimeline(self):
        self.getTimeline().pause()

    def exitBehavior(self):
        self.getTimeline().stop()

    def gotoAndStop(self, frame):
        self.getTimeline().gotoAndStop(frame)

    def gotoAndPlay(self, frame):
        self.getTimeline().gotoAndPlay(frame)

    def playTimelineParent(self):
        self.getParentTimeline().play()

    def stopTimelineParent(self):
        self.getParentTimeline().pause()

    def exitBehaviorParent(self):
        self.getParentTimeline().stop()

    def gotoAndStopParent(self, frame):
        self.getParentTimeline().gotoAndStop(frame)

    def gotoAndPlayParent(self, frame):
        self.getParentTimeline().gotoAndPlay(frame)

    def BIND_PYTHON(self, module, method, n=None):
        """Callbacks are reachable by name without binding (S6)."""


# The proxies every script sees as globals (S8).
INJECTED = ("ALMemory", "ALMotion", "ALLeds", "ALFrameManager", "ALLogger", "ALSensors")


def _printer(box):
    """print in a box script: a log at info level (to a file: printed there)."""

    def box_print(*args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            print(*args, sep=sep, end=end, file=file, flush=flush)
            return
        box.log("info", (sep if sep is not None else " ").join(str(a) for a in args))

    return box_print


# What every namespace starts with (copied: cheaper than building it). NAOqi ran box
# scripts after `from naoqi import *` (naoqi.py's own imports: os, sys, weakref, logging,
# inspect, ctypes, qi, motion, and its classes) and the generated prelude's imports (time,
# random); `time` and `qi` are in the builtins (py2.NAMES). The modules not loaded yet are
# imported on first use.
_NAMESPACE = {
    "__name__": "choreo.box",
    "GeneratedClass": GeneratedClass,
    "ALBehavior": GeneratedClass,
    "ALProxy": naoqi.ALProxy,
    "ALBroker": naoqi.ALBroker,
    "ALModule": naoqi.ALModule,
    "os": os,
    "sys": sys,
    "weakref": weakref,
    "motion": motion,
    "logging": py2._LazyModule("logging"),
    "inspect": py2._LazyModule("inspect"),
    "ctypes": py2._LazyModule("ctypes"),
    "random": py2._LazyModule("random"),
}

# Names a box script's namespace has of its own, never shared with the other boxes.
_OWN = frozenset(_NAMESPACE) | {"MyClass", "print", "__choreo_path__", "__choreo_source__"}


def _shared(box):
    """The builtins of the run of `box`: made from py2.BUILTINS on first use."""
    shared = box.shared
    if not shared:
        shared.update(py2.BUILTINS)
    return shared


def share(box, ns):
    """Makes the module-level names the script of `box` set visible to every box of the
    run (the reference ran all of a behavior's scripts in one namespace); a box's own
    globals still come first for its own code."""
    shared = box.shared
    for name, value in ns.items():
        if name not in _OWN and name not in INJECTED and not name.startswith("__"):
            shared[name] = value


def namespace(box, source):
    """The module dict a box script runs in."""
    ns = _NAMESPACE.copy()
    ns["__builtins__"] = _shared(box)
    ns["__choreo_path__"] = box.path
    ns["__choreo_source__"] = source
    ns["print"] = _printer(box)
    proxy = naoqi.ALProxy.of
    for name in INJECTED:
        # Made at every start in the reference too, whether or not the robot has the module.
        ns[name] = proxy(name, box, False)
    return ns


# Compiled scripts by their (fixed) text: a stock box copied into many behaviors or many
# times into one is compiled once more, then only renamed for each box. A text is kept
# from its second sight on: a text seen once (most of a behavior's) keeps no text nor code
# alive, only its hash in `_seen`.
_compiled = {}
_COMPILED_MAX = 4096
_seen = set()
_SEEN_MAX = 16384


def _renamed(code, filename):
    consts = tuple(_renamed(c, filename) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


# Scripts compiled by `precompile` for the load in progress, each taken by its first box.
_batch = {}


def precompile(items):
    """Compiles the (fixed text, box path) of every box at once, before any box runs: the
    same compiles cost more between constructions, when each walks the objects those made.
    A text several boxes share goes to the lasting cache. A syntax error is left for the
    box's construction to report."""
    _batch.clear()
    counts = {}
    for fixed, _ in items:
        counts[fixed] = counts.get(fixed, 0) + 1
    # NAOqi OS's packages the scripts import are installed now, before the run's clock
    # starts, rather than at the import, when box code would wait on pip in real time.
    packages.prepare(counts)
    for fixed, path in items:
        if fixed in _batch or fixed in _compiled:
            continue
        try:
            code = compile(fixed, path, "exec", dont_inherit=True)
        except SyntaxError:
            continue
        if counts[fixed] > 1 and len(_compiled) < _COMPILED_MAX:
            _compiled[fixed] = code
        else:
            _batch[fixed] = code


def compiled(fixed, path):
    code = _batch.pop(fixed, None)
    if code is not None:
        return code if code.co_filename == path else _renamed(code, path)
    code = _compiled.get(fixed)
    if code is None:
        code = compile(fixed, path, "exec", dont_inherit=True)
        key = hash(fixed)
        if key not in _seen:
            if len(_seen) >= _SEEN_MAX:
                _seen.clear()
            _seen.add(key)
        elif len(_compiled) < _COMPILED_MAX:
            _compiled[fixed] = code
    return code if code.co_filename == path else _renamed(code, path)


# Optional hooks whose presence the engine asks about (R9, R12, Q3).
OPTIONAL = ("onResourceLost", "onResourceError", "onResource")


def construct(box, source, fixed):
    """Runs the script of `box` and makes its MyClass. Returns (namespace, instance or None,
    the optional hooks it defines) or raises a RuntimeError with a message naming the box
    (E3) and, as `choreo_line`, the line of the script at fault (or None)."""
    try:
        code = compiled(fixed, box.path)
    except SyntaxError as e:
        raise _failure(_syntax_error(e, box.path, source), e.lineno) from None
    ns = namespace(box, source)
    try:
        exec(code, ns)
        share(box, ns)
        cls = ns.get("MyClass")
        instance = cls() if cls is not None else None
    except BaseException as e:
        raise _failure(describe(e, skip=1), script_line(e)) from None
    if instance is None:
        return ns, None, ()
    box.modules[box.name] = instance
    return ns, instance, _optional_hooks(instance)


def _optional_hooks(instance):
    """The OPTIONAL hooks `instance` has, as `hasattr` says; without raising and catching an
    AttributeError for each one it lacks when MyClass keeps GeneratedClass's lookup (the
    usual case): a name in no class of the MRO nor in the instance is an attribute only if
    GeneratedClass.__getattr__ makes it one (an output of the box)."""
    cls = type(instance)
    if cls.__getattribute__ is not object.__getattribute__ or cls.__getattr__ is not _GETATTR:
        return tuple(h for h in OPTIONAL if hasattr(instance, h))
    found = []
    attributes = instance.__dict__
    for h in OPTIONAL:
        if any(h in c.__dict__ for c in cls.__mro__):
            # Found in a class: hasattr itself (a descriptor may still fail).
            if hasattr(instance, h):
                found.append(h)
        elif h in attributes:
            found.append(h)
        else:
            box = attributes.get("_choreo_box")
            if box is not None and box.has_output(h):
                found.append(h)
    return tuple(found)


_GETATTR = GeneratedClass.__getattr__


def _failure(text, line):
    error = RuntimeError(text)
    error.choreo_line = line
    return error


def _syntax_error(e, path, source):
    lines = source.splitlines()
    text = "  File \"%s\", line %s\n" % (path, e.lineno)
    if e.lineno and 0 < e.lineno <= len(lines):
        text += "    %s\n" % lines[e.lineno - 1].strip()
    return text + "%s: %s" % (type(e).__name__, e.msg)


def _takes_argument(method):
    """P7: the hook's own signature decides whether it gets the value."""
    if type(method) is types.MethodType:
        # The usual case, a method of MyClass: one attribute less to look up.
        code = getattr(method.__func__, "__code__", None)
        if code is not None:
            return bool(code.co_flags & 0x04) or code.co_argcount >= 2
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    if code is None:
        return True
    if code.co_flags & 0x04:
        return True
    return code.co_argcount - (1 if hasattr(method, "__self__") else 0) >= 1


def run_hook(instance, name, value, has_value):
    """Calls hook `name` (S2). Returns None, or (the traceback of the exception that escaped
    it, the line of the box script where it was raised or None) after calling onError with
    "<name>:<message>" if the box has one (E1)."""
    method = getattr(instance, name, None)
    if method is None:
        return None
    try:
        if has_value and _takes_argument(method):
            method(value)
        else:
            method()
        return None
    except BaseException as e:
        text = describe(e, skip=1)
        _on_error(instance, e)
        return text, script_line(e)


def _on_error(instance, error):
    handler = getattr(instance, "onError", None)
    if handler is None:
        return
    try:
        name = instance.getName() if hasattr(instance, "getName") else type(instance).__name__
        handler("%s:%s" % (name, error))
    except BaseException as e:
        _choreo.log("error", "onError failed:\n" + describe(e))


def script_line(error):
    """The line of a box script where `error` was raised: that of the innermost frame that
    runs a box script; None if none does."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if "__choreo_source__" in tb.tb_frame.f_globals:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _shim_line(g, lineno):
    """Line `lineno` of the shim whose globals are `g`, from its loader (runtime.rs: there is
    no file); None for any other module. Not through linecache: two threads filling its
    lazy entry for one file at once can leave one of them without the line, and a trace
    would then differ from run to run."""
    loader = g.get("__loader__")
    if type(loader).__name__ != "ShimSource":
        return None
    lines = loader.get_source(g.get("__name__", "")).splitlines()
    return lines[lineno - 1] if 0 < lineno <= len(lines) else ""


def describe(error, skip=0):
    """The traceback of `error`: frames of box scripts show the box path and the script's
    original line (the fixer keeps line numbers); `skip` leaves out the first frames."""
    import linecache
    import traceback

    out = ["Traceback (most recent call last):\n"]
    frames = list(traceback.walk_tb(error.__traceback__))[skip:]
    for frame, lineno in frames:
        g = frame.f_globals
        source = g.get("__choreo_source__")
        if source is not None:
            filename = g.get("__choreo_path__", "?")
            lines = source.splitlines()
            line = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
        else:
            filename = frame.f_code.co_filename
            line = _shim_line(g, lineno)
            if line is None:
                line = linecache.getline(filename, lineno, g)
        out.append("  File \"%s\", line %d, in %s\n" % (filename, lineno, frame.f_code.co_name))
        if line.strip():
            out.append("    %s\n" % line.strip())
    if not frames:
        out = []
    out.extend(traceback.format_exception_only(type(error), error))
    return "".join(out).rstrip("\n")


# ---------------------------------------------------------------------------------------
# Process-wide patches, installed once: sleeps and threads of box code follow the engine.

_real_start_new_thread = getattr(threading, "_start_new_thread", _thread.start_new_thread)
_real_event_wait = threading.Event.wait
_real_join = threading.Thread.join


def _start_new_thread(function, args, kwargs=None):
    """A thread started by box code runs as engine activity (virtual time waits for it)."""
    if _choreo.current() is None:
        return _real_start_new_thread(function, args, kwargs or {})
    _choreo.spawn(lambda: function(*args, **(kwargs or {})), "choreo-thread")
    return 0


# Python 3.13 starts a Thread through `_start_joinable_thread(self._bootstrap, handle=...)`
# and reads its end from the C handle, which only a C thread can complete: a thread box code
# starts gets a handle of its own, completed when its engine activity ends.
_real_start_joinable_thread = getattr(threading, "_start_joinable_thread", None)


class _SpawnedHandle(object):
    """The handle of a Thread run as engine activity: `is_done`, `join` as the C one's."""

    def __init__(self):
        self._done = threading.Event()

    def is_done(self):
        return self._done.is_set()

    def join(self, timeout=None):
        if _virtual():
            qi.wait_for(self._done.is_set, timeout)
        else:
            _real_event_wait(self._done, timeout)

    def _set_done(self):
        self._done.set()


def _start_joinable_thread(function, handle=None, daemon=True):
    thread = getattr(function, "__self__", None)
    if _choreo.current() is None or not isinstance(thread, threading.Thread):
        return _real_start_joinable_thread(function, handle=handle, daemon=daemon)
    own = thread._handle = _SpawnedHandle()

    def body():
        try:
            function()
        finally:
            own._set_done()

    _choreo.spawn(body, "choreo-thread")
    return own


_real_excepthook = threading.excepthook


def _thread_excepthook(args):
    """An exception that ends a thread box code started is the box's, uncaught (E2): in the
    trace, not on the process's stderr (a strict run stops)."""
    if _choreo.current() is None or args.exc_type is SystemExit or args.exc_value is None:
        return _real_excepthook(args)
    name = args.thread.name if args.thread is not None else "?"
    _choreo.log_exception(args.exc_value, "thread %s" % name)


def _virtual():
    return _choreo.current() is not None and _choreo.is_virtual()


def _event_wait(self, timeout=None):
    """In virtual time an Event wait sleeps on the engine clock (threading.Timer uses it)."""
    if not _virtual():
        return _real_event_wait(self, timeout)
    return qi.wait_for(self.is_set, timeout)


def _join(self, timeout=None):
    if not _virtual() or self is threading.current_thread():
        return _real_join(self, timeout)
    qi.wait_for(lambda: not self.is_alive(), timeout)


# Virtual time: box code reads the run's clock, whatever it asks it through, as on a robot
# whose time zone is UTC (the simulated robot's); in real time and outside box code, the
# machine's clocks.
_real_monotonic = time.monotonic
_real_perf_counter = time.perf_counter
_real_localtime = time.localtime
_real_gmtime = time.gmtime
_real_strftime = time.strftime
_real_ctime = time.ctime
_real_asctime = time.asctime


def _monotonic():
    return _choreo.now() if _virtual() else _real_monotonic()


def _perf_counter():
    return _choreo.now() if _virtual() else _real_perf_counter()


def _localtime(secs=None):
    if not _virtual():
        return _real_localtime(secs)
    return _real_gmtime(_choreo.time() if secs is None else secs)


def _gmtime(secs=None):
    if secs is None and _virtual():
        secs = _choreo.time()
    return _real_gmtime(secs)


def _strftime(format, t=None):
    if t is None:
        t = _localtime()
    return _real_strftime(format, t)


def _ctime(secs=None):
    if not _virtual():
        return _real_ctime(secs)
    return _real_asctime(_localtime(secs))


def _asctime(t=None):
    return _real_asctime(_localtime() if t is None else t)


class _DateTime(_datetime.datetime):
    """`datetime.datetime` for box code: `now()`, `today()` and `utcnow()` read the run's
    clock in virtual time."""

    @classmethod
    def now(cls, tz=None):
        if not _virtual():
            return super().now(tz)
        if tz is None:
            # Naive UTC (utcfromtimestamp, deprecated since Python 3.12).
            return cls.fromtimestamp(_choreo.time(), _datetime.timezone.utc).replace(tzinfo=None)
        return cls.fromtimestamp(_choreo.time(), tz)

    @classmethod
    def today(cls):
        return cls.now()

    @classmethod
    def utcnow(cls):
        if not _virtual():
            return super().utcnow()
        return cls.now()


class _Date(_datetime.date):
    """`datetime.date` for box code: `today()` reads the run's clock in virtual time."""

    @classmethod
    def today(cls):
        if not _virtual():
            return super().today()
        d = _DateTime.now()
        return cls(d.year, d.month, d.day)


# What box code gets for `import datetime`: the module with these two classes (other code,
# which may test `isinstance(x, datetime.datetime)`, keeps the real module).
_box_datetime = types.ModuleType("datetime", _datetime.__doc__)
_box_datetime.__dict__.update(
    {k: v for k, v in vars(_datetime).items() if not k.startswith("__")}
)
_box_datetime.datetime = _DateTime
_box_datetime.date = _Date


# Box code's `random`: the run's generator, seeded with the run's seed (`--seed`); outside
# box code, the module's own.
_module_random = random._inst
_real_seed = random.Random.seed


class _RunRandom(random.Random):
    """The run's generator. Every whole-number draw (`randint`, `randrange`, `choice`,
    `shuffle`, `sample`) goes through `_randbelow`: the engine counts it, traces it and may
    set its outcome (a scenario's `chance`, what `choreo explore` varies). The generator's
    own draw is made either way, so a draw set leaves the later ones as they were."""

    def _randbelow(self, n):
        return _choreo.draw(n, super()._randbelow(n))


def _run_random():
    r = _choreo.rng(_RunRandom)
    return _module_random if r is None else r


def _random_function(name):
    def call(*args, **kwargs):
        return getattr(_run_random(), name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = getattr(_module_random, name).__doc__
    return call


_RANDOM_FUNCTIONS = (
    "random", "uniform", "randint", "randrange", "choice", "choices", "shuffle", "sample",
    "getrandbits", "randbytes", "triangular", "gauss", "normalvariate", "lognormvariate",
    "expovariate", "vonmisesvariate", "gammavariate", "betavariate", "paretovariate",
    "weibullvariate", "getstate", "setstate", "seed",
)


def _seed(self, a=None, version=2):
    """A generator box code seeds without a value (`random.Random()`, `random.seed()`)
    draws its seed from the run's: the same run, the same numbers (the run's own, reseeded,
    from its own state: it goes on without repeating itself)."""
    if a is None:
        r = _choreo.rng(_RunRandom)
        if r is not None:
            a = (self if r is self else r).getrandbits(64)
    _real_seed(self, a, version)


# The modules NAOqi gave box scripts, by the names scripts import them by.
_BOX_MODULES = {"qi": qi, "naoqi": naoqi, "almath": almath, "motion": motion}


def _box_import(name, globals=None, locals=None, fromlist=(), level=0, _real=__import__):
    """`__import__` in box code: `qi`, `naoqi`, `almath` and `motion` are the shims, whatever
    the process has under those names (a host's own PyPI `qi`); `datetime` reads the run's
    clock; `threading`'s locks wait on it (`locks.py`)."""
    if not level:
        module = _BOX_MODULES.get(name)
        if module is not None:
            return module
        if name == "datetime":
            return _box_datetime
        if name == "threading":
            return locks.BOX_THREADING
    return _real(name, globals, locals, fromlist, level)


def install():
    py2.BUILTINS["__import__"] = _box_import
    # Other code (a project's own helper modules) finds the shims under their public names
    # when no real module has them (py2's finder comes after every real one).
    py2.ALIASES.update({name: module.__name__ for name, module in _BOX_MODULES.items()})
    time.sleep = _choreo.sleep
    time.time = _choreo.time
    time.clock = _choreo.now
    time.monotonic = _monotonic
    time.perf_counter = _perf_counter
    time.localtime = _localtime
    time.gmtime = _gmtime
    time.strftime = _strftime
    time.ctime = _ctime
    time.asctime = _asctime
    random.Random.seed = _seed
    for name in _RANDOM_FUNCTIONS:
        setattr(random, name, _random_function(name))
    threading._start_new_thread = _start_new_thread
    if _real_start_joinable_thread is not None:
        threading._start_joinable_thread = _start_joinable_thread
    threading.excepthook = _thread_excepthook
    _thread.start_new_thread = _thread.start_new = _start_new_thread
    threading.Event.wait = _event_wait
    threading.Thread.join = _join
    paths.install()
    sandbox.install()
    py2.install()
    packages.install()
