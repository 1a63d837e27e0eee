//! `choreo diff`: two behaviors compared semantically; `choreo git-diff`: the same as git's
//! diff driver.
//!
//! `--json` writes one JSON object a difference, then a summary.

use std::path::{Path, PathBuf};

use crate::cli::error::{CliError, CliResult};
use crate::cli::input;
use crate::exit;

/// `choreo diff`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// First behavior.
    pub(crate) a: PathBuf,
    /// Second behavior.
    pub(crate) b: PathBuf,
    /// Also compare editor-only data (positions, tooltips, icons, plugin state).
    #[arg(long)]
    pub(crate) editor: bool,
    /// Also show each changed key of changed motion curves.
    #[arg(long, short)]
    pub(crate) verbose: bool,
    /// One JSON object per difference (`path`, `what`, `details`, `keys`), then a
    /// summary object.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `choreo git-diff`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct GitDiffArgs {
    /// The path in the repository.
    pub(crate) path: String,
    /// The old version's file (`/dev/null`: added).
    pub(crate) old: PathBuf,
    /// The old version's hash.
    pub(crate) old_hash: String,
    /// The old version's mode.
    pub(crate) old_mode: String,
    /// The new version's file (`/dev/null`: removed).
    pub(crate) new: PathBuf,
    /// The new version's hash.
    pub(crate) new_hash: String,
    /// The new version's mode.
    pub(crate) new_mode: String,
}

/// `choreo git-diff`: a header like git's, then `choreo diff` of the two versions (or what was
/// added or removed); what cannot be read is said. Always 0.
pub fn git_diff(args: &GitDiffArgs) -> CliResult {
    let (path, old, new) = (&args.path, args.old.as_path(), args.new.as_path());
    outln!("diff --choreo a/{path} b/{path}");
    let gone = |p: &std::path::Path| p == std::path::Path::new("/dev/null");
    match (gone(old), gone(new)) {
        (true, true) => {}
        (true, false) => outln!("added {path}"),
        (false, true) => outln!("removed {path}"),
        (false, false) => {
            // git takes any code but 0 as the driver failing: what went wrong is only said.
            if let Err(e) = diff(old, new, false, false, false) {
                e.print();
            }
        }
    }
    Ok(exit::OK)
}

/// `choreo diff`: loads both sides and prints their semantic differences.
pub fn run(args: &DiffArgs) -> CliResult {
    diff(&args.a, &args.b, args.editor, args.verbose, args.json)
}

/// Both sides loaded (what each cannot read said, in order), then compared.
fn diff(a: &Path, b: &Path, editor: bool, verbose: bool, json: bool) -> CliResult {
    let pa = input::load(a, false);
    // The first side's failure is told before the second side is read, as it happened.
    if let Err(e) = &pa {
        e.print();
    }
    let pb = input::load(b, false);
    let (pa, pb) = match (pa, pb) {
        (Ok(pa), Ok(pb)) => (pa, pb),
        (Err(e), _) => return Err(CliError::Shown(e.code())),
        (Ok(_), Err(e)) => return Err(e),
    };
    let options = choreo_xar::diff::DiffOptions { editor };
    let mut differences = Vec::new();
    if pa.behaviors.len() != pb.behaviors.len() {
        differences.push(choreo_xar::diff::Difference {
            path: String::new(),
            what: format!(
                "behaviors: {} -> {}",
                pa.behaviors.len(),
                pb.behaviors.len()
            ),
            details: Vec::new(),
            more: Vec::new(),
        });
    }
    for (ba, bb) in pa.behaviors.iter().zip(&pb.behaviors) {
        for mut d in choreo_xar::diff::diff(&ba.xar, &bb.xar, options) {
            if pa.behaviors.len() > 1 {
                d.path = format!("{}: {}", ba.name, d.path);
            }
            differences.push(d);
        }
    }
    for d in &differences {
        if json {
            outln!(
                "{}",
                serde_json::json!({
                    "path": d.path, "what": d.what, "details": d.details, "keys": d.more,
                })
            );
            continue;
        }
        if d.path.is_empty() {
            outln!("{}", d.what);
        } else {
            outln!("{d}");
        }
        for line in d
            .details
            .iter()
            .chain(verbose.then_some(&d.more).into_iter().flatten())
        {
            outln!("    {line}");
        }
    }
    if json {
        outln!(
            "{}",
            serde_json::json!({"summary": {"differences": differences.len()}})
        );
    } else if differences.is_empty() {
        outln!("equal");
    } else {
        outln!("{} difference(s)", differences.len());
    }
    Ok(if differences.is_empty() {
        exit::OK
    } else {
        exit::NO
    })
}
