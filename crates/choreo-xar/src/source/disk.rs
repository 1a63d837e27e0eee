//! Reading a folder on disk into memory, bounded like an archive: the only reads of the
//! disk besides the files a path names.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use crate::FileTree;
use crate::archive::Limits;
use crate::error::{Error, ErrorKind, Result};

/// An [`ErrorKind::Io`] error for `path`.
pub(super) fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error::file_level(
        ErrorKind::Io,
        &path.display().to_string(),
        format!("cannot read: {e}"),
    )
}

/// Reads a folder into memory. Symbolic links are followed only to files and folders inside
/// the folder (others are skipped); `.git` folders are skipped; the total size and file count
/// are capped like an archive's ([`archive::MAX_TOTAL_SIZE`](crate::archive::MAX_TOTAL_SIZE), [`archive::MAX_ENTRIES`](crate::archive::MAX_ENTRIES)).
pub fn read_dir_tree(path: &Path) -> Result<FileTree> {
    let limits = Limits::default();
    let root = dunce::canonicalize(path).map_err(|e| io_error(path, &e))?;
    let mut files = FileTree::new();
    let mut total: u64 = 0;
    let mut visited = HashSet::new();
    visited.insert(root.clone());
    let mut stack = vec![(root.clone(), String::new())];
    let too_large =
        |what: String| Error::file_level(ErrorKind::TooLarge, &path.display().to_string(), what);
    while let Some((dir, rel)) = stack.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| io_error(&dir, &e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error(&dir, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel_path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let mut target = entry.path();
            let mut meta = fs::symlink_metadata(&target).map_err(|e| io_error(&target, &e))?;
            if meta.file_type().is_symlink() {
                match dunce::canonicalize(&target) {
                    Ok(t) if t.starts_with(&root) => {
                        meta = fs::metadata(&t).map_err(|e| io_error(&t, &e))?;
                        target = t;
                    }
                    _ => continue,
                }
            }
            if meta.is_dir() {
                if name != ".git"
                    && visited.insert(dunce::canonicalize(&target).unwrap_or(target.clone()))
                {
                    stack.push((target, rel_path));
                }
            } else if meta.is_file() {
                total = total.saturating_add(meta.len());
                if total > limits.max_total_size {
                    return Err(too_large(format!(
                        "the folder holds more than {} bytes",
                        limits.max_total_size
                    )));
                }
                if files.len() >= limits.max_entries {
                    return Err(too_large(format!(
                        "the folder holds more than {} files",
                        limits.max_entries
                    )));
                }
                let bytes = fs::read(&target).map_err(|e| io_error(&target, &e))?;
                files.insert(rel_path, bytes);
            }
        }
    }
    Ok(files)
}
