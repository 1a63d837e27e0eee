//! Package services' Python programs, run as the robot's Python 2 would run them. On NAOqi
//! 2.x a service's `execStart` (`python bin/service.py`, a `.py` file with a
//! `#!/usr/bin/env python` line) runs Python 2.7; choreo's programs run on Python 3 in their
//! own process (they connect to the robot over qi, as on the robot), so the fixer that
//! rewrites box scripts cannot run inside them. [`prepare`] rewrites the program and the
//! package's modules ahead, into a folder of fixed copies, beside a launcher
//! (`python/program.py`) that reads those copies in place of the originals and gives the
//! package's modules the Python-2 builtins (`python/py2.py`): `__file__`, line numbers and
//! the package's folder stay as they are, and nothing is written there.

use std::path::{Path, PathBuf};

use crate::fixer::{fix, needs_fixing};
use crate::runtime::PY2_CODE;

/// The launcher the program's interpreter runs.
const LAUNCHER: &str = include_str!("python/program.py");

/// At most this many files of a package are read for fixing: a package is a project, not a
/// disk; a larger one keeps the rest as written.
const MAX_FILES: usize = 20_000;

/// A module larger than this is not fixed (no box-code module is; a generated data file
/// might be).
const MAX_BYTES: u64 = 4 << 20;

/// A file of a program's launch that cannot be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file or folder.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// Writes into `out` the launcher, `py2.py` and the fixed copies of `script` and of the
/// `.py` files of `package` that need the fixer (same relative paths under `out/fixed`).
/// Returns the command's first arguments: the launcher, the fixed folder, the package and
/// the script (then the program's own arguments follow).
pub fn prepare(package: &Path, script: &Path, out: &Path) -> Result<Vec<PathBuf>, WriteError> {
    let fixed = out.join("fixed");
    let io = |what: &Path, source: std::io::Error| WriteError {
        path: what.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(&fixed).map_err(|e| io(&fixed, e))?;
    for (name, text) in [("program.py", LAUNCHER), ("py2.py", PY2_CODE)] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    let mut files = python_files(package);
    if !files.iter().any(|f| f == script) {
        files.push(script.to_path_buf());
    }
    for file in files {
        let Ok(relative) = file.strip_prefix(package) else {
            continue;
        };
        let Ok(source) = std::fs::read_to_string(&file) else {
            continue;
        };
        if !needs_fixing(&source) {
            continue;
        }
        let copy = fixed.join(relative);
        if let Some(folder) = copy.parent() {
            std::fs::create_dir_all(folder).map_err(|e| io(folder, e))?;
        }
        std::fs::write(&copy, fix(&source)).map_err(|e| io(&copy, e))?;
    }
    Ok(vec![out.join("program.py"), fixed, package.to_path_buf()])
}

/// The `.py` files under `folder`, without following links to folders (no loop) and at
/// most [`MAX_FILES`] entries looked at.
fn python_files(folder: &Path) -> Vec<PathBuf> {
    let (mut found, mut pending, mut seen) = (Vec::new(), vec![folder.to_path_buf()], 0);
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_FILES {
                return found;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "py")
                && entry.metadata().is_ok_and(|m| m.len() <= MAX_BYTES)
            {
                found.push(path);
            }
        }
    }
    found
}

/// Whether `program` (a path to a file) is a Python program by its first line: a `#!` line
/// naming `python` (`#!/usr/bin/env python`, `#!/usr/bin/python2.7`).
pub fn has_python_shebang(program: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(program) else {
        return false;
    };
    let mut first = String::new();
    let _ = std::io::BufReader::new(file)
        .take(256)
        .read_line(&mut first);
    first.starts_with("#!") && first.contains("python")
}
