//! Bytes to text: UTF-8 (a byte-order mark skipped), or Latin-1 with a warning.

use crate::error::{Span, Warning};

/// The text of a topic file. UTF-8 is the rule; a file that is not (old editors saved
/// Latin-1) is decoded byte per character as Latin-1, and a warning says so.
pub fn decode(file: &str, bytes: &[u8]) -> (String, Option<Warning>) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), None),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            let text: String = bytes.iter().map(|&b| char::from(b)).collect();
            let warning = Warning {
                file: file.to_owned(),
                span: Span::default(),
                message: format!(
                    "not UTF-8 (first bad byte on line {line}): read as Latin-1; \
                     save it as UTF-8 to silence this"
                ),
            };
            (text, Some(warning))
        }
    }
}
