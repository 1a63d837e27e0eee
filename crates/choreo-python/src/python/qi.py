"""The `qi` module as box scripts use it (choreo's shim): sessions, futures and promises,
`qi.async` / `qi.runAsync` with a delay in microseconds, signals, properties, periodic tasks
and logging. Background work runs through the engine (`_choreo.spawn`), so virtual time waits
for it, and every wait follows the engine's clock (docs/simulated-robot.md, Calls and time)."""

import threading

import _choreo


class FutureState:
    """The states of a future (qi.FutureState)."""

    Running = 1
    Canceled = 2
    FinishedWithError = 3
    FinishedWithValue = 4


setattr(FutureState, "None", 0)


class FutureTimeout:
    """Timeouts of Future.wait and friends, in milliseconds (qi.FutureTimeout)."""

    Infinite = 0x7FFFFFFF


setattr(FutureTimeout, "None", 0)


def wait_for(done, timeout=None, due=None):
    """Waits until done() is true or `timeout` seconds of engine time passed; True if done.

    In virtual time a wait that is not a sleep would stop the clock, so it sleeps on the
    engine's clock: until `due` (when the result is expected) if known, then in small steps.
    In real time it polls in short real sleeps."""
    if done():
        return True
    if timeout is not None and timeout <= 0:
        return False
    # What waits for its turn at this instant (a thread just started) may be what we wait
    # for: it runs first, and time moves only if it was not.
    _choreo.pass_turn()
    if done():
        return True
    now = _choreo.now()
    deadline = None if timeout is None else now + timeout
    step = 0.001
    while not done():
        if deadline is not None and now >= deadline:
            return False
        pause = step
        if due is not None and due > now:
            pause = due - now
        else:
            step = min(step * 2, 0.01)
        if deadline is not None:
            pause = min(pause, deadline - now)
        # The time it woke at: in virtual time the time `done()` is looked at (time stands
        # still while this thread runs until it next waits); in real time, a moment before.
        now = _choreo.sleep_then_now(pause)
    return True


def _seconds(timeout_ms):
    if timeout_ms is None or timeout_ms >= FutureTimeout.Infinite:
        return None
    return max(timeout_ms, 0) / 1000.0


class Future:
    """The result of asynchronous work (qi.Future)."""

    def __init__(self, promise=None):
        self._promise = promise
        self._lock = threading.Lock()
        self._state = FutureState.Running
        self._value = None
        self._error = ""
        self._callbacks = []
        self._cancel_requested = False
        self._due = None

    def _finish(self, state, value=None, error=""):
        with self._lock:
            if self._state != FutureState.Running:
                return False
            self._state, self._value, self._error = state, value, error
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            _run_callback(callback, self)
        return True

    def _done(self):
        return self._state != FutureState.Running

    def wait(self, timeout=FutureTimeout.Infinite):
        wait_for(self._done, _seconds(timeout), self._due)
        return self._state

    def value(self, timeout=FutureTimeout.Infinite):
        self.wait(timeout)
        if self._state == FutureState.FinishedWithValue:
            return self._value
        if self._state == FutureState.FinishedWithError:
            raise RuntimeError(self._error)
        if self._state == FutureState.Canceled:
            raise RuntimeError("Future canceled")
        raise RuntimeError("Future timeout")

    def hasValue(self, timeout=FutureTimeout.Infinite):
        return self.wait(timeout) == FutureState.FinishedWithValue

    def hasError(self, timeout=FutureTimeout.Infinite):
        return self.wait(timeout) == FutureState.FinishedWithError

    def error(self, timeout=FutureTimeout.Infinite):
        self.wait(timeout)
        return self._error

    def isRunning(self):
        return self._state == FutureState.Running

    def isFinished(self):
        return self._state != FutureState.Running

    def isCanceled(self):
        return self._state == FutureState.Canceled

    def isCancelRequested(self):
        return self._cancel_requested

    def isCancelable(self):
        return True

    def cancel(self):
        """Asks for cancellation: work that has not started yet never runs."""
        self._cancel_requested = True
        if self._promise is not None and self._promise._on_cancel is not None:
            _run_callback(self._promise._on_cancel, self._promise)

    def addCallback(self, callback):
        """Calls callback(future) when the future finishes (at once if it has)."""
        with self._lock:
            if self._state == FutureState.Running:
                self._callbacks.append(callback)
                return
        _run_callback(callback, self)

    def then(self, callback):
        """A future of callback(this future), called when this one finishes."""
        promise = Promise()

        def chain(future):
            try:
                promise.setValue(callback(future))
            except Exception as e:
                promise.setError(str(e))

        self.addCallback(chain)
        return promise.future()

    def andThen(self, callback):
        """A future of callback(value), or this future's error or cancellation."""
        promise = Promise()

        def chain(future):
            if future._state == FutureState.FinishedWithValue:
                try:
                    promise.setValue(callback(future._value))
                except Exception as e:
                    promise.setError(str(e))
            elif future._state == FutureState.Canceled:
                promise.setCanceled()
            else:
                promise.setError(future._error)

        self.addCallback(chain)
        return promise.future()

    def unwrap(self):
        """The future of the future this one holds."""
        promise = Promise()

        def chain(future):
            if future._state == FutureState.FinishedWithValue and isinstance(future._value, Future):
                future._value.addCallback(lambda inner: promise._future._finish(inner._state, inner._value, inner._error))
            else:
                promise._future._finish(future._state, future._value, future._error)

        self.addCallback(chain)
        return promise.future()


