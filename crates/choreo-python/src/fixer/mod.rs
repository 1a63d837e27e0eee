//! The Python-2 fixer: rewrites the Python-2 constructs of Choregraphe box scripts so that
//! CPython 3.11 compiles them, keeping every line where it was.
//!
//! The fixer tokenizes the script (strings of every prefix and quote kind, comments, numbers,
//! names, operators, line continuations, bracket depth, logical lines) and edits tokens, so
//! string contents and comments are never touched. It never adds or removes a line break: a
//! rewrite that needs more text puts it on the same line, so tracebacks point at the
//! original lines. It runs in linear time and never panics. A script that is already
//! valid Python 3 keeps its meaning, but for its imports of Python-2 module names and its
//! `/` on two ints (below): box scripts are Python 2, whatever else they compile as.
//!
//! Most scripts need no rewrite: [`needs_fixing`] tells so first, by a quick scan of the
//! bytes that skips strings and comments and looks for what starts each rewrite (8–9×
//! faster than fixing: 1.6 ms for the 1,018 distinct scripts of the shared corpus, against
//! 13.6 ms; it lets 97.5% of the corpus's scripts that need no rewrite through, and never
//! one that does, which its tests check), and then the script is returned as it is.
//!
//! # Rewrites
//!
//! | Python 2 | Python 3 | [`Rewrite`] |
//! |---|---|---|
//! | `except X, e:` / `except (A, B), e:` | `except X as e:` | [`Rewrite::ExceptComma`] |
//! | `print "x"`, `print x, y`, `print` | `print("x")`, `print(x, y)`, `print()` | [`Rewrite::PrintStatement`] |
//! | `print x,` | `print(x, end=" ")` | [`Rewrite::PrintStatement`] |
//! | `print >>f, x` | `print(x, file=f)` | [`Rewrite::PrintStatement`] |
//! | `exec code` / `exec code in g[, l]` | `exec(code)` / `exec(code, g[, l])` | [`Rewrite::ExecStatement`] |
//! | `raise E, v` / `raise E, (a, b)` / `raise E, v, tb` | `raise E(v)` / `raise E(*(a, b))` / `raise E(v).with_traceback(tb)` | [`Rewrite::RaiseComma`] |
//! | `a <> b` | `a != b` | [`Rewrite::NotEqual`] |
//! | `0777` | `0o777` | [`Rewrite::OctalLiteral`] |
//! | `10L`, `0xFFL` | `10`, `0xFF` | [`Rewrite::LongLiteral`] |
//! | `ur'...'` (any case) | `r'...'`, or a plain `'...'` when it uses `\u`/`\U` escapes | [`Rewrite::UrString`] |
//! | `` `x` `` | `repr(x)` | [`Rewrite::Backticks`] |
//! | `qi.async(f, delay=us)` | `qi.runAsync(f, delay=us)` | [`Rewrite::QiAsync`] |
//! | `from qi import async` | `from qi import runAsync as async_` | [`Rewrite::QiAsync`] |
//! | `async`, `await` used as names (`def async(…)`, `x.async`, `async = …`) | `async_`, `await_` | [`Rewrite::KeywordName`] |
//! | `import Queue`, `import urllib2 as u`, `from StringIO import StringIO` | `import queue as Queue`, `import urllib.request as u`, `from io import StringIO` | [`Rewrite::RenamedModule`] |
//! | `import urllib` + `urllib.urlencode(…)`, `urllib.urlopen(…)` | `import urllib.request, urllib.parse` + `urllib.parse.urlencode(…)`, `urllib.request.urlopen(…)` | [`Rewrite::Urllib`] |
//! | `from urllib import urlencode, urlopen` | `from urllib.parse import urlencode; from urllib.request import urlopen` | [`Rewrite::Urllib`] |
//! | indentation mixing tabs and spaces (a `TabError` in Python 3) | tabs expanded to multiples of 8 columns, as Python 2 read them | [`Rewrite::TabIndent`] |
//! | `d.iteritems()`, `d.iterkeys()`, `d.itervalues()`, `d.has_key(k)` | `d.items()`, `d.keys()`, `d.values()`, `d.__contains__(k)` (any object with such a method: in practice dicts) | [`Rewrite::DictMethod`] |
//! | `s.encode("utf-8").split("/")` (the split at a text literal) | `s.split("/")` | [`Rewrite::EncodeSplit`] |
//! | `a / b` (floor division on two ints) | `a @__py2div__/ b` | [`Rewrite::Division`] |
//! | `a /= b`, `self.d[k] /= b` | `a = __py2div__(a, b)`, `self.d[k] = __py2div__(self.d[k], b)` | [`Rewrite::Division`] |
//! | `data.decode('utf-8')`, `f.read().decode('latin-1').split()`, `s.decode()` | `__py2decode__(data, 'utf-8')`, `__py2decode__(f.read(), 'latin-1').split()`, `__py2decode__(s)` | [`Rewrite::Decode`] |
//! | `data.encode('utf-8')`, `h.md5(s.encode()).hexdigest()` | `__py2encode__(data, 'utf-8')`, `h.md5(__py2encode__(s)).hexdigest()` | [`Rewrite::Encode`] |
//!
//! Details:
//! - `print(x)` (a call) is left alone, as is everything after
//!   `from __future__ import print_function`. Python 2's `print (a, b)` printed a tuple; it
//!   stays a call and prints `a b`.
//! - `ur'...'`: Python 2 processed `\uXXXX` and `\UXXXXXXXX` escapes in these strings and kept
//!   every other backslash. Without such an escape the string becomes `r'...'` (same value);
//!   with one it becomes a plain string literal with every other backslash doubled, so the
//!   value is exactly Python 2's (a regular expression `ur'[\u007b-\uffff]'` therefore sees the
//!   characters, as it did in Python 2).
//! - `qi.async` is emitted as **`qi.runAsync`**, which the `qi` shim provides with the same
//!   arguments (`delay=` in microseconds).
//! - Modules renamed on import (the old name stays bound, so `StringIO.StringIO(...)` and
//!   `Queue.Queue()` keep working): `urllib2` → `urllib.request`, `Queue` → `queue`,
//!   `ConfigParser` → `configparser`, `thread` → `_thread`, `cPickle` → `pickle`,
//!   `StringIO` and `cStringIO` → `io`, `httplib` → `http.client`, `urlparse` →
//!   `urllib.parse`, `HTMLParser` → `html.parser`, `htmlentitydefs` → `html.entities`,
//!   `cookielib` → `http.cookiejar`, `Cookie` → `http.cookies`, `SocketServer` →
//!   `socketserver`, `BaseHTTPServer`, `SimpleHTTPServer` and `CGIHTTPServer` →
//!   `http.server`, `xmlrpclib` → `xmlrpc.client`, `SimpleXMLRPCServer` → `xmlrpc.server`,
//!   `copy_reg` → `copyreg`, `__builtin__` and `exceptions` → `builtins`, `commands` →
//!   `subprocess` (`getoutput`, `getstatusoutput`), `UserDict`, `UserList` and `UserString` →
//!   `collections`, `anydbm` → `dbm`, `robotparser` → `urllib.robotparser`, `Tkinter` →
//!   `tkinter`, `tkMessageBox`, `tkFileDialog`, `tkSimpleDialog`, `ttk`, `ScrolledText`,
//!   `Tkconstants`, `tkFont` → the `tkinter` submodules. Only these Python-2-only names are
//!   renamed, so a Python-3 script that imports one of them only in a `try`/`except
//!   ImportError` fallback now gets the Python-3 module there instead of the fallback.
//! - `.encode("utf-8")` (or `'utf8'`, any case) is dropped only when a `.split(` whose
//!   first argument is a text (not `b''`) literal follows it at once: Python 2 gave a `str`
//!   split by a `str`; Python 3 would split bytes by text, always a `TypeError`, so no
//!   valid Python-3 script changes meaning (the stock Choice box of Choregraphe 1.x-2.1
//!   reads its sentences so).
//! - `import urllib` is rewritten only when the script uses a Python-2 `urllib` function
//!   (`quote`, `quote_plus`, `unquote`, `unquote_plus`, `urlencode` → `urllib.parse`;
//!   `urlopen`, `urlretrieve`, `urlcleanup`, `pathname2url`, `url2pathname`, `getproxies`,
//!   `URLopener`, `FancyURLopener`, `ContentTooShortError` → `urllib.request`);
//!   `import urllib as u` is left alone, as is a `from urllib import` of other names.
//! - `/`: in Python 2 two ints (bool and long too) divide to the floor (`7 / 2 == 3`,
//!   `-7 / 2 == -4`); the stock Single Eye LED box of Choregraphe 2.1 names its LED
//!   `"FaceLedLeft" + str((45 - n) % 360 / 45)`, and `x[len(x) / 2]` is common. The types
//!   are only known at run time, so every binary `/` goes through the builtin `__py2div__`
//!   (`division.rs`): `a @__py2div__/ b` is `(a @ __py2div__) / b`, and `@` has the
//!   precedence and the left-to-right grouping of `/`, so `a * b / c`, `a / b * c` and
//!   `a / b / c` group as they did. Two ints give `a // b`; anything else gets `a / b`
//!   itself (floats, `Fraction`, `Decimal`, numpy arrays and any type with its own
//!   `__truediv__` or `__rtruediv__` see exactly the call they saw). Only a `/` after an
//!   operand (a name, number, string or closing bracket) is rewritten, so the
//!   positional-only marker of `def f(a, /)` stays, as do `//`, `//=` and every `/` in a
//!   script with `from __future__ import division`. A `/` inside an f-string's braces
//!   (Python 3 only) is left alone.
//! - `a /= b` becomes `a = __py2div__(a, b)`: two ints give `a // b`, anything else gets
//!   `a /= b` itself (in place where the type divides in place, as numpy arrays do). Only
//!   when the target is on one line and has no call (a name, its attributes, subscripts of
//!   names, numbers and strings: evaluated twice, it only reads its container once more);
//!   any other `/=` is left as it is (an augmented `a @= ...` would evaluate it once, but
//!   hands the wrapper to `a`'s own in-place method first, and a numpy array's raises).
//! - `P.decode(args)`: Python 2's byte strings had a `decode` method and Python 3's `str` has
//!   none (`AttributeError: 'str' object has no attribute 'decode'`). Types are only known at
//!   run time, so every method call `.decode(...)` goes through the builtin `__py2decode__`
//!   (`py2.py`): `P` is the whole primary before `.decode` (a name or a number, a string
//!   literal or several in a row, a bracketed expression, then any attributes, calls and
//!   subscripts: `self.d[k].strip()`, `f.read()`, `'é'`, `(a + b)`), the call's
//!   arguments follow it, and what follows the call (`.split()`, `[0]`) applies to the
//!   result as before. Bytes are decoded as they are; a `str` is first encoded with UTF-8
//!   and `surrogateescape`, which gives back the bytes Python 2 held (the UTF-8 of the
//!   script's literals and of NAOqi's strings, and the bytes of a file, which the `open` of
//!   box scripts reads so), then decoded: `'é'.decode('utf-8') == 'é'`, and text read from a
//!   Latin-1 file decodes with `'latin-1'` to its characters; any other object (a codec's
//!   decoder, a class with its own `decode`, the `codecs` module) gets its own `decode`
//!   called with the same arguments. A `str` may have been a byte string or a unicode
//!   string in Python 2 and nothing tells which, so the step from text to bytes is UTF-8,
//!   not Python 2's default encoding, ASCII: with ASCII every non-ASCII byte string would
//!   fail, and decoding those is what `.decode('utf-8')` is for. `s.decode()` without an
//!   encoding uses UTF-8 as well, the same step both ways (Python 3's `bytes.decode`
//!   default; Python 2 scripts that needed it for non-ASCII text set their default
//!   encoding to UTF-8); Python 2 only raised where this gives the text, for a unicode
//!   string with non-ASCII characters. A `\xNN` escape above `\x7f` in a plain literal was
//!   a byte in Python 2 and is a character in Python 3, so `'\xc3\xa9'.decode('utf-8')`
//!   gives `'Ã©'` (Python 2: `'é'`). Only a call whose `.`, `decode` and `(` are on one
//!   line, after an operand (not a keyword, backticks or nothing), is rewritten; the
//!   call's own line breaks stay where they were. `x.decode` without a call (a bound
//!   method passed on) is left as it is.
//! - `P.encode(args)`: Python 2's `u.encode('utf-8')` gave a byte string, which scripts went
//!   on using as text (`data.replace("&", " and ")`, `"<" + data + ">"`, `data.split(",")`,
//!   `tts.say(data)`) as well as passing it where bytes go (`hashlib.md5`, a socket,
//!   `urlopen`'s data). Python 3's `bytes` refuses the first use. So every method call
//!   `.encode(...)` goes through the builtin `__py2encode__`, `P` read as for `decode`: a
//!   `str` (or `bytes`, read as UTF-8 with `surrogateescape`) is encoded, and the bytes come
//!   back as a *byte string*, a `bytes` subclass that takes text wherever Python 2's `str`
//!   did (its methods, `+`, `%`, `in`, `==` and `str()`, text arguments encoded with UTF-8)
//!   and crosses to the robot as text; Python 2's bytes-to-bytes codecs (`'hex'`,
//!   `'base64'`, `'zlib'`, ...) encode through `codecs`; any other object (a codec, an
//!   encoder, a class with its own `encode`) gets its own `encode` called with the same
//!   arguments. [`Rewrite::EncodeSplit`] comes first where it applies (its result is plain
//!   text). Not like Python 2: `isinstance(b, str)` is false for a byte string (use
//!   `basestring`), `json.dumps` refuses one, and a file opened for text refuses to write
//!   one (Python 2 wrote its bytes).
//!
//! Not rewritten (rare or absent in real scripts; Python 3 reports them when compiling):
//! tuple parameters `def f((a, b)):`, `from m import *` inside a function, list
//! comprehensions over a bare tuple `[x for x in 1, 2]`, non-ASCII bytes in `b''` literals.
//!
//! # What the host must provide
//!
//! Run-time differences are not syntax and stay as they are. The host should install
//! these Python-2 builtins into `builtins`: `unicode` (= `str`), `basestring` (= `str`),
//! `long` (= `int`), `xrange` (= `range`), `raw_input` (= `input`), `unichr` (= `chr`),
//! `reduce` (`functools.reduce`), `execfile`, `cmp`, `apply`, `intern` (`sys.intern`),
//! `buffer` (= `memoryview`), `__py2div__` for [`Rewrite::Division`] (`division.rs`),
//! `__py2decode__` for [`Rewrite::Decode`], `__py2encode__` for [`Rewrite::Encode`], and an `open` (and `file`, the same) that reads
//! text as UTF-8 with `surrogateescape`, so that any bytes read as text, write back as they
//! were, and decode as Python 2 decoded them; the removed modules `mutex`, `md5`, `sha` and
//! `sets` as shims (the fixer leaves their imports alone); and Python 2's capitalised `email`
//! modules (`email.Message`, `email.Utils`, `email.MIMEText`, ... → `email.message`,
//! `email.utils`, `email.mime.text`, ...) importable under their old names, in every import
//! form, and as attributes of `email` after a plain `import email`, as Python 2's lazy
//! importers gave them (`py2.py`; a dotted name cannot be renamed in the source and stay
//! bound).
//! Module attributes Python 3 removed are not put back: `string.letters` fails.
//!
//! # Where things are
//!
//! [`needs_fixing`] (`scan.rs`) decides whether a script goes further. [`fix_report`] then
//! tokenizes it (`tokenize.rs`), walks its logical lines (`driver.rs`) through the passes
//! (`statements.rs`: `print`, `exec`, `raise`, `except`; `imports.rs`: renamed modules and
//! `urllib`; `expressions.rs`: the token-level rewrites inside expressions: `<>`, `/`, dict
//! methods, `.decode`/`.encode`, `async`/`await`; `literals.rs`: numbers and `ur''`
//! strings; `indentation.rs`: tabs), which collect edits, and makes the edits at the end
//! (`edit.rs`). The kinds of rewrite and the report are in `rewrite.rs`.

