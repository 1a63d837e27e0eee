//! Loading one file's bytes: a lone `.xar` behavior, or an archive (`.crg`, `.cbl`, `.pkg`)
//! unpacked and loaded as a folder.

use super::folder::load_files;
use super::kind::{FileKind, base_name, sniff};
use super::loaded::{Behavior, Project};
use super::reads::{Reads, read, unpack};
use super::tree::stem;
use crate::FileTree;
use crate::archive;
use crate::error::{Error, ErrorKind, Result};
use crate::project::Container;

/// Loads a file's bytes: a `.xar` is one behavior; a `.crg`, `.cbl` or `.pkg` is unpacked and
/// loaded like a folder (see [`load_tree`](super::load_tree)). A lone `.pml` or `manifest.xml` has no
/// behaviors to load: use [`load_path`](super::load_path) or [`load_tree`](super::load_tree) with its folder.
pub fn load_bytes(name: &str, bytes: &[u8]) -> Result<Project> {
    load_bytes_with(name, bytes, None)
}

/// [`load_bytes`], its XAR files read through `reads` when given.
pub(super) fn load_bytes_with(name: &str, bytes: &[u8], reads: Option<&Reads>) -> Result<Project> {
    match sniff(name, bytes) {
        Some(FileKind::Xar | FileKind::BoxXar) => {
            let parsed = read(reads, name, bytes)?;
            let path = base_name(name).to_string();
            let mut project = Project::new(stem(name), FileTree::new());
            project.files.insert(path.clone(), bytes.to_vec());
            project.warnings = parsed.warnings;
            project.behaviors.push(Behavior {
                name: stem(name).to_string(),
                path,
                xar: parsed.value,
            });
            Ok(project)
        }
        Some(FileKind::Crg | FileKind::Cbl | FileKind::Pkg) => {
            let unpacked = unpack(reads, name, bytes)?;
            let title = unpacked
                .value
                .control
                .as_deref()
                .and_then(|c| archive::control_field(c, "title"))
                .filter(|t| !t.is_empty())
                .map(str::to_string);
            let mut project = load_files(
                title.as_deref().unwrap_or(stem(name)),
                &format!("{name}!"),
                unpacked.value.files,
                None,
                reads,
            )?;
            project.container = match sniff(name, bytes) {
                Some(FileKind::Cbl) => Container::Cbl,
                Some(FileKind::Pkg) => Container::Pkg,
                _ => Container::Crg,
            };
            project.control = unpacked.value.control;
            let mut warnings = unpacked.warnings;
            warnings.append(&mut project.warnings);
            project.warnings = warnings;
            Ok(project)
        }
        Some(other) => Err(Error::file_level(
            ErrorKind::Unsupported,
            name,
            format!(
                "this file holds {}, not a behavior, project or archive{}",
                other.describe(),
                if matches!(other, FileKind::Pml | FileKind::Manifest) {
                    ": load its folder"
                } else {
                    ""
                }
            ),
        )),
        None => Err(Error::file_level(
            ErrorKind::Unsupported,
            name,
            "not a behavior (.xar), project or archive (.crg, .cbl, .pkg)",
        )),
    }
}
