"""Python-2 names that a source rewrite cannot fix: builtins every box script sees, and the
Python-2 module names (thread, Queue, urllib2, mutex, ...) importable as their Python-3
counterparts (docs/runtime-rules.md section 9)."""

import builtins
import collections
import functools
import importlib
import importlib.machinery
import os
import sys
import time

import _choreo


class _TextType(type):
    """isinstance(x, unicode) is true for every str: str and unicode are one type now."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._matches)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls._matches)


class unicode(str, metaclass=_TextType):
    """unicode(x), unicode(data, encoding[, errors]): a str."""

    _matches = str

    def __new__(cls, obj="", encoding=None, errors="strict"):
        if encoding is None:
            return str(obj)
        if isinstance(obj, str):
            # Python 2 decoded a byte string: text decodes as the bytes it stands for.
            return py2decode(obj, encoding, errors)
        return str(obj, encoding, errors)


class basestring(str, metaclass=_TextType):
    """Only for isinstance checks: str or bytes."""

    _matches = (str, bytes)


def py2decode(data, *args, **kwargs):
    """`__py2decode__(P, args)`, which the fixer writes for Python 2's `P.decode(args)`
    (fixer.rs, Rewrite::Decode): bytes decode as they are; a str, which has no `decode`,
    stands for the bytes Python 2 held (its UTF-8, where `open` put back every byte a file
    held that was not UTF-8) and decodes as them; anything else is asked to decode itself.
    The defaults are `bytes.decode`'s: UTF-8, strict."""
    if type(data) is str or (isinstance(data, str) and not hasattr(data, "decode")):
        data = data.encode("utf-8", "surrogateescape")
    return data.decode(*args, **kwargs)


def _as_bytes(x):
    """Text as the bytes Python 2 held (UTF-8, every escaped byte put back); a tuple of them
    (startswith's prefixes) likewise; anything else as it is."""
    if isinstance(x, str):
        return x.encode("utf-8", "surrogateescape")
    if type(x) is tuple:
        return tuple(_as_bytes(item) for item in x)
    return x


def _as_text(x):
    """Bytes as the text they hold (UTF-8, every other byte escaped); anything else as it is."""
    if isinstance(x, bytes):
        return x.decode("utf-8", "surrogateescape")
    return x


def _as_bytestr(result):
    """A bytes result (or a list or tuple of them) as byte strings."""
    if type(result) is bytes:
        return bytestr(result)
    if type(result) in (list, tuple):
        return type(result)(bytestr(r) if type(r) is bytes else r for r in result)
    return result


class bytestr(bytes):
    """A Python-2 byte string: what `u.encode('utf-8')` gave (`__py2encode__`). It is bytes
    (hashlib, sockets and urlopen take it), and takes text wherever Python 2's `str` did:
    its methods and `+`, `%`, `in`, `==` take text arguments (encoded with UTF-8), slices
    are byte strings, `str()` and `print` give its text, and it crosses to the robot as text
    (convert.rs reads `__py2text__`). An index gives an int and iterating gives ints, as
    Python 3's bytes do, for the Python-3 code that reads them."""

    __slots__ = ()
    __py2text__ = True

    def __str__(self):
        return self.decode("utf-8", "surrogateescape")

    def __repr__(self):
        return repr(str(self))

    def __format__(self, spec):
        return format(str(self), spec)

    def __hash__(self):
        # Equal to its text, so hashed as its text.
        return hash(str(self))

    def __eq__(self, other):
        return bytes.__eq__(self, _as_bytes(other))

    def __ne__(self, other):
        return bytes.__ne__(self, _as_bytes(other))

    def __lt__(self, other):
        return bytes.__lt__(self, _as_bytes(other))

    def __le__(self, other):
        return bytes.__le__(self, _as_bytes(other))

    def __gt__(self, other):
        return bytes.__gt__(self, _as_bytes(other))

    def __ge__(self, other):
        return bytes.__ge__(self, _as_bytes(other))

    def __contains__(self, item):
        return bytes.__contains__(self, _as_bytes(item))

    def __add__(self, other):
        if not isinstance(other, (str, bytes)):
            return NotImplemented
        return bytestr(bytes(self) + _as_bytes(other))

    def __radd__(self, other):
        if not isinstance(other, (str, bytes)):
            return NotImplemented
        return bytestr(_as_bytes(other) + bytes(self))

    def __mul__(self, n):
        return bytestr(bytes.__mul__(self, n))

    __rmul__ = __mul__

    def __mod__(self, values):
        if type(values) is tuple:
            values = tuple(_as_text(v) for v in values)
        elif type(values) is dict:
            values = {k: _as_text(v) for k, v in values.items()}
        else:
            values = _as_text(values)
        return bytestr(_as_bytes(str(self) % values))

    def __getitem__(self, index):
        # An index gives an int, as Python 3's bytes: Python 3's own code (urllib's quote,
        # say) reads bytes so.
        got = bytes.__getitem__(self, index)
        return got if isinstance(got, int) else bytestr(got)

    def join(self, items):
        return bytestr(bytes.join(self, [_as_bytes(item) for item in items]))


