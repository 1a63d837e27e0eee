//! The fixer's walk over a script: its whole-script flags, then each logical line through
//! the passes (the other files of the fixer, each an `impl Fixer` of one family of
//! rewrites), collecting edits and changes; and the view of the tokens the passes share.

use std::borrow::Cow;

use super::edit::Edit;
use super::rewrite::{Change, Rewrite};
use super::tokenize::{Kind, Tok};

/// The primaries (operands with their attributes, calls and subscripts) of a logical line, token
/// by token, for [`Rewrite::Decode`] and [`Rewrite::Encode`].
#[derive(Default)]
pub(super) struct Primaries {
    /// The first token of the primary that ends at the current token (none if it ends none).
    pub(super) primary: Option<usize>,
    /// The first token of the primary before the last `.`.
    pub(super) dotted: Option<usize>,
    /// An opening backtick (`` `x` `` is `repr(x)`; in pairs, as [`Fixer::logical_line`] reads
    /// them).
    pub(super) backtick: Option<usize>,
    /// For each open bracket, the first token of the primary that it continues (a `(` or `[`
    /// right after a primary: a call or a subscript) or starts (any other bracket), which its
    /// closing bracket ends.
    pub(super) open: Vec<usize>,
}

impl Primaries {
    /// Forgets the previous logical line.
    pub(super) fn start_line(&mut self) {
        self.open.clear();
        (self.primary, self.dotted, self.backtick) = (None, None, None);
    }

    /// Moves on to token `k` of `fixer` (`first`: the first of its logical line).
    pub(super) fn step(&mut self, fixer: &Fixer<'_>, k: usize, first: bool) {
        let before = k.checked_sub(1).filter(|_| !first);
        self.primary = match (fixer.kind(k), fixer.text(k)) {
            (Some(Kind::Name), _) if fixer.is_keyword(k) => None,
            (Some(Kind::Name), _) if before.is_some_and(|p| fixer.is_op(p, b".")) => self.dotted,
            // `'a' 'b'` is one literal.
            (Some(Kind::Str), _) if before.is_some_and(|p| fixer.kind(p) == Some(Kind::Str)) => {
                self.primary
            }
            (Some(Kind::Name | Kind::Number | Kind::Str), _) | (Some(Kind::Op), b"...") => Some(k),
            (Some(Kind::Op), b"(" | b"[") => {
                self.open.push(self.primary.unwrap_or(k));
                None
            }
            (Some(Kind::Op), b"{") => {
                self.open.push(k);
                None
            }
            (Some(Kind::Op), b")" | b"]" | b"}") => self.open.pop(),
            (Some(Kind::Backtick), _) => {
                let open = self.backtick.take();
                if open.is_none() {
                    self.backtick = Some(k);
                }
                open
            }
            (Some(Kind::Op), b".") => {
                self.dotted = self.primary;
                None
            }
            _ => None,
        };
    }
}

pub(super) struct Fixer<'a> {
    pub(super) src: &'a str,
    pub(super) b: &'a [u8],
    pub(super) toks: &'a [Tok],
    pub(super) edits: Vec<Edit>,
    pub(super) changes: Vec<Change>,
    /// `from __future__ import print_function` is present.
    pub(super) print_function: bool,
    /// `from __future__ import division` is present: `/` is Python 3's already.
    pub(super) true_division: bool,
    /// `async def` is present: `await` is a keyword here.
    pub(super) has_async_def: bool,
    /// A `.decode(` or `.encode(` call is present: [`Fixer::tokens`] follows primaries.
    pub(super) codec_calls: bool,
    /// Plain `import urllib` items (token indices).
    pub(super) urllib_imports: Vec<usize>,
    /// `urllib.<Python-2 function>` uses (index of the function name, new module).
    pub(super) urllib_uses: Vec<(usize, &'static str)>,
    /// Where in `edits` the token-level edits of the current logical line are (sorted by
    /// [`Edit::order`]).
    pub(super) line_edits: std::ops::Range<usize>,
    /// The primaries of the current logical line (kept between lines for its allocation).
    pub(super) primaries: Primaries,
}

