//! The quick scan: whether a script may hold anything the fixer rewrites, read from its bytes
//! without tokens (most scripts need no rewrite, and this is several times faster than
//! fixing).

use super::imports::renamed_module;
use super::tokenize::{is_name_byte, scan_string};

/// Whether `source` may hold something the fixer rewrites; `false` means that [`fix`](super::fix)
/// returns it unchanged. A quick scan of the bytes, without tokens (several times faster
/// than fixing): it skips strings and comments as the tokenizer reads them and looks for
/// what starts each rewrite, so it errs towards `true` (every `/` outside them, say, even
/// in a script with `from __future__ import division`).
pub fn needs_fixing(source: &str) -> bool {
    let b = source.as_bytes();
    let mut i = if source.starts_with('\u{feff}') { 3 } else { 0 };
    // Indentation with tabs and indentation with spaces (or form feeds), on lines with code:
    // only both together can be inconsistent.
    let (mut tabs, mut spaces) = (false, false);
    let mut line_start = true;
    // Where the last scan after `raise` or `except` stopped.
    let mut scanned = 0;
    while let Some(&c) = b.get(i) {
        if line_start {
            line_start = false;
            let mut end = i;
            let (mut tab, mut space) = (false, false);
            while let Some(&w) = b.get(end).filter(|w| matches!(w, b' ' | b'\t' | 0x0c)) {
                tab |= w == b'\t';
                space |= w != b'\t';
                end += 1;
            }
            if !matches!(b.get(end), None | Some(b'#' | b'\n' | b'\r')) {
                tabs |= tab;
                spaces |= space;
            }
            i = end;
        } else if is_name_byte(c) {
            let mut end = i + 1;
            while b.get(end).copied().is_some_and(is_name_byte) {
                end += 1;
            }
            // Digits after a digit and a `.` are a fraction (`0.05`), never an octal number.
            let fraction = i > 1
                && b.get(i - 1) == Some(&b'.')
                && b.get(i - 2).is_some_and(u8::is_ascii_digit);
            let word = b.get(i..end).unwrap_or_default();
            if matches!(word, b"raise" | b"except") {
                // One inside the statement scanned for the previous one is left to the fixer
                // (nonsense in real code), so that the scan stays linear.
                if i < scanned {
                    return true;
                }
                match top_level_comma(b.get(end..).unwrap_or_default()) {
                    Some(len) => scanned = end + len,
                    None => return true,
                }
            } else if word_needs_fixing(b, word, end, fraction) {
                return true;
            }
            i = end;
        } else {
            match c {
                // Strings and comments as the tokenizer reads them: nothing in them is
                // rewritten (a `ur` prefix is a word, seen above).
                b'\'' | b'"' => {
                    i = scan_string(b, i).0;
                    continue;
                }
                b'#' => {
                    while b.get(i).is_some_and(|&c| c != b'\n' && c != b'\r') {
                        i += 1;
                    }
                    continue;
                }
                // `//` and `//=` are left alone; `/` and `/=` are not.
                b'/' if b.get(i + 1) == Some(&b'/') => i += 1,
                b'/' | b'`' => return true,
                b'<' if b.get(i + 1) == Some(&b'>') => return true,
                _ => {}
            }
            line_start = c == b'\n' || c == b'\r';
            i += 1;
        }
    }
    tabs && spaces
}

/// Whether the run of name characters `word`, which ends at `end` in `b`, may start a
/// rewrite (see [`needs_fixing`]); `fraction`: it is the fraction of a number.
pub(super) fn word_needs_fixing(b: &[u8], word: &[u8], end: usize, fraction: bool) -> bool {
    if word.first().is_some_and(u8::is_ascii_digit) {
        return !plain_number(word, !fraction);
    }
    match word {
        // `print(...)` is a call, left alone.
        b"print" => {
            let next = b.get(end..).unwrap_or_default();
            next.iter().find(|&&c| c != b' ' && c != 0x0c) != Some(&b'(')
        }
        b"exec" | b"async" | b"await" | b"urllib" | b"iteritems" | b"iterkeys" | b"itervalues"
        | b"has_key" => true,
        // `.decode(` and `.encode(`, with spaces at most around the name.
        b"decode" | b"encode" => {
            let inline = |c: &&u8| matches!(c, b' ' | b'\t' | 0x0c);
            let before = b.get(..end.saturating_sub(word.len())).unwrap_or_default();
            let after = b.get(end..).unwrap_or_default();
            before.iter().rev().find(|c| !inline(c)) == Some(&b'.')
                && after.iter().find(|c| !inline(c)) == Some(&b'(')
        }
        [u, r] if u.eq_ignore_ascii_case(&b'u') && r.eq_ignore_ascii_case(&b'r') => {
            matches!(b.get(end), Some(b'\'' | b'"'))
        }
        _ => renamed_module(word).is_some(),
    }
}

/// Whether a run of name characters that starts with a digit is a number the fixer leaves
/// alone, with no name glued to it: digits, `0x` and hex digits, or digits with an
/// exponent; not an `L` suffix, nor (if `whole`: the run starts the number) a `0` followed
/// by a digit (Python 2's octal).
pub(super) fn plain_number(word: &[u8], whole: bool) -> bool {
    let digits = |s: &[u8]| s.iter().all(|c| c.is_ascii_digit() || *c == b'_');
    match word {
        [b'0', d, ..] if whole && d.is_ascii_digit() => false,
        [b'0', b'x' | b'X', hex @ ..] => hex.iter().all(|c| c.is_ascii_hexdigit() || *c == b'_'),
        _ => match word.iter().position(|c| matches!(c, b'e' | b'E')) {
            Some(e) => {
                let (mantissa, exponent) = word.split_at(e);
                digits(mantissa) && digits(exponent.get(1..).unwrap_or_default())
            }
            None => digits(word),
        },
    }
}

/// Whether the statement that continues with `rest` (after `raise` or `except`) surely has
/// no comma outside brackets: then the length scanned, else (a comma on this line, or a
/// string over several lines, a backslash or a bracket left open that make the scan
/// unsure) `None`.
pub(super) fn top_level_comma(rest: &[u8]) -> Option<usize> {
    let mut depth = 0u32;
    let mut i = 0;
    while let Some(&c) = rest.get(i) {
        match c {
            b'\'' | b'"' => {
                // Strings as the tokenizer reads them.
                let (end, lines, closed) = scan_string(rest, i);
                if lines > 0 || !closed {
                    return None;
                }
                i = end;
                continue;
            }
            b'\\' | b'`' => return None,
            b'#' | b'\n' | b'\r' => return (depth == 0).then_some(i),
            b';' if depth == 0 => return Some(i),
            b',' if depth == 0 => return None,
            b'(' | b'[' | b'{' => depth = depth.saturating_add(1),
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Some(i)
}
