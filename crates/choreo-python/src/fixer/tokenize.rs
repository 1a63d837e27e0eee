//! The tokenizer: strings of every prefix and quote kind, comments, numbers, names,
//! operators, line continuations, bracket depth and logical lines, as Python 2 and 3 read
//! them, so that the passes edit tokens and never touch string contents or comments.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Name,
    Number,
    /// A terminated string literal, prefix included.
    Str,
    Op,
    Backtick,
    /// The end of a logical line (the line break, or empty at the end of the input).
    Newline,
    /// Anything else: stray characters, unterminated strings.
    Other,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok {
    pub(crate) kind: Kind,
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// 1-based line of the token's first character.
    pub(crate) line: u32,
    /// Bracket depth before the token (a closing bracket has its opener's depth).
    pub(crate) depth: u32,
}

/// The length of the operator `rest` starts with: the longest of Python's (2's `<>`
/// included), three, two or one byte.
fn op_len(rest: &[u8]) -> usize {
    match rest {
        [b'*', b'*', b'=', ..]
        | [b'/', b'/', b'=', ..]
        | [b'>', b'>', b'=', ..]
        | [b'<', b'<', b'=', ..]
        | [b'.', b'.', b'.', ..] => 3,
        [b'*', b'*', ..]
        | [b'/', b'/', ..]
        | [b'>', b'>', ..]
        | [b'<', b'<', ..]
        | [b'<', b'>', ..]
        | [b'-', b'>', ..]
        | [
            b'<' | b'>' | b'=' | b'!' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^'
            | b'@' | b':',
            b'=',
            ..,
        ] => 2,
        _ => 1,
    }
}

pub(super) fn is_name_byte(c: u8) -> bool {
    NAME_BYTES[usize::from(c)]
}

/// [`is_name_byte`] of every byte.
pub(super) static NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80;
        c += 1;
    }
    table
};

/// Whether `p` is a string prefix of Python 2 or 3 (`u`, `r`, `b`, `f`, `ur`, `br`, `rb`,
/// `fr`, `rf`, any case).
pub(super) fn is_string_prefix(p: &[u8]) -> bool {
    let lower = |i: usize| p.get(i).map(u8::to_ascii_lowercase);
    match p.len() {
        1 => matches!(lower(0), Some(b'u' | b'r' | b'b' | b'f')),
        2 => matches!(
            (lower(0), lower(1)),
            (Some(b'u' | b'b' | b'f'), Some(b'r')) | (Some(b'r'), Some(b'b' | b'f'))
        ),
        _ => false,
    }
}

/// Scans the string literal whose opening quote is at `q`: returns its end, the number of
/// line breaks inside, and whether it is terminated (an unterminated one-line string ends
/// before the line break, an unterminated triple-quoted one at the end of the input).
pub(super) fn scan_string(b: &[u8], q: usize) -> (usize, u32, bool) {
    let Some(&quote) = b.get(q) else {
        return (b.len(), 0, false);
    };
    let triple = b.get(q + 1) == Some(&quote) && b.get(q + 2) == Some(&quote);
    let mut i = q + if triple { 3 } else { 1 };
    let mut lines = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => match b.get(i + 1) {
                Some(b'\r') => {
                    lines += 1;
                    i += if b.get(i + 2) == Some(&b'\n') { 3 } else { 2 };
                }
                Some(b'\n') => {
                    lines += 1;
                    i += 2;
                }
                Some(_) => i += 2,
                None => i += 1,
            },
            b'\n' | b'\r' => {
                if !triple {
                    return (i, lines, false);
                }
                lines += 1;
                i += if c == b'\r' && b.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
            }
            _ if c == quote => {
                if !triple {
                    return (i + 1, lines, true);
                }
                if b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote) {
                    return (i + 3, lines, true);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (b.len(), lines, false)
}

/// Scans the number starting at `i` (a digit, or a `.` before a digit); returns its end.
pub(super) fn scan_number(b: &[u8], i: usize) -> usize {
    let digits = |mut j: usize| {
        while b.get(j).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            j += 1;
        }
        j
    };
    let mut j;
    let mut float = false;
    if b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'))
    {
        j = i + 2;
        while b
            .get(j)
            .is_some_and(|c| c.is_ascii_hexdigit() || *c == b'_')
        {
            j += 1;
        }
    } else {
        j = digits(i);
        if b.get(j) == Some(&b'.') {
            float = true;
            j = digits(j + 1);
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            let k = j + 1 + usize::from(matches!(b.get(j + 1), Some(b'+' | b'-')));
            if b.get(k).is_some_and(u8::is_ascii_digit) {
                float = true;
                j = digits(k);
            }
        }
    }
    // Python 2's tokenizer takes an `L` suffix after an integer only (`0.e10L7` is the float
    // `0.e10` and the name `L7`); `j` after any number.
    match b.get(j) {
        Some(b'j' | b'J') => j + 1,
        Some(b'l' | b'L') if !float => j + 1,
        _ => j,
    }
}

