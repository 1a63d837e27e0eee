//! choreo-xar: every Choregraphe file format, read and written without loss.
//!
//! A pure library: bytes in, model out; model in, bytes out. No I/O policy, no printing.
//! Every error carries the file, line, column and element path (see [`error`]). Only
//! [`source`] touches the disk.
//!
//! - [`model`]: the typed model of a XAR file (boxes, ports, parameters, timelines, ...).
//! - [`read_xar`] / [`write_xar`]: XAR v3 (`behavior.xar`, `box.xar`).
//! - [`plugin`]: editor plugin state a runtime needs (the Choice box's table of answers).
//! - [`project_files`]: a project's own files: `.pml`, `manifest.xml`, `.dlg` and `.top`.
//! - [`pkg`]: the `.pkg` PackageManager installs, built and checked as qipkg does.
//! - [`archive`]: `.crg` / `.cbl` (ar + tar.gz) and `.pkg` (zip), unpacked safely.
//! - [`source`]: any path or bytes (file, folder, archive, split folder) to behaviors.
//! - [`split`]: the readable split format (a folder tree of TOML, `.py` and text files).
//! - [`project`]: whole projects as a readable folder and back to any container.
//! - [`diff`]: semantic differences between two behaviors.
//! - [`edit`]: a behavior's XAR changed in place, edit by edit (`choreo edit`).
//! - `xml`: the XML cursor the readers share (byte offsets, raw capture, element paths) and
//!   the writers' escaping; [`error`]: located diagnostics.

pub mod archive;
pub mod diff;
pub mod edit;
pub mod error;
pub mod model;
pub mod pkg;
pub mod plugin;
pub mod project;
pub mod project_files;
pub mod source;
pub mod split;
mod xar;
mod xml;

pub use error::{Diagnostic, Error, ErrorKind, Result, Severity, TextPosition};
pub use model::*;
pub use xar::{ScriptAt, ScriptCheck, ScriptProblem, read_xar, scripts_at, write_xar};
pub use xml::Real;

/// Files in memory, by relative path with `/` separators (an unpacked archive, a split
/// folder, a project folder): the readers work on these, so they never touch the disk.
pub type FileTree = std::collections::BTreeMap<String, Vec<u8>>;

/// A value read from a source, with the warnings found while reading it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<T> {
    /// What was read.
    pub value: T,
    /// Problems that did not stop reading (the file still has one meaning).
    pub warnings: Vec<Diagnostic>,
}
