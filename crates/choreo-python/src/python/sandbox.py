"""The box code side of choreo's sandbox (docs/security.md).

Box code asks for files, the network and other programs through CPython, which tells its
audit hooks first (PEP 578). The hook here asks the run (`_choreo.confined`) whether box
code may, and a refusal raises `PermissionError` at the box's line, naming the path, the
host or the program and the flag that allows it. Outside box code (and the project's other
code run confined: a `%script`, a stack's Python behavior) nothing is judged.

An audit hook is no boundary against code that means harm (native code, or Python that
reaches into the hook's closure); the kernel's confinement of the threads that run box code
is (Landlock, docs/security.md). The hook is what makes a refusal a clear error at a line.

`os._exit` ends the process at once: no report could follow. In box code it first tells the
supervising parent which box called it, at which line, so that the parent's report says so;
`os.abort` and a signal box code sends to its own process (`os.kill`, `signal.raise_signal`,
`signal.pthread_kill`) are told the same way. Where there is no supervising parent (the
Python package: the process is the user's program), they are refused at the line."""

import os
import _socket
import _thread
import signal
import sys

import _choreo

# `posix` on Unix, `nt` on Windows: the module whose functions `os` hands out.
_native = sys.modules[os.name]

_real_exit = _native._exit
# `os.open` as `install` finds it (the robot's paths' wrapper: `paths.py`).
_real_os_open = os.open
# The folder descriptor of the `os.open` under way on this thread (see `_os_open`).
_OPENING = _thread._local()
_real_abort = _native.abort
_real_raise_signal = signal.raise_signal
# Bound now: box code replacing `_choreo.ends_process` later changes nothing.
_ends_process = _choreo.ends_process
# Where code that is no project's comes from (Python's folders, choreo's shims): `install`.
_NOT_PROJECT = ("<frozen", "choreo/")
_PID = os.getpid()
_WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

# Events whose first argument is a path box code changes.
_WRITE_ONE = frozenset(
    (
        "os.remove",
        "os.rmdir",
        "os.mkdir",
        "os.chmod",
        "os.chown",
        "os.utime",
        "os.truncate",
        "os.setxattr",
        "os.removexattr",
        "os.mkfifo",
        "os.mknod",
    )
)
# Events that start a program (or a copy of this process).
_RUN = frozenset(
    (
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.killpg",
    )
)
# Where the folder descriptor (`dir_fd`) is among the arguments of the events of
# `_WRITE_ONE` that take one: their path is relative to that folder, not the current one
# (`shutil.rmtree` removes through them).
_DIR_FD = {
    "os.remove": 1,
    "os.rmdir": 1,
    "os.mkdir": 2,
    "os.chmod": 2,
    "os.mkfifo": 2,
    "os.chown": 3,
    "os.utime": 3,
    "os.mknod": 3,
}
_NET = frozenset(("socket.connect", "socket.sendto", "socket.bind"))
_EVENTS = _WRITE_ONE | _RUN | _NET | frozenset(
    ("open", "socket.__new__", "socket.getaddrinfo", "os.listdir", "os.scandir", "os.rename", "os.link", "os.symlink", "os.kill",
     "signal.pthread_kill")
)


def _where(depth):
    frame = sys._getframe(depth)
    code = frame.f_code
    return "%s line %d (%s)" % (code.co_filename, frame.f_lineno, code.co_name)


def _box_line(frame):
    """The innermost frame of box code (a box path, not Python's files nor the shims); of
    project code that is no box's (a stack's Python behavior, a dialog's `%script`), the
    innermost frame outside Python's own folders and choreo's."""
    first = frame
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(("/", "<", "choreo/")):
            return "%s line %d" % (name, frame.f_lineno)
        frame = frame.f_back
    frame = first
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_NOT_PROJECT):
            return "%s line %d" % (name, frame.f_lineno)
        frame = frame.f_back
    return "box code"


def _path(p):
    if p is None:
        return "."
    if isinstance(p, int):
        return None
    try:
        return os.fsdecode(os.fspath(p))
    except TypeError:
        return None


def _no_file(name):
    """Whether `name` is what CPython calls source that has no file (`<string>`,
    `<%script>`): a bare name in angle brackets."""
    return isinstance(name, str) and name.startswith("<") and name.endswith(">") \
        and "/" not in name


def _at(path, dir_fd):
    """`path` (from `_path`) where the kernel finds it: relative to the folder open as
    `dir_fd` in an `*at` call (-1 or `None`: the current folder). The folder is read from
    `/proc/self/fd` (a link the kernel keeps, which Landlock does not judge); where it cannot
    be, the descriptor's own name, which no flag allows: refused rather than guessed."""
    if path is None or not isinstance(dir_fd, int) or dir_fd < 0 or os.path.isabs(path):
        return path
    link = "/proc/self/fd/%d" % dir_fd
    try:
        return os.path.join(os.readlink(link), path)
    except OSError:
        return os.path.join(link, path)


def _address(address):
    if isinstance(address, tuple) and len(address) >= 2:
        return "%s:%s" % (address[0], address[1])
    if isinstance(address, (str, bytes)):
        return "unix:%s" % os.fsdecode(address)
    return repr(address)


def _named_host(host):
    """The name `getaddrinfo` would ask the network about: `None` for an address (`10.0.0.2`,
    `::1`), no host, and `localhost`, which reach no name server."""
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str) or host in ("", "localhost"):
        return None
    for family in (_socket.AF_INET, _socket.AF_INET6):
        try:
            _socket.inet_pton(family, host)
            return None
        except (OSError, ValueError):
            pass
    return host


