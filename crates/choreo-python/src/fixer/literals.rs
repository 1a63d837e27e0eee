//! Literals: Python 2's octal and long numbers (`0777`, `10L`) and `ur''` strings.

use super::driver::Fixer;
use super::rewrite::Rewrite;

impl<'a> Fixer<'a> {
    /// `0777` → `0o777`, `10L` → `10`.
    pub(super) fn number(&mut self, k: usize) {
        let t = self.text(k);
        let (body, long) = match t.split_last() {
            Some((b'l' | b'L', body)) if !body.is_empty() => (body, true),
            _ => (t, false),
        };
        let integer = body.iter().all(u8::is_ascii_digit)
            || (body.len() > 2
                && body.first() == Some(&b'0')
                && matches!(body.get(1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B')));
        if long && !integer {
            return;
        }
        let octal = body.len() > 1
            && body.first() == Some(&b'0')
            && body.iter().all(|c| matches!(c, b'0'..=b'7'))
            && body.iter().any(|&c| c != b'0');
        if !long && !octal {
            return;
        }
        let body = std::str::from_utf8(body).unwrap_or_default();
        let text = if octal {
            format!("0o{}", body.get(1..).unwrap_or_default())
        } else {
            body.to_string()
        };
        self.edit(self.start(k), self.end(k), text);
        if octal {
            self.change(k, Rewrite::OctalLiteral);
        }
        if long {
            self.change(k, Rewrite::LongLiteral);
        }
    }

    /// `ur'...'` → `r'...'`, or a plain literal with the same value when it has `\u` escapes.
    pub(super) fn ur_string(&mut self, k: usize) {
        let t = self.text(k);
        let (Some(p0), Some(p1)) = (t.first(), t.get(1)) else {
            return;
        };
        if !(p0.eq_ignore_ascii_case(&b'u') && p1.eq_ignore_ascii_case(&b'r')) {
            return;
        }
        let start = self.start(k);
        self.change(k, Rewrite::UrString);
        let rest = t.get(2..).unwrap_or_default();
        let Some(&quote) = rest.first() else { return };
        let triple = rest.len() >= 6 && rest.get(1) == Some(&quote) && rest.get(2) == Some(&quote);
        let q = if triple { 3 } else { 1 };
        let body = rest
            .get(q..rest.len().saturating_sub(q))
            .unwrap_or_default();
        if !has_unicode_escape(body) {
            self.edit(start, start + 1, "");
            return;
        }
        let mut out = Vec::with_capacity(t.len() + 8);
        out.extend_from_slice(rest.get(..q).unwrap_or_default());
        unraw(body, quote, triple, &mut out);
        out.extend_from_slice(rest.get(..q).unwrap_or_default());
        let text = String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        self.edit(start, self.end(k), text);
    }
}

/// Whether the body of a raw string has a `\u` or `\U` escape (after an odd run of
/// backslashes, with its hex digits), which Python 2's `ur''` literals processed.
pub(super) fn has_unicode_escape(body: &[u8]) -> bool {
    let mut i = 0;
    while i < body.len() {
        if body.get(i) == Some(&b'\\') {
            let n = body
                .get(i..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&c| c == b'\\')
                .count();
            if n % 2 == 1 && unicode_escape_len(body.get(i + n..).unwrap_or_default()) > 0 {
                return true;
            }
            i += n;
        } else {
            i += 1;
        }
    }
    false
}

/// The length of `uXXXX` or `UXXXXXXXX` at the start of `s`, or 0.
pub(super) fn unicode_escape_len(s: &[u8]) -> usize {
    let digits = match s.first() {
        Some(b'u') => 4,
        Some(b'U') => 8,
        _ => return 0,
    };
    match s.get(1..=digits) {
        Some(h) if h.iter().all(u8::is_ascii_hexdigit) => digits + 1,
        _ => 0,
    }
}

/// Writes the body of a Python-2 `ur` string as the body of a plain Python-3 literal with the
/// same value: `\u`/`\U` escapes kept, every other backslash doubled, quotes escaped.
pub(super) fn unraw(body: &[u8], quote: u8, triple: bool, out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(&c) = body.get(i) {
        if c == b'\\' {
            let n = body
                .get(i..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&c| c == b'\\')
                .count();
            let next = body.get(i + n..).unwrap_or_default();
            let escape = n % 2 == 1 && unicode_escape_len(next) > 0;
            for _ in 0..n - usize::from(escape) {
                out.extend_from_slice(b"\\\\");
            }
            if escape {
                out.push(b'\\');
            } else if n % 2 == 1 && !triple && matches!(next.first(), Some(b'\n' | b'\r')) {
                // A raw backslash-newline kept the newline: `\n`, then a continuation.
                out.extend_from_slice(b"\\n\\");
            }
            i += n;
        } else {
            if c == quote {
                out.push(b'\\');
            }
            out.push(c);
            i += 1;
        }
    }
}
