"""NAOqi OS's Python packages in box code (docs/box-environment.md, "NAOqi OS's Python
packages").

The robot's OS ships packages beside the SDK (`requests`, `numpy`, `yaml`, ...; choreo-robot's
`data/python.txt` lists them from the documentation's legal notices). In box code each one
imports as on the robot: from one folder, choreo's package cache, that sits in `sys.path`
where the robot's `site-packages` did (after the standard library, before any other
site-packages), so a box that appends its own `lib/` gets the cached copy first and one that
inserts its `lib/` first gets its own. A package not in the cache yet is installed there the
first time box code imports it (its pinned Python 3 release and what that needs, with pip,
under a lock, never again after); a package that cannot be installed raises an error that
names it, says what the robot ships, and why. Outside box code (a Python program using the
`choreo` package) nothing is installed and the cache only serves what is already in it."""

import importlib.machinery
import os
import re
import sys

import _choreo

# Import name -> (what NAOqi OS ships, pins or None, why not or None).
_KNOWN = {name: (shipped, pins, why) for name, shipped, pins, why in _choreo.os_packages()}

# Why an install failed, by import name (asked once per process).
_failed = {}


def folder():
    """The cache (choreo-python's `packages.rs`: `CHOREO_PACKAGES`, else the user's cache
    folder, one per Python minor version)."""
    return _choreo.packages_folder()


def _install(name):
    """Installs the pins of import `name` into the cache (what is there already stays);
    returns None, or why it could not. choreo does it (`packages.rs`), outside box code's
    confinement, with the pins of its own table: what box code changed in this module or
    in `sys` cannot change what is installed."""
    shipped, pins, why = _KNOWN[name]
    if pins is None:
        return why
    why = _choreo.install_os_package(name)
    importlib.invalidate_caches()
    return why


def _without_import_lock(work, *args):
    """`work(*args)` with the interpreter's global import lock let go. importlib holds that
    lock around every finder's `find_spec`, so an install made there (pip: seconds, minutes
    on a busy machine) would stop every other thread's imports for as long: other boxes',
    other runs' in the same process, each seen by its engine as waiting on the world. The
    lock of the module being imported stays held: an import of the same name elsewhere waits
    for the install, as it should."""
    import _imp
    held = 0
    while True:
        try:
            _imp.release_lock()
        except RuntimeError:  # not (or no longer) held by this thread
            break
        held += 1
    try:
        return work(*args)
    finally:
        for _ in range(held):
            _imp.acquire_lock()


# `import a, b.c` and `from a import ...` at the start of a line: the top-level names.
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)|import[ \t]+([A-Za-z_][\w., \t]*))", re.M)


def prepare(sources):
    """Installs the NAOqi OS packages that `sources` (scripts' texts) import and the cache
    lacks, before they run (an import the scan misses, `importlib.import_module(name)`,
    still installs at the import)."""
    names = set()
    for source in sources:
        for single, several in _IMPORT.findall(source):
            for name in [single] if single else several.split(","):
                name = name.strip().split(".")[0].split()[0] if name.strip() else ""
                if name in _KNOWN and _KNOWN[name][1] is not None:
                    names.add(name)
    if not names:
        return
    finder = importlib.machinery.FileFinder(folder(), *_loaders())
    for name in sorted(names):
        if name not in _failed and finder.find_spec(name) is None:
            why = _install(name)
            if why is not None:
                _failed[name] = why
            finder.invalidate_caches()


class _CacheEntry:
    """The finder of the cache's `sys.path` entry: what is in the cache, and in box code a
    NAOqi OS package installed on first import."""

    def __init__(self, path):
        self.path = path
        self.finder = importlib.machinery.FileFinder(path, *_loaders())

    @classmethod
    def hook(cls, entry):
        if entry != folder():
            raise ImportError("not the package cache")
        return cls(entry)

    def find_spec(self, fullname, target=None):
        spec = self.finder.find_spec(fullname, target)
        if spec is not None or "." in fullname or fullname not in _KNOWN:
            return spec
        if _choreo.current() is None or fullname in _failed:
            return None
        why = _without_import_lock(_install, fullname)
        if why is not None:
            _failed[fullname] = why
            return None
        self.finder.invalidate_caches()
        return self.finder.find_spec(fullname, target)

    def invalidate_caches(self):
        self.finder.invalidate_caches()


class _Missing:
    """Last on `sys.meta_path`: a NAOqi OS package nothing found raises an error that names
    it and says why (the robot has it; box code at its import line sees this)."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if path is not None or fullname not in _KNOWN or _choreo.current() is None:
            return None
        shipped, pins, why = _KNOWN[fullname]
        reason = _failed.get(fullname) or why or "it is not in %s" % folder()
        raise ModuleNotFoundError(
            "No module named %r: NAOqi OS ships it (%s), but choreo cannot give it: %s"
            % (fullname, shipped, reason), name=fullname)


def _loaders():
    m = importlib.machinery
    return (
        (m.ExtensionFileLoader, m.EXTENSION_SUFFIXES),
        (m.SourceFileLoader, m.SOURCE_SUFFIXES),
        (m.SourcelessFileLoader, m.BYTECODE_SUFFIXES),
    )


def install():
    """Puts the cache in `sys.path` where the robot's site-packages were: after the standard
    library (`lib-dynload`) and the folders of `CHOREO_PYTHONPATH`, before the rest."""
    cache = folder()
    at = len(sys.path)
    for i, entry in enumerate(sys.path):
        if entry.rstrip("/").endswith("lib-dynload"):
            at = i + 1
    user = [f for f in os.environ.get("CHOREO_PYTHONPATH", "").split(":") if f]
    while at < len(sys.path) and sys.path[at] in user:
        at += 1
    sys.path.insert(at, cache)
    sys.path_hooks.insert(0, _CacheEntry.hook)
    sys.path_importer_cache.pop(cache, None)
    sys.meta_path.append(_Missing)
