//! choreo-xar: every Choregraphe file format, read and written without loss.
//!
//! A pure library: bytes in, model out; model in, bytes out. No I/O policy, no printing.
//! Every error carries the file, line, column and element path (see [`error`]).
//!
//! - [`model`]: the typed model of a XAR file (boxes, ports, parameters, timelines, ...).
//! - [`read_xar`] / [`write_xar`]: XAR v3 (`behavior.xar`, `box.xar`).

pub mod error;
pub mod model;
mod xar;
mod xml;

pub use error::{Diagnostic, Error, ErrorKind, Result, Severity, TextPosition};
pub use model::*;
pub use xar::{read_xar, write_xar};

/// A value read from a source, with the warnings found while reading it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<T> {
    /// What was read.
    pub value: T,
    /// Problems that did not stop reading (the file still has one meaning).
    pub warnings: Vec<Diagnostic>,
}
