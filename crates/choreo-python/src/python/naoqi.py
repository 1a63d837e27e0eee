"""The `naoqi` module as box scripts use it (choreo's shim): ALProxy and the few NAOqi
objects scripts create (ALModule, ALBroker). Every call goes through the engine, traced under
the box that made the proxy (docs/simulated-robot.md, Calls and time). ALMemory subscriptions and the
ALFrameManager timeline functions are answered by choreo itself (S6, S9), and so is
ALPythonBridge, which evaluates Python in the interpreter the boxes share, as NAOqi's does."""

import io
import sys

import _choreo
import _choreo_qi as qi


def _box_or_fail(what):
    box = _choreo.current()
    if box is None:
        raise RuntimeError("%s: made outside box code (no box to call the robot for)" % what)
    return box


class _Post:
    """proxy.post.method(args): starts the method, returns its task id."""

    def __init__(self, proxy):
        self._proxy = proxy

    def __getattr__(self, method):
        if method.startswith("__"):
            raise AttributeError(method)
        proxy = self._proxy

        def post(*args):
            return proxy._box.post(proxy._name, method, args)

        post.__name__ = method
        return post


class _LazyPost(object):
    """`proxy.post`, made on first use: most proxies (every script gets six) never post."""

    def __get__(self, proxy, owner=None):
        if proxy is None:
            return self
        post = proxy.__dict__["post"] = _Post(proxy)
        return post


class _Member(object):
    """A member of a service: called, it is a method call; `.connect(callback)` treats it as
    a signal (`session.service("ALServiceManager").serviceStarted.connect(cb)`): `callback`
    gets each emission's arguments, from the robot's module (the simulated robot's signals
    that its modules emit, docs/simulated-robot.md). A robot that does not deliver module
    signals (a real one over qi, for now) keeps the link and returns an id; nothing fires."""

    _links = 0
    # The links kept without a robot's signal (see connect).
    _kept = set()

    def __init__(self, proxy, name):
        self._proxy = proxy
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        return self._proxy._call(self.__name__, args, kwargs)

    def connect(self, callback):
        def deliver(signal, arguments):
            return callback(*arguments)

        deliver.__name__ = getattr(callback, "__name__", self.__name__)
        try:
            return self._proxy._box.connect_signal(self._proxy._name, self.__name__, deliver)
        except RuntimeError:
            # A positive id as qi gives, far from the robot's own link ids.
            _Member._links += 1
            link = (1 << 48) + _Member._links
            _Member._kept.add(link)
            return link

    def disconnect(self, link):
        if link in _Member._kept:
            _Member._kept.discard(link)
        else:
            self._proxy._box.unsubscribe(link)
        return True


def _check_service(proxy):
    """NAOqi raises RuntimeError when a proxy is made to a module the robot does not have;
    stock boxes catch it to switch to their "simulation mode" (docs/simulated-robot.md, Calls and time)."""
    if proxy._name not in _SPECIAL and not proxy._box.has_service(proxy._name):
        raise RuntimeError("ALProxy::ALProxy\n\tCan't find service: %s" % proxy._name)


class ALProxy(object):
    """A proxy to a robot service: ALProxy("X"), ALProxy("X", True), ALProxy("X", ip, port)."""

    post = _LazyPost()

    def __init__(self, name, *args):
        self._name = name
        self._box = _box_or_fail("ALProxy(%r)" % (name,))
        _check_service(self)

    @classmethod
    def of(cls, name, box, check=True):
        """The proxy to service `name` for `box`; `check`: raise if the robot lacks it."""
        proxy = cls.__new__(cls)
        proxy._name = name
        proxy._box = box if box is not None else _box_or_fail("service(%r)" % (name,))
        if check:
            _check_service(proxy)
        return proxy

    def __getattr__(self, method):
        if method.startswith("__") or method in ("_name", "_box", "post"):
            raise AttributeError(method)
        special = _SPECIAL.get(self._name, {}).get(method)
        if special is not None:
            return lambda *args, **kwargs: special(self, *args, **kwargs)

        return _Member(self, method)

    def _call(self, method, args, kwargs):
        if kwargs.pop("_async", False):
            return qi._background(lambda: self._call(method, args, kwargs))
        if kwargs:
            raise TypeError("%s.%s: unexpected keyword arguments %s" % (self._name, method, sorted(kwargs)))
        return self._box.call(self._name, method, tuple(args))

    def pCall(self, method, *args):
        """Like post: starts `method`, returns its task id."""
        return self._box.post(self._name, method, tuple(args))

    def __repr__(self):
        return "<ALProxy %s>" % self._name


class Subscriber(object):
    """ALMemory.subscriber(key): `signal` is triggered with the value of each update."""

    def __init__(self, box, key):
        self.signal = qi.Signal()

        def deliver(_key, value):
            self.signal(value)

        # Its callbacks' exceptions are reported as the subscriber's (E2).
        deliver.__name__ = "subscriber of %s" % key
        self._id = box.subscribe(key, deliver)


def _callback_arity(function):
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if code is None:
        return 3
    if code.co_flags & 0x04:
        return 3
    return code.co_argcount - (1 if hasattr(function, "__self__") else 0)