def _run_callback(callback, argument):
    try:
        callback(argument)
    except Exception as e:
        # Nobody can catch it: uncaught (a strict run stops).
        _choreo.log_exception(e, "future callback")


class Promise:
    """The producing side of a Future (qi.Promise)."""

    def __init__(self, on_cancel=None):
        self._on_cancel = on_cancel
        self._future = Future(self)

    def future(self):
        return self._future

    def setValue(self, value):
        self._future._finish(FutureState.FinishedWithValue, value)

    def setError(self, message):
        self._future._finish(FutureState.FinishedWithError, None, str(message))

    def setCanceled(self):
        self._future._finish(FutureState.Canceled)

    def isCancelRequested(self):
        return self._future._cancel_requested


def runAsync(function, *args, **kwargs):
    """Runs function(*args, **kwargs) in the background after `delay` microseconds of engine
    time; returns its Future. Cancelling before the delay ends means it never runs."""
    delay = kwargs.pop("delay", 0) or 0
    promise = Promise()
    future = promise.future()
    if delay > 0:
        future._due = _choreo.now() + delay / 1e6

    def work():
        if delay > 0:
            _choreo.sleep(delay / 1e6)
        if future._cancel_requested:
            promise.setCanceled()
            return
        try:
            value = function(*args, **kwargs)
        except Exception as e:
            promise.setError(str(e))
            # Logged only: the future holds the error for box code to read.
            _choreo.log_exception(e)
        else:
            promise.setValue(value)

    _choreo.spawn(work, "qi.async")
    return future


# `qi.async` (async is a keyword since Python 3.7: the fixer rewrites calls to it).
async_ = runAsync
globals()["async"] = runAsync


def _background(call):
    """A Future of call() run in the background (the `_async=True` of service calls)."""
    promise = Promise()

    def work():
        try:
            promise.setValue(call())
        except Exception as e:
            promise.setError(str(e))

    _choreo.spawn(work, "qi.call")
    return promise.future()


class Signal:
    """A signal: connect callbacks, call it to trigger them in order (qi.Signal)."""

    def __init__(self, signature=None, onConnect=None):
        self._lock = threading.Lock()
        self._links = {}
        self._next = 1
        self._on_connect = onConnect

    def connect(self, callback):
        """Connects callback (a callable or another Signal); returns the link id."""
        with self._lock:
            link = self._next
            self._next += 1
            self._links[link] = callback
            first = len(self._links) == 1
        if first and self._on_connect is not None:
            self._on_connect(True)
        return link

    def disconnect(self, link):
        with self._lock:
            found = self._links.pop(link, None) is not None
            last = found and not self._links
        if last and self._on_connect is not None:
            self._on_connect(False)
        return found

    def disconnectAll(self):
        with self._lock:
            self._links.clear()
        return True

    def __call__(self, *args):
        with self._lock:
            callbacks = list(self._links.values())
        for callback in callbacks:
            callback(*args)


class Property(Signal):
    """A value with a signal triggered on each change (qi.Property)."""

    def __init__(self, signature=None, value=None):
        Signal.__init__(self, signature)
        self._value = value

    def value(self):
        return self._value

    def setValue(self, value):
        self._value = value
        self(value)


