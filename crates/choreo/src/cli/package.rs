//! `choreo package`: the `.pkg` NAOqi's PackageManager installs, built from a project as
//! qipkg builds it, with qipkg's checks (see [`choreo_xar::pkg`]).

use std::path::{Path, PathBuf};

use choreo_xar::archive::pack_zip;
use choreo_xar::pkg::{Staged, stage};
use serde_json::json;

use crate::check::diagnostic_json;
use crate::check::diagnostic_text as format_diagnostic;
use crate::cli::error::{CliError, CliResult};
use crate::cli::input::load_shown;
use crate::exit;
use crate::report::live::Verbosity;

/// `choreo package`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct PackageArgs {
    /// The project.
    pub(crate) project: PathBuf,
    /// The package to write (default: `<uuid>-<version>.pkg`, as qipkg names it).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Write it despite failed manifest checks (as qipkg's --force); missing files stay
    /// errors.
    #[arg(long)]
    pub(crate) force: bool,
    /// One JSON object: output, written, uuid, version, files, diagnostics.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Builds the package of `project` into `output` (by default `<uuid>-<version>.pkg`, as qipkg
/// names it); with `force`, despite failed manifest checks. Exit 0 written, 1 refused (errors
/// found; nothing written), 4 unreadable project, 6 not written.
pub fn run(args: &PackageArgs) -> CliResult {
    let (project, output, force, json) =
        (&args.project, args.output.as_deref(), args.force, args.json);
    let loaded = load_shown(project, false, Verbosity::Quiet)?;
    let shown = project.display().to_string();
    let staged = stage(&loaded, shown.trim_end_matches('/'));
    let refused = staged.refused(force);
    let output: PathBuf = match output {
        Some(o) => o.to_path_buf(),
        None => PathBuf::from(
            staged
                .file_name()
                .unwrap_or_else(|| format!("{}.pkg", loaded.name)),
        ),
    };
    let written = if refused {
        Ok(false)
    } else {
        write(&staged, &output).map(|()| true)
    };
    if json {
        outln!(
            "{}",
            json!({
                "output": output.display().to_string(),
                "written": written.as_ref().is_ok_and(|w| *w),
                "uuid": staged.uuid,
                "version": staged.version,
                "files": staged.files.keys().collect::<Vec<_>>(),
                "diagnostics": staged.diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
            })
        );
    } else {
        for d in &staged.diagnostics {
            errln!("{}", format_diagnostic(d));
        }
    }
    match written {
        Ok(true) => {
            if !json {
                outln!(
                    "wrote {} ({} file(s){})",
                    output.display(),
                    staged.files.len(),
                    if staged.has_errors() {
                        ", despite the errors above: --force"
                    } else {
                        ""
                    }
                );
            }
            Ok(exit::OK)
        }
        // The JSON says it all.
        Ok(false) if json => Err(CliError::Shown(exit::NO)),
        Ok(false) => Err(CliError::No(format!(
            "{}: not packaged: the errors above would make PackageManager refuse it or \
             install it broken{}",
            project.display(),
            if staged.refused(true) {
                ""
            } else {
                " (--force writes it anyway, as qipkg's --force does)"
            }
        ))),
        Err(e) => Err(e),
    }
}

fn write(staged: &Staged, output: &Path) -> CliResult<()> {
    let bytes = pack_zip(&output.display().to_string(), &staged.files)
        .map_err(|e| CliError::Write(e.to_string()))?;
    std::fs::write(output, bytes)
        .map_err(|e| CliError::Write(format!("{}: cannot write: {e}", output.display())))
}
