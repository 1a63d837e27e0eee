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
use crate::error::{Result, Severity};

/// Loads a path: a file as `load_bytes` (a `.pml` or `manifest.xml` loads its folder), a
/// folder as [`load_tree`](super::load_tree).
pub fn load_path(path: &Path) -> Result<Project> {
    load(path, None)
}

/// [`load_path`] for a run: a behavior file that a `.pml` up to [`PROJECT_DEPTH`] folders
/// above lists is loaded as that project, that behavior first (the one a run plays), so it
/// runs with the package, language, dialogs, files and other behaviors the robot runs it
/// with (Choregraphe's Play installs them all: a menu starts its siblings by name with
/// ALBehaviorManager). Converting or checking a file reads it alone ([`load_path`]).
pub fn load_path_to_run(path: &Path) -> Result<Project> {
    match holding_project(path) {
        Some((pml, behavior)) => {
            let mut project = load(&pml, None)?;
            // Stable: the project's others keep their order after it.
            project.behaviors.sort_by_key(|b| b.path != behavior);
            // The project's other behaviors are not run: one that cannot be read does not
            // stop this one.
            let others: Vec<String> = project
                .pml
                .iter()
                .flat_map(|p| &p.behaviors)
                .map(|b| format!("/{}", b.xar_path()))
                .filter(|p| p[1..] != behavior)
                .collect();
            project.warnings.retain(|w| {
                w.severity != Severity::Error || !others.iter().any(|o| w.file.ends_with(o))
            });
            Ok(project)
        }
        None => load(path, None),
    }
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
        project.root = dunce::canonicalize(path).ok();
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
        project.root = dunce::canonicalize(&dir).ok();
    }
    Ok(project)
}

/// How many folders above a lone behavior file its project file may be: Choregraphe keeps a
/// behavior in `<project>/<behavior>/behavior.xar`, or in the project's own folder.
const PROJECT_DEPTH: usize = 3;

/// The `.pml` that lists behavior file `path` among its behaviors, and the behavior's path
/// in that project, if one does in the file's folder or the ones above it: a behavior run
/// by its file alone is run in its project, with the package, language, dialogs and files
/// it has on the robot.
fn holding_project(path: &Path) -> Option<(PathBuf, String)> {
    let file = dunce::canonicalize(path).ok()?;
    for folder in file.ancestors().skip(1).take(PROJECT_DEPTH) {
        let inside = file.strip_prefix(folder).ok()?;
        let inside: Vec<String> = inside
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let inside = inside.join("/");
        let Ok(entries) = fs::read_dir(folder) else {
            continue;
        };
        let mut pmls: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pml") && p.is_file())
            .collect();
        pmls.sort();
        for pml in pmls {
            let Ok(bytes) = fs::read(&pml) else {
                continue;
            };
            let Ok(parsed) = crate::project_files::read_pml(&pml.display().to_string(), &bytes)
            else {
                continue;
            };
            if parsed
                .value
                .behaviors
                .iter()
                .any(|b| b.xar_path() == inside)
            {
                return Some((pml, inside));
            }
        }
    }
    None
}

/// The name of a folder, even when given as `.` or `..`.
fn folder_name(dir: &Path) -> String {
    let dir = dunce::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    match dir.file_name() {
        Some(n) => n.to_string_lossy().into_owned(),
        None => dir.display().to_string(),
    }
}
