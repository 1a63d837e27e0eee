"""What box code does to its own process, told first (docs/security.md, Supervision).

`os._exit` ends the process at once: no report could follow. In box code it first tells the
supervising parent which box called it, at which line, so that the parent's report says so;
a signal box code sends to its own process (`os.kill`) is told the same way, through the
audit hook. Outside box code, and in a process box code forked, nothing changes."""

import os
import posix
import sys

import _choreo

_real_exit = posix._exit
_PID = os.getpid()


def _where(depth):
    frame = sys._getframe(depth)
    code = frame.f_code
    return "%s line %d (%s)" % (code.co_filename, frame.f_lineno, code.co_name)


def _exit(code):
    if _choreo.current() is not None and os.getpid() == _PID:
        _choreo.note_process_end("%s: os._exit(%r)" % (_where(2), code))
    _real_exit(code)


def _audit(event, args):
    if event != "os.kill":
        return
    pid, signal = args
    if pid in (0, _PID, -_PID) and _choreo.current() is not None and os.getpid() == _PID:
        _choreo.note_process_end("%s: os.kill(its own process, %r)" % (_where(2), signal))


def install():
    os._exit = posix._exit = _exit
    sys.addaudithook(_audit)
