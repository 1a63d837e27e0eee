//! Loading a path on disk: a folder, a file, or a `.pml` / `manifest.xml` that stands for
//! its folder.

use std::fs;
use std::path::{Path, PathBuf};

use super::disk::{io_error, read_dir_tree};
use super::file::load_bytes_with;
use super::folder::load_files;
use super::kind::{FileKind, sniff};
use super::loaded::Project;
use super::reads::Reads;
use crate::error::Result;

/// Loads a path: a file as `load_bytes` (a `.pml` or `manifest.xml` loads its folder), a
/// folder as [`load_tree`](super::load_tree).
pub fn load_path(path: &Path) -> Result<Project> {
    load(path, None)
}

/// [`load_path`], each XAR file read and each archive unpacked through `reads`: a file that
/// `reads` has read already (under the same name) is not read again. For loading many paths that hold the same
/// behaviors (a project's `.pml`, its `manifest.xml`, its `behavior.xar`).
pub fn load_path_with(path: &Path, reads: &Reads) -> Result<Project> {
    load(path, Some(reads))
}

fn load(path: &Path, reads: Option<&Reads>) -> Result<Project> {
    let display = path.display().to_string();
    if path.is_dir() {
        let files = read_dir_tree(path)?;
        let mut project = load_files(
            &folder_name(path),
            &format!("{display}/"),
            files,
            None,
            reads,
        )?;
        project.root = fs::canonicalize(path).ok();
        return Ok(project);
    }
    let bytes = fs::read(path).map_err(|e| io_error(path, &e))?;
    // The folder of the file: `.` for a bare file name.
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let kind = sniff(&display, &bytes);
    let mut project = match kind {
        Some(kind @ (FileKind::Pml | FileKind::Manifest)) => {
            let files = read_dir_tree(&dir)?;
            // The file's own name: `base_name` would cut a name holding `!` (archive
            // members are named `x.crg!member`).
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let dir_display = dir.display().to_string();
            let choice = (kind == FileKind::Pml).then_some(file_name.as_str());
            load_files(
                &folder_name(&dir),
                &format!("{dir_display}/"),
                files,
                choice,
                reads,
            )?
        }
        _ => load_bytes_with(&display, &bytes, reads)?,
    };
    if !matches!(kind, Some(FileKind::Crg | FileKind::Cbl | FileKind::Pkg)) {
        project.root = fs::canonicalize(&dir).ok();
    }
    Ok(project)
}

/// The name of a folder, even when given as `.` or `..`.
fn folder_name(dir: &Path) -> String {
    let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    match dir.file_name() {
        Some(n) => n.to_string_lossy().into_owned(),
        None => dir.display().to_string(),
    }
}