/// Splits `src` into tokens; comments, whitespace, line continuations and line breaks that do
/// not end a logical line produce none.
pub(crate) fn tokenize(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let mut toks = Vec::with_capacity(b.len() / 4 + 1);
    let mut i = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let mut line = 1u32;
    let mut depth = 0u32;
    let mut line_has_tok = false;
    while let Some(&c) = b.get(i) {
        let start = i;
        let (kind, end, lines) = match c {
            b' ' | b'\t' | 0x0c => {
                i += 1;
                continue;
            }
            b'\n' | b'\r' => {
                let len = if c == b'\r' && b.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                if depth == 0 && line_has_tok {
                    toks.push(Tok {
                        kind: Kind::Newline,
                        start: i,
                        end: i + len,
                        line,
                        depth: 0,
                    });
                    line_has_tok = false;
                }
                i += len;
                line = line.saturating_add(1);
                continue;
            }
            b'#' => {
                i = memchr::memchr2(b'\n', b'\r', b.get(i..).unwrap_or_default())
                    .map_or(b.len(), |end| i + end);
                continue;
            }
            b'\\' => match b.get(i + 1) {
                Some(b'\n') => {
                    i += 2;
                    line = line.saturating_add(1);
                    continue;
                }
                Some(b'\r') => {
                    i += if b.get(i + 2) == Some(&b'\n') { 3 } else { 2 };
                    line = line.saturating_add(1);
                    continue;
                }
                _ => (Kind::Other, i + 1, 0),
            },
            b'\'' | b'"' => {
                let (end, lines, ok) = scan_string(b, i);
                (if ok { Kind::Str } else { Kind::Other }, end, lines)
            }
            b'0'..=b'9' => (Kind::Number, scan_number(b, i), 0),
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                (Kind::Number, scan_number(b, i), 0)
            }
            b'`' => (Kind::Backtick, i + 1, 0),
            _ if is_name_byte(c) => scan_name(b, i),
            _ => scan_op(b, i, c),
        };
        let tok_depth = match c {
            b'(' | b'[' | b'{' => {
                depth = depth.saturating_add(1);
                depth - 1
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                depth
            }
            _ => depth,
        };
        toks.push(Tok {
            kind,
            start,
            end,
            line,
            depth: tok_depth,
        });
        line_has_tok = true;
        line = line.saturating_add(lines);
        i = end;
    }
    if line_has_tok {
        toks.push(Tok {
            kind: Kind::Newline,
            start: b.len(),
            end: b.len(),
            line,
            depth: 0,
        });
    }
    toks
}

/// A name at `i`, or a string with a prefix (`r"..."`, `u'...'`): its kind, end and the
/// lines it spans.
#[inline]
fn scan_name(b: &[u8], i: usize) -> (Kind, usize, u32) {
    let mut j = i + 1;
    while b.get(j).copied().is_some_and(is_name_byte) {
        j += 1;
    }
    if matches!(b.get(j), Some(b'\'' | b'"')) && b.get(i..j).is_some_and(is_string_prefix) {
        let (end, lines, ok) = scan_string(b, j);
        (if ok { Kind::Str } else { Kind::Other }, end, lines)
    } else {
        (Kind::Name, j, 0)
    }
}

/// An operator at `i` (first byte `c`), or a byte Python does not know: its kind and end.
#[inline]
fn scan_op(b: &[u8], i: usize, c: u8) -> (Kind, usize, u32) {
    let len = op_len(b.get(i..).unwrap_or_default());
    let kind = if b"+-*/%&|^~<>=.,:;@()[]{}!".contains(&c) {
        Kind::Op
    } else {
        Kind::Other
    };
    (kind, i + len, 0)
}

/// Keywords that cannot start an expression (so `print if` is not a print statement).
pub(super) const NON_EXPRESSION_KEYWORDS: [&[u8]; 27] = [
    b"if",
    b"else",
    b"elif",
    b"and",
    b"or",
    b"in",
    b"is",
    b"for",
    b"as",
    b"from",
    b"import",
    b"while",
    b"with",
    b"def",
    b"class",
    b"return",
    b"pass",
    b"break",
    b"continue",
    b"del",
    b"global",
    b"try",
    b"except",
    b"finally",
    b"raise",
    b"assert",
    b"yield",
];

#[cfg(test)]
mod tests {
    use super::op_len;

    #[test]
    fn an_operator_is_the_longest_of_python_s_at_every_byte_triple() {
        // Python's operators of three and two bytes (2's `<>` too), as its grammar lists them.
        const THREE: [&[u8]; 5] = [b"**=", b"//=", b">>=", b"<<=", b"..."];
        const TWO: [&[u8]; 20] = [
            b"**", b"//", b">>", b"<<", b"<=", b">=", b"==", b"!=", b"<>", b"->", b"+=", b"-=",
            b"*=", b"/=", b"%=", b"&=", b"|=", b"^=", b"@=", b":=",
        ];
        let reference = |rest: &[u8]| {
            if THREE.iter().any(|op| rest.starts_with(op)) {
                3
            } else if TWO.iter().any(|op| rest.starts_with(op)) {
                2
            } else {
                1
            }
        };
        let bytes = b"+-*/%&|^~<>=.,:;@()[]{}!a ";
        for &x in bytes {
            for &y in bytes {
                for &z in bytes {
                    let rest = [x, y, z];
                    for n in 1..=3 {
                        assert_eq!(
                            op_len(&rest[..n]),
                            reference(&rest[..n]),
                            "{:?}",
                            &rest[..n]
                        );
                    }
                }
            }
        }
    }
}