impl<'a> Fixer<'a> {
    pub(super) fn new(src: &'a str, toks: &'a [Tok]) -> Fixer<'a> {
        Fixer {
            src,
            b: src.as_bytes(),
            toks,
            edits: Vec::new(),
            changes: Vec::new(),
            print_function: false,
            true_division: false,
            has_async_def: false,
            codec_calls: false,
            urllib_imports: Vec::new(),
            urllib_uses: Vec::new(),
            line_edits: 0..0,
            primaries: Primaries::default(),
        }
    }

    pub(super) fn text(&self, k: usize) -> &'a [u8] {
        self.toks
            .get(k)
            .and_then(|t| self.b.get(t.start..t.end))
            .unwrap_or_default()
    }

    pub(super) fn is(&self, k: usize, kind: Kind, text: &[u8]) -> bool {
        self.toks.get(k).is_some_and(|t| t.kind == kind) && self.text(k) == text
    }

    pub(super) fn is_name(&self, k: usize, text: &[u8]) -> bool {
        self.is(k, Kind::Name, text)
    }

    pub(super) fn is_op(&self, k: usize, text: &[u8]) -> bool {
        self.is(k, Kind::Op, text)
    }

    pub(super) fn kind(&self, k: usize) -> Option<Kind> {
        self.toks.get(k).map(|t| t.kind)
    }

    pub(super) fn start(&self, k: usize) -> usize {
        self.toks.get(k).map_or(self.b.len(), |t| t.start)
    }

    pub(super) fn end(&self, k: usize) -> usize {
        self.toks.get(k).map_or(self.b.len(), |t| t.end)
    }

    pub(super) fn depth(&self, k: usize) -> u32 {
        self.toks.get(k).map_or(0, |t| t.depth)
    }

    pub(super) fn line(&self, k: usize) -> u32 {
        self.toks.get(k).map_or(0, |t| t.line)
    }

    /// Whether the source between `a` and `b` is only spaces and tabs (no line break).
    pub(super) fn inline_gap(&self, a: usize, b: usize) -> bool {
        self.b
            .get(a..b)
            .is_some_and(|g| g.iter().all(|c| matches!(c, b' ' | b'\t' | 0x0c)))
    }

    /// The end of token `k` extended over the spaces before token `k + 1` on the same line.
    pub(super) fn end_with_gap(&self, k: usize) -> usize {
        let (end, next) = (self.end(k), self.start(k + 1));
        if self.inline_gap(end, next) {
            next
        } else {
            end
        }
    }

    pub(super) fn edit(&mut self, start: usize, end: usize, text: impl Into<Cow<'static, str>>) {
        self.edits.push(Edit {
            start,
            end,
            text: text.into(),
        });
    }

    pub(super) fn change(&mut self, k: usize, what: Rewrite) {
        let line = self.line(k);
        self.changes.push(Change { line, what });
    }

    /// The index of the first depth-0 token in `from..to` that is operator or name `text`.
    pub(super) fn find0(&self, from: usize, to: usize, kind: Kind, text: &[u8]) -> Option<usize> {
        (from..to).find(|&k| self.depth(k) == 0 && self.is(k, kind, text))
    }

    pub(super) fn run(&mut self) {
        self.scan_flags();
        let n = self.toks.len();
        let mut indents = Vec::new();
        let mut i = 0;
        while i < n {
            let mut j = i;
            while j < n && self.kind(j) != Some(Kind::Newline) {
                j += 1;
            }
            if i < j {
                if let Some(indent) = self.indentation(i) {
                    indents.push(indent);
                }
                self.logical_line(i, j);
            }
            i = j + 1;
        }
        self.fix_indentation(&indents);
        if !self.urllib_uses.is_empty() && !self.urllib_imports.is_empty() {
            for k in std::mem::take(&mut self.urllib_imports) {
                self.edit(self.start(k), self.end(k), "urllib.request, urllib.parse");
                self.change(k, Rewrite::Urllib);
            }
            for (k, module) in std::mem::take(&mut self.urllib_uses) {
                // `urllib` `.` `name`: the module replaces `urllib`.
                let u = k.saturating_sub(2);
                self.edit(self.start(u), self.end(u), module);
                self.change(k, Rewrite::Urllib);
            }
        }
    }

    /// Sets the whole-script flags: `print_function`, `true_division`, `has_async_def`,
    /// `codec_calls`.
    pub(super) fn scan_flags(&mut self) {
        let n = self.toks.len();
        let mut k = 0;
        while k < n {
            if self.is_name(k, b"__future__") && k > 0 && self.is_name(k - 1, b"from") {
                while k < n && self.kind(k) != Some(Kind::Newline) {
                    if self.is_name(k, b"print_function") {
                        self.print_function = true;
                    } else if self.is_name(k, b"division") {
                        self.true_division = true;
                    }
                    k += 1;
                }
            } else if self.kind(k) == Some(Kind::Name) {
                match self.text(k) {
                    b"async" if self.is_name(k + 1, b"def") => self.has_async_def = true,
                    b"decode" | b"encode" if self.is_call(k) => self.codec_calls = true,
                    _ => {}
                }
            }
            k += 1;
        }
    }

    /// Rewrites the logical line made of tokens `i..j`.
    pub(super) fn logical_line(&mut self, i: usize, j: usize) {
        // Backticks, in pairs.
        let mut open: Option<usize> = None;
        for k in i..j {
            if self.kind(k) == Some(Kind::Backtick) {
                match open.take() {
                    None => open = Some(k),
                    Some(o) => {
                        self.edit(self.start(o), self.end(o), "repr(");
                        self.edit(self.start(k), self.end(k), ")");
                        self.change(o, Rewrite::Backticks);
                    }
                }
            }
        }
        let first = self.edits.len();
        self.tokens(i, j);
        self.line_edits = first..self.edits.len();
        // `__py2decode__(` and `__py2encode__(` go before tokens already edited.
        if let Some(line) = self.edits.get_mut(self.line_edits.clone()) {
            line.sort_by_key(Edit::order);
        }
        // Simple statements, split at `;`.
        let mut s = i;
        for k in i..=j {
            if k == j || (self.depth(k) == 0 && self.is_op(k, b";")) {
                if s < k {
                    self.statement(s, k);
                }
                s = k + 1;
            }
        }
    }
}
