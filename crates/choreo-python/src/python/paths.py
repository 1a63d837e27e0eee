"""The robot's paths in box code (docs/box-environment.md, "The robot's paths").

Box code names the robot's folders outright: `/home/nao/...` (where Choregraphe's Play
installs the project, as `.lastUploadedChoregrapheBehavior`), `/data/home/nao` on Pepper
2.9, `/opt/aldebaran/...`. In box code (a thread running a box's hook, callback or task)
such a path names the same place under the run's own folder, for every function that takes
a path: `open`, `os` (so `os.path`, `glob`, `shutil`, `pathlib` and `os.walk`, which call
it), `io.open_code` and `posix` (what `importlib` and `imp` read modules with), and a
`sys.path` entry (through a path hook). In confined box code the robot's `/tmp` is the run's
own `<root>/tmp` too: a name right in `/tmp`, or under a folder box code made there (a
behavior that keeps a file in `/tmp` on a robot keeps it there, and it goes with the run),
and `tempfile` makes its files there; any other path under the machine's `/tmp` (a folder
of the machine's), and one box code may reach as it is (the run's root, a project or a
Python there, a folder `--allow-read` or `--allow-write` gives), stays the machine's. Outside box code, and for every
other path, nothing changes. The table of folders is choreo-robot's (`paths.rs`), given by
`_choreo`."""

import builtins
import io
import os
import sys
import tempfile

import _choreo
import _io

# `posix` on Unix, `nt` on Windows: the module whose functions `os` hands out.
_native = sys.modules[os.name]

# `os.makedirs` and `os.path.isdir` as they are, before `install` makes them see the robot's
# paths (their calls inside go through the functions it wraps: paths under the run's root,
# left as they are).
_real_makedirs = os.makedirs
_real_isdir = os.path.isdir

# (robot prefix, folder under the run's root), the longest prefixes first.
_FOLDERS = tuple(sorted(_choreo.robot_folders(), key=lambda f: -len(f[0])))
_FOLDER_PREFIXES = tuple(p for p, _ in _FOLDERS)
# The robot's `/tmp` (see `_tmp`): a path `local` looks at, never a `sys.path` entry the
# path hook takes (the machine's `/tmp` may hold a Python, a project, the run's root).
_TMP = "/tmp"
_PREFIXES = _FOLDER_PREFIXES + (_TMP,)
_BYTES_PREFIXES = tuple(os.fsencode(p) for p in _PREFIXES)


def local(path):
    """`path` as the run sees it: a robot path under the run's root (in box code), else
    `path` itself."""
    if isinstance(path, str):
        if not path.startswith(_PREFIXES):
            return path
    elif isinstance(path, bytes):
        if not path.startswith(_BYTES_PREFIXES):
            return path
        mapped = local(os.fsdecode(path))
        return os.fsencode(mapped)
    elif isinstance(path, os.PathLike):
        text = os.fspath(path)
        mapped = local(text)
        return path if mapped is text else mapped
    else:
        return path
    root = _choreo.robot_root()
    if root is None:
        return path
    for prefix, folder in _FOLDERS:
        if path == prefix or path.startswith(prefix + "/"):
            return root + "/" + folder + path[len(prefix):]
    return _tmp(path, root)


def _tmp(path, root):
    """A path under the robot's `/tmp`, in confined box code: under the run's `<root>/tmp`
    (made when first named) when it names a file or folder right in `/tmp`, or under a
    folder box code made there; any other path under the machine's `/tmp` (a folder of the
    machine's: judged as it is), and one box code may reach as it is, is left alone."""
    if not (path == _TMP or path.startswith(_TMP + "/")) or not _choreo.is_confined():
        return path
    if path.startswith(root + "/") or _choreo.may_reach(path):
        return path
    folder = root + _TMP
    rest = path[len(_TMP):].rstrip("/")
    parent = rest.rpartition("/")[0]
    if parent and not _real_isdir(folder + parent):
        return path
    _real_makedirs(folder, exist_ok=True)
    return folder + path[len(_TMP):]