def _text_method(name):
    method = getattr(bytes, name)

    def call(self, *args, **kwargs):
        args = [_as_bytes(a) for a in args]
        kwargs = {k: _as_bytes(v) for k, v in kwargs.items()}
        return _as_bytestr(method(self, *args, **kwargs))

    call.__name__ = call.__qualname__ = name
    call.__doc__ = method.__doc__
    return call


for _name in (
    "capitalize", "center", "count", "endswith", "expandtabs", "find", "index", "ljust",
    "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind",
    "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
    "startswith", "strip", "swapcase", "title", "translate", "upper", "zfill",
):
    setattr(bytestr, _name, _text_method(_name))
del _name

# Python 2's bytes-to-bytes codecs, which `str.encode` took and Python 3's refuses.
_BYTE_CODECS = {
    "hex", "hex_codec", "base64", "base64_codec", "base_64", "zlib", "zlib_codec", "zip",
    "bz2", "bz2_codec", "quopri", "quopri_codec", "quotedprintable", "quoted_printable",
    "uu", "uu_codec",
}


def py2encode(data, *args, **kwargs):
    """`__py2encode__(P, args)`, which the fixer writes for Python 2's `P.encode(args)`
    (fixer.rs, Rewrite::Encode): text (and bytes, read as the text they hold) encodes to a
    byte string, `bytestr`, which Python-2 scripts go on using as text; a bytes-to-bytes
    codec (`'hex'`, `'base64'`, ...) encodes the bytes Python 2 held; anything else is
    asked to encode itself. The defaults are `str.encode`'s: UTF-8, strict."""
    if not isinstance(data, (str, bytes)):
        return data.encode(*args, **kwargs)
    encoding = args[0] if args else kwargs.get("encoding", "utf-8")
    if isinstance(encoding, str) and encoding.lower().replace("-", "_") in _BYTE_CODECS:
        import codecs

        errors = args[1] if len(args) > 1 else kwargs.get("errors", "strict")
        return bytestr(codecs.encode(_as_bytes(data), encoding, errors))
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
    return bytestr(str.encode(data, *args, **kwargs))


def py2open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None,
            closefd=True, opener=None):
    """Python 2's `open` and `file` read bytes, so any file read without error and wrote
    back the same bytes: text mode reads and writes UTF-8 with `surrogateescape` (each byte
    that is not UTF-8 stands for itself) unless the script gives an encoding or errors;
    binary mode is Python 3's. Python 2's "U" (universal newlines, which Python 3's text
    mode has, and which 3.11 refuses) is dropped."""
    if isinstance(mode, str):
        mode = mode.replace("U", "")
        if "b" not in mode:
            encoding = "utf-8" if encoding is None else encoding
            errors = "surrogateescape" if errors is None else errors
    return builtins.open(file, mode, buffering, encoding, errors, newline, closefd, opener)


def cmp(a, b):
    """Python 2's three-way comparison."""
    return (a > b) - (a < b)


def apply(function, args=(), kwargs=None):
    return function(*args, **(kwargs or {}))


def execfile(filename, globals=None, locals=None):
    """Runs a Python file in the caller's namespace (or the given ones)."""
    if globals is None:
        caller = sys._getframe(1)
        globals, locals = caller.f_globals, caller.f_locals
    with open(filename) as f:
        exec(compile(f.read(), filename, "exec"), globals, locals)


def range_list(*args):
    """Python 2's range: a list (scripts index and assign into it)."""
    return list(builtins.range(*args))


def zip_list(*iterables):
    """Python 2's zip: a list."""
    return list(builtins.zip(*iterables))


def map_list(function, *iterables):
    """Python 2's map: a list."""
    return list(builtins.map(function, *iterables))


def filter_list(function, iterable):
    """Python 2's filter: a list."""
    return list(builtins.filter(function, iterable))


