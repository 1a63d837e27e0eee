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
                format!("the {what} {src:?} is missing (no {path})")
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
    fn stems_drop_folders_and_extensions() {
        assert_eq!(stem("x/Hello World.crg"), "Hello World");
        assert_eq!(stem("a.crg!behavior_1/behavior.xar"), "behavior");
        assert_eq!(stem("dir/"), "dir");
        assert_eq!(stem(".metadata"), ".metadata");
    }
}
