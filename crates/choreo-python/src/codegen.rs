//! Which box scripts CPython 3.11's code generator could refuse after its parser and symbol
//! table accepted them. `compile()` runs the parser, the symbol table, then the code
//! generator (`Python/compile.c`); the first two are about 60 % of its time on box scripts,
//! and `_symtable.symtable` runs exactly them, with the same flags and messages. The errors
//! only the code generator raises, in 3.11.2's `compile.c`, each need a word or a shape that
//! [`may_fail`] looks for in the script's tokens:
//!
//! | `compile.c` error | looked for |
//! |---|---|
//! | `'return' outside function`, `'yield' outside function` | `return`/`yield` whose innermost `def`/`class` block is not a `def` |
//! | `'break' outside loop`, `'continue' not properly in loop` | `break`/`continue` with no `for`/`while` body around it inside its `def`/`class` |
//! | `default 'except:' must be last` | an `except` clause after a bare `except:` of the same `try` |
//! | `'break', 'continue' and 'return' cannot appear in an except* block` | `except` followed by `*` |
//! | starred assignments, `can't use starred expression here` | a `*` that is not a product, not in a call's or a `def`'s parentheses, not `import *` |
//! | `keyword argument repeated` | a keyword given twice in one call's (or `class`'s, `def`'s) parentheses |
//! | `cannot assign to`/`delete __debug__` | the name `__debug__` |
//! | `from __future__ imports must occur at the beginning of the file` | the name `__future__` |
//! | `'async for'`/`'async with'`/`'await'` outside async function, asynchronous comprehension, `'yield from' inside async function`, `'return' with value in async generator` | `async`, `await` |
//! | pattern matching's errors | a line starting with `match` or `case` |
//! | `too many statically nested blocks` | blocks nested deeper than a bound well under the 20 the compiler allows |
//!
//! Also sent to the full compile: f-strings (their expressions are parsed from the string),
//! anything the tokenizer does not know, and the shapes that come near the compiler's
//! recursion limit (a logical line of more than [`LONG_LINE`] tokens, more than
//! [`MANY_ELIFS`] `elif`s). The screen may send a script to the full compile that did not need
//! it, never the other way: a script it lets through has no error but the parser's and the
//! symbol table's, which both `compile()` and `_symtable.symtable` report alike.

use std::ops::Range;

use crate::fixer::tokenize::{Kind, Tok};

/// A block that holds the lines indented under its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Def,
    Class,
    Loop,
    /// `if`, `elif`, `else`, `try`, `except`, `finally`, `with`.
    Other,
}

/// What the body of a block headed by `head` adds to the code generator's 20 nested blocks
/// (its "frame blocks"), at most: `if`/`elif` none; a loop one; a `try` body two (one for
/// the `except` clauses, one for a `finally`); an `except` body three (its handler and its
/// cleanup, a `finally` around them); an `else` one (that of a `try` with a `finally`; a
/// loop's or an `if`'s holds none); a `finally` body one; a `with` one per item, counted
/// as one more than its line's commas (parenthesized items have theirs inside brackets).
/// Measured against 3.11's `compile()` by nesting `for` loops in each body until it refuses
/// (test `block_weights_bound_what_compile_counts`). Functions and classes weigh nothing.
fn weight(head: &[u8], b: &[u8], line: &[Tok]) -> usize {
    match head {
        b"for" | b"while" | b"else" | b"finally" => 1,
        b"try" => 2,
        b"except" => 3,
        b"with" => 1 + line.iter().filter(|t| text(b, t) == b",").count(),
        _ => 0,
    }
}

/// The weight of nested blocks from which a script goes to the full compile.
const DEEP: usize = 18;

/// Tokens in one logical line from which a script goes to the full compile.
const LONG_LINE: usize = 1000;

/// `elif`s (each nests the next) from which a script goes to the full compile.
const MANY_ELIFS: usize = 300;

/// Keywords that cannot end an operand: a `*` after one of them is a star, not a product.
const KEYWORDS: [&[u8]; 32] = [
    b"and",
    b"as",
    b"assert",
    b"async",
    b"await",
    b"break",
    b"class",
    b"continue",
    b"def",
    b"del",
    b"elif",
    b"else",
    b"except",
    b"finally",
    b"for",
    b"from",
    b"global",
    b"if",
    b"import",
    b"in",
    b"is",
    b"lambda",
    b"nonlocal",
    b"not",
    b"or",
    b"pass",
    b"raise",
    b"return",
    b"try",
    b"while",
    b"with",
    b"yield",
];

/// What the screen says of a script (already fixed to Python 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Screen {
    /// Whether CPython 3.11's code generator could refuse it after its parser and symbol
    /// table accepted it: if not, `_symtable.symtable` finds whatever `compile()` would.
    pub(crate) full: bool,
    /// For a script judged without the code generator: its text with every comment and the
    /// content of every inert string literal left out. Scripts of one shape are valid
    /// together or not at all: the parser and the symbol table never read a comment (the
    /// coding cookie is ignored in a `str`), nor the content of a string without a
    /// backslash that is no bytes and no f-string; nothing else differs. None when the
    /// script holds a NUL (an error of its own).
    pub(crate) shape: Option<String>,
}

