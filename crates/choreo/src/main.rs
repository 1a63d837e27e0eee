//! `choreo`: check, inspect, convert and compare Choregraphe behaviors.
//!
//! The command line is thin: argument parsing, progress and human output. The work is done
//! by the `choreo-xar` library.

mod check;
mod convert;
mod inspect;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit codes shared by every command (documented in `--help` and the README).
pub mod exit {
    /// Success: all files valid, behaviors equal, output written.
    pub const OK: u8 = 0;
    /// A negative answer: `check` found invalid files, `diff` found differences.
    pub const NO: u8 = 1;
    /// Bad command-line arguments (from clap).
    pub const USAGE: u8 = 2;
    /// An input could not be read or is not a valid behavior.
    pub const LOAD: u8 = 4;
    /// An output could not be written.
    pub const WRITE: u8 = 6;
}

const EXIT_CODES: &str = "\
Exit codes:
  0  success (check: every file valid; diff: equal)
  1  check: some file has errors; diff: the behaviors differ
  2  bad command-line arguments
  4  an input could not be read or is not a valid behavior
  6  an output could not be written";

/// choreo: an open runtime for Choregraphe (NAO / Pepper) behaviors.
#[derive(Parser)]
#[command(name = "choreo", version, about, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check files (or folders, recursively): every Choregraphe format, per-file results.
    #[command(after_help = EXIT_CODES)]
    Check {
        /// Files or folders to check.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One JSON object per file on stdout, then a summary object.
        #[arg(long)]
        json: bool,
        /// Print only files with warnings or errors, and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Show the box tree of a behavior: ports, parameters, links and timelines.
    #[command(after_help = EXIT_CODES)]
    Inspect {
        /// A .xar, box.xar, .crg, .cbl, .pkg, project folder or split folder.
        path: PathBuf,
    },
    /// Convert between XAR and the readable split format (a folder).
    ///
    /// `choreo convert behavior.xar out/` writes the split folder; `choreo convert out/
    /// behavior.xar` writes XAR back. Inputs may also be .crg, .cbl, .pkg or project
    /// folders; several behaviors go to one subfolder each.
    #[command(after_help = EXIT_CODES)]
    Convert {
        /// What to read.
        input: PathBuf,
        /// What to write: a folder (split format) or a file ending in .xar.
        output: PathBuf,
        /// Replace an existing output.
        #[arg(long)]
        force: bool,
    },
    /// Compare two behaviors semantically (file layout, order and spelling never count).
    #[command(after_help = EXIT_CODES)]
    Diff {
        /// First behavior.
        a: PathBuf,
        /// Second behavior.
        b: PathBuf,
        /// Also compare editor-only data (positions, tooltips, icons, plugin state).
        #[arg(long)]
        editor: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check { paths, json, quiet } => check::run(&paths, json, quiet),
        Command::Inspect { path } => inspect::run(&path),
        Command::Convert {
            input,
            output,
            force,
        } => convert::run(&input, &output, force),
        Command::Diff { a, b, editor } => diff(&a, &b, editor),
    };
    ExitCode::from(code)
}

/// `choreo diff`: loads both sides and prints their semantic differences.
fn diff(a: &std::path::Path, b: &std::path::Path, editor: bool) -> u8 {
    let (pa, pb) = match (report::load(a, false), report::load(b, false)) {
        (Ok(pa), Ok(pb)) => (pa, pb),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let options = choreo_xar::diff::DiffOptions { editor };
    let mut differences = Vec::new();
    if pa.behaviors.len() != pb.behaviors.len() {
        differences.push(format!(
            "behaviors: {} -> {}",
            pa.behaviors.len(),
            pb.behaviors.len()
        ));
    }
    for (ba, bb) in pa.behaviors.iter().zip(&pb.behaviors) {
        for d in choreo_xar::diff::diff(&ba.xar, &bb.xar, options) {
            differences.push(if pa.behaviors.len() > 1 {
                format!("{}: {d}", ba.name)
            } else {
                d.to_string()
            });
        }
    }
    if differences.is_empty() {
        println!("equal");
        exit::OK
    } else {
        for d in &differences {
            println!("{d}");
        }
        println!("{} difference(s)", differences.len());
        exit::NO
    }
}
