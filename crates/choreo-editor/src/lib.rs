//! choreo-editor: a behavior open for editing on disk (`choreo edit`).
//!
//! A [`Session`] holds one XAR file as `choreo_xar::edit` changes it in place. Why each
//! choice:
//!
//! - **Every edit is written when it is made** (to a file beside it, then renamed over it,
//!   so that the file is always the old bytes or the new ones): a crash of the page or of
//!   choreo loses nothing that was accepted, with no journal to recover.
//! - **A file someone else changed is never written over.** Before each write the file
//!   must still hold what this session last read or wrote; otherwise the edit is refused,
//!   nothing is written, and [`Session::reload`] takes the other writer's version.
//! - **Undo and redo are the edits' inverse patches**, so undoing gives back the exact
//!   bytes, and a redo the edit's.
//!
//! [`Editor`] (`serve`) answers the monitor's editing pages with a session; `wire` turns
//! the page's JSON into edits.

mod changes;
mod dialogs;
mod kept;
mod library;
mod new;
mod play;
mod project;
mod serve;
pub mod wire;

pub use kept::{Kept, KeptError};
pub use library::{Library, LibraryBox, LibraryError};
pub use new::{NewError, NewKind, make as make_new};
pub use project::{Project, ProjectError};
pub use serve::{Editor, PlayError, Player};

use std::path::{Path, PathBuf};

use choreo_xar::edit::{Document, Edit, EditError, Patch};

/// Why a session could not do what it was asked (it, and the file, are as they were).
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be written; it holds what it held.
    #[error("cannot write {path}: {source} (the file is as it was)")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file changed on disk since this session read or wrote it.
    #[error("{path} changed on disk since it was opened here: nothing was written; reload it")]
    ChangedOnDisk {
        /// The file.
        path: PathBuf,
    },
    /// The edit was refused (Choregraphe's rules, or what it names is not there).
    #[error(transparent)]
    Edit(#[from] EditError),
    /// There is no edit to undo.
    #[error("nothing to undo")]
    NothingToUndo,
    /// There is no undone edit to redo.
    #[error("nothing to redo")]
    NothingToRedo,
}

/// One behavior's XAR file, open for editing.
#[derive(Debug)]
pub struct Session {
    path: PathBuf,
    document: Document,
    /// What the file held when this session last read or wrote it.
    on_disk: Vec<u8>,
    /// Each edit made, as its patch, the last made last.
    undo: Vec<Patch>,
    /// Each edit undone, as its patch, the last undone last.
    redo: Vec<Patch>,
}

impl Session {
    /// Opens the XAR file at `path`.
    pub fn open(path: &Path) -> Result<Session, SessionError> {
        let bytes = read(path)?;
        let document = Document::open(&path.display().to_string(), &bytes)?;
        Ok(Session {
            path: path.to_path_buf(),
            document,
            on_disk: bytes,
            undo: Vec::new(),
            redo: Vec::new(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The behavior as it is now (and as the file holds it).
    pub fn document(&self) -> &Document {
        &self.document
    }

    /// Whether there is an edit to undo, and one to redo.
    pub fn history(&self) -> (bool, bool) {
        (!self.undo.is_empty(), !self.redo.is_empty())
    }

    /// Makes `edit` and writes the file.
    pub fn apply(&mut self, edit: &Edit) -> Result<(), SessionError> {
        self.check_disk()?;
        let patch = self.document.apply(edit)?;
        self.write_or_take_back(&patch)?;
        self.undo.push(patch);
        self.redo.clear();
        Ok(())
    }

    /// Undoes the last edit made (or redone) and writes the file.
    pub fn undo(&mut self) -> Result<(), SessionError> {
        let patch = self.undo.last().ok_or(SessionError::NothingToUndo)?.clone();
        self.check_disk()?;
        let inverse = patch.inverse();
        self.document.apply_patch(&inverse)?;
        self.write_or_take_back(&inverse)?;
        self.undo.pop();
        self.redo.push(patch);
        Ok(())
    }

    /// Makes the last undone edit again and writes the file.
    pub fn redo(&mut self) -> Result<(), SessionError> {
        let patch = self.redo.last().ok_or(SessionError::NothingToRedo)?.clone();
        self.check_disk()?;
        self.document.apply_patch(&patch)?;
        self.write_or_take_back(&patch)?;
        self.redo.pop();
        self.undo.push(patch);
        Ok(())
    }

    /// The file was moved to `to` (its behavior's folder renamed): the session follows it.
    pub(crate) fn moved(&mut self, to: &Path) {
        self.path = to.to_path_buf();
    }

    /// Forgets the edits undone (an edit was made elsewhere: a topic of the behavior).
    pub fn clear_redo(&mut self) {
        self.redo.clear();
    }

    /// Takes what the file holds now (another program changed it): the edits made here
    /// stay in the file as that program left it, and can no longer be undone here.
    pub fn reload(&mut self) -> Result<(), SessionError> {
        let bytes = read(&self.path)?;
        self.document = Document::open(&self.path.display().to_string(), &bytes)?;
        self.on_disk = bytes;
        self.undo.clear();
        self.redo.clear();
        Ok(())
    }

    /// Whether the file no longer holds what this session last read or wrote.
    pub fn changed_on_disk(&self) -> Result<bool, SessionError> {
        Ok(read(&self.path)? != self.on_disk)
    }

    fn check_disk(&self) -> Result<(), SessionError> {
        if self.changed_on_disk()? {
            return Err(SessionError::ChangedOnDisk {
                path: self.path.clone(),
            });
        }
        Ok(())
    }

    /// Writes the document after `patch` was applied to it; when the write fails, takes
    /// the patch back so that the document is the file again.
    fn write_or_take_back(&mut self, patch: &Patch) -> Result<(), SessionError> {
        let bytes = self.document.bytes().to_vec();
        if let Err(source) = write_whole(&self.path, &bytes) {
            // The inverse of a patch just applied applies: the document is as it was.
            let _ = self.document.apply_patch(&patch.inverse());
            return Err(SessionError::Write {
                path: self.path.clone(),
                source,
            });
        }
        self.on_disk = bytes;
        Ok(())
    }
}

fn read(path: &Path) -> Result<Vec<u8>, SessionError> {
    std::fs::read(path).map_err(|source| SessionError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `bytes` to a file beside `path`, on disk before it is renamed over `path`: the
/// file holds either its old bytes or all the new ones, whenever choreo stops.
pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.choreo-edit"));
    let result = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&temporary, meta.permissions())?;
        }
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod wire_tests;

#[cfg(test)]
mod library_tests;

#[cfg(test)]
mod corpus_tests;

#[cfg(test)]
mod dialogs_tests;

#[cfg(test)]
mod project_tests;

#[cfg(test)]
mod kept_tests;

#[cfg(test)]
mod new_tests;
