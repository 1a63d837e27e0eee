//! `choreo export-python X -o main.py`: a behavior as a small Python program that runs it with
//! the `choreo` package, on a robot (`python main.py IP [PORT]`, as QiCore's `main.py` meant
//! to) or on the simulated one (`python main.py`). The program names the input by its path
//! relative to the program's own folder, so the two can move together.

use std::path::{Component, Path, PathBuf};

use crate::cli::error::{CliError, CliResult};
use crate::cli::report;
use crate::exit;

/// `choreo export-python`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct ExportArgs {
    /// The behavior: a .xar, project folder, .pml, .crg, .pkg or split folder.
    pub(crate) path: PathBuf,
    /// The program to write.
    #[arg(short, long, default_value = "main.py")]
    pub(crate) output: PathBuf,
    /// The behavior of a project (by name); the first one by default.
    #[arg(long)]
    pub(crate) behavior: Option<String>,
    /// Replace an existing file.
    #[arg(long)]
    pub(crate) force: bool,
}

/// Writes the program.
pub fn export(args: &ExportArgs) -> CliResult {
    let project = report::load(&args.path, false)?;
    let project = crate::Project::new(&args.path, std::sync::Arc::new(project));
    let name = project
        .behavior(args.behavior.as_deref())
        .map_err(|e| CliError::Load(e.to_string()))?
        .behavior()
        .name
        .clone();
    if args.output.exists() && !args.force {
        return Err(CliError::Write(format!(
            "{}: already exists (--force replaces it)",
            args.output.display()
        )));
    }
    let folder = match args.output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let target = match (absolute(&args.path), absolute(&folder)) {
        (Ok(input), Ok(folder)) => relative(&input, &folder),
        (Err(e), _) | (_, Err(e)) => {
            return Err(CliError::Usage(format!("{}: {e}", args.path.display())));
        }
    };
    let text = program(&target, &name);
    match std::fs::write(&args.output, text) {
        Ok(()) => {
            outln!(
                "wrote {} (python {} [IP [PORT]] runs {name})",
                args.output.display(),
                args.output.display()
            );
            Ok(exit::OK)
        }
        Err(e) => Err(CliError::Write(format!(
            "{}: cannot write: {e}",
            args.output.display()
        ))),
    }
}

fn absolute(p: &Path) -> std::io::Result<PathBuf> {
    std::path::absolute(p)
}

/// `to` seen from the folder `from` (both absolute): `../examples/hello`.
fn relative(to: &Path, from: &Path) -> PathBuf {
    let to: Vec<Component<'_>> = to.components().collect();
    let from: Vec<Component<'_>> = from.components().collect();
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// A Python string literal for `s` (JSON's escapes are Python's for text).
fn literal(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The program's text: runs behavior `name` of the input at `target` (relative to the
/// program's folder).
fn program(target: &Path, name: &str) -> String {
    let path = literal(&target.to_string_lossy());
    let name = literal(name);
    format!(
        r#"#!/usr/bin/env python3
"""Runs the Choregraphe behavior {name} with the choreo package (pip install choreo).

    python main.py                  on a simulated NAO, in real time (--fast: virtual time)
    python main.py IP [PORT]        on the robot at IP (port 9559 by default)

Ctrl-C stops the behavior cleanly. The exit code: 0 finished, 1 any other end, 2 bad
arguments (written by `choreo export-python`).
"""

import argparse
import pathlib
import sys

import choreo

# The behavior, from this file's folder.
BEHAVIOR = pathlib.Path(__file__).resolve().parent / {path}
NAME = {name}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Runs " + NAME + " with choreo.")
    parser.add_argument("ip", nargs="?", help="the robot's address (none: a simulated robot)")
    parser.add_argument("port", nargs="?", type=int, default=9559, help="its port (9559)")
    parser.add_argument("--fast", action="store_true", help="virtual time (simulated robot)")
    parser.add_argument("--timeout", type=float, help="stop after this many seconds")
    args = parser.parse_args(argv)
    robot = "tcp://%s:%d" % (args.ip, args.port) if args.ip else None
    if robot and args.fast:
        parser.error("--fast is for the simulated robot")
    with choreo.load(BEHAVIOR, NAME, robot=robot, fast=args.fast,
                     timeout=args.timeout) as run:
        run.on_event(lambda e: e["event"] == "said" and print("says: " + e["text"]))
        run.start()
        while True:
            try:
                ending = run.wait_end(timeout=0.5)
                break
            except choreo.WaitTimeout:
                continue
            except KeyboardInterrupt:
                run.stop()
    print(NAME + ": " + ending.kind)
    return 0 if ending == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_made_relative_to_the_programs_folder() {
        let r = |a: &str, b: &str| relative(Path::new(a), Path::new(b));
        assert_eq!(
            r("/w/examples/hello", "/w/out"),
            Path::new("../examples/hello")
        );
        assert_eq!(r("/w/examples/hello", "/w"), Path::new("examples/hello"));
        assert_eq!(r("/w", "/w"), Path::new("."));
        assert_eq!(r("/a/x.crg", "/b/c"), Path::new("../../a/x.crg"));
    }

    #[test]
    fn names_are_python_literals() {
        assert_eq!(literal("a \"b\"\\"), r#""a \"b\"\\""#);
    }
}
