//! The Python-2 fixer: one test per rewrite (input → expected output, lines kept, output
//! compiles with CPython 3.11), strings and comments untouched, no panic on any input, and
//! every distinct box script of the shared corpus compiling after fixing.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use choreo_python::fixer::{Rewrite, fix, fix_report};
use proptest::prelude::*;
use pyo3::prelude::*;

use crate::support::corpus::corpus_scripts;

fn lines(s: &str) -> usize {
    let b = s.as_bytes();
    b.iter()
        .enumerate()
        .filter(|&(i, &c)| c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')))
        .count()
}

/// Compiles `src` with CPython; the error as `line: message`.
fn compile(src: &str, name: &str) -> Result<(), String> {
    Python::attach(|py| {
        let warnings = py.import("warnings").unwrap();
        warnings.call_method1("simplefilter", ("ignore",)).unwrap();
        let compile = py.import("builtins").unwrap().getattr("compile").unwrap();
        compile.call1((src, name, "exec")).map(|_| ()).map_err(|e| {
            let v = e.value(py);
            let line = v
                .getattr("lineno")
                .and_then(|l| l.extract::<i64>())
                .unwrap_or(0);
            let text = v
                .getattr("text")
                .and_then(|l| l.extract::<String>())
                .unwrap_or_default();
            format!("line {line}: {e} | {}", text.trim())
        })
    })
}

/// The value of the Python expression `expr`, as a string.
fn eval_str(expr: &str) -> String {
    Python::attach(|py| {
        let builtins = py.import("builtins").unwrap();
        builtins
            .getattr("eval")
            .unwrap()
            .call1((expr, pyo3::types::PyDict::new(py)))
            .unwrap()
            .extract::<String>()
            .unwrap()
    })
}

/// `input` fixes to `expected`, with the same lines, the output compiles, and the rewrites
/// reported are `what`.
fn check(input: &str, expected: &str, what: &[Rewrite]) {
    let fixed = fix_report(input);
    assert_eq!(fixed.text, expected, "input:\n{input}");
    assert_eq!(lines(&fixed.text), lines(input));
    let reported: Vec<Rewrite> = fixed.changes.iter().map(|c| c.what).collect();
    assert_eq!(reported, what, "input:\n{input}");
    assert_eq!(fix(expected), expected, "fixing twice changes:\n{expected}");
    if let Err(e) = compile(&fixed.text, "<test>") {
        panic!("output does not compile: {e}\n{}", fixed.text);
    }
}

/// `input` is left exactly as it is.
fn unchanged(input: &str) {
    let fixed = fix_report(input);
    assert_eq!(fixed.text, input);
    assert!(fixed.changes.is_empty(), "{:?}", fixed.changes);
}

#[test]
fn except_comma() {
    use Rewrite::ExceptComma as E;
    check(
        "try:\n    pass\nexcept RuntimeError, e:\n    pass\n",
        "try:\n    pass\nexcept RuntimeError as e:\n    pass\n",
        &[E],
    );
    check(
        "try:\n    pass\nexcept (IOError, os.error), err:\n    pass\n",
        "try:\n    pass\nexcept (IOError, os.error) as err:\n    pass\n",
        &[E],
    );
    check(
        "try: pass\nexcept Exception,e: print(e)\n",
        "try: pass\nexcept Exception as e: print(e)\n",
        &[E],
    );
    unchanged("try:\n    pass\nexcept (A, B) as e:\n    pass\nexcept:\n    pass\n");
}

#[test]
fn print_statement() {
    use Rewrite::PrintStatement as P;
    check("print \"x\"\n", "print(\"x\")\n", &[P]);
    check("print x, y\n", "print(x, y)\n", &[P]);
    check("print x,\n", "print(x, end=\" \")\n", &[P]);
    check("print\n", "print()\n", &[P]);
    check(
        "import sys\nprint >>sys.stderr, x\n",
        "import sys\nprint(x, file=sys.stderr)\n",
        &[P],
    );
    check(
        "import sys\nprint >>sys.stderr, \"a %s\" % b,\n",
        "import sys\nprint(\"a %s\" % b, end=\" \", file=sys.stderr)\n",
        &[P],
    );
    check("print >>f\n", "print(file=f)\n", &[P]);
    check(
        "def f(self):\n\tif x: print \"a\"; print\n",
        "def f(self):\n\tif x: print(\"a\"); print()\n",
        &[P, P],
    );
    check(
        "print \"a\", \\\n    b  # c\n",
        "print(\"a\", \\\n    b)  # c\n",
        &[P],
    );
    check("print -1\n", "print(-1)\n", &[P]);
    unchanged("print(x)\nprint (x, y)\nprint(x, file=f)\nprint = log\nprint.x\n");
    unchanged("from __future__ import print_function\nprint(x)\n");
}

#[test]
fn exec_statement() {
    use Rewrite::ExecStatement as X;
    check("exec code\n", "exec(code)\n", &[X]);
    check("exec code in ns\n", "exec(code, ns)\n", &[X]);
    check("exec \"a = 1\" in g, l\n", "exec(\"a = 1\", g, l)\n", &[X]);
    unchanged("exec(code)\nexec(code, ns)\n");
}

#[test]
fn raise_comma() {
    use Rewrite::RaiseComma as R;
    check(
        "raise ValueError, \"bad\"\n",
        "raise ValueError(\"bad\")\n",
        &[R],
    );
    check("raise E, (1, 2)\n", "raise E(*(1, 2))\n", &[R]);
    check(
        "raise E, \"m\", tb\n",
        "raise E(\"m\").with_traceback(tb)\n",
        &[R],
    );
    unchanged("raise E(\"m\")\nraise\nraise E(a, b) from c\n");
}

#[test]
fn not_equal() {
    check(
        "if a <> b:\n    pass\n",
        "if a != b:\n    pass\n",
        &[Rewrite::NotEqual],
    );
}

#[test]
fn dict_methods() {
    check(
        "for k, v in d.iteritems():\n    if d.has_key(k) and k in d.iterkeys():\n        x = list(d.itervalues())\n",
        "for k, v in d.items():\n    if d.__contains__(k) and k in d.keys():\n        x = list(d.values())\n",
        &[
            Rewrite::DictMethod,
            Rewrite::DictMethod,
            Rewrite::DictMethod,
            Rewrite::DictMethod,
        ],
    );
    // A name that is not a method call stays.
    unchanged("iteritems = 1\nf(has_key)\n");
}

#[test]
fn octal_and_long_literals() {
    check(
        "os.chmod(p, 0777)\n",
        "os.chmod(p, 0o777)\n",
        &[Rewrite::OctalLiteral],
    );
    check(
        "x = 10L + 0xFFL\n",
        "x = 10 + 0xFF\n",
        &[Rewrite::LongLiteral, Rewrite::LongLiteral],
    );
    check(
        "x = 0777L\n",
        "x = 0o777\n",
        &[Rewrite::OctalLiteral, Rewrite::LongLiteral],
    );
    unchanged("x = 0 + 00 + 0.5 + 1e10 + 0x1f + 0o17 + 1j + 10 + .5 + 0.07\n");
}

#[test]
fn ur_strings() {
    use Rewrite::UrString as U;
    check(
        "p = re.compile(ur'\\d+\\s')\n",
        "p = re.compile(r'\\d+\\s')\n",
        &[U],
    );
    check("s = UR\"x\"\n", "s = R\"x\"\n", &[U]);
    // Python 2 processed \u escapes in `ur` strings and kept every other backslash.
    check(
        "data = re.sub(ur'[\\u007b-\\uffff]', '', data)\n",
        "data = re.sub('[\\u007b-\\uffff]', '', data)\n",
        &[U],
    );
    let fixed = fix("ur'\\u00e9\\d\\\\u0041\\''");
    assert_eq!(eval_str(&fixed), "\u{e9}\\d\\\\u0041\\'");
    let fixed = fix("ur'''a\\u0041'b\n\\c'''");
    assert_eq!(eval_str(&fixed), "aA'b\n\\c");
    let fixed = fix("ur'\\u0041\\\nb'");
    assert_eq!(lines(&fixed), 1);
    assert_eq!(eval_str(&fixed), "A\\\nb");
    unchanged("s = u'x' + r'\\d' + b'y' + br'z' + rb'w' + f'{x}' + Rb'v'\n");
}

#[test]
fn backticks() {
    check(
        "s = `x` + `y.z`\n",
        "s = repr(x) + repr(y.z)\n",
        &[Rewrite::Backticks, Rewrite::Backticks],
    );
}

#[test]
fn qi_async() {
    check(
        "self.waiting = qi.async(self.triggerOutput, delay=int(t * 1000 * 1000))\n",
        "self.waiting = qi.runAsync(self.triggerOutput, delay=int(t * 1000 * 1000))\n",
        &[Rewrite::QiAsync],
    );
    check(
        "from qi import async\nf = async(g, delay=5)\n",
        "from qi import runAsync as async_\nf = async_(g, delay=5)\n",
        &[Rewrite::QiAsync, Rewrite::KeywordName],
    );
    check(
        "from qi import async as a, Future\n",
        "from qi import runAsync as a, Future\n",
        &[Rewrite::QiAsync],
    );
}

#[test]
fn async_and_await_as_names() {
    use Rewrite::KeywordName as K;
    check(
        "class A:\n    def async(self, await=1):\n        self.async = await\n",
        "class A:\n    def async_(self, await_=1):\n        self.async_ = await_\n",
        &[K, K, K, K],
    );
    unchanged("async def f():\n    await g()\n    async with a:\n        pass\n");
}

#[test]
fn renamed_modules() {
    use Rewrite::RenamedModule as M;
    check(
        "import urllib2\nimport Queue, os\nimport thread as t\n",
        "import urllib.request as urllib2\nimport queue as Queue, os\nimport _thread as t\n",
        &[M, M, M],
    );
    check(
        "import StringIO\ns = StringIO.StringIO()\n",
        "import io as StringIO\ns = StringIO.StringIO()\n",
        &[M],
    );
    check(
        "from urllib2 import urlopen\nfrom cStringIO import StringIO\nimport httplib, __builtin__\n",
        "from urllib.request import urlopen\nfrom io import StringIO\nimport http.client as httplib, builtins as __builtin__\n",
        &[M, M, M, M],
    );
    unchanged("import os, sys\nimport urllib.request\nfrom queue import Queue\nimport mutex\n");
}

#[test]
fn urllib() {
    use Rewrite::Urllib as U;
    check(
        "import urllib\ndata = urllib.urlencode(v)\nf = urllib.urlopen(u)\n",
        "import urllib.request, urllib.parse\ndata = urllib.parse.urlencode(v)\nf = urllib.request.urlopen(u)\n",
        &[U, U, U],
    );
    check(
        "from urllib import urlencode, urlopen as o\n",
        "from urllib.parse import urlencode; from urllib.request import urlopen as o\n",
        &[U],
    );
    check(
        "from urllib import quote\n",
        "from urllib.parse import quote\n",
        &[U],
    );
    unchanged("import urllib\nx = urllib.parse.quote(s)\n");
}

#[test]
fn division() {
    use Rewrite::Division as D;
    check("x = a / b\n", "x = a @__py2div__/ b\n", &[D]);
    check("i = len(x)/2\n", "i = len(x)@__py2div__/2\n", &[D]);
    // Left to right among `*`, `/`, `%`, `//`, `@`; `**` and unary minus bind tighter.
    check(
        "x = a * b / c\ny = a / b * c\nz = a / b / c\n",
        "x = a * b @__py2div__/ c\ny = a @__py2div__/ b * c\nz = a @__py2div__/ b @__py2div__/ c\n",
        &[D, D, D, D],
    );
    check(
        "n = (45 - n) % 360 / 45\nm = -a / -b ** 2 + 1\n",
        "n = (45 - n) % 360 @__py2div__/ 45\nm = -a @__py2div__/ -b ** 2 + 1\n",
        &[D, D],
    );
    check(
        "f(x[1] / 2., 'a' / b, {}/c)\n",
        "f(x[1] @__py2div__/ 2., 'a' @__py2div__/ b, {}@__py2div__/c)\n",
        &[D, D, D],
    );
    // Lines stay where they were.
    check(
        "x = (a\n     / b)\ny = a \\\n  / b\n",
        "x = (a\n     @__py2div__/ b)\ny = a \\\n  @__py2div__/ b\n",
        &[D, D],
    );
    check(
        "print x / 2\n",
        "print(x @__py2div__/ 2)\n",
        &[D, Rewrite::PrintStatement],
    );
    // `/=`: the divisor is the whole right side; the target, read twice, has no call.
    check("x /= 2\n", "x = __py2div__(x, 2)\n", &[D]);
    check(
        "self.a[i] /=n + 1  # halve\nif c: y /= a / b; z = 1\n",
        "self.a[i] = __py2div__(self.a[i], n + 1)  # halve\nif c: y = __py2div__(y, a @__py2div__/ b); z = 1\n",
        &[D, D, D],
    );
    check(
        "d['k', -1] /= (a +\n      b)\n",
        "d['k', -1] = __py2div__(d['k', -1], (a +\n      b))\n",
        &[D],
    );
    // A target other rewrites change is read as they made it.
    check(
        "d[0777] /= 2\nx.async /= 2\n",
        "d[0o777] = __py2div__(d[0o777], 2)\nx.async_ = __py2div__(x.async_, 2)\n",
        &[Rewrite::OctalLiteral, D, Rewrite::KeywordName, D],
    );
    // Not a target with a call (read twice, it would call twice) or over two lines.
    unchanged("f().x /= 2\nx[g(1)] /= 2\n(a\n ).b /= 2\nd[a,\n  b] /= 2\n");
    unchanged("def f():\n    x /= yield\n");
    unchanged("x = a // b\nx //= 2\ns = 'a / b' + \"/\"  # c / d\nt = '''\n/ x\n'''\n");
    // The positional-only marker of Python 3.
    unchanged("def f(a, /, b):\n    return a\ng = lambda a, /: a\n");
    unchanged("from __future__ import division\nx = a / b\nx /= 2\n");
    unchanged("from __future__ import (print_function,\n    division)\nx = a / b\n");
}

#[test]
fn decode() {
    use Rewrite::Decode as D;
    // Receivers of every shape: the whole primary before `.decode`.
    check(
        "data = unicode(data.decode('utf-8'))\n",
        "data = unicode(__py2decode__(data, 'utf-8'))\n",
        &[D],
    );
    check(
        "a = self.d['k'].strip().decode( 'latin-1' )\nb = f(x)[0].decode()\n",
        "a = __py2decode__(self.d['k'].strip(), 'latin-1' )\nb = __py2decode__(f(x)[0])\n",
        &[D, D],
    );
    check(
        "s = 'caf' \"e\".decode('ascii') + (a + b).decode(\"utf-8\", errors='ignore')\n",
        "s = __py2decode__('caf' \"e\", 'ascii') + __py2decode__((a + b), \"utf-8\", errors='ignore')\n",
        &[D, D],
    );
    check(
        "x = -[a][0].decode(*args) * {}.decode(**kw)\n",
        "x = -__py2decode__([a][0], *args) * __py2decode__({}, **kw)\n",
        &[D, D],
    );
    // What follows the call applies to its result; decodes chain and nest.
    check(
        "w = line.decode('utf-8').split()[0]\n",
        "w = __py2decode__(line, 'utf-8').split()[0]\n",
        &[D],
    );
    check(
        "t = s.decode('u').decode('v')\nu = f(g.decode(e).lower())\n",
        "t = __py2decode__(__py2decode__(s, 'u'), 'v')\nu = f(__py2decode__(g, e).lower())\n",
        &[D, D, D],
    );
    // Multi-line calls and receivers keep every line break.
    check(
        "x = (urllib2.urlopen(u)\n     .read().decode(\n    'utf-8'))\ny = z.decode(\n)\n",
        "x = (__py2decode__(urllib2.urlopen(u)\n     .read(), \n    'utf-8'))\ny = __py2decode__(z\n)\n",
        &[D, D],
    );
    check(
        "y = a \\\n  .b.decode('x')\n",
        "y = __py2decode__(a \\\n  .b, 'x')\n",
        &[D],
    );
    // Next to the other rewrites, whose edits start where the primary does.
    check(
        "print s.decode('utf-8')\nprint -(t).decode('x')\n",
        "print(__py2decode__(s, 'utf-8'))\nprint(-__py2decode__((t), 'x'))\n",
        &[D, Rewrite::PrintStatement, D, Rewrite::PrintStatement],
    );
    // `print (t)` stays a call, as `print (a, b)` does.
    check(
        "print (t).decode('x')\n",
        "__py2decode__(print (t), 'x')\n",
        &[D],
    );
    check(
        "import urllib\nx = urllib.urlopen(u).read().decode('utf-8')\ny = ur'\\d'.decode('x')\n",
        "import urllib.request, urllib.parse\nx = __py2decode__(urllib.request.urlopen(u).read(), 'utf-8')\ny = __py2decode__(r'\\d', 'x')\n",
        &[Rewrite::Urllib, D, Rewrite::Urllib, Rewrite::UrString, D],
    );
    check(
        "raise E, m.decode('u')\nd[0777] /= len(n.decode())\n",
        "raise E(__py2decode__(m, 'u'))\nd[0o777] = __py2div__(d[0o777], len(__py2decode__(n)))\n",
        &[
            D,
            Rewrite::RaiseComma,
            Rewrite::OctalLiteral,
            D,
            Rewrite::Division,
        ],
    );
    check(
        "if x.decode('u') == y: pass\nz = not w.decode()\n",
        "if __py2decode__(x, 'u') == y: pass\nz = not __py2decode__(w)\n",
        &[D, D],
    );
    // Codecs and classes with a `decode` of their own go through it too (and call theirs).
    check(
        "r = codecs.getdecoder('utf-8')(b)[0]\nq = self.decoder.decode(b, final=True)\n",
        "r = codecs.getdecoder('utf-8')(b)[0]\nq = __py2decode__(self.decoder, b, final=True)\n",
        &[D],
    );
    // Not a call: a bound method, a definition, an assignment; not in strings or comments;
    // not across a line break between `.`, `decode` and `(`; not after no operand.
    unchanged("f = s.decode\nmap(x.decode, l)\ndef decode(self, s):\n    self.decode = 1\n");
    unchanged("s = 'x.decode(\"u\")'  # y.decode('u')\nt = '''\na.decode()\n'''\n");
    unchanged("x = (a.\n     decode('u'))\ny = (a\n     .decode\n     ('u'))\n");
    unchanged("from .decode import x\nfrom ..decode import y\n");
    check(
        "x = `y`.decode()\nz = ....decode()\n",
        "x = __py2decode__(repr(y))\nz = __py2decode__(...)\n",
        &[Rewrite::Backticks, D, D],
    );
}

#[test]
fn encode() {
    use Rewrite::Encode as E;
    // The corpus's uses: text on, into a hash, into a request.
    check(
        "data = data.encode('utf-8')\nh = hashlib.md5(s.encode('utf-8')).hexdigest()\n",
        "data = __py2encode__(data, 'utf-8')\nh = hashlib.md5(__py2encode__(s, 'utf-8')).hexdigest()\n",
        &[E, E],
    );
    check(
        "r = self.opener.open(self.bot.url, data.encode('utf-8'))\nw = res['A'].encode('utf-8')\n",
        "r = self.opener.open(self.bot.url, __py2encode__(data, 'utf-8'))\nw = __py2encode__(res['A'], 'utf-8')\n",
        &[E, E],
    );
    // Chained with decode, both ways; classes with an `encode` of their own go through it.
    check(
        "t = s.decode('u').encode('v')\nb = Header(n).encode()\n",
        "t = __py2encode__(__py2decode__(s, 'u'), 'v')\nb = __py2encode__(Header(n))\n",
        &[Rewrite::Decode, E, E],
    );
    // `.encode("utf-8").split("x")` stays the plain text split it was.
    check(
        "w = n.getAttribute('text').encode('utf-8').split('/')\nv = m.encode('utf-8').split()\n",
        "w = n.getAttribute('text').split('/')\nv = __py2encode__(m, 'utf-8').split()\n",
        &[Rewrite::EncodeSplit, E],
    );
    // Not a call, not in strings, not across a line break.
    unchanged("f = s.encode\ndef encode(self):\n    pass\ns = 'x.encode()'  # y.encode()\n");
    unchanged("x = (a.\n     encode('u'))\n");
}

#[test]
fn tab_indentation() {
    use Rewrite::TabIndent as T;
    check(
        "if x:\n\tif y:\n\t    a = 1\n        b = '\t'\n",
        "if x:\n        if y:\n            a = 1\n        b = '\t'\n",
        &[T, T],
    );
    // Tabs alone (or spaces alone) are consistent: left as they are.
    unchanged("if x:\n\tif y:\n\t\ta = 1\n");
}

#[test]
fn python3_is_untouched() {
    let src = "import asyncio, queue, urllib.request\n\
         from typing import Optional\n\
         async def f(x: int, *, y: Optional[str] = None) -> int:\n\
         \tawait asyncio.sleep(0)\n\
         \tasync for a in g():\n\
         \t\tprint(a, end=' ', file=sys.stderr)\n\
         \treturn (n := x @ y)\n\
         def g():\n\
         \tnonlocal_ = {k: v for k, v in d.items()}\n\
         \tyield from range(0o17, 0x1F, 0b1)\n\
         \tif (lambda: 1)(): exec(\"pass\", {}); print(f'{x!r:>10}')\n\
         \ttry:\n\
         \t\traise ValueError(\"a\") from None\n\
         \texcept (A, B) as e:\n\
         \t\tprint (e, 1)\n\
         \tprint(rb'\\d', Rb\"x\", u'\\u00e9', ...)\n\
         \tqi.runAsync(f, delay=5)\n";
    compile(src, "<py3>").unwrap();
    unchanged(src);
}

#[test]
fn strings_and_comments_are_untouched() {
    unchanged(
        "s = \"print x; except A, e: <> 0777 10L `x` qi.async( import Queue\"\n\
         t = '''\nprint x\nexcept E, e:\n  a <> b\n'''  # print x <> `y` 0777\n\
         # raise E, m\n\
         u = \"a\\\n<> 0777\"\n",
    );
}

#[test]
fn crlf_and_odd_input_keep_lines() {
    check(
        "print x\r\nexcept_ = 1 <> 2\r\n",
        "print(x)\r\nexcept_ = 1 != 2\r\n",
        &[Rewrite::PrintStatement, Rewrite::NotEqual],
    );
    for s in [
        "",
        "\n",
        "print",
        "'''",
        "ur'",
        "print >>",
        "raise E,",
        "exec",
        "`",
        "(\n",
        ")\n)\n",
        "\\",
        "print \"a\" \\\n",
    ] {
        assert_eq!(lines(&fix(s)), lines(s), "{s:?}");
    }
}

const PY2_BITS: &[&str] = &[
    "print",
    "exec",
    "raise",
    "except",
    "import",
    "from",
    "async",
    "await",
    "qi",
    ".",
    ",",
    ":",
    ";",
    "(",
    ")",
    "[",
    "]",
    "`",
    "<>",
    ">>",
    "0777",
    "10L",
    "ur'",
    "'",
    "\"",
    "'''",
    "\\",
    "\n",
    "\r",
    "\t",
    " ",
    "    ",
    "#",
    "in",
    "urllib",
    "Queue",
    "as",
    "x",
    "e",
    "é",
    "/",
    "//",
    "/=",
    "@",
    "__py2div__",
    "from __future__ import division",
    "decode",
    ".decode(",
];

/// Python-2 simple statements the generated scripts are made of.
const PY2_STATEMENTS: &[&str] = &[
    "print x",
    "print x, y",
    "print x,",
    "print",
    "print >>f, x",
    "print >>sys.stderr, `x`,",
    "print \"a %s\" % (b,)",
    "print -1, not x",
    "exec code",
    "exec code in ns",
    "exec \"x = 1\" in g, l",
    "raise E, m",
    "raise E, (1, 2)",
    "raise E, m, tb",
    "x = a <> b",
    "x = 0777 + 10L + 0xFFL",
    "s = ur'\\u00e9\\d' + UR\"\\w\"",
    "s = `x` + `y.z`",
    "f = qi.async(g, delay=5)",
    "self.async = async",
    "import Queue, urllib2 as u, thread",
    "from StringIO import StringIO",
    "import urllib",
    "d = urllib.urlencode(v)",
    "from urllib import urlencode, urlopen",
    "x = 1; print x; y = 2",
    "x = a * b / c % d / -e ** 2",
    "x[len(x) / 2] /= 2.0",
    "s = f(x).read().decode('latin-1').split()[0]",
    "print d['k'].decode('utf-8'), (a +\n  b).decode(\n  'u')",
    "pass",
    "s = 'print x <> `y`'  # print x",
];

/// A Python-2 script made of `stmts`, with blocks indented by a tab or by 8 spaces.
fn py2_script(stmts: &[(&str, usize, bool)]) -> String {
    let mut out = String::new();
    for &(stmt, shape, tab) in stmts {
        let ind = if tab { "\t" } else { "        " };
        match shape {
            0 => out.push_str(&format!("{stmt}\n")),
            1 => out.push_str(&format!("def f():\n{ind}{stmt}\n")),
            2 => out.push_str(&format!("try:\n{ind}{stmt}\nexcept E, e:\n    {stmt}\n")),
            3 => out.push_str(&format!("if c: {stmt}\n")),
            _ => out.push_str(&format!("class A:\n    def f(self):\n{ind}{ind}{stmt}\n")),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_python2_scripts_compile_after_fixing(
        stmts in proptest::collection::vec(
            (proptest::sample::select(PY2_STATEMENTS), 0..5usize, any::<bool>()),
            1..12,
        )
    ) {
        let src = py2_script(&stmts);
        let fixed = fix(&src);
        prop_assert_eq!(lines(&fixed), lines(&src));
        prop_assert_eq!(fix(&fixed), fixed.clone());
        if let Err(e) = compile(&fixed, "<generated>") {
            prop_assert!(false, "{e}\n{src}\n---\n{fixed}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn never_panics_and_keeps_lines_on_any_string(s in any::<String>()) {
        let fixed = fix(&s);
        prop_assert_eq!(lines(&fixed), lines(&s));
    }

    #[test]
    fn never_panics_and_keeps_lines_on_bytes(b in proptest::collection::vec(any::<u8>(), 0..300)) {
        let s = String::from_utf8_lossy(&b);
        prop_assert_eq!(lines(&fix(&s)), lines(&s));
    }

    #[test]
    fn never_panics_and_keeps_lines_on_python2_soup(
        parts in proptest::collection::vec(proptest::sample::select(PY2_BITS), 0..80)
    ) {
        let s = parts.join(" ");
        let fixed = fix_report(&s);
        prop_assert_eq!(lines(&fixed.text), lines(&s));
        let s = parts.concat();
        prop_assert_eq!(lines(&fix(&s)), lines(&s));
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus

#[test]
fn every_corpus_script_compiles_after_fixing() {
    let Some(dir) = choreo_testkit::corpus("corpus fixer test") else {
        return;
    };
    let (scripts, unreadable) = corpus_scripts(&dir);
    let before: usize = scripts
        .iter()
        .filter(|(s, p)| compile(s, p).is_ok())
        .count();

    let started = Instant::now();
    let fixed: Vec<_> = scripts.keys().map(|s| fix_report(s)).collect();
    let fix_time = started.elapsed();

    let mut failures = Vec::new();
    let mut counts: BTreeMap<Rewrite, (usize, BTreeSet<usize>)> = BTreeMap::new();
    let (mut needed, mut valid_changed) = (0, Vec::new());
    for (i, ((src, path), f)) in scripts.iter().zip(&fixed).enumerate() {
        assert_eq!(lines(&f.text), lines(src), "{path}: line count changed");
        assert_eq!(fix(&f.text), f.text, "{path}: fixing twice changes it");
        if !f.changes.is_empty() {
            needed += 1;
            if compile(src, path).is_ok() {
                valid_changed.push((
                    path,
                    f.changes.iter().map(|c| c.what).collect::<BTreeSet<_>>(),
                ));
            }
        }
        for c in &f.changes {
            let e = counts.entry(c.what).or_default();
            e.0 += 1;
            e.1.insert(i);
        }
        if let Err(e) = compile(&f.text, path) {
            failures.push(format!("{path}: {e}"));
        }
    }
    let started = Instant::now();
    for f in &fixed {
        compile(&f.text, "<timing>").ok();
    }
    let compile_time = started.elapsed();

    println!(
        "corpus: {} distinct box scripts ({} files unreadable: {}); {before} compile with CPython 3.11 as they are, {needed} needed fixing, {} compile after fixing",
        scripts.len(),
        unreadable.len(),
        unreadable.join(", "),
        scripts.len() - failures.len()
    );
    for (what, (n, in_scripts)) in &counts {
        println!(
            "  {:>4} × in {:>3} scripts: {}",
            n,
            in_scripts.len(),
            what.describe()
        );
    }
    for (path, whats) in &valid_changed {
        if whats.iter().any(|w| *w != Rewrite::Division) {
            println!("  already valid Python 3, still rewritten ({whats:?}): {path}");
        }
    }
    let divided = valid_changed
        .iter()
        .filter(|(_, w)| w.contains(&Rewrite::Division))
        .count();
    println!("  {divided} valid Python-3 scripts rewritten for the meaning of `/`");
    println!(
        "fix time for all {} scripts: {:.2} ms; compile time: {:.2} ms",
        scripts.len(),
        fix_time.as_secs_f64() * 1e3,
        compile_time.as_secs_f64() * 1e3
    );
    // A script CPython 3 already compiles only gets what would go wrong at run time
    // rewritten: its Python-2 module imports, Python-2-only dict methods, `/` (a box
    // script is Python 2 even when it compiles as Python 3: two ints divided gave an int)
    // and `.decode(` (text decodes as the bytes it stands for, bytes as before) and
    // `.encode(` (the bytes come as a byte string, still bytes).
    for (path, whats) in &valid_changed {
        assert!(
            whats.iter().all(|w| matches!(
                w,
                Rewrite::RenamedModule
                    | Rewrite::Urllib
                    | Rewrite::DictMethod
                    | Rewrite::Division
                    | Rewrite::Decode
                    | Rewrite::Encode
            )),
            "{path}: valid Python 3 rewritten: {whats:?}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} scripts do not compile after fixing:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(scripts.len() > 500);
}