def _one(function):
    """`function` with its first argument (a path, or `path=`) seen by the run."""

    def wrapper(*args, **kwargs):
        if args:
            args = (local(args[0]),) + args[1:]
        elif "path" in kwargs:
            kwargs["path"] = local(kwargs["path"])
        return function(*args, **kwargs)

    wrapper.__name__ = function.__name__
    wrapper.__doc__ = function.__doc__
    wrapper.__wrapped__ = function
    return wrapper


def _two(function):
    """`function` with its first two arguments (`src`, `dst`) seen by the run."""

    def wrapper(*args, **kwargs):
        args = tuple(local(a) if i < 2 else a for i, a in enumerate(args))
        for key in ("src", "dst"):
            if key in kwargs:
                kwargs[key] = local(kwargs[key])
        return function(*args, **kwargs)

    wrapper.__name__ = function.__name__
    wrapper.__doc__ = function.__doc__
    wrapper.__wrapped__ = function
    return wrapper


# The functions of `os` (and `posix`, the same objects) that take one path, then two.
_ONE = (
    "access", "chdir", "chmod", "chown", "lchown", "listdir", "lstat", "mkdir", "mkfifo",
    "mknod", "open", "pathconf", "readlink", "remove", "rmdir", "scandir", "stat", "statvfs",
    "truncate", "unlink", "utime", "getxattr", "listxattr", "removexattr", "setxattr",
)
_TWO = ("rename", "replace", "link", "symlink")


class _RobotEntry:
    """The finder of a robot path in `sys.path` (a box that appends the Play path to import
    a module its project bundles): it finds modules in that folder under the run's root,
    asked at each import, since `sys.path_importer_cache` keeps one finder per entry for
    every run of the process."""

    def __init__(self, entry):
        self.entry = entry
        self.finders = {}

    @classmethod
    def hook(cls, entry):
        if not isinstance(entry, str) or not entry.startswith(_FOLDER_PREFIXES):
            raise ImportError("not a robot path")
        return cls(entry)

    def find_spec(self, fullname, target=None):
        mapped = local(self.entry)
        if mapped == self.entry:
            return None
        finder = self.finders.get(mapped)
        if finder is None:
            import importlib.machinery as machinery

            finder = self.finders[mapped] = machinery.FileFinder(mapped, *_loaders())
        return finder.find_spec(fullname, target)

    def invalidate_caches(self):
        for finder in self.finders.values():
            finder.invalidate_caches()


def _loaders():
    import importlib.machinery as machinery

    return (
        (machinery.ExtensionFileLoader, machinery.EXTENSION_SUFFIXES),
        (machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES),
        (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES),
    )


_real_gettempdir = tempfile.gettempdir


def _gettempdir():
    """`tempfile`'s folder: in confined box code the run's own (`<root>/tmp`, where the robot
    has its `/tmp`), so that a temporary file is the run's and goes with it; elsewhere the
    machine's (docs/security.md)."""
    root = _choreo.robot_root()
    if root is None or not _choreo.is_confined():
        return _real_gettempdir()
    folder = root + _TMP
    _real_makedirs(folder, exist_ok=True)
    return folder


def install():
    tempfile.gettempdir = _gettempdir
    tempfile.gettempdirb = lambda: os.fsencode(_gettempdir())
    for module in (os, _native):
        for name in _ONE:
            function = getattr(module, name, None)
            if function is not None and not hasattr(function, "__wrapped__"):
                setattr(module, name, _one(function))
        for name in _TWO:
            function = getattr(module, name, None)
            if function is not None and not hasattr(function, "__wrapped__"):
                setattr(module, name, _two(function))
    opened = _one(_io.open)
    builtins.open = io.open = _io.open = opened
    _io.open_code = io.open_code = _one(_io.open_code)
    sys.path_hooks.insert(0, _RobotEntry.hook)
    sys.path_importer_cache.clear()