class _LazyModule(object):
    """A module imported on first use: `qi` is a global of every box script in the
    reference (stock Move Toward uses qi.PeriodicTask without importing it), but the qi shim
    is set up after this module."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self):
        return "<module %r (on first use)>" % self._name


NAMES = {
    "range": range_list,
    "zip": zip_list,
    "map": map_list,
    "filter": filter_list,
    # Globals of every box script in the reference (the generated code imported them).
    "time": time,
    "qi": _LazyModule("_choreo_qi"),
    "unicode": unicode,
    "basestring": basestring,
    "xrange": range,
    "raw_input": input,
    "long": int,
    "unichr": chr,
    "reduce": functools.reduce,
    # Text read from files stands for its bytes (py2open) and decodes as them: the fixer
    # writes Python 2's `P.decode(args)` as `__py2decode__(P, args)`.
    "open": py2open,
    "file": py2open,
    "__py2decode__": py2decode,
    # Python 2's `P.encode(args)` gave a byte string scripts used as text: the fixer writes
    # it as `__py2encode__(P, args)`.
    "__py2encode__": py2encode,
    "cmp": cmp,
    "intern": sys.intern,
    "apply": apply,
    "execfile": execfile,
    "buffer": memoryview,
    # The fixer writes Python 2's `a / b` as `a @__py2div__/ b` and `a /= b` as
    # `a = __py2div__(a, b)`: two ints divide as in Python 2 (division.rs).
    "__py2div__": _choreo.py2div,
}

# The builtins of every box namespace: Python's, plus the Python-2 names.
BUILTINS = dict(vars(builtins))
BUILTINS.update(NAMES)


class mutex:
    """The Python-2 `mutex` module's lock with a queue of waiting functions."""

    def __init__(self):
        self.locked = False
        self.queue = collections.deque()

    def test(self):
        return self.locked

    def testandset(self):
        if not self.locked:
            self.locked = True
            return True
        return False

    def lock(self, function, argument):
        if self.testandset():
            function(argument)
        else:
            self.queue.append((function, argument))

    def unlock(self):
        if self.queue:
            function, argument = self.queue.popleft()
            function(argument)
        else:
            self.locked = False


# Python-2 module name -> the Python-3 module that replaces it (imported on first use).
ALIASES = {
    "Queue": "queue",
    "StringIO": "io",
    "cStringIO": "io",
    "cPickle": "pickle",
    "ConfigParser": "configparser",
    "httplib": "http.client",
    "urllib2": "urllib.request",
    "urlparse": "urllib.parse",
    "HTMLParser": "html.parser",
    "SocketServer": "socketserver",
    "__builtin__": "builtins",
    "thread": "_thread",
}

# Python 2.7's email package named its modules with capitals (email.Utils, email.MIMEText):
# importable, and attributes of `email` without an import, as Python 2's lazy importers
# made them.
EMAIL = {
    "Charset": "charset",
    "Encoders": "encoders",
    "Errors": "errors",
    "FeedParser": "feedparser",
    "Generator": "generator",
    "Header": "header",
    "Iterators": "iterators",
    "Message": "message",
    "Parser": "parser",
    "Utils": "utils",
    "base64MIME": "base64mime",
    "quopriMIME": "quoprimime",
    "MIMEAudio": "mime.audio",
    "MIMEBase": "mime.base",
    "MIMEImage": "mime.image",
    "MIMEMessage": "mime.message",
    "MIMEMultipart": "mime.multipart",
    "MIMENonMultipart": "mime.nonmultipart",
    "MIMEText": "mime.text",
}
ALIASES.update(("email." + old, "email." + new) for old, new in EMAIL.items())


def _email_attribute(name):
    """`email.MIMEText` and the other Python-2 names after a plain `import email` (PEP 562:
    called for the attributes the package lacks)."""
    if name not in EMAIL:
        raise AttributeError("module 'email' has no attribute %r" % name)
    # Through the finder: the module is then in sys.modules and an attribute of `email`.
    return importlib.import_module("email." + name)


# The loaders and the finder are duck-typed: importlib.abc would import importlib.resources
# and pathlib, typing, tempfile... at start-up (14 ms), for nothing they use.
class _AliasLoader(object):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _ModuleLoader(object):
    def __init__(self, build):
        self.build = build

    def create_module(self, spec):
        return self.build(spec.name)

    def exec_module(self, module):
        pass


def _module(name, **attributes):
    module = type(sys)(name)
    module.__dict__.update(attributes)
    return module


