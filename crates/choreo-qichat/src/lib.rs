//! QiChat, the dialog language of NAO and Pepper (`.top` topic files), parsed into a syntax
//! tree whose every node knows its line and column.
//!
//! A pure library: text in, [`Topic`] or located errors out. The dialog engine, ALDialog and
//! `choreo chat` build on it. What is supported, with examples: `docs/qichat.md`.
//!
//! - `parser`: one pass over the text into the syntax tree (`ast`);
//!   [`include`](fn@include) adds the concepts of included files through a reader the caller
//!   gives (no file is opened here).
//! - [`matcher`]: what was heard (or an event) against a rule's pattern.
//! - [`dialog`]: the dialog engine, which reaches ALMemory, the clock, NAOqi's services and
//!   Python for `%script` through a [`dialog::Host`] the caller gives.
//! - [`notices()`]: what a topic asks for that is parsed but not run here, located.
//! - [`names`]: every name a topic defines and uses, read from the text as typed (for
//!   `choreo lsp`); [`format`](mod@format): a topic laid out one way.
//!
//! It depends on choreo-robot alone (the languages' names). The reference's examples are its
//! tests (`tests/reference/`).
//!
//! ```
//! let src = "topic: ~greet()\nlanguage: enu\nu:(hello) hi there\n";
//! let parsed = choreo_qichat::parse("greet.top", src.as_bytes()).unwrap();
//! assert_eq!(parsed.topic.name, "greet");
//! assert_eq!(parsed.topic.rules.len(), 1);
//! ```

mod ast;
pub mod dialog;
mod display;
mod error;
pub mod format;
pub mod matcher;
pub mod names;
mod notices;
mod parser;
mod text;

pub use ast::*;
pub use display::Seq;
pub use error::{QiChatError, Span, Warning};
pub use notices::notices;
pub use parser::MAX_DEPTH;
pub use text::decode;

/// A topic and what its parse noticed without failing.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The topic.
    pub topic: Topic,
    /// Non-fatal remarks (a file read as Latin-1, for example).
    pub warnings: Vec<Warning>,
}

/// Parses a `.top` file. `name` is the file's name as errors should show it; `bytes` its
/// content: UTF-8 (a byte-order mark is skipped), or Latin-1 with a warning.
///
/// Every syntax error found is returned (up to 50; the parser skips to the next entry after
/// each), each with file, line, column, the entry being parsed and what was expected.
pub fn parse(name: &str, bytes: &[u8]) -> Result<Parsed, Vec<QiChatError>> {
    let (text, warning) = text::decode(name, bytes);
    let mut parser = parser::Parser::new(name, &text);
    let topic = parser.parse_topic();
    if parser.errors.is_empty() {
        let mut warnings: Vec<Warning> = warning.into_iter().collect();
        warnings.extend(parser.warnings);
        Ok(Parsed { topic, warnings })
    } else {
        let mut errors = parser.errors;
        errors.sort_by_key(|e| e.span);
        Err(errors)
    }
}

/// Parses QiChat text already decoded (no encoding warning can arise).
pub fn parse_str(name: &str, text: &str) -> Result<Topic, Vec<QiChatError>> {
    parse(name, text.as_bytes()).map(|p| p.topic)
}

/// How many files `include:` lines may bring in, all together.
pub const MAX_INCLUDES: usize = 32;

/// Why the reader of [`include`](fn@include) could not give a file: its own words.
pub type ReadError = Box<dyn std::error::Error + Send + Sync>;

/// Why the files a topic includes cannot be added to it.
#[derive(Debug, thiserror::Error)]
pub enum IncludeError {
    /// More than [`MAX_INCLUDES`] files, all together.
    #[error("more than {MAX_INCLUDES} files included")]
    TooMany,
    /// A file cannot be read (the reader's words, which name it).
    #[error("{source}")]
    Unreadable {
        /// The file, as the `include:` line names it.
        file: String,
        /// The reader's error.
        source: ReadError,
    },
    /// A file is not valid QiChat.
    #[error("{}", errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The file, as the `include:` line names it.
        file: String,
        /// Its errors, located.
        errors: Vec<QiChatError>,
    },
}

/// Adds to `topic` the concepts of the files its `include:` lines name (and those they
/// include in turn, each file once, [`MAX_INCLUDES`] at most). `read` gives a file's bytes by
/// its name as written (the caller reads it next to the topic). An error names the file.
pub fn include(
    topic: &mut Topic,
    read: &mut dyn FnMut(&str) -> Result<Vec<u8>, ReadError>,
) -> Result<(), IncludeError> {
    let mut queue: Vec<String> = topic.includes.iter().map(|n| n.name.clone()).collect();
    let mut seen = std::collections::HashSet::new();
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if seen.len() > MAX_INCLUDES {
            return Err(IncludeError::TooMany);
        }
        let bytes = read(&name).map_err(|source| IncludeError::Unreadable {
            file: name.clone(),
            source,
        })?;
        let parsed = parse(&name, &bytes).map_err(|errors| IncludeError::Invalid {
            file: name.clone(),
            errors,
        })?;
        queue.extend(parsed.topic.includes.iter().map(|n| n.name.clone()));
        topic.concepts.extend(parsed.topic.concepts);
    }
    Ok(())
}
