//! `choreo package`: the `.pkg` NAOqi's PackageManager installs, built from a project as
//! qipkg builds it, with qipkg's checks (see [`choreo_xar::packaging`]).

use std::path::{Path, PathBuf};

use choreo_xar::archive::pack_zip;
use choreo_xar::packaging::{Staged, stage};
use serde_json::json;

use crate::cli::check::diagnostic_json;
use crate::cli::exit;
use crate::cli::live::Verbosity;
use crate::cli::report::{format_diagnostic, load_shown};

/// Builds the package of `project` into `output` (by default `<uuid>-<version>.pkg`, as qipkg
/// names it); with `force`, despite failed manifest checks. Returns the exit code: 0 written,
/// 1 refused (errors found; nothing written), 4 unreadable project, 6 not written.
pub fn run(project: &Path, output: Option<&Path>, force: bool, json: bool) -> u8 {
    let loaded = match load_shown(project, false, Verbosity::Quiet) {
        Ok(p) => p,
        Err(code) => return code,
    };
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
            exit::OK
        }
        Ok(false) => {
            if !json {
                errln!(
                    "{}: not packaged: the errors above would make PackageManager refuse it \
                     or install it broken{}",
                    project.display(),
                    if staged.refused(true) {
                        ""
                    } else {
                        " (--force writes it anyway, as qipkg's --force does)"
                    }
                );
            }
            exit::NO
        }
        Err(code) => code,
    }
}

fn write(staged: &Staged, output: &Path) -> Result<(), u8> {
    let bytes = pack_zip(&output.display().to_string(), &staged.files).map_err(|e| {
        errln!("{e}");
        exit::WRITE
    })?;
    std::fs::write(output, bytes).map_err(|e| {
        errln!("{}: cannot write: {e}", output.display());
        exit::WRITE
    })
}