def _subscribe_to_event(proxy, event, module, *rest):
    """subscribeToEvent(event, module, method) or (event, module, message, method): when
    `module` is a box (getName()) or an ALModule of this behavior, its method is called with
    (key, value, message) on each update; otherwise the robot is asked."""
    target = proxy._box.modules.get(module)
    if target is None or not rest:
        return proxy._call("subscribeToEvent", (event, module) + rest, {})
    method = rest[-1]
    message = rest[0] if len(rest) > 1 else ""
    box = getattr(target, "_choreo_box", None) or proxy._box

    def deliver(key, value):
        callback = getattr(target, method)
        arguments = (key, value, message)[: max(_callback_arity(callback), 0)]
        callback(*arguments)

    # Its exceptions are reported as the method's (E2).
    deliver.__name__ = str(method)
    box.subscribe_event(event, module, deliver)
    # The robot is told too: a subscription to an event "automatically launches the module
    # that declared itself as the generator of the event" (ALMemory's API page), as the
    # stock Speech Reco. box starts ALSpeechRecognition.
    proxy._call("subscribeToEvent", (event, module, method), {})


def _unsubscribe_from_event(proxy, event, module):
    # The robot knows of local subscriptions too (above); a local one ends here first.
    proxy._box.unsubscribe_event(event, module)
    return proxy._call("unsubscribeToEvent", (event, module), {})


def _box_named(proxy, name):
    box = proxy._box.box(name)
    if box is None:
        raise RuntimeError("ALFrameManager: no box named %r in this behavior" % (name,))
    return box


def _goto(box, frame, then):
    box.timeline(False, "goto", frame)
    box.timeline(False, then)


# ALPythonBridge: NAOqi's bridge evaluated code in the interpreter that ran the box scripts,
# in the namespace they shared (the naocket behavior defines a base class so for a box to
# use). Here the code runs with the run's shared names (what the boxes' module levels set)
# and the names it sets at its top level are shared in turn, as a box script's are.


def _bridge_run(proxy, code, mode):
    """Runs `code` (`mode`: "exec" or "eval") in a namespace over the run's shared names;
    the names it sets are shared with every box of the run."""
    import _choreo_generated as generated

    box = proxy._box
    ns = {"__name__": "__main__", "__builtins__": generated._shared(box)}
    try:
        if mode == "eval":
            return eval(compile(code, "<ALPythonBridge>", "eval"), ns)
        exec(compile(code, "<ALPythonBridge>", "exec"), ns)
        return None
    finally:
        generated.share(box, ns)


def _error_text():
    kind, error = sys.exc_info()[:2]
    return "%s: %s" % (kind.__name__, error)


def _bridge_eval(proxy, code):
    """eval(code): runs it; the error, or an empty string."""
    try:
        _bridge_run(proxy, code, "exec")
    except Exception:
        return _error_text()
    return ""


def _bridge_eval_return(proxy, expression):
    """evalReturn(expression): its value (a failure raises, as a robot call does)."""
    try:
        return _bridge_run(proxy, expression, "eval")
    except Exception:
        raise RuntimeError("ALPythonBridge.evalReturn: " + _error_text())


def _bridge_eval_full(proxy, code):
    """evalFull(code): [value, exceptions, stdout, stderr]."""
    out, err = io.StringIO(), io.StringIO()
    value, error = None, ""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        try:
            compile(code, "<ALPythonBridge>", "eval")
        except SyntaxError:
            _bridge_run(proxy, code, "exec")
        else:
            value = _bridge_run(proxy, code, "eval")
    except Exception:
        error = _error_text()
    finally:
        sys.stdout, sys.stderr = saved
    return [value, error, out.getvalue(), err.getvalue()]


_SPECIAL = {
    "ALMemory": {
        "subscriber": lambda proxy, key: Subscriber(proxy._box, key),
        "subscribeToEvent": _subscribe_to_event,
        "subscribeToMicroEvent": _subscribe_to_event,
        "unsubscribeToEvent": _unsubscribe_from_event,
        "unsubscribeToMicroEvent": _unsubscribe_from_event,
    },
    "ALFrameManager": {
        "getTimelineFps": lambda proxy, name: _box_named(proxy, name).fps(False),
        "setTimelineFps": lambda proxy, name, fps: _box_named(proxy, name).timeline(False, "fps", fps),
        "getBehaviorPath": lambda proxy, behavior_id: proxy._box.behavior_path,
        "exitBehavior": lambda proxy, name: _box_named(proxy, name).timeline(False, "stop"),
        "playTimeline": lambda proxy, name: _box_named(proxy, name).timeline(False, "play"),
        "stopTimeline": lambda proxy, name: _box_named(proxy, name).timeline(False, "pause"),
        "gotoAndStop": lambda proxy, name, frame: _goto(_box_named(proxy, name), frame, "pause"),
        "gotoAndPlay": lambda proxy, name, frame: _goto(_box_named(proxy, name), frame, "play"),
    },
    "ALPythonBridge": {
        "eval": _bridge_eval,
        "evalReturn": _bridge_eval_return,
        "evalFull": _bridge_eval_full,
    },
}


class ALModule(object):
    """A NAOqi module made by a script: reachable by name (ALMemory.subscribeToEvent)."""

    def __init__(self, name, *args):
        self._choreo_box = _box_or_fail("ALModule(%r)" % (name,))
        self._module_name = name
        self._choreo_box.modules[name] = self

    def getName(self):
        return self._module_name

    def BIND_PYTHON(self, module, method, n=None):
        pass

    def exit(self):
        self._choreo_box.modules.pop(self._module_name, None)


class ALBroker(object):
    """A broker: choreo needs none; kept so scripts that make one run."""

    def __init__(self, name="broker", ip="0.0.0.0", port=0, parent_ip="", parent_port=0):
        self.name = name

    def shutdown(self):
        pass

    def getGlobalModuleList(self):
        return []