mod driver;
mod edit;
mod expressions;
mod imports;
mod indentation;
mod literals;
mod rewrite;
mod scan;
mod statements;
pub(crate) mod tokenize;

pub use rewrite::{Change, Fixed, Rewrite};
pub use scan::needs_fixing;

use driver::Fixer;
use edit::apply;
use tokenize::tokenize;

/// Returns `source` rewritten for Python 3, with the same number of lines.
pub fn fix(source: &str) -> String {
    fix_report(source).text
}

/// Returns `source` rewritten for Python 3, with the same number of lines, and the list of
/// rewrites made.
pub fn fix_report(source: &str) -> Fixed {
    if !needs_fixing(source) {
        return Fixed {
            text: source.to_string(),
            changes: Vec::new(),
        };
    }
    fix_tokens(source)
}

/// [`fix_report`] without the quick scan.
fn fix_tokens(source: &str) -> Fixed {
    let toks = tokenize(source);
    let mut fixer = Fixer::new(source, &toks);
    fixer.run();
    let Fixer {
        mut edits,
        mut changes,
        ..
    } = fixer;
    if edits.is_empty() {
        return Fixed {
            text: source.to_string(),
            changes: Vec::new(),
        };
    }
    let text = apply(source, &mut edits);
    if line_breaks(&text) != line_breaks(source) {
        // Never reached by construction; kept so that lines can never move.
        return Fixed {
            text: source.to_string(),
            changes: Vec::new(),
        };
    }
    changes.sort_by_key(|c| c.line);
    Fixed { text, changes }
}

