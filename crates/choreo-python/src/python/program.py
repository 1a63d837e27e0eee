"""Runs a package service's Python program as the robot's Python 2 would, on Python 3: the
program and the package's own modules are read as choreo's fixer rewrote them (the fixed
copies choreo wrote beside this file, `program::prepare`), with the Python-2 builtins box
scripts get (py2.py), while `__file__`, tracebacks and the libraries stay as they are.

Usage: python program.py FIXED PACKAGE SCRIPT [ARGS...]
  FIXED    the folder of fixed copies, laid out as PACKAGE (only the files that changed)
  PACKAGE  the package's folder: its modules get the Python-2 builtins
  SCRIPT   the program, run as __main__ with sys.argv = [SCRIPT, ARGS...]
"""

import builtins
import importlib.machinery
import operator
import os
import sys
import types


class _Dividend(object):
    """`a @ __py2div__`, waiting for `/ b` (choreo-python's division.rs, in Python: the
    program runs outside choreo's embedded interpreter)."""

    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    def __truediv__(self, b):
        if _classic_int(self.a) and _classic_int(b):
            return self.a // b
        return self.a / b


def _classic_int(x):
    """An int whose type divides as int does: Python 2 floor-divided two of them."""
    if type(x) in (int, bool):
        return True
    return (isinstance(x, int) and type(x).__truediv__ is int.__truediv__
            and type(x).__rtruediv__ is int.__rtruediv__)


class _Py2Division(object):
    """`__py2div__`: the fixer writes `a / b` as `a @__py2div__/ b`, `a /= b` as
    `a = __py2div__(a, b)`."""

    __array_ufunc__ = None

    def __rmatmul__(self, a):
        return _Dividend(a)

    def __call__(self, a, b):
        if _classic_int(a) and _classic_int(b):
            return a // b
        return operator.itruediv(a, b)


def main():
    fixed, package, script = (os.path.abspath(p) for p in sys.argv[1:4])
    sys.argv = [script] + sys.argv[4:]
    # py2.py asks choreo's runtime for two things only.
    runtime = types.ModuleType("_choreo")
    runtime.py2div = _Py2Division()
    runtime.packages_folder = lambda: os.environ.get("CHOREO_PACKAGES", "")
    sys.modules["_choreo"] = runtime
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import py2
    del sys.path[0]
    py2.install()
    # A package's folder may be the user's project: no bytecode written there.
    sys.dont_write_bytecode = True
    inside = os.path.join(package, "")

    def fixed_copy(path):
        path = os.path.abspath(path)
        if path.startswith(inside):
            copy = os.path.join(fixed, os.path.relpath(path, package))
            if os.path.isfile(copy):
                return copy
        return None

    class Loader(importlib.machinery.SourceFileLoader):
        """The package's modules: their fixed text, the Python-2 builtins."""

        def get_code(self, fullname):
            # Always from the (fixed) source: a cached bytecode of the original may predate
            # the fix.
            path = self.get_filename(fullname)
            with open(fixed_copy(path) or path, "rb") as f:
                return self.source_to_code(f.read(), path)

        def exec_module(self, module):
            if os.path.abspath(self.path).startswith(inside):
                module.__dict__["__builtins__"] = py2.BUILTINS
            super().exec_module(module)

    loaders = [(Loader, importlib.machinery.SOURCE_SUFFIXES),
               (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES),
               (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES)]
    sys.path_hooks.insert(0, importlib.machinery.FileFinder.path_hook(*loaders))
    sys.path_importer_cache.clear()
    sys.path.insert(0, os.path.dirname(script))
    with open(fixed_copy(script) or script, "rb") as f:
        code = compile(f.read(), script, "exec")
    main_module = types.ModuleType("__main__")
    main_module.__dict__.update(__file__=script, __builtins__=py2.BUILTINS)
    sys.modules["__main__"] = main_module
    exec(code, main_module.__dict__)


if __name__ == "__main__":
    main()