/// [`Screen`] of `source`, read as `toks`.
pub(crate) fn screen(source: &str, toks: &[Tok]) -> Screen {
    let full = may_fail(source, toks);
    let shape = (!full && !source.contains('\0')).then(|| shape(source, toks));
    Screen { full, shape }
}

/// `source` with its comments reduced to `#` and its inert string literals emptied.
fn shape(source: &str, toks: &[Tok]) -> String {
    let mut out = String::with_capacity(source.len());
    shape_into(&mut out, source, toks, 0..source.len());
    out
}

/// [`shape`] of `source[range]`, whose tokens are `toks`, appended to `out`: for a part of a
/// script cut between its logical lines ([`crate::methods`]), where no token nor comment
/// crosses the range's ends.
pub(crate) fn shape_into(out: &mut String, source: &str, toks: &[Tok], range: Range<usize>) {
    let mut from = range.start;
    // Between tokens: whitespace, line continuations and comments (to the line's end).
    let gap = |out: &mut String, mut text: &str| {
        while let Some(at) = text.find('#') {
            out.push_str(&text[..=at]);
            let rest = &text[at..];
            text = &rest[rest.find(['\n', '\r']).unwrap_or(rest.len())..];
        }
        out.push_str(text);
    };
    for t in toks {
        gap(out, source.get(from..t.start).unwrap_or_default());
        let token = source.get(t.start..t.end).unwrap_or_default();
        match inert_string(token) {
            Some((prefix, quote)) => {
                out.push_str(prefix);
                out.push_str(quote);
                out.push_str(quote);
            }
            None => out.push_str(token),
        }
        from = t.end.max(from);
    }
    gap(out, source.get(from..range.end).unwrap_or_default());
}

/// A string literal's prefix and opening quotes when its content cannot matter to the
/// parser: no backslash, no bytes (only ASCII allowed there), no f-string (parsed inside).
fn inert_string(token: &str) -> Option<(&str, &str)> {
    let open = token.find(['\'', '"'])?;
    let (prefix, rest) = token.split_at(open);
    if prefix.contains(['b', 'B', 'f', 'F']) || rest.contains('\\') {
        return None;
    }
    let quote = if rest.starts_with("\"\"\"") || rest.starts_with("\'\'\'") {
        rest.get(..3)?
    } else {
        rest.get(..1)?
    };
    Some((prefix, quote))
}

/// Whether CPython 3.11's code generator could refuse `source`, read as `toks`, after its
/// parser and symbol table accepted it.
fn may_fail(source: &str, toks: &[Tok]) -> bool {
    let b = source.as_bytes();
    let mut blocks: Vec<(usize, Block, usize)> = Vec::new();
    let mut bare_excepts: Vec<usize> = Vec::new();
    let mut elifs = 0;
    for line in toks.split(|t| t.kind == Kind::Newline) {
        let Some(first) = line.first() else {
            continue;
        };
        if line.len() > LONG_LINE {
            return true;
        }
        let col = column(b, first.start);
        while blocks.last().is_some_and(|&(c, _, _)| c >= col) {
            blocks.pop();
        }
        let head = text(b, first);
        let second = line.get(1).map(|t| text(b, t));
        // An `except` after a bare `except:` of the same `try` (the same column, nothing
        // shallower between them).
        bare_excepts.retain(|&c| c <= col);
        if bare_excepts.last() == Some(&col) {
            if head == b"except" {
                return true;
            }
            bare_excepts.pop();
        }
        if head == b"except" && second == Some(b":") {
            bare_excepts.push(col);
        }
        if head == b"elif" {
            elifs += 1;
            if elifs > MANY_ELIFS {
                return true;
            }
        }
        if matches!(head, b"match" | b"case") {
            return true;
        }
        let header = header_block(head).map(|kind| (col, kind, weight(head, b, line)));
        // The header's own colon: the rest of the line is its body.
        let colon = match header {
            Some(_) => match header_colon(b, line) {
                Some(at) => Some(at),
                None => return true,
            },
            None => None,
        };
        if let Some(h) = header {
            blocks.push(h);
            if blocks.iter().map(|&(_, _, w)| w).sum::<usize>() >= DEEP {
                return true;
            }
        }
        // The header itself is in the blocks around it (a `def`'s defaults are evaluated
        // outside it); what follows its colon is in its block.
        let outside = blocks.len() - usize::from(header.is_some());
        if line_may_fail(b, line, (&blocks[..outside], &blocks, colon)) {
            return true;
        }
        // Its block holds the lines indented under it, unless the body was on the line.
        if header.is_some() && colon != Some(line.len() - 1) {
            blocks.pop();
        }
    }
    false
}

/// The blocks around a line's tokens: those up to its header's colon, those after it, and
/// where the colon is.
type Around<'a> = (
    &'a [(usize, Block, usize)],
    &'a [(usize, Block, usize)],
    Option<usize>,
);