class PeriodicTask:
    """Calls a callback every period, in the background, on the engine's clock
    (qi.PeriodicTask)."""

    def __init__(self):
        self._callback = None
        self._period = 0
        self._compensate = False
        self._running = False
        self._generation = 0
        self._name = "PeriodicTask"

    def setCallback(self, callback):
        self._callback = callback

    def setUsPeriod(self, microseconds):
        if microseconds < 0:
            raise RuntimeError("PeriodicTask: the period cannot be negative")
        self._period = microseconds / 1e6

    def setName(self, name):
        self._name = name

    def compensateCallbackTime(self, compensate):
        self._compensate = bool(compensate)

    def start(self, immediate=True):
        if self._callback is None:
            raise RuntimeError("PeriodicTask: no callback set")
        if self._running:
            return
        self._running = True
        self._generation += 1
        generation = self._generation

        def live():
            return self._running and self._generation == generation

        def loop():
            first = immediate
            spent = 0.0
            while live():
                if first:
                    began = _choreo.now()
                else:
                    pause = self._period - spent if self._compensate else self._period
                    began = _choreo.sleep_then_now(max(pause, 0.0))
                first = False
                if not live():
                    return
                try:
                    self._callback()
                except Exception as e:
                    _choreo.log_exception(e, self._name)
                spent = _choreo.now() - began

        _choreo.spawn(loop, self._name)

    def stop(self):
        """Stops: no callback starts after this returns."""
        self._running = False

    asyncStop = stop

    def isRunning(self):
        return self._running

    def isStopping(self):
        return False


class Session:
    """A session to the robot: services are proxies through the engine (qi.Session)."""

    def __init__(self, box=None):
        self._box = box if box is not None else _choreo.current()

    def connect(self, url=None):
        pass

    def isConnected(self):
        return True

    def close(self):
        pass

    def listen(self, url=None):
        pass

    def service(self, name, _async=False):
        import _choreo_naoqi as naoqi

        proxy = naoqi.ALProxy.of(name, self._box)
        if _async:
            promise = Promise()
            promise.setValue(proxy)
            return promise.future()
        return proxy

    def registerService(self, name, obj):
        """Makes obj reachable by name as a module (ALMemory callbacks)."""
        if self._box is not None:
            try:
                self._box.modules[name] = obj
            except TypeError:
                pass  # not weakly referenceable: not reachable by name
        return 1

    def unregisterService(self, service_id):
        pass


class Application:
    """A qi application: a session, started and connected (qi.Application)."""

    def __init__(self, args=None, url=None, autoExit=True):
        self.session = Session()
        self._stopped = False

    def start(self):
        pass

    def run(self):
        wait_for(lambda: self._stopped)

    def stop(self):
        self._stopped = True


ApplicationSession = Application


def clockNow():
    """Engine time in nanoseconds."""
    return int(_choreo.now() * 1e9)


steadyClockNow = clockNow


def systemClockNow():
    return int(_choreo.time() * 1e9)


def bind(*types, **kwargs):
    """Decorator giving a method's qi signature: nothing to do here."""
    if len(types) == 1 and callable(types[0]) and not kwargs:
        return types[0]
    return lambda function: function


def nobind(function):
    return function


Void = Bool = Int8 = UInt8 = Int16 = UInt16 = Int32 = UInt32 = Int64 = UInt64 = None
Float = Double = String = Dynamic = Buffer = Object = Raw = None


def List(element=None):
    return None


def Map(key=None, value=None):
    return None


class _Logging:
    """qi.logging: logs of the box that calls them (category first)."""

    def _log(self, level, category, message):
        _choreo.log(level, "%s: %s" % (category, message))

    def fatal(self, category, message):
        self._log("fatal", category, message)

    def error(self, category, message):
        self._log("error", category, message)

    def warning(self, category, message):
        self._log("warning", category, message)

    def info(self, category, message):
        self._log("info", category, message)

    def verbose(self, category, message):
        self._log("debug", category, message)

    def debug(self, category, message):
        self._log("debug", category, message)

    def setLevel(self, level):
        pass

    def setContext(self, context):
        pass

    def setFilters(self, filters):
        pass


logging = _Logging()


class Logger:
    """A logger of one category (qi.Logger)."""

    def __init__(self, category):
        self.category = category

    def fatal(self, message):
        logging.fatal(self.category, message)

    def error(self, message):
        logging.error(self.category, message)

    def warning(self, message):
        logging.warning(self.category, message)

    def info(self, message):
        logging.info(self.category, message)

    def verbose(self, message):
        logging.verbose(self.category, message)

    def debug(self, message):
        logging.debug(self.category, message)
