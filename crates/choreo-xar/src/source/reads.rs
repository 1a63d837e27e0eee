//! Files already read, for loading several sources that hold the same behaviors: a
//! project's `.pml`, its `manifest.xml` and its `behavior.xar` each load the same files,
//! a `.crg` is unpacked by the check and again by the load, and `choreo check --body` does
//! all of it.
//!
//! A [`Reads`] keeps every read for as long as it lives. `choreo check --body` shares one
//! between the plain check and the body's judging for the whole run, and pays for it in memory
//! (on the shared corpus, a peak of about 150 MB against 80 MB without it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::Parsed;
use crate::archive::{self, Unpacked};
use crate::error::Result;
use crate::model::XarFile;

/// XAR files read and archives unpacked, by the name read under and the content: a read
/// depends on nothing else (the name is in its messages), so a second read of the same
/// gives a copy of the first. Shared by threads: one reading a file another is reading
/// waits for that read.
#[derive(Default)]
pub struct Reads {
    xars: Memo<XarFile>,
    archives: Memo<Unpacked>,
}

impl Reads {
    /// No reads yet.
    pub fn new() -> Reads {
        Reads::default()
    }
}

/// One read of a file: its content and what reading it gave, made once.
type Read<T> = (Arc<[u8]>, Arc<OnceLock<Result<Parsed<T>>>>);

/// What reading files gave, by name, then content.
struct Memo<T> {
    by_name: Mutex<HashMap<String, Vec<Read<T>>>>,
}

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Memo {
            by_name: Mutex::default(),
        }
    }
}

impl<T: Clone> Memo<T> {
    /// `read(name, bytes)`, or a copy of what it gave the first time.
    fn get(
        &self,
        name: &str,
        bytes: &[u8],
        read: fn(&str, &[u8]) -> Result<Parsed<T>>,
    ) -> Result<Parsed<T>> {
        let cell = {
            let mut by_name = choreo_base::lock(&self.by_name);
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
        cell.get_or_init(|| read(name, bytes)).clone()
    }
}

/// [`read_xar`](crate::read_xar) of `bytes` named `name`, through `reads` when given.
pub(super) fn read(reads: Option<&Reads>, name: &str, bytes: &[u8]) -> Result<Parsed<XarFile>> {
    match reads {
        Some(reads) => reads.xars.get(name, bytes, crate::read_xar),
        None => crate::read_xar(name, bytes),
    }
}

/// [`archive::unpack`] of `bytes` named `name`, through `reads` when given.
pub(super) fn unpack(reads: Option<&Reads>, name: &str, bytes: &[u8]) -> Result<Parsed<Unpacked>> {
    match reads {
        Some(reads) => reads.archives.get(name, bytes, archive::unpack),
        None => archive::unpack(name, bytes),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const HELLO: &str = include_str!("../../../../examples/hello/behavior.xar");

    #[test]
    fn a_file_read_again_is_what_reading_it_gives_and_another_content_is_read_anew() {
        let reads = Reads::new();
        let first = read(Some(&reads), "a/behavior.xar", HELLO.as_bytes()).unwrap();
        let again = read(Some(&reads), "a/behavior.xar", HELLO.as_bytes()).unwrap();
        let plain = crate::read_xar("a/behavior.xar", HELLO.as_bytes()).unwrap();
        assert_eq!(first, plain);
        assert_eq!(again, plain);
        // The same name, another content: not the first read's value.
        let renamed = HELLO.replacen("name=\"root\"", "name=\"other\"", 1);
        assert_ne!(renamed, HELLO, "the example's root box is named root");
        let other = read(Some(&reads), "a/behavior.xar", renamed.as_bytes()).unwrap();
        assert_eq!(other.value.root_box.name, "other");
        // A broken file's error is kept and given again, naming the file.
        let broken = read(Some(&reads), "b.xar", b"<ChoregrapheProject").unwrap_err();
        let again = read(Some(&reads), "b.xar", b"<ChoregrapheProject").unwrap_err();
        assert_eq!(broken, again);
        assert!(broken.to_string().contains("b.xar"), "{broken}");
    }
}