def _new_descriptor(frame):
    """Whether the `socket.socket` being made (`frame`: the Python frame that made it)
    makes a descriptor: not when it wraps one it was given (`fileno`)."""
    code = frame.f_code
    if code.co_name == "__init__" and code.co_filename.endswith("socket.py"):
        return frame.f_locals.get("fileno") is None
    return True


def _program(event, args):
    """What box code starts, as the refusal names it."""
    if event == "subprocess.Popen" and len(args) > 1:
        return "the program %r" % (args[1],)
    if event == "os.system" and args:
        return "the shell command %r" % (os.fsdecode(args[0]),)
    if event in ("os.exec", "os.posix_spawn", "os.spawn") and args:
        return "the program %r" % (args[1] if event == "os.spawn" else args[0],)
    if event in ("os.fork", "os.forkpty"):
        return "a copy of its process (%s)" % event
    return "%s%r" % (event, args)


def _make_hook(confined, judged, events):
    """The audit hook, with what it calls bound now: box code replacing `_choreo.confined`
    later changes nothing. `judged()`: whether the code on this thread is (box code, or
    project code run confined)."""

    def judge(kind, target):
        if target is not None:
            confined(kind, target, _box_line(sys._getframe(2)))

    def hook(event, args):
        if event not in events or not judged():
            return
        if event == "open":
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            mode = args[1] if len(args) > 1 else None
            write = flags & _WRITES or (isinstance(mode, str) and any(c in mode for c in "wax+"))
            if not write and _no_file(args[0]):
                # CPython's parser, raising a SyntaxError in source compiled from a string
                # (`exec("...")`, a dialog's `%script`), reads the line from a file of the
                # source's name: no such file exists on a robot, nor is it box code's doing.
                raise FileNotFoundError(2, "No such file or directory", args[0])
            judge("write" if write else "read", _at(_path(args[0]), getattr(_OPENING, "dir_fd", None)))
        elif event in ("os.listdir", "os.scandir"):
            judge("read", _path(args[0] if args else None))
        elif event in _WRITE_ONE:
            at = _DIR_FD.get(event)
            judge("write", _at(_path(args[0]), args[at] if at is not None and len(args) > at else None))
        elif event in ("os.rename", "os.link"):
            judge("write", _at(_path(args[0]), args[2] if len(args) > 2 else None))
            judge("write", _at(_path(args[1]), args[3] if len(args) > 3 else None))
        elif event == "os.symlink":
            judge("write", _at(_path(args[1]), args[2] if len(args) > 2 else None))
        elif event == "socket.__new__":
            # A Unix socket is made where box code's process may make none (the kernel
            # refuses it there): said at its line. A socket over a descriptor it already
            # has (`socketpair`'s, `fromfd`'s) makes none.
            if args[1] == _socket.AF_UNIX and _new_descriptor(sys._getframe(1)):
                judge("socket", "a Unix socket")
        elif event == "socket.getaddrinfo":
            # A name looked up is asked of the network (its name server) before any
            # connection: judged as the host it names, so that a lookup fails alike with
            # box code's process in a network namespace of its own (where it fails at
            # once) and without one.
            judge("resolve", _named_host(args[0]))
        elif event in _NET:
            address = args[1]
            # A socket bound to a port the system picks (a library's probe of IPv6, a
            # client's own end) reaches nobody: only a chosen port serves.
            if event == "socket.bind" and isinstance(address, tuple) and len(address) > 1 \
                    and address[1] == 0:
                return
            judge("connect", _address(address))
        elif event == "os.kill":
            pid, signal = args
            # Its own process only: 0 and a negative pid name a process group (the
            # supervising parent's, the shell's).
            if pid == _PID:
                # Signal 0 only asks whether the process is there.
                if signal != 0:
                    _ending("os.kill(its own process, %r)" % (signal,), 2)
            else:
                judge("run", "a signal %r to process %r" % (signal, pid))
        elif event == "signal.pthread_kill":
            # Any thread it names is one of its own process's.
            if args[1] != 0:
                _ending("signal.pthread_kill(%r, %r)" % tuple(args), 2)
        elif event in _RUN:
            judge("run", _program(event, args))

    return hook


def _ending(what, depth):
    """Code judged here is about to end its process (`what`, called `depth` frames up): told
    to the supervising parent, or refused where there is none (`_choreo.ends_process`). A
    copy of the process (`os.fork` with `--allow-run`) ends only itself."""
    if os.getpid() == _PID:
        _ends_process(what, _where(depth + 1))


def _os_open(path, flags, mode=0o777, *, dir_fd=None):
    """`os.open`, telling the audit hook the folder a relative `path` is in: its `open`
    event does not (`shutil.rmtree` opens each folder relative to the one above it)."""
    _OPENING.dir_fd = dir_fd
    try:
        return _real_os_open(path, flags, mode, dir_fd=dir_fd)
    finally:
        _OPENING.dir_fd = None


def _exit(code):
    _ending("os._exit(%r)" % (code,), 2)
    _real_exit(code)


def _abort():
    _ending("os.abort()", 2)
    _real_abort()


def _raise_signal(signalnum):
    _ending("signal.raise_signal(%r)" % (signalnum,), 2)
    _real_raise_signal(signalnum)


def install():
    global _real_os_open, _NOT_PROJECT
    os._exit = _native._exit = _exit
    if os.open is not _os_open:
        _real_os_open = os.open
        os.open = _os_open
    os.abort = _native.abort = _abort
    signal.raise_signal = _raise_signal
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, _choreo.packages_folder()}
    folders.update(p for p in sys.path if p and os.path.isabs(p))
    _choreo.python_folders(sorted(folders))
    _NOT_PROJECT = tuple(sorted(folders)) + ("<frozen", "choreo/")
    sys.addaudithook(_make_hook(_choreo.confined, _choreo.is_confined, _EVENTS))
