//! Loading a project by its project file (`.pml`) or its package's `manifest.xml`: the
//! behaviors they list, each read from the tree.

use super::kind::base_name;
use super::loaded::Project;
use super::reads::Reads;
use super::tree::{join_in_tree, missing_references, parent_of};
use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity};
use crate::project_files;

/// Loads the project whose `.pml` is at `pml_path` of `project`'s files.
pub(super) fn load_pml_project(
    project: &mut Project,
    prefix: &str,
    pml_path: &str,
    reads: Option<&Reads>,
) -> Result<()> {
    let pml_file = format!("{prefix}{pml_path}");
    let bytes = project.files.get(pml_path).ok_or_else(|| {
        Error::file_level(
            ErrorKind::Io,
            &pml_file,
            "the project file is not in the folder",
        )
    })?;
    let parsed = project_files::read_pml(&pml_file, bytes)?;
    let pml = parsed.value;
    project.warnings.extend(parsed.warnings);
    let dir = parent_of(pml_path).to_string();
    project
        .warnings
        .extend(missing_references(&pml_file, &pml, &dir, &project.files));
    if let Some(manifest_path) = pml.manifest.as_deref().and_then(|m| join_in_tree(&dir, m))
        && let Some(bytes) = project.files.get(&manifest_path)
    {
        match project_files::read_manifest(&format!("{prefix}{manifest_path}"), bytes) {
            Ok(m) => {
                project.warnings.extend(m.warnings);
                project.manifest = Some(m.value);
            }
            Err(e) => project.warnings.push(*e.0),
        }
    }
    for b in &pml.behaviors {
        let Some(path) = join_in_tree(&dir, &b.xar_path()) else {
            continue;
        };
        let folder = b.src.trim_end_matches(['/', '\\']);
        let name = match folder {
            "" | "." => pml.name.clone(),
            f => base_name(f).to_string(),
        };
        project.add_behavior(prefix, name, path, reads);
    }
    project.name = pml.name.clone();
    project.pml = Some(pml);
    project.pml_path = Some(pml_path.to_string());
    Ok(())
}
/// Loads the package whose `manifest.xml` is at `manifest_path` of `project`'s files.
pub(super) fn load_manifest_project(
    project: &mut Project,
    prefix: &str,
    manifest_path: &str,
    reads: Option<&Reads>,
) -> Result<()> {
    let file = format!("{prefix}{manifest_path}");
    let Some(bytes) = project.files.get(manifest_path) else {
        return Ok(());
    };
    let parsed = project_files::read_manifest(&file, bytes)?;
    let manifest = parsed.value;
    project.warnings.extend(parsed.warnings);
    let dir = parent_of(manifest_path).to_string();
    for b in &manifest.behaviors {
        let path = join_in_tree(&dir, &b.xar_path()).filter(|p| project.files.contains_key(p));
        let Some(path) = path else {
            project.warnings.push(Diagnostic::file_level(
                Severity::Warning,
                ErrorKind::Unusual,
                &file,
                format!("the behavior {:?} is missing (no {})", b.path, b.xar_path()),
            ));
            continue;
        };
        let name = match b.path.trim_end_matches(['/', '\\']) {
            "" | "." => project.name.clone(),
            f => base_name(f).to_string(),
        };
        project.add_behavior(prefix, name, path, reads);
    }
    if let Some(n) = manifest.names.first().filter(|n| !n.text.is_empty()) {
        project.name = n.text.clone();
    }
    project.manifest = Some(manifest);
    Ok(())
}
