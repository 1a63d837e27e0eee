//! Changes to several of a project's files made as one action (a behavior added, renamed or
//! deleted; a topic in another language), undone and redone as one.
//!
//! Why a list of file operations, each with what it expects to find: an action is undone by
//! its inverse (the list reversed, each operation's before and after swapped), and no
//! operation writes over a file another program changed since (it finds something else than
//! it expects, and the action stops). An action that fails midway takes back the operations
//! it made, so that the project is as it was. Deleted files are kept in memory for undo: the
//! editor never leaves files of its own in the project.

use std::path::{Path, PathBuf};

use crate::SessionError;

/// One operation on the project's files.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operation {
    /// A file's bytes: `None` for no file.
    File {
        path: PathBuf,
        before: Option<Vec<u8>>,
        after: Option<Vec<u8>>,
    },
    /// An empty folder made (`made`) or removed.
    Folder { path: PathBuf, made: bool },
    /// A file or folder renamed.
    Move { from: PathBuf, to: PathBuf },
}

/// Operations made in order as one action.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Changes(pub(crate) Vec<Operation>);

impl Operation {
    fn inverse(&self) -> Operation {
        match self {
            Operation::File {
                path,
                before,
                after,
            } => Operation::File {
                path: path.clone(),
                before: after.clone(),
                after: before.clone(),
            },
            Operation::Folder { path, made } => Operation::Folder {
                path: path.clone(),
                made: !made,
            },
            Operation::Move { from, to } => Operation::Move {
                from: to.clone(),
                to: from.clone(),
            },
        }
    }

    /// Makes the operation if the files are as it expects.
    fn make(&self) -> Result<(), SessionError> {
        let changed = |path: &Path| SessionError::ChangedOnDisk {
            path: path.to_path_buf(),
        };
        let write = |path: &Path, source| SessionError::Write {
            path: path.to_path_buf(),
            source,
        };
        match self {
            Operation::File {
                path,
                before,
                after,
            } => {
                let now = std::fs::read(path).ok();
                if now != *before {
                    return Err(changed(path));
                }
                match after {
                    Some(bytes) => crate::write_whole(path, bytes),
                    None => std::fs::remove_file(path),
                }
                .map_err(|e| write(path, e))
            }
            Operation::Folder { path, made: true } => {
                std::fs::create_dir(path).map_err(|e| write(path, e))
            }
            Operation::Folder { path, made: false } => {
                std::fs::remove_dir(path).map_err(|e| write(path, e))
            }
            Operation::Move { from, to } => {
                if to.exists() || !from.exists() {
                    return Err(changed(to));
                }
                std::fs::rename(from, to).map_err(|e| write(to, e))
            }
        }
    }
}

impl Changes {
    /// The action that undoes this one.
    pub(crate) fn inverse(&self) -> Changes {
        Changes(self.0.iter().rev().map(Operation::inverse).collect())
    }

    /// Makes every operation in order; when one cannot be made, takes back those made and
    /// says why (the files are then as they were).
    pub(crate) fn make(&self) -> Result<(), SessionError> {
        for (i, op) in self.0.iter().enumerate() {
            if let Err(e) = op.make() {
                for done in self.0[..i].iter().rev() {
                    let _ = done.inverse().make();
                }
                return Err(e);
            }
        }
        Ok(())
    }
}

/// At most this many files are kept in memory for a deleted behavior's undo.
const MOST_FILES: usize = 10_000;
/// At most this many bytes are.
const MOST_BYTES: u64 = 512 * 1024 * 1024;

/// The operations that remove the folder `folder` and all it holds (its files kept for
/// undo): files first, then folders deepest first. Refused for a folder holding a link (its
/// undo could not make it again) or more than can be kept.
pub(crate) fn remove_folder(folder: &Path) -> Result<Vec<Operation>, String> {
    let shown = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let (mut files, mut folders, mut bytes) = (Vec::new(), vec![folder.to_path_buf()], 0u64);
    let mut to_visit = vec![folder.to_path_buf()];
    while let Some(dir) = to_visit.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| shown(&dir, e))? {
            let entry = entry.map_err(|e| shown(&dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| shown(&path, e))?;
            if kind.is_dir() {
                folders.push(path.clone());
                to_visit.push(path);
            } else if kind.is_file() {
                let content = std::fs::read(&path).map_err(|e| shown(&path, e))?;
                bytes += content.len() as u64;
                files.push(Operation::File {
                    path,
                    before: Some(content),
                    after: None,
                });
            } else {
                return Err(format!(
                    "{}: a link; the folder is not deleted here",
                    path.display()
                ));
            }
            if files.len() > MOST_FILES || bytes > MOST_BYTES {
                return Err(format!(
                    "{}: over {MOST_FILES} files or {} MB; not deleted here",
                    folder.display(),
                    MOST_BYTES >> 20
                ));
            }
        }
    }
    // A folder comes after the folder holding it: removed in reverse.
    files.extend(
        folders
            .into_iter()
            .rev()
            .map(|path| Operation::Folder { path, made: false }),
    );
    Ok(files)
}
