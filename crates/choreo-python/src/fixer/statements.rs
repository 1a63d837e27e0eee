//! Statement-level rewrites: each simple statement (or compound-statement header) of a
//! logical line, and Python 2's `print`, `exec`, `raise E, v` and `except X, e`.

use super::driver::Fixer;
use super::rewrite::Rewrite;
use super::tokenize::{Kind, NON_EXPRESSION_KEYWORDS};

impl<'a> Fixer<'a> {
    /// Statement-level rewrites of the simple statement (or compound header) `s..e`.
    pub(super) fn statement(&mut self, mut s: usize, e: usize) {
        loop {
            let word = if self.kind(s) == Some(Kind::Name) {
                self.text(s)
            } else {
                b""
            };
            let compound = match word {
                b"if" | b"elif" | b"else" | b"while" | b"for" | b"with" | b"def" | b"class"
                | b"try" | b"except" | b"finally" => true,
                b"async" => {
                    self.is_name(s + 1, b"def")
                        || self.is_name(s + 1, b"for")
                        || self.is_name(s + 1, b"with")
                }
                _ => false,
            };
            if !compound {
                break;
            }
            let colon = self.header_colon(s, e);
            if word == b"except" {
                self.except_header(s, colon.unwrap_or(e));
            }
            match colon {
                Some(c) if c + 1 < e => s = c + 1,
                _ => return,
            }
        }
        self.augmented_division(s, e);
        match self.text(s) {
            _ if self.kind(s) != Some(Kind::Name) => {}
            b"print" => self.print_statement(s, e),
            b"exec" => self.exec_statement(s, e),
            b"raise" => self.raise_statement(s, e),
            b"import" => self.import_statement(s, e),
            b"from" => self.import_from(s, e),
            _ => {}
        }
    }

    /// The colon ending the compound-statement header that starts at `s`.
    pub(super) fn header_colon(&self, s: usize, e: usize) -> Option<usize> {
        let mut lambdas = 0u32;
        for k in s + 1..e {
            if self.depth(k) != 0 {
                continue;
            }
            if self.is_name(k, b"lambda") {
                lambdas += 1;
            } else if self.is_op(k, b":") {
                if lambdas == 0 {
                    return Some(k);
                }
                lambdas -= 1;
            }
        }
        None
    }

    /// `except X, e` (header tokens `s..c`) → `except X as e`.
    pub(super) fn except_header(&mut self, s: usize, c: usize) {
        let Some(comma) = self.find0(s + 1, c, Kind::Op, b",") else {
            return;
        };
        if comma + 2 != c || self.kind(comma + 1) != Some(Kind::Name) || comma == s + 1 {
            return;
        }
        let text = if self.inline_gap(self.end(comma), self.start(comma + 1))
            && self.end(comma) < self.start(comma + 1)
        {
            " as"
        } else {
            " as "
        };
        self.edit(self.start(comma), self.end(comma), text);
        self.change(comma, Rewrite::ExceptComma);
    }

    /// Whether token `k` can start an expression (after `print` or `exec`).
    pub(super) fn starts_expression(&self, k: usize) -> bool {
        match self.kind(k) {
            Some(Kind::Number | Kind::Str | Kind::Backtick) => true,
            Some(Kind::Name) => !NON_EXPRESSION_KEYWORDS.contains(&self.text(k)),
            Some(Kind::Op) => matches!(self.text(k), b"-" | b"+" | b"~" | b"[" | b"{"),
            _ => false,
        }
    }