def _hash_module(name, function, size):
    import hashlib

    new = getattr(hashlib, function)
    return _module(name, **{"new": new, name: new, "digest_size": size})


# Removed modules rebuilt from their Python-3 parts.
BUILT = {
    "mutex": lambda name: _module(name, mutex=mutex),
    "md5": lambda name: _hash_module(name, "md5", 16),
    "sha": lambda name: _hash_module(name, "sha1", 20),
    "sets": lambda name: _module(name, Set=set, ImmutableSet=frozenset),
}


_libraries = None


def _imported_by_a_library():
    """Whether the import comes from an installed library (the standard library, a
    site-packages, NAOqi OS's package cache), not from box code or a project's own module.
    Libraries that run on Python 2 and 3 try the Python-2 name first (`from urllib2 import
    urlparse` in xmpppy) and must get Python 3's ImportError, not the alias."""
    global _libraries
    if _libraries is None:
        import sysconfig
        folders = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
        folders.update(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
        folders.add(_choreo.packages_folder())
        _libraries = tuple(os.path.join(f, "") for f in folders if f)
    frame = sys._getframe(2)
    here = importlib.__file__
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen")
                                 or frame.f_code.co_filename == here):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_libraries)


class _Py2Finder(object):
    """Finds the Python-2 module names, after every real module (a real one always wins)."""

    def find_spec(self, name, path=None, target=None):
        if name in ALIASES and not _imported_by_a_library():
            return importlib.machinery.ModuleSpec(name, _AliasLoader(ALIASES[name]))
        if name in BUILT:
            return importlib.machinery.ModuleSpec(name, _ModuleLoader(BUILT[name]))
        return None


# `re`'s functions and where their string argument is (positional index, after the pattern).
_RE_FUNCTIONS = {
    "sub": 1, "subn": 1, "match": 0, "search": 0, "fullmatch": 0, "findall": 0,
    "finditer": 0, "split": 0,
}


def _re_taking_byte_strings(re):
    """Python 2's `re` matched a text pattern against a byte string (the PandoraBot boxes:
    `data = data.encode('utf-8')`, then `re.sub(r'\\s+', ' ', data)`); Python 3's refuses
    bytes there. `re`'s functions, given a text pattern (a `str` or a compiled one), read a
    `bytestr` string or replacement as its text, and `sub` gives a byte string back as
    Python 2 did. Every other call is passed on unchanged."""

    def text_pattern(pattern):
        return isinstance(getattr(pattern, "pattern", pattern), str)

    def wrap(name, at):
        original = getattr(re, name)
        # (positional index, keyword) of the arguments read as text: the string, and
        # `sub`'s replacement.
        slots = [(at, "string")] + ([(0, "repl")] if at else [])

        def call(pattern, *args, **kwargs):
            # The common call, without a byte string, as cheap as can be.
            for a in args:
                if type(a) is bytestr:
                    break
            else:
                if not kwargs:
                    return original(pattern, *args)
            if not text_pattern(pattern):
                return original(pattern, *args, **kwargs)
            args = list(args)
            byte_string = False
            for index, key in slots:
                if index < len(args):
                    if type(args[index]) is bytestr:
                        args[index] = str(args[index])
                        byte_string = byte_string or key == "string"
                elif type(kwargs.get(key)) is bytestr:
                    kwargs[key] = str(kwargs[key])
                    byte_string = byte_string or key == "string"
            result = original(pattern, *args, **kwargs)
            if byte_string and name == "sub":
                return bytestr(_as_bytes(result))
            if byte_string and name == "subn":
                return bytestr(_as_bytes(result[0])), result[1]
            return result

        functools.update_wrapper(call, original)
        setattr(re, name, call)

    for name, at in _RE_FUNCTIONS.items():
        wrap(name, at)


def install():
    """Makes the Python-2 module names importable (after every real module), and `re` take
    Python 2's byte strings."""
    sys.meta_path.append(_Py2Finder())
    # Python 2 (and 3 up to 3.9) had the container ABCs in `collections` too: box code
    # and the packages NAOqi OS ships (tornado 4.5: `collections.MutableMapping`) use them.
    import collections
    import collections.abc

    for name in collections.abc.__all__:
        # `vars`, not `hasattr`: Python 3.9's `collections` warns on every alias asked for.
        if name not in vars(collections):
            setattr(collections, name, getattr(collections.abc, name))
    import re

    _re_taking_byte_strings(re)
    # The package alone, 0.3 ms: its modules are imported on first use.
    import email

    email.__getattr__ = _email_attribute
