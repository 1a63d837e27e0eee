//! `choreo convert`: XAR (or any readable input) to the split format and back.

use std::path::{Path, PathBuf};

use choreo_xar::source::{Behavior, read_dir_tree};
use choreo_xar::{FileTree, split, write_xar};

use crate::exit;
use crate::report;

/// Converts `input` to `output` (a `.xar` file, or a split folder); returns the exit code.
pub fn run(input: &Path, output: &Path, force: bool) -> u8 {
    let project = match report::load(input, false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if project.behaviors.is_empty() {
        errln!("{}: no behavior to convert", input.display());
        return exit::LOAD;
    }
    let to_xar = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xar"));
    if let Err(code) = make_room(output, force) {
        return code;
    }
    let result = if to_xar {
        let [only] = project.behaviors.as_slice() else {
            errln!(
                "{} holds {} behaviors: convert it to a folder instead of one .xar file",
                input.display(),
                project.behaviors.len()
            );
            return exit::USAGE;
        };
        std::fs::write(output, write_xar(&only.xar)).map_err(|e| (output.to_path_buf(), e))
    } else {
        write_split(&project.behaviors, output)
    };
    match result {
        Ok(()) => {
            outln!(
                "wrote {} ({} behavior(s))",
                output.display(),
                project.behaviors.len()
            );
            exit::OK
        }
        Err((path, e)) => {
            errln!("{}: cannot write: {e}", path.display());
            exit::WRITE
        }
    }
}

/// Refuses to overwrite an existing output unless `force`; with `force`, an existing
/// folder is replaced only if it is a split folder (never an unrelated directory).
fn make_room(output: &Path, force: bool) -> Result<(), u8> {
    if !output.exists() {
        return Ok(());
    }
    if !force {
        errln!(
            "{}: already exists (use --force to replace it)",
            output.display()
        );
        return Err(exit::USAGE);
    }
    if output.is_dir() {
        let is_split = read_dir_tree(output).is_ok_and(|t| split::is_split_tree(&t));
        if !is_split {
            errln!(
                "{}: is a folder but not a split behavior; refusing to replace it",
                output.display()
            );
            return Err(exit::USAGE);
        }
        if let Err(e) = std::fs::remove_dir_all(output) {
            errln!("{}: cannot remove: {e}", output.display());
            return Err(exit::WRITE);
        }
    }
    Ok(())
}

/// Writes each behavior's split tree: into `output` itself when there is one behavior,
/// else into one subfolder per behavior.
fn write_split(behaviors: &[Behavior], output: &Path) -> Result<(), (PathBuf, std::io::Error)> {
    for b in behaviors {
        let dir = if behaviors.len() == 1 {
            output.to_path_buf()
        } else {
            output.join(folder_name(&b.name))
        };
        write_tree(&dir, &split::to_tree(&b.xar))?;
    }
    Ok(())
}

/// A folder name for a behavior's display name (`a.crg!behavior_1/behavior.xar`).
fn folder_name(name: &str) -> String {
    let inner = name.rsplit('!').next().unwrap_or(name);
    let stem = inner
        .trim_end_matches("/behavior.xar")
        .trim_end_matches("/box.xar");
    stem.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_. ".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write_tree(dir: &Path, tree: &FileTree) -> Result<(), (PathBuf, std::io::Error)> {
    for (rel, bytes) in tree {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| (parent.to_path_buf(), e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| (path.clone(), e))?;
    }
    Ok(())
}
