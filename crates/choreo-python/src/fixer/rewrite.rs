//! What the fixer reports: the kinds of rewrite it makes ([`Rewrite`], one per row of the
//! table in the [module documentation](super)) and the rewrites made in a script.

/// One kind of rewrite the fixer makes (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rewrite {
    /// `except X, e:` → `except X as e:`.
    ExceptComma,
    /// A `print` statement → a `print()` call.
    PrintStatement,
    /// An `exec` statement → an `exec()` call.
    ExecStatement,
    /// `raise E, v[, tb]` → `raise E(v)[.with_traceback(tb)]`.
    RaiseComma,
    /// `<>` → `!=`.
    NotEqual,
    /// `0777` → `0o777`.
    OctalLiteral,
    /// `10L` → `10`.
    LongLiteral,
    /// `ur'...'` → `r'...'` or an equivalent plain literal.
    UrString,
    /// `` `x` `` → `repr(x)`.
    Backticks,
    /// `qi.async` → `qi.runAsync`.
    QiAsync,
    /// `async` / `await` used as a name → `async_` / `await_`.
    KeywordName,
    /// An import of a renamed module → the Python-3 module, bound to the old name.
    RenamedModule,
    /// Python-2 `urllib` functions → `urllib.parse` / `urllib.request`.
    Urllib,
    /// Indentation mixing tabs and spaces → spaces, tabs expanded to multiples of 8.
    TabIndent,
    /// `.iteritems()`, `.iterkeys()`, `.itervalues()`, `.has_key(k)` → `.items()`,
    /// `.keys()`, `.values()`, `.__contains__(k)`.
    DictMethod,
    /// `.encode("utf-8").split("x")` → `.split("x")`.
    EncodeSplit,
    /// `a / b` → `a @__py2div__/ b`, `a /= b` → `a = __py2div__(a, b)`: two ints divide as
    /// in Python 2.
    Division,
    /// `P.decode(args)` → `__py2decode__(P, args)`: text decodes as the bytes Python 2 had.
    Decode,
    /// `P.encode(args)` → `__py2encode__(P, args)`: a byte string that still works as text.
    Encode,
}

impl Rewrite {
    /// Every rewrite, in the order of the module documentation.
    pub const ALL: [Rewrite; 19] = [
        Rewrite::ExceptComma,
        Rewrite::PrintStatement,
        Rewrite::ExecStatement,
        Rewrite::RaiseComma,
        Rewrite::NotEqual,
        Rewrite::OctalLiteral,
        Rewrite::LongLiteral,
        Rewrite::UrString,
        Rewrite::Backticks,
        Rewrite::QiAsync,
        Rewrite::KeywordName,
        Rewrite::RenamedModule,
        Rewrite::Urllib,
        Rewrite::TabIndent,
        Rewrite::DictMethod,
        Rewrite::EncodeSplit,
        Rewrite::Division,
        Rewrite::Decode,
        Rewrite::Encode,
    ];

    /// A short description, e.g. ``"`except X, e:` → `except X as e:`"``.
    pub fn describe(self) -> &'static str {
        match self {
            Rewrite::ExceptComma => "`except X, e:` → `except X as e:`",
            Rewrite::PrintStatement => "print statement → print() call",
            Rewrite::ExecStatement => "exec statement → exec() call",
            Rewrite::RaiseComma => "`raise E, v` → `raise E(v)`",
            Rewrite::NotEqual => "`<>` → `!=`",
            Rewrite::OctalLiteral => "`0777` → `0o777`",
            Rewrite::LongLiteral => "`10L` → `10`",
            Rewrite::UrString => "`ur''` string → `r''` or an equal plain literal",
            Rewrite::Backticks => "`` `x` `` → `repr(x)`",
            Rewrite::QiAsync => "`qi.async` → `qi.runAsync`",
            Rewrite::KeywordName => "`async`/`await` as a name → `async_`/`await_`",
            Rewrite::RenamedModule => "Python-2 module import → Python-3 module",
            Rewrite::Urllib => "Python-2 `urllib` function → `urllib.parse`/`urllib.request`",
            Rewrite::TabIndent => "tab indentation → spaces",
            Rewrite::DictMethod => "`d.iteritems()`, `d.has_key(k)` → `d.items()`, `k in d`",
            Rewrite::EncodeSplit => "`s.encode(\"utf-8\").split(\"x\")` → `s.split(\"x\")`",
            Rewrite::Division => "`a / b` → `a @__py2div__/ b` (Python 2's integer division)",
            Rewrite::Decode => "`s.decode(e)` → `__py2decode__(s, e)` (Python 2's `str.decode`)",
            Rewrite::Encode => "`s.encode(e)` → `__py2encode__(s, e)` (Python 2's byte string)",
        }
    }
}

/// One rewrite made by the fixer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// The line (1-based) of the rewritten text, in the input and the output alike.
    pub line: u32,
    /// What was rewritten.
    pub what: Rewrite,
}

/// The result of [`fix_report`](super::fix_report).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fixed {
    /// The script rewritten for Python 3, with the same lines as the input.
    pub text: String,
    /// Every rewrite made, in line order (empty when the script needed none).
    pub changes: Vec<Change>,
}