/// The number of line breaks (`\n`, `\r\n` or a lone `\r`) in `s`.
fn line_breaks(s: &str) -> usize {
    let b = s.as_bytes();
    b.iter()
        .enumerate()
        .filter(|&(i, &c)| c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')))
        .count()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::{fix_tokens, needs_fixing};

    /// What the quick scan lets through, the fixer leaves alone.
    fn sound(s: &str) -> Result<(), TestCaseError> {
        if !needs_fixing(s) {
            let fixed = fix_tokens(s);
            prop_assert_eq!(&fixed.text, s);
            prop_assert!(fixed.changes.is_empty());
        }
        Ok(())
    }

    /// Python 2.7's tokenizer (`Parser/tokenizer.c`) reads an `L` suffix after an integer
    /// only: `0.e10L07print` is the float `0.e10` then the name `L07print`, nothing to
    /// rewrite (a case proptest found: `07` was taken for an octal number).
    #[test]
    fn an_l_after_a_float_starts_a_name() {
        for s in ["0.e10L07print", "1.5L07", "x = 1e5L0777"] {
            let fixed = fix_tokens(s);
            assert_eq!(fixed.text, s);
            assert!(fixed.changes.is_empty(), "{s}");
        }
        assert_eq!(fix_tokens("x = 10L + 0777L").text, "x = 10 + 0o777");
    }

    /// Code near every rewrite, most of it left alone by the fixer.
    #[rustfmt::skip]
    const BITS: &[&str] = &[
        "print", "print(", "print (", "exec", "exec(", "raise", "raise E", "except", "except:",
        "except E", "import", "from", "as", "async", "await", "qi", "urllib", "Queue", "thread",
        "threading", "has_key", "iteritems", "in", "x", "e", "é", "\u{feff}", "self.x", "lambda",
        ".", ",", ":", ";", "(", ")", "[", "]", "{", "}", "),", "a,", ", v", "v)", "`", "<", ">",
        "<>", ">>", "=", "0", "00", "07", "0777", "0x1F", "0xFFL", "...", "...0777", "1.05", "0.",
        ".0777", "x1.07", "1e-05", "10", "10L", "1l", "1e5", "1e", "1.5", ".5", "1_0", "1j",
        "1if", "0b1", "0o7", "u", "r", "ur", "UR", "uR'", "b", "'", "\"", "'''", "'a, b'",
        "\"x\"", "\\", "\\\n", "\n", "\r\n", "\r", "\t", " ", "    ", "\x0c", "#", "#c",
        "# print x", "/", "//", "/=", "//=", "a /", "/ b", "@", "__py2div__", "def f(a, /",
        "from __future__ import division", "'a/b'", "# a/b", "'''/", "\"/", "decode",
        ".decode(", "x.decode", "decode (", "\t.", "'u'", "f.read()",
    ];

    /// How the lines of [`script`] start.
    #[rustfmt::skip]
    const STARTS: &[&str] = &[
        "print", "exec", "raise", "raise E", "except", "except E", "except (A, B)", "import",
        "from", "x =", "if x:", "try: pass", "else: raise", "x = 1;", "async", "#", "",
        "raise E(a, b)", "raise E('a, b')", "raise E(", "raise E('''a", "except (A,",
        "raise E \\", "except E(\"", "raise E #", "raise E(x);",
    ];

    /// What follows `raise E` or `except E` in a statement.
    #[rustfmt::skip]
    const AFTER_RAISE: &[&str] = &[
        "(", ")", "[", "]", ",", "'a'", "'''", "\"", "\n", "\\\n", "#", ";", "x", " ",
    ];

    /// Lines that start like statements, indented with tabs, spaces or both.
    fn script(lines: &[(&str, &str, Vec<&str>)]) -> String {
        lines
            .iter()
            .map(|(indent, start, rest)| format!("{indent}{start} {}\n", rest.join(" ")))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 4000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn quick_scan_misses_no_rewrite(
            parts in proptest::collection::vec(proptest::sample::select(BITS), 0..40)
        ) {
            sound(&parts.join(" "))?;
            sound(&parts.concat())?;
        }

        #[test]
        fn quick_scan_misses_no_rewrite_in_statements(
            lines in proptest::collection::vec(
                (
                    proptest::sample::select(&["", "    ", "\t", "        ", " \t"][..]),
                    proptest::sample::select(STARTS),
                    proptest::collection::vec(proptest::sample::select(BITS), 0..8),
                ),
                1..6,
            )
        ) {
            sound(&script(&lines))?;
        }

        #[test]
        fn quick_scan_misses_no_rewrite_after_raise_and_except(
            start in proptest::sample::select(&["raise E", "except E", "if x: raise E"][..]),
            rest in proptest::collection::vec(proptest::sample::select(AFTER_RAISE), 0..12)
        ) {
            sound(&format!("{start}{}", rest.concat()))?;
        }

        #[test]
        fn quick_scan_misses_no_rewrite_on_any_string(s in any::<String>()) {
            sound(&s)?;
        }
    }

    #[test]
    fn python3_code_skips_the_fixer() {
        let clean = [
            "import time\n\nclass MyClass(GeneratedClass):\n    def onLoad(self):\n        \
             self.x = [1, 2.5, 0x1F, 1e-5, 0]\n",
            "try:\n    f(a, b)\nexcept (A, B) as e:\n    raise RuntimeError(e) from None\n",
            "print(x, y)\nprint (x)\nx = {'a': (1, 2)}  # note\n",
            "except TypeError: # if NAOqi < 1.14\n",
            // Strings and comments are skipped: nothing in them is rewritten.
            "x = a // 2  # print x / 2, `y`\np = '/home/nao/' + \"a/b\" + '''\nprint x\n'''\n",
            // A `decode` that is no method call.
            "f = s.decode\ndef decode(self, s):\n    return s  # s.decode('u')\n",
        ];
        for s in clean {
            assert!(!needs_fixing(s), "{s}");
        }
        let python2 = [
            "print x",
            "print",
            "exec c",
            "raise E, v",
            "except E, e:",
            "a <> b",
            "0777",
            "10L",
            "ur'x'",
            "`x`",
            "qi.async(f)",
            "x.async",
            "import Queue",
            "from urllib import urlopen",
            "if x:\n\tpass\n        pass\n",
            "d.iteritems()",
            "d.has_key(k)",
            "raise E(\n a), v",
            "a / b",
            "a /= b",
            "'''x''' / 2",
            "s.decode('utf-8')",
            "f(x) . decode\t()",
        ];
        for s in python2 {
            assert!(needs_fixing(s), "{s}");
        }
    }

    /// Every script of the shared corpus: what the quick scan lets through needs no rewrite.
    #[test]
    fn quick_scan_on_the_corpus() {
        let Some(dir) = choreo_testkit::corpus("corpus quick-scan test") else {
            return;
        };
        let (mut scripts, mut skipped, mut unchanged) = (0, 0, 0);
        for p in choreo_testkit::files_under(&dir, &|_| true) {
            let Ok(project) = choreo_xar::source::load_path(&p) else {
                continue;
            };
            let mut boxes: Vec<_> = project.behaviors.iter().map(|b| &b.xar.root_box).collect();
            while let Some(b) = boxes.pop() {
                let code = b.code();
                if !code.trim().is_empty() {
                    scripts += 1;
                    let fixed = fix_tokens(code);
                    unchanged += usize::from(fixed.changes.is_empty());
                    if !needs_fixing(code) {
                        skipped += 1;
                        assert_eq!(fixed.text, code, "{}: {}", p.display(), b.name);
                    }
                }
                boxes.extend(b.diagrams().flat_map(|d| &d.boxes));
            }
        }
        println!(
            "quick scan: {skipped} of {scripts} corpus scripts skip the fixer \
             ({unchanged} need no rewrite)"
        );
    }
}
