//! Loading a folder's files: a readable project folder, a split folder, a project (by its
//! `.pml` or `manifest.xml`), a 1.x project's `behavior.xar`, or a box library.

use super::kind::{FileKind, kind_from_name, sniff};
use super::library::load_library;
use super::loaded::{Behavior, Project};
use super::project_file::{load_manifest_project, load_pml_project};
use super::reads::Reads;
use crate::FileTree;
use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity};
use crate::project;

/// Loads an in-memory folder `name` (file names in messages are `name/path`):
/// - a split-format tree (see [`crate::split`]) is one behavior;
/// - else a project: the shallowest `.pml` (an error if there are several at that depth) and
///   the behaviors it lists; without a `.pml`, a `manifest.xml` at the top and its
///   `behaviorContent`s; else a `behavior.xar` at the top (1.x project);
/// - else a box library: every folder's `box.xar` or `behavior.xar`, named by the
///   percent-decoded folder name.
///
/// An empty tree is an empty project (with a warning).
pub fn load_tree(name: &str, files: FileTree) -> Result<Project> {
    load_files(name, &format!("{name}/"), files, None, None)
}

/// [`load_tree`] with messages naming `{prefix}{path}`, and optionally the `.pml` to use; a
/// readable project folder ([`project::is_readable_tree`]) loads as the project it holds.
pub(super) fn load_files(
    name: &str,
    prefix: &str,
    files: FileTree,
    pml_choice: Option<&str>,
    reads: Option<&Reads>,
) -> Result<Project> {
    if !project::is_readable_tree(&files) {
        return load_choregraphe_files(name, prefix, files, pml_choice, reads);
    }
    let container = prefix.trim_end_matches(['/', '!']);
    let packed = project::from_readable(container, &files)?;
    let name = packed.value.name.as_deref().unwrap_or(name);
    let choice = pml_choice.or(packed.value.pml.as_deref());
    // The files made back never hold the project file: this loads them as Choregraphe's.
    let mut project = load_choregraphe_files(name, prefix, packed.value.files, choice, reads)?;
    project.container = packed.value.container;
    project.control = packed.value.control;
    let mut warnings = packed.warnings;
    warnings.append(&mut project.warnings);
    project.warnings = warnings;
    Ok(project)
}

/// [`load_files`] of a tree that is not a readable project folder.
fn load_choregraphe_files(
    name: &str,
    prefix: &str,
    files: FileTree,
    pml_choice: Option<&str>,
    reads: Option<&Reads>,
) -> Result<Project> {
    let container = prefix.trim_end_matches(['/', '!']);
    if crate::split::is_split_tree(&files) {
        let parsed = crate::split::from_tree(container, &files)?;
        let mut project = Project::new(name, files);
        project.warnings = parsed.warnings;
        project.behaviors.push(Behavior {
            name: name.to_string(),
            path: crate::split::MARKER_FILE.to_string(),
            xar: parsed.value,
        });
        return Ok(project);
    }
    let mut project = Project::new(name, files);
    if project.files.is_empty() {
        project.warnings.push(Diagnostic::file_level(
            Severity::Warning,
            ErrorKind::Unusual,
            container,
            "holds no files: an empty project",
        ));
        return Ok(project);
    }
    let pml_path = match pml_choice {
        Some(p) => Some(p.to_string()),
        None => shallowest(container, &project.files, FileKind::Pml)?,
    };
    if let Some(pml_path) = pml_path {
        load_pml_project(&mut project, prefix, &pml_path, reads)?;
    } else if let Some(manifest_path) = shallowest(container, &project.files, FileKind::Manifest)? {
        load_manifest_project(&mut project, prefix, &manifest_path, reads)?;
    } else if project.files.contains_key("behavior.xar") {
        let name = project.name.clone();
        project.add_behavior(prefix, name, "behavior.xar".to_string(), reads);
    } else {
        load_library(&mut project, prefix, container, reads)?;
    }
    Ok(project)
}

/// The path of the single shallowest file of `kind` (by content) in `files`; an error if
/// several share that depth.
fn shallowest(container: &str, files: &FileTree, kind: FileKind) -> Result<Option<String>> {
    let found: Vec<&String> = files
        .iter()
        .filter(|(path, bytes)| {
            kind_from_name(path) == Some(kind) && sniff(path, bytes) == Some(kind)
        })
        .map(|(path, _)| path)
        .collect();
    let Some(depth) = found.iter().map(|p| p.matches('/').count()).min() else {
        return Ok(None);
    };
    let top: Vec<&String> = found
        .into_iter()
        .filter(|p| p.matches('/').count() == depth)
        .collect();
    match top.as_slice() {
        [one] => Ok(Some((*one).clone())),
        several => Err(Error::file_level(
            ErrorKind::Unsupported,
            container,
            format!(
                "several projects side by side ({}): load one of their folders",
                several
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}
