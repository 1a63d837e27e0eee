//! `choreo inspect`: the box tree of each behavior ([`crate::inspect`]).

use std::path::PathBuf;

use choreo_xar::Severity;

use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::exit;

/// `choreo inspect`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct InspectArgs {
    /// A .xar, box.xar, .crg, .cbl, .pkg, project folder or split folder.
    pub(crate) path: PathBuf,
}

/// Prints the tree of every behavior in `path` (exit 4 when one cannot be read).
pub fn run(args: &InspectArgs) -> CliResult {
    let path = args.path.as_path();
    let project = input::load(path, true)?;
    if project.behaviors.is_empty() {
        outln!("{}: no behavior", path.display());
    }
    let only = project.behaviors.len() == 1;
    for b in &project.behaviors {
        out!(
            "{}",
            crate::inspect::render(&crate::inspect::behavior_name(path, b, only), &b.xar)
        );
    }
    let broken = project
        .warnings
        .iter()
        .any(|w| w.severity == Severity::Error);
    if broken {
        // Each error was shown at its file and line.
        Err(CliError::Shown(exit::LOAD))
    } else {
        Ok(exit::OK)
    }
}