/// Whether a token of `line` is one the code generator could refuse where it is.
fn line_may_fail(b: &[u8], line: &[Tok], (head, body, colon): Around<'_>) -> bool {
    // Open brackets: whether each is a call's (or a `def`'s, a `class`'s) parentheses, and
    // the keywords given in it.
    let mut open: Vec<(bool, Vec<&[u8]>)> = Vec::new();
    for (k, t) in line.iter().enumerate() {
        let word = text(b, t);
        let before = k.checked_sub(1).and_then(|i| line.get(i));
        let after = line.get(k + 1).map(|t| text(b, t));
        let blocks = if colon.is_some_and(|c| k > c) {
            body
        } else {
            head
        };
        match t.kind {
            Kind::Other | Kind::Backtick => return true,
            Kind::Str if is_f_string(word) => return true,
            Kind::Name => match word {
                b"async" | b"await" | b"__debug__" | b"__future__" => return true,
                b"return" | b"yield" if !in_function(blocks) => return true,
                b"break" | b"continue" if !in_loop(blocks) => return true,
                b"except" if after == Some(b"*") => return true,
                _ if after == Some(b"=")
                    && before.is_some_and(|p| matches!(text(b, p), b"(" | b","))
                    && open.last().is_some_and(|(call, _)| *call) =>
                {
                    if let Some((_, given)) = open.last_mut() {
                        if given.contains(&word) {
                            return true;
                        }
                        given.push(word);
                    }
                }
                _ => {}
            },
            Kind::Op => match word {
                b"(" | b"[" | b"{" => {
                    let call = word == b"(" && before.is_some_and(|p| ends_operand(b, p));
                    open.push((call, Vec::new()));
                }
                b")" | b"]" | b"}" => {
                    open.pop();
                }
                b"*" => {
                    let product = before.is_some_and(|p| ends_operand(b, p));
                    let import = before.is_some_and(|p| text(b, p) == b"import");
                    let argument = before.is_some_and(|p| matches!(text(b, p), b"(" | b","))
                        && open.last().is_some_and(|(call, _)| *call);
                    if !(product || import || argument) {
                        return true;
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    false
}

/// The block a logical line starting with `head` opens, if it is a compound statement's
/// header.
fn header_block(head: &[u8]) -> Option<Block> {
    Some(match head {
        b"def" => Block::Def,
        b"class" => Block::Class,
        b"for" | b"while" => Block::Loop,
        b"if" | b"elif" | b"else" | b"try" | b"except" | b"finally" | b"with" => Block::Other,
        _ => return None,
    })
}

/// Where a header's colon is in `line`: its first `:` outside brackets. None when a `lambda`
/// outside brackets comes first (its colon could be taken for the header's).
fn header_colon(b: &[u8], line: &[Tok]) -> Option<usize> {
    for (k, t) in line.iter().enumerate() {
        if t.depth > 0 {
            continue;
        }
        match text(b, t) {
            b":" => return Some(k),
            b"lambda" => return None,
            _ => {}
        }
    }
    None
}

/// Whether the innermost `def` or `class` around is a `def`.
fn in_function(blocks: &[(usize, Block, usize)]) -> bool {
    blocks
        .iter()
        .rev()
        .find(|(_, kind, _)| matches!(kind, Block::Def | Block::Class))
        .is_some_and(|(_, kind, _)| *kind == Block::Def)
}

/// Whether a loop's body is around, inside the innermost `def` or `class`.
fn in_loop(blocks: &[(usize, Block, usize)]) -> bool {
    for (_, kind, _) in blocks.iter().rev() {
        match kind {
            Block::Loop => return true,
            Block::Def | Block::Class => return false,
            Block::Other => {}
        }
    }
    false
}

/// Whether `t` ends an operand (a name that is no keyword, a number, a string, a closing
/// bracket): a `*` after it is a product, a `(` after it a call.
fn ends_operand(b: &[u8], t: &Tok) -> bool {
    match t.kind {
        Kind::Name => !KEYWORDS.contains(&text(b, t)),
        Kind::Number | Kind::Str => true,
        Kind::Op => matches!(text(b, t), b")" | b"]" | b"}"),
        _ => false,
    }
}

/// Whether a string literal's prefix makes it an f-string.
fn is_f_string(literal: &[u8]) -> bool {
    literal
        .iter()
        .take_while(|c| !matches!(c, b'\'' | b'"'))
        .any(|c| matches!(c, b'f' | b'F'))
}

/// The column of the character at `at` as CPython's tokenizer counts indentation: tabs to
/// the next multiple of 8, a form feed back to 0.
fn column(b: &[u8], at: usize) -> usize {
    let before = b.get(..at).unwrap_or_default();
    let start = before
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1);
    before
        .get(start..)
        .unwrap_or_default()
        .iter()
        .fold(0, |col, &c| match c {
            b'\t' => (col / 8 + 1) * 8,
            0x0c => 0,
            _ => col + 1,
        })
}

fn text<'s>(b: &'s [u8], t: &Tok) -> &'s [u8] {
    b.get(t.start..t.end).unwrap_or_default()
}
