//! `choreo new`: a behavior, a project or a box library as Choregraphe's File > New makes
//! them (`choreo_editor::make_new`), then, with `--edit`, `choreo edit` on it.

use std::path::PathBuf;

use choreo_editor::NewKind;

use crate::cli::edit::EditArgs;
use crate::cli::error::{CliError, CliResult};
use crate::exit;

/// What to make.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum Kind {
    /// A `behavior.xar` (PATH: the file, or a folder to hold it).
    Behavior,
    /// A project folder: NAME.pml, manifest.xml, behavior_1/behavior.xar.
    Project,
    /// A box library: NAME.cbl.
    Library,
}

#[derive(Debug, clap::Args)]
pub(crate) struct NewArgs {
    /// What to make.
    kind: Kind,
    /// Where: its last part names a project or a library.
    path: PathBuf,
    /// Open it in `choreo edit` at once.
    #[arg(long)]
    edit: bool,
}

pub fn run(args: &NewArgs) -> CliResult {
    let kind = match args.kind {
        Kind::Behavior => NewKind::Behavior,
        Kind::Project => NewKind::Project,
        Kind::Library => NewKind::Library,
    };
    let made = choreo_editor::make_new(kind, &args.path).map_err(|e| match e {
        choreo_editor::NewError::Exists(_) | choreo_editor::NewError::NoName(_) => {
            CliError::Usage(e.to_string())
        }
        _ => CliError::Write(e.to_string()),
    })?;
    outln!("made {}", made.display());
    if !args.edit {
        errln!("open it with: choreo edit {}", quoted(&made));
        return Ok(exit::OK);
    }
    crate::cli::edit::run(&EditArgs::of(made))
}

/// `path` as a shell would take it back (quoted when it holds a space or a quote).
fn quoted(path: &std::path::Path) -> String {
    let s = path.display().to_string();
    if s.chars()
        .any(|c| c.is_whitespace() || "'\"$`\\".contains(c))
    {
        format!("'{}'", s.replace('\'', "'\\''"))
    } else {
        s
    }
}
