//! A project kept in an archive (`.crg`, `.cbl`, `.pkg`) or in choreo's readable folder,
//! edited in place: the editor works on the project as Choregraphe lays it out on disk (a
//! working copy in a temporary folder: the `.pml`, each behavior's `.xar`), and after each
//! change the project is written back in its own form.
//!
//! Why a working copy: every edit of `choreo edit` is a change of a behavior's `.xar` text
//! or of a project file (`Session`, `crate::project`); archives and readable folders hold
//! the same project in another form. Written back, an archive is packed again from the
//! working copy as `choreo convert` packs one (its control text kept); a readable folder
//! gets the files whose bytes changed, and loses those gone, so that unchanged files stay
//! byte for byte. Either is written only if it still holds what was read or last written
//! (never over another program's change), and never without a change.

use std::path::{Path, PathBuf};

use choreo_xar::FileTree;
use choreo_xar::project::Packed;
use choreo_xar::source::{Project as Loaded, load_tree, read_dir_tree};

/// Why a kept project cannot be edited in place, or written back.
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    /// The working copy could not be made, read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The project cannot be laid out or written back: why.
    #[error("{0}")]
    Project(String),
    /// The archive or a file of the readable folder changed on disk since it was read or
    /// written here.
    #[error(
        "{0} changed on disk since it was opened here: it was not written; the edits are in \
         the working copy until choreo edit ends"
    )]
    ChangedOnDisk(PathBuf),
}

/// What the project is written back to.
#[derive(Debug)]
enum Form {
    /// An archive: its bytes as read or last written.
    Archive(Vec<u8>),
    /// A readable folder: its files as read or last written.
    Readable(FileTree),
}

/// A project kept in an archive or a readable folder, and its working copy.
#[derive(Debug)]
pub struct Kept {
    source: PathBuf,
    working: tempfile::TempDir,
    /// The container, control text, name and `.pml` of the project (its files: the working
    /// copy as last written back).
    packed: Packed,
    form: Form,
}

impl Kept {
    /// The project `loaded` from `source` (an archive, or a readable folder), laid out in a
    /// working copy.
    pub fn open(source: &Path, loaded: &Loaded) -> Result<Kept, KeptError> {
        let io = |path: &Path, e| KeptError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let bytes_or_tree = if source.is_dir() {
            Form::Readable(read_dir_tree(source).map_err(|e| KeptError::Project(e.to_string()))?)
        } else {
            Form::Archive(std::fs::read(source).map_err(|e| io(source, e))?)
        };
        let packed = loaded.packed();
        let working = tempfile::Builder::new()
            .prefix("choreo-edit-")
            .tempdir()
            .map_err(|e| io(&std::env::temp_dir(), e))?;
        for (path, bytes) in &packed.files {
            let to = working.path().join(path);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            }
            std::fs::write(&to, bytes).map_err(|e| io(&to, e))?;
        }
        Ok(Kept {
            source: source.to_path_buf(),
            working,
            packed,
            form: bytes_or_tree,
        })
    }

    /// The working copy's folder: the project as Choregraphe lays it out.
    pub fn working(&self) -> &Path {
        self.working.path()
    }

    /// What the project is kept in.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Writes the working copy back to the archive or the readable folder, when it changed.
    pub fn write_back(&mut self) -> Result<(), KeptError> {
        let files = self.working_files()?;
        if files == self.packed.files {
            return Ok(());
        }
        let shown = self.source.display().to_string();
        let project = |e: choreo_xar::Error| KeptError::Project(e.to_string());
        match &mut self.form {
            Form::Archive(on_disk) => {
                let title = self.packed.name.clone().unwrap_or_default();
                let control = self.packed.control.as_deref();
                let bytes = self
                    .packed
                    .container
                    .pack(&shown, &title, control, &files)
                    .ok_or_else(|| KeptError::Project(format!("{shown}: not an archive")))?
                    .map_err(project)?;
                if std::fs::read(&self.source).ok().as_ref() != Some(on_disk) {
                    return Err(KeptError::ChangedOnDisk(self.source.clone()));
                }
                crate::write_whole(&self.source, &bytes).map_err(|e| KeptError::Io {
                    path: self.source.clone(),
                    source: e,
                })?;
                *on_disk = bytes;
            }
            Form::Readable(on_disk) => {
                let mut loaded = load_tree(&shown, files.clone()).map_err(project)?;
                loaded.container = self.packed.container;
                loaded.control = self.packed.control.clone();
                if let Some(name) = &self.packed.name {
                    loaded.name = name.clone();
                }
                let tree = loaded.readable(&shown).map_err(project)?;
                write_tree(&self.source, on_disk, &tree)?;
                *on_disk = tree;
            }
        }
        self.packed.files = files;
        Ok(())
    }

    /// The working copy's files, without the editor's own (a box played alone, a file
    /// being written).
    fn working_files(&self) -> Result<FileTree, KeptError> {
        let mut files =
            read_dir_tree(self.working.path()).map_err(|e| KeptError::Project(e.to_string()))?;
        files.retain(|path, _| {
            let name = path.rsplit('/').next().unwrap_or(path);
            name != crate::play::PLAY_FILE && !name.ends_with(".choreo-edit")
        });
        Ok(files)
    }
}

/// Writes `after` over the readable folder `root`, which holds `before`: the files that
/// differ, and removes those gone; first checks that each of them still holds `before`'s
/// bytes.
fn write_tree(root: &Path, before: &FileTree, after: &FileTree) -> Result<(), KeptError> {
    let changed: std::collections::BTreeSet<&String> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .collect();
    for path in &changed {
        let file = root.join(path);
        if std::fs::read(&file).ok().as_ref() != before.get(*path) {
            return Err(KeptError::ChangedOnDisk(file));
        }
    }
    for path in changed {
        let file = root.join(path);
        let io = |e| KeptError::Io {
            path: file.clone(),
            source: e,
        };
        match after.get(path) {
            Some(bytes) => {
                if let Some(parent) = file.parent() {
                    std::fs::create_dir_all(parent).map_err(io)?;
                }
                crate::write_whole(&file, bytes).map_err(io)?;
            }
            None => std::fs::remove_file(&file).map_err(io)?,
        }
    }
    Ok(())
}
