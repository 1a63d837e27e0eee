//! Positions, errors and warnings.

use std::fmt;

/// A position in a topic's text: 1-based line and column (columns count characters, not
/// bytes, so `é` is one column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1, in characters.
    pub column: u32,
}

impl Span {
    /// A position from its line and column.
    pub const fn new(line: u32, column: u32) -> Self {
        Span { line, column }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A syntax error: where (file, line, column), in which entry (`user rule`, `concept`, ...)
/// and what was expected. Displayed as `x.top:3:14: in user rule: expected ...`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{span}: in {context}: {message}")]
pub struct QiChatError {
    /// The file's name as given to [`crate::parse`].
    pub file: String,
    /// Where the problem was found.
    pub span: Span,
    /// The entry being parsed: `topic header`, `user rule`, `subrule u2`, `concept`, ...
    pub context: String,
    /// What was expected, or what is wrong.
    pub message: String,
}

/// Something a topic's author may want to know, that did not stop the parse (a Latin-1
/// file, for example). Displayed like an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file's name as given to [`crate::parse`].
    pub file: String,
    /// Where, when it concerns one place (line 0 for the whole file).
    pub span: Span,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.span.line == 0 {
            write!(f, "{}: warning: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: warning: {}", self.file, self.span, self.message)
        }
    }
}
