"""Box code's locks in virtual time (docs/trace.md, "Activities take turns").

A hook that waits for a lock another hook holds waits in the kernel: the engine sees a
thread blocked on something other than its clock, takes its turn away after 2 s of real
time, and from then on what the two do lands where the OS puts it, so the same run gives
another trace (a stock-like Speech Reco. box whose onStop takes the lock its onStart holds
while it waits for an LED fade). A lock taken in box code in virtual time therefore waits
on the engine's clock instead, as `threading.Event.wait` does (`qi.wait_for`: the holder
runs first, then time moves in small steps until the lock is free): the same order, and the
same times, every run. In real time and outside box code it is the interpreter's lock.
Box scripts get these through the `threading` they import (`BOX_THREADING`); the process's
own `threading` is left alone."""

import _thread
import threading
import types

import _choreo
import _choreo_qi as qi

_real_allocate_lock = _thread.allocate_lock
_get_ident = _thread.get_ident


def _virtual():
    return _choreo.current() is not None and _choreo.is_virtual()


class Lock(object):
    """`threading.Lock` in box code."""

    __slots__ = ("_lock", "__weakref__")

    def __init__(self):
        self._lock = _real_allocate_lock()

    def acquire(self, blocking=True, timeout=-1):
        # A free lock is taken at once, with no question to the engine.
        if self._lock.acquire(False):
            return True
        if not blocking:
            return False
        if not _virtual():
            return self._lock.acquire(True, timeout)
        limit = None if timeout is None or timeout < 0 else timeout
        return qi.wait_for(lambda: self._lock.acquire(False), limit)

    def release(self):
        self._lock.release()

    def locked(self):
        return self._lock.locked()

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()

    def _at_fork_reinit(self):
        # `logging` reinitializes its handlers' locks in a forked child.
        self._lock = _real_allocate_lock()

    # Python 2's names of a lock's methods.
    acquire_lock = acquire
    release_lock = release
    locked_lock = locked


class RLock(object):
    """`threading.RLock` in box code: reentrant, over a [`Lock`]; with the methods
    `threading.Condition` uses on a reentrant lock."""

    __slots__ = ("_lock", "_owner", "_count", "__weakref__")

    def __init__(self):
        self._lock = Lock()
        self._owner = None
        self._count = 0

    def acquire(self, blocking=True, timeout=-1):
        me = _get_ident()
        if self._owner == me:
            self._count += 1
            return True
        if not self._lock.acquire(blocking, timeout):
            return False
        self._owner = me
        self._count = 1
        return True

    def release(self):
        if self._owner != _get_ident():
            raise RuntimeError("cannot release un-acquired lock")
        self._count -= 1
        if self._count == 0:
            self._owner = None
            self._lock.release()

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()

    def _is_owned(self):
        return self._owner == _get_ident()

    def _release_save(self):
        state = (self._count, self._owner)
        self._count = 0
        self._owner = None
        self._lock.release()
        return state

    def _acquire_restore(self, state):
        self._lock.acquire()
        self._count, self._owner = state

    def _at_fork_reinit(self):
        self._lock._at_fork_reinit()
        self._owner = None
        self._count = 0

    def _recursion_count(self):
        # Python 3.12's RLock method (multiprocessing's resource tracker asks it).
        return self._count if self._owner == _get_ident() else 0


class _BoxThreading(types.ModuleType):
    """`threading` as box scripts import it: these locks, and the module's every other
    name. The process's own `threading` stays as it is: a Python program that uses the
    `choreo` package (and the libraries it runs, Dask's workers, multiprocessing's resource
    tracker) keeps the interpreter's locks."""

    def __getattr__(self, name):
        return getattr(threading, name)


BOX_THREADING = _BoxThreading("threading", threading.__doc__)
BOX_THREADING.Lock = Lock
BOX_THREADING.RLock = RLock
