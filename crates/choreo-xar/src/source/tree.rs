//! Paths inside a [`FileTree`]: folders, `..` resolved without leaving the tree, and the
//! files a project file names that the tree lacks.

use super::kind::base_name;
use crate::FileTree;
use crate::error::{Diagnostic, ErrorKind, Severity};
use crate::project_files::Pml;

/// The folder part of a tree path (`a/b/c.pml` gives `a/b`; `c.pml` gives ``).
pub(super) fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `rel` (`/` or `\\` separated, `.` and `..` resolved) relative to folder `dir` of a tree;
/// `None` if it is absolute or climbs out of the tree.
pub(crate) fn join_in_tree(dir: &str, rel: &str) -> Option<String> {
    let rel = rel.replace('\\', "/");
    if rel.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Warnings for the files a project names that are not in `files` (the `.pml` is at
/// `pml_file`, in folder `dir` of the tree).
pub(super) fn missing_references(
    pml_file: &str,
    pml: &Pml,
    dir: &str,
    files: &FileTree,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (what, src) in pml.referenced_files() {
        let message = match join_in_tree(dir, &src) {
            None => format!("the {what} {src:?} is outside the project folder"),
            Some(path) if !files.contains_key(&path) => {
                format!(
                    "the {what} {src:?} is missing (no {path}){}",
                    case_hint(&path, files)
                )
            }
            Some(_) => continue,
        };
        out.push(Diagnostic::file_level(
            Severity::Warning,
            ErrorKind::Unusual,
            pml_file,
            message,
        ));
    }
    out
}

/// What a project made on Windows or macOS, whose file systems do not tell case apart,
/// meant by `path` when `files` holds it only in other letters: said, for choreo finds
/// files as the robot's Linux does, letter for letter, on every platform.
fn case_hint(path: &str, files: &FileTree) -> String {
    let lower = path.to_lowercase();
    files
        .keys()
        .find(|k| k.to_lowercase() == lower)
        .map_or(String::new(), |k| {
            format!(
                "; {k} differs only in case: a robot's file system tells case apart (the \
                 project was made where it does not, Windows or macOS)"
            )
        })
}

/// The name of a source without folders and extension (`x/Hello World.crg` gives
/// `Hello World`).
pub(super) fn stem(name: &str) -> &str {
    let base = base_name(name.trim_end_matches(['/', '\\']));
    match base.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_paths_resolve_dots_inside_the_tree_only() {
        assert_eq!(
            join_in_tree("a/b", "../c/./d.xar").as_deref(),
            Some("a/c/d.xar")
        );
        assert_eq!(join_in_tree("", "x\\y.top").as_deref(), Some("x/y.top"));
        assert_eq!(join_in_tree("a", ".").as_deref(), Some("a"));
        assert_eq!(join_in_tree("a", "../../x"), None);
        assert_eq!(join_in_tree("a", "/etc/passwd"), None);
    }

    #[test]
    fn a_file_named_in_other_letters_is_missing_and_said_so() {
        let mut files = FileTree::new();
        files.insert("behavior_1/behavior.xar".into(), Vec::new());
        assert!(
            case_hint("Behavior_1/behavior.xar", &files)
                .contains("behavior_1/behavior.xar differs only in case")
        );
        assert_eq!(case_hint("other/behavior.xar", &files), "");
    }

    #[test]
    fn stems_drop_folders_and_extensions() {
        assert_eq!(stem("x/Hello World.crg"), "Hello World");
        assert_eq!(stem("a.crg!behavior_1/behavior.xar"), "behavior");
        assert_eq!(stem("dir/"), "dir");
        assert_eq!(stem(".metadata"), ".metadata");
    }
}
