//! Errors and warnings that point at a place in a source file.
//!
//! Every problem found while reading names the file, the line and column, and the
//! element path (`root/Dance/Timeline/BehaviorLayer[1]`), and carries the offending
//! source line so a command-line tool can show it without reading the file again.

use std::fmt;

/// What kind of problem a [`Diagnostic`] reports; stable, so tools can match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the file from disk failed.
    Io,
    /// The bytes are not UTF-8 text.
    NotUtf8,
    /// The text is not well-formed XML.
    NotXml,
    /// The file ends before its elements are closed.
    Truncated,
    /// Git merge-conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`) are in the file.
    MergeConflict,
    /// The root element is not the one this kind of file must have.
    WrongRoot,
    /// A required attribute is absent.
    MissingAttribute,
    /// An attribute or text value cannot be read as what it must be (a bad number, say).
    BadValue,
    /// A required child element is absent or a child appears more often than allowed.
    BadStructure,
    /// A link names a box or port that does not exist.
    DanglingLink,
    /// Two boxes of one diagram share an id, or two ports of one box share an id.
    DuplicateId,
    /// A link goes from a sink to a source (e.g. from a child's input).
    LinkDirection,
    /// Keys of a curve are not in increasing frame order (a warning: the curve still has a meaning).
    KeyOrder,
    /// A value Choregraphe would not write, kept as it is (a warning).
    Unusual,
    /// Elements are nested deeper than any real behavior (protects the stack).
    TooDeep,
    /// An archive (.crg, .cbl, .pkg) is malformed.
    Archive,
    /// An archive entry has an absolute path, `..`, or is a link.
    UnsafePath,
    /// An archive unpacks to more than the allowed total size.
    TooLarge,
    /// The file is of a kind this library does not read.
    Unsupported,
    /// A QiChat topic's syntax is wrong (choreo-qichat).
    QiChat,
    /// A box script does not compile (found by a [`crate::ScriptCheck`]).
    Script,
}

/// Whether a diagnostic stops reading or is only reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The file (or this part of it) has no single meaning; reading failed.
    Error,
    /// The file still has one meaning; it was read, and this is worth knowing.
    Warning,
}

/// A line and column in a text, both counted from 1 (columns in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextPosition {
    /// Line number, from 1.
    pub line: u32,
    /// Column number in characters, from 1.
    pub column: u32,
}

impl TextPosition {
    /// The position of byte `offset` in `text` (clamped to the text's end).
    pub fn of_offset(text: &str, offset: usize) -> TextPosition {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let before = &text.as_bytes()[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = text[line_start..offset].chars().count() + 1;
        TextPosition {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The text of the line holding byte `offset`, without its line ending.
pub(crate) fn line_at(text: &str, offset: usize) -> String {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    text[start..end].trim_end_matches('\r').to_string()
}

/// One problem found in a source, with everything needed to show it to a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of problem this is.
    pub kind: ErrorKind,
    /// The file (for archive members: `archive.crg!member/path`).
    pub file: String,
    /// Where in the file, when the problem has a place.
    pub position: Option<TextPosition>,
    /// The element path, e.g. `root/Dance/Timeline/BehaviorLayer[1]`; empty at file level.
    pub element_path: String,
    /// The source line at `position`, to show under the message.
    pub source_line: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic about a whole file (no line or element).
    pub fn file_level(
        severity: Severity,
        kind: ErrorKind,
        file: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            kind,
            file: file.to_string(),
            position: None,
            element_path: String::new(),
            source_line: None,
            message: message.into(),
        }
    }

    /// A diagnostic at byte `offset` of `text`, inside the element at `element_path`.
    pub fn at_offset(
        severity: Severity,
        kind: ErrorKind,
        file: &str,
        text: &str,
        offset: usize,
        element_path: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            kind,
            file: file.to_string(),
            position: Some(TextPosition::of_offset(text, offset)),
            element_path: element_path.to_string(),
            source_line: Some(line_at(text, offset)),
            message: message.into(),
        }
    }

    /// The same diagnostic, with its file name prefixed by an enclosing archive (`a.crg!`).
    pub fn inside(mut self, container: &str) -> Diagnostic {
        self.file = format!("{container}!{}", self.file);
        self
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: error: message (at root/Box/...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(p) = self.position {
            write!(f, ":{}:{}", p.line, p.column)?;
        }
        let word = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {word}: {}", self.message)?;
        if !self.element_path.is_empty() {
            write!(f, " (at {})", self.element_path)?;
        }
        Ok(())
    }
}

/// The error returned when a file cannot be read: one [`Diagnostic`] of severity error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub Box<Diagnostic>);

impl Error {
    /// The diagnostic behind this error.
    pub fn diagnostic(&self) -> &Diagnostic {
        &self.0
    }

    /// The kind of problem.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The same error, with its file name prefixed by an enclosing archive.
    pub fn inside(self, container: &str) -> Error {
        Error(Box::new(self.0.inside(container)))
    }

    /// An error about a whole file.
    pub fn file_level(kind: ErrorKind, file: &str, message: impl Into<String>) -> Error {
        Error(Box::new(Diagnostic::file_level(
            Severity::Error,
            kind,
            file,
            message,
        )))
    }
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error(Box::new(d))
    }
}

/// Result of reading: a value, or the error that stopped reading.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\ncdé\nfg";
        assert_eq!(
            TextPosition::of_offset(text, 0),
            TextPosition { line: 1, column: 1 }
        );
        assert_eq!(
            TextPosition::of_offset(text, 3),
            TextPosition { line: 2, column: 1 }
        );
        // 'é' is two bytes; the 'f' on line 3 is at byte 8.
        assert_eq!(
            TextPosition::of_offset(text, 8),
            TextPosition { line: 3, column: 1 }
        );
        assert_eq!(
            TextPosition::of_offset(text, 7),
            TextPosition { line: 2, column: 4 }
        );
        assert_eq!(line_at(text, 4), "cdé");
        assert_eq!(line_at(text, 1000), "fg");
    }

    #[test]
    fn display_names_file_line_column_and_path() {
        let d = Diagnostic::at_offset(
            Severity::Error,
            ErrorKind::BadValue,
            "b.xar",
            "<a>\n <b x='q'/></a>",
            5,
            "root/B",
            "bad x",
        );
        assert_eq!(d.to_string(), "b.xar:2:2: error: bad x (at root/B)");
        assert_eq!(d.source_line.as_deref(), Some(" <b x='q'/></a>"));
    }
}
