//! Where a conversion (`choreo convert`) writes: room made for the output without clobbering
//! what is not its own, names safe on every system, trees written.

use std::path::{Path, PathBuf};

use choreo_xar::project;
use choreo_xar::source::read_dir_tree;
use choreo_xar::{FileTree, split};

/// Why an output has no room.
#[derive(Debug, thiserror::Error)]
pub enum NoRoom {
    /// The output exists and replacing it was not asked for, or it is a folder that is not
    /// one of ours.
    #[error("{0}")]
    Refused(String),
    /// The folder to replace could not be removed.
    #[error("{0}")]
    CannotRemove(String),
}

/// Whether `path` ends with `.extension` (any case).
pub fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// The extension of `.qianim` files.
pub const QIANIM: &str = "qianim";

/// Whether `dir` is the current folder.
pub fn is_current_dir(dir: &Path) -> bool {
    let here = std::env::current_dir().and_then(dunce::canonicalize);
    matches!((here, dunce::canonicalize(dir)), (Ok(a), Ok(b)) if a == b)
}

/// Which existing folders an output may replace.
pub struct Ownership {
    /// What such a folder is, in messages (`a split behavior`).
    what: &'static str,
    /// Whether the folder is one.
    owns: fn(&Path) -> bool,
}

impl Ownership {
    /// Split behaviors, readable projects and Choregraphe projects.
    pub const READABLE: Ownership = Ownership {
        what: "a split behavior or a project",
        owns: |dir| {
            read_dir_tree(dir).is_ok_and(|t| {
                split::is_split_tree(&t)
                    || project::is_readable_tree(&t)
                    || choreo_xar::source::load_tree("", t).is_ok()
            })
        },
    };

    /// Never a folder (for file outputs).
    pub const NONE: Ownership = Ownership {
        what: "a file",
        owns: |_| false,
    };

    /// Folders of `.qianim` files and nothing else.
    pub const QIANIM: Ownership = Ownership {
        what: "a folder of .qianim files only",
        owns: |dir| {
            std::fs::read_dir(dir).is_ok_and(|entries| {
                entries.into_iter().all(|e| {
                    e.is_ok_and(|e| {
                        let path = e.path();
                        path.is_file() && has_extension(&path, QIANIM)
                    })
                })
            })
        },
    };
}

/// Refuses to overwrite an existing output unless `force`; with `force`, an existing
/// folder is replaced only if it is one of ours (never an unrelated directory).
pub fn make_room(output: &Path, force: bool, ours: &Ownership) -> Result<(), NoRoom> {
    if !output.exists() {
        return Ok(());
    }
    if !force {
        return Err(NoRoom::Refused(format!(
            "{}: already exists (use --force to replace it)",
            output.display()
        )));
    }
    if output.is_dir() {
        if !(ours.owns)(output) {
            return Err(NoRoom::Refused(format!(
                "{}: is a folder but not {}; refusing to replace it",
                output.display(),
                ours.what
            )));
        }
        if let Err(e) = std::fs::remove_dir_all(output) {
            return Err(NoRoom::CannotRemove(format!(
                "{}: cannot remove: {e}",
                output.display()
            )));
        }
    }
    Ok(())
}

/// A folder name for a behavior's display name (`a.crg!behavior_1/behavior.xar`).
pub fn folder_name(name: &str) -> String {
    let inner = name.rsplit('!').next().unwrap_or(name);
    let stem = inner
        .trim_end_matches("/behavior.xar")
        .trim_end_matches("/box.xar");
    safe_name(stem, "-_. ")
}

/// `name` with every character but letters, digits and those of `keep` replaced by `_`.
pub fn safe_name(name: &str, keep: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || keep.contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes every file of `tree` under `dir`; the path that failed, and why.
pub fn write_tree(dir: &Path, tree: &FileTree) -> Result<(), (PathBuf, std::io::Error)> {
    for (rel, bytes) in tree {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| (parent.to_path_buf(), e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| (path.clone(), e))?;
    }
    Ok(())
}
