//! Token-level rewrites inside expressions: `<>`, `/` and `/=` (Python 2's integer
//! division), dict methods, `.decode(`/`.encode(` calls, `.encode("utf-8").split(`,
//! `async`/`await` used as names and the `urllib` functions a script calls.

use super::driver::Fixer;
use super::edit::{Edit, splice};
use super::imports::urllib_module;
use super::rewrite::Rewrite;
use super::tokenize::{Kind, NON_EXPRESSION_KEYWORDS};

/// The builtin through which the fixer routes `/` (`division.rs`; `py2.py` installs it).
macro_rules! py2div {
    () => {
        "__py2div__"
    };
}

/// The builtin through which the fixer routes `.decode(` calls (`py2.py` installs it).
pub(super) const PY2DECODE: &str = "__py2decode__(";
/// The builtin through which the fixer routes `.encode(` calls (`py2.py` installs it).
const PY2ENCODE: &str = "__py2encode__(";

impl<'a> Fixer<'a> {
    /// Token-level rewrites in tokens `i..j`.
    pub(super) fn tokens(&mut self, i: usize, j: usize) {
        let mut from_qi = false;
        // Only scripts with a `.decode(` call need their primaries.
        let mut primaries = std::mem::take(&mut self.primaries);
        primaries.start_line();
        for k in i..j {
            let t = self.text(k);
            if self.codec_calls {
                primaries.step(self, k, k == i);
            }
            match self.kind(k) {
                Some(Kind::Op) if t == b"<>" => {
                    self.edit(self.start(k), self.end(k), "!=");
                    self.change(k, Rewrite::NotEqual);
                }
                Some(Kind::Op) if t == b";" && self.depth(k) == 0 => from_qi = false,
                Some(Kind::Op) if t == b"/" && k > i && self.divides(k) => {
                    self.edit(self.start(k), self.end(k), concat!("@", py2div!(), "/"));
                    self.change(k, Rewrite::Division);
                }
                Some(Kind::Number) => self.number(k),
                Some(Kind::Str) => self.ur_string(k),
                Some(Kind::Name) => match t {
                    b"import" => {
                        from_qi =
                            k >= 2 && self.is_name(k - 1, b"qi") && self.is_name(k - 2, b"from");
                    }
                    b"async" => self.async_name(k, from_qi),
                    b"iteritems" | b"iterkeys" | b"itervalues" | b"has_key"
                        if self.is_op(k.wrapping_sub(1), b".") && self.is_op(k + 1, b"(") =>
                    {
                        let text = match t {
                            b"iteritems" => "items",
                            b"iterkeys" => "keys",
                            b"itervalues" => "values",
                            _ => "__contains__",
                        };
                        self.edit(self.start(k), self.end(k), text);
                        self.change(k, Rewrite::DictMethod);
                    }
                    b"decode" if self.codec_calls && self.is_call(k) => {
                        if let Some(p) = primaries.primary {
                            self.codec_call(p, k, PY2DECODE, Rewrite::Decode);
                        }
                    }
                    b"encode" if self.is_encode_split(k) => {
                        self.edit(self.start(k - 1), self.end(k + 3), "");
                        self.change(k, Rewrite::EncodeSplit);
                    }
                    b"encode" if self.codec_calls && self.is_call(k) => {
                        if let Some(p) = primaries.primary {
                            self.codec_call(p, k, PY2ENCODE, Rewrite::Encode);
                        }
                    }
                    b"await" if !self.has_async_def => {
                        self.edit(self.start(k), self.end(k), "await_");
                        self.change(k, Rewrite::KeywordName);
                    }
                    b"urllib" if self.is_op(k + 1, b".") => {
                        if let Some(m) = urllib_module(self.text(k + 2))
                            && self.kind(k + 2) == Some(Kind::Name)
                        {
                            self.urllib_uses.push((k + 2, m));
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        self.primaries = primaries;
    }

    /// Whether name token `k` is a keyword, which cannot end an operand; so are Python 2's
    /// `print` and `exec` statements (`print x.decode()` decodes `x`), but not before a `(`:
    /// `print (x)` stays a call (see [`Fixer::print_statement`]).
    pub(super) fn is_keyword(&self, k: usize) -> bool {
        let t = self.text(k);
        NON_EXPRESSION_KEYWORDS.contains(&t)
            || matches!(t, b"not" | b"lambda")
            || (matches!(t, b"print" | b"exec") && !self.is_op(k + 1, b"("))
            || (t == b"await" && self.has_async_def)
    }

    /// Whether name token `k` is a method called, with only spaces around it: `.name(`.
    pub(super) fn is_call(&self, k: usize) -> bool {
        k.checked_sub(1).is_some_and(|dot| {
            self.is_op(dot, b".")
                && self.is_op(k + 1, b"(")
                && self.inline_gap(self.end(dot), self.start(k))
                && self.inline_gap(self.end(k), self.start(k + 1))
        })
    }

    /// `P.m(args)`, the primary `P` starting at token `p` and method `m` at token `k` →
    /// `builtin(P, args)`, `builtin` being `"__py2decode__("` or `"__py2encode__("` (see
    /// [`Rewrite::Decode`], [`Rewrite::Encode`]).
    pub(super) fn codec_call(&mut self, p: usize, k: usize, builtin: &'static str, what: Rewrite) {
        let at = self.start(p);
        let outer = Edit {
            start: at,
            end: at,
            text: builtin.into(),
        };
        // A call on the result of another (`s.decode(a).encode(b)`) wraps it: its builtin
        // goes before the inner one's (edits at one place keep their order).
        let inner = self.edits.iter().position(|e| {
            e.start == at && e.end == at && (e.text == PY2DECODE || e.text == PY2ENCODE)
        });
        match inner {
            Some(i) => self.edits.insert(i, outer),
            None => self.edits.push(outer),
        }
        let text = if self.is_op(k + 2, b")") { "" } else { ", " };
        self.edit(
            self.start(k.saturating_sub(1)),
            self.end_with_gap(k + 1),
            text,
        );
        self.change(k, what);
    }

    /// Whether the `/` at token `k` (not the first of its logical line) divides: an operand
    /// ends before it (a name, a number, a string, a closing bracket), which rules out the
    /// positional-only marker of `def f(a, /)`, and it is not one the fixer wrote (after
    /// `__py2div__`).
    pub(super) fn divides(&self, k: usize) -> bool {
        let Some(p) = k.checked_sub(1).filter(|_| !self.true_division) else {
            return false;
        };
        match self.kind(p) {
            Some(Kind::Name) => {
                let t = self.text(p);
                t != py2div!().as_bytes()
                    && !NON_EXPRESSION_KEYWORDS.contains(&t)
                    && !matches!(t, b"not" | b"lambda")
            }
            Some(Kind::Number | Kind::Str) => true,
            Some(Kind::Op) => matches!(self.text(p), b")" | b"]" | b"}"),
            _ => false,
        }
    }

    /// `a /= b` in the simple statement `s..e` → `a = __py2div__(a, b)`, when the target
    /// `a` is on one line and plain (see [`Fixer::plain_target`]) and `b` is not a bare
    /// `yield`.
    pub(super) fn augmented_division(&mut self, s: usize, e: usize) {
        if self.true_division {
            return;
        }
        let Some(k) = self.find0(s, e, Kind::Op, b"/=") else {
            return;
        };
        if k + 1 >= e || self.is_name(k + 1, b"yield") || !self.plain_target(s, k) {
            return;
        }
        let range = self.start(s)..self.end(k - 1);
        if self
            .src
            .get(range.clone())
            .is_none_or(|t| t.contains(['\n', '\r']))
        {
            return;
        }
        // The target as the other rewrites made it (`x.async` → `x.async_`).
        let edits = self.edits.get(self.line_edits.clone()).unwrap_or_default();
        let from = edits.partition_point(|e| e.start < range.start);
        let target = splice(self.src, range, edits.get(from..).unwrap_or_default());
        let text = format!(concat!("= ", py2div!(), "({}, "), target);
        self.edit(self.start(k), self.end_with_gap(k), text);
        self.edit(self.end(e - 1), self.end(e - 1), ")");
        self.change(k, Rewrite::Division);
    }

    /// Whether tokens `s..k` are a non-empty assignment target that can be evaluated twice
    /// with the same effect: a name followed by attributes and subscripts of names, numbers
    /// and strings (`self.n`, `d['k']`, `a[i + 1]`), no call.
    pub(super) fn plain_target(&self, s: usize, k: usize) -> bool {
        k > s
            && self.kind(s) == Some(Kind::Name)
            && (s..k).all(|m| {
                let t = self.text(m);
                match self.kind(m) {
                    Some(Kind::Name) => {
                        let keyword = matches!(t, b"lambda" | b"yield" | b"not")
                            || (t == b"await" && self.has_async_def)
                            || NON_EXPRESSION_KEYWORDS.contains(&t);
                        !keyword
                    }
                    Some(Kind::Number | Kind::Str) => true,
                    Some(Kind::Op) => matches!(t, b"." | b"[" | b"]" | b"," | b":" | b"-" | b"+"),
                    _ => false,
                }
            })
    }

    /// Whether name token `k` is the `encode` of `.encode("utf-8").split("text"`, all on one
    /// line (see [`Rewrite::EncodeSplit`]).
    pub(super) fn is_encode_split(&self, k: usize) -> bool {
        let text_literal = |k: usize| {
            self.kind(k) == Some(Kind::Str)
                && !self
                    .text(k)
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .any(|c| c.eq_ignore_ascii_case(&b'b'))
        };
        let utf8 = |k: usize| {
            let t = self.text(k);
            let inner = t.get(1..t.len().saturating_sub(1)).unwrap_or_default();
            matches!(t.first(), Some(b'"' | b'\''))
                && (inner.eq_ignore_ascii_case(b"utf-8") || inner.eq_ignore_ascii_case(b"utf8"))
        };
        k >= 1
            && self.is_op(k - 1, b".")
            && self.is_op(k + 1, b"(")
            && self.kind(k + 2) == Some(Kind::Str)
            && utf8(k + 2)
            && self.is_op(k + 3, b")")
            && self.is_op(k + 4, b".")
            && self.is_name(k + 5, b"split")
            && self.is_op(k + 6, b"(")
            && text_literal(k + 7)
            && !self
                .src
                .as_bytes()
                .get(self.start(k - 1)..self.end(k + 6))
                .is_some_and(|t| t.contains(&b'\n'))
    }

    /// `async` used as a name (not before `def`, `for` or `with`).
    pub(super) fn async_name(&mut self, k: usize, from_qi: bool) {
        if self.is_name(k + 1, b"def")
            || self.is_name(k + 1, b"for")
            || self.is_name(k + 1, b"with")
        {
            return;
        }
        let after_qi = k >= 2 && self.is_op(k - 1, b".") && self.is_name(k - 2, b"qi");
        let (text, what) = if after_qi {
            ("runAsync", Rewrite::QiAsync)
        } else if from_qi && !self.is_op(k.wrapping_sub(1), b".") {
            if self.is_name(k + 1, b"as") {
                ("runAsync", Rewrite::QiAsync)
            } else {
                ("runAsync as async_", Rewrite::QiAsync)
            }
        } else {
            ("async_", Rewrite::KeywordName)
        };
        self.edit(self.start(k), self.end(k), text);
        self.change(k, what);
    }
}