    /// `print ...` statement in `s..e` → `print(...)`.
    pub(super) fn print_statement(&mut self, s: usize, e: usize) {
        if self.print_function {
            return;
        }
        let k = s + 1;
        if k == e {
            self.edit(self.start(s), self.end(s), "print()");
            self.change(s, Rewrite::PrintStatement);
            return;
        }
        let chevron = self.is_op(k, b">>");
        if !chevron && !self.starts_expression(k) {
            return;
        }
        let mut file: Option<&'a str> = None;
        let mut first_item = k;
        if chevron {
            let comma = self.find0(k + 1, e, Kind::Op, b",");
            let target_end = comma.unwrap_or(e);
            if target_end <= k + 1 {
                return;
            }
            let Some(target) = self.src.get(self.start(k + 1)..self.end(target_end - 1)) else {
                return;
            };
            if target.contains(['\n', '\r']) {
                return;
            }
            file = Some(target);
            let delete_end = match comma {
                Some(c) if c + 1 < e => {
                    first_item = c + 1;
                    self.end_with_gap(c)
                }
                Some(c) => {
                    first_item = e;
                    self.end(c)
                }
                None => {
                    first_item = e;
                    self.end(e - 1)
                }
            };
            if self
                .src
                .get(self.start(k)..delete_end)
                .is_none_or(|d| d.contains(['\n', '\r']))
            {
                return;
            }
            self.edit(self.start(k), delete_end, "");
        }
        let open_end = if self.inline_gap(self.end(s), self.start(k)) {
            self.start(k)
        } else {
            self.end(s)
        };
        self.edit(self.start(s), open_end, "print(");
        let items = first_item < e;
        let trailing = items && self.depth(e - 1) == 0 && self.is_op(e - 1, b",");
        let mut suffix = String::new();
        if trailing {
            suffix.push_str(", end=\" \"");
        }
        if let Some(f) = file {
            suffix.push_str(if items { ", file=" } else { "file=" });
            suffix.push_str(f);
        }
        suffix.push(')');
        if trailing {
            self.edit(self.start(e - 1), self.end(e - 1), suffix);
        } else {
            self.edit(self.end(e - 1), self.end(e - 1), suffix);
        }
        self.change(s, Rewrite::PrintStatement);
    }

    /// `exec code [in g[, l]]` in `s..e` → `exec(code[, g[, l]])`.
    pub(super) fn exec_statement(&mut self, s: usize, e: usize) {
        let k = s + 1;
        if k >= e {
            return;
        }
        let in_tok = self.find0(k + 1, e, Kind::Name, b"in");
        let statement = if self.is_op(k, b"(") {
            in_tok.is_some()
        } else {
            self.starts_expression(k)
        };
        if !statement || in_tok.is_some_and(|m| m + 1 >= e) {
            return;
        }
        let open_end = if self.inline_gap(self.end(s), self.start(k)) {
            self.start(k)
        } else {
            self.end(s)
        };
        self.edit(self.start(s), open_end, "exec(");
        if let Some(m) = in_tok {
            let from = if self.inline_gap(self.end(m - 1), self.start(m)) {
                self.end(m - 1)
            } else {
                self.start(m)
            };
            self.edit(from, self.end(m), ",");
        }
        self.edit(self.end(e - 1), self.end(e - 1), ")");
        self.change(s, Rewrite::ExecStatement);
    }

    /// `raise E, v[, tb]` in `s..e` → `raise E(v)[.with_traceback(tb)]`.
    pub(super) fn raise_statement(&mut self, s: usize, e: usize) {
        let Some(c1) = self.find0(s + 1, e, Kind::Op, b",") else {
            return;
        };
        let c2 = self.find0(c1 + 1, e, Kind::Op, b",");
        let value_end = c2.unwrap_or(e);
        if c1 == s + 1
            || value_end <= c1 + 1
            || c2.is_some_and(|c| c + 1 >= e || self.find0(c + 1, e, Kind::Op, b",").is_some())
        {
            return;
        }
        // `raise E, (a, b)` called `E(a, b)`.
        let v = c1 + 1;
        let d = self.depth(v);
        let tuple = self.is_op(v, b"(")
            && (v + 1..value_end)
                .find(|&m| self.depth(m) == d && matches!(self.text(m), b")" | b"]" | b"}"))
                == Some(value_end - 1)
            && self.is_op(value_end - 1, b")")
            && (v + 1..value_end).any(|m| self.depth(m) == d + 1 && self.is_op(m, b","));
        self.edit(
            self.start(c1),
            self.end_with_gap(c1),
            if tuple { "(*" } else { "(" },
        );
        if let Some(c) = c2 {
            self.edit(self.start(c), self.end_with_gap(c), ").with_traceback(");
        }
        self.edit(self.end(e - 1), self.end(e - 1), ")");
        self.change(s, Rewrite::RaiseComma);
    }
}
