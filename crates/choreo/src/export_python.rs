//! A behavior as a small Python program (`choreo export-python X -o main.py`) that runs it with
//! the `choreo` package, on a robot (`python main.py IP [PORT]`, as QiCore's `main.py` meant
//! to) or on the simulated one (`python main.py`). The program names the input by its path
//! relative to the program's own folder, so the two can move together.

use std::path::{Component, Path, PathBuf};

/// The program that runs behavior `name` of the input at `input`, to be written in the
/// folder `folder` (it names the input relative to itself).
pub fn program(input: &Path, folder: &Path, name: &str) -> std::io::Result<String> {
    let target = relative(&std::path::absolute(input)?, &std::path::absolute(folder)?);
    Ok(program_text(&target, name))
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
fn program_text(target: &Path, name: &str) -> String {
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
