//! XAR files already read, for loading several sources that hold the same behaviors: a
//! project's `.pml`, its `manifest.xml` and its `behavior.xar` each load the same files,
//! and `choreo check --body` loads them all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::error::Result;
use crate::model::XarFile;
use crate::{Parsed, read_xar};

/// One read of a file: its content and what reading it gave, made once.
type Read = (Arc<[u8]>, Arc<OnceLock<Result<Parsed<XarFile>>>>);

/// XAR files read, by the name read under and the content: a read depends on nothing else
/// (the name is in its messages), so a second read of the same gives a copy of the first.
/// Shared by threads: one reading a file another is reading waits for that read.
#[derive(Default)]
pub struct Reads {
    by_name: Mutex<HashMap<String, Vec<Read>>>,
}

impl Reads {
    /// No reads yet.
    pub fn new() -> Reads {
        Reads::default()
    }
}

/// [`read_xar`] of `bytes` named `name`, through `reads` when given.
pub(super) fn read(reads: Option<&Reads>, name: &str, bytes: &[u8]) -> Result<Parsed<XarFile>> {
    let Some(reads) = reads else {
        return read_xar(name, bytes);
    };
    let cell = {
        let mut by_name = reads.by_name.lock().unwrap_or_else(PoisonError::into_inner);
        let same_name = by_name.entry(name.to_string()).or_default();
        match same_name.iter().find(|(content, _)| **content == *bytes) {
            Some((_, cell)) => Arc::clone(cell),
            None => {
                let cell = Arc::new(OnceLock::new());
                same_name.push((Arc::from(bytes), Arc::clone(&cell)));
                cell
            }
        }
    };
    cell.get_or_init(|| read_xar(name, bytes)).clone()
}
