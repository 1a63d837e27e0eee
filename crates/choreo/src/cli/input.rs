//! A command's inputs read ([`load`]: a behavior, a project, an archive) with their
//! diagnostics shown at their file and line, a behavior picked by name, a scenario read.

use std::path::Path;

use choreo_xar::source::{Behavior, Project, load_path, load_path_to_run};
use choreo_xar::{Diagnostic, Severity};

use crate::check::diagnostic_text as format_diagnostic;
use crate::cli::error::{CliError, CliResult, PATH_FIX, with_help};
use crate::report::live::Verbosity;

/// Loads any input (file, archive, project or split folder), printing its warnings. A
/// behavior of the input that cannot be read is an error unless `partial` allows going on
/// with the others; on error, why.
pub fn load(path: &Path, partial: bool) -> CliResult<Project> {
    load_shown(path, partial, Verbosity::Normal)
}

/// [`load`], its warnings shown at `verbosity`: each on its own line (verbose), many of one
/// kind folded into one line ([`crate::report::fold::fold_diagnostics`]), or none (quiet: errors
/// only).
pub fn load_shown(path: &Path, partial: bool, verbosity: Verbosity) -> CliResult<Project> {
    shown(path, load_path, partial, verbosity)
}

/// [`load_shown`] for a run: a behavior file is read in the project that lists it
/// ([`load_path_to_run`]).
pub fn load_to_run(path: &Path, verbosity: Verbosity) -> CliResult<Project> {
    shown(path, load_path_to_run, false, verbosity)
}

/// `path` read by `read`, its warnings shown at `verbosity` (see [`load_shown`]).
fn shown(
    path: &Path,
    read: fn(&Path) -> choreo_xar::Result<Project>,
    partial: bool,
    verbosity: Verbosity,
) -> CliResult<Project> {
    if !path.exists() {
        return Err(CliError::Usage(with_help(
            format!("{}: no such file or folder", path.display()),
            PATH_FIX,
        )));
    }
    match read(path) {
        Ok(project) => {
            let shown: Vec<Diagnostic> = project
                .warnings
                .iter()
                .filter(|w| verbosity != Verbosity::Quiet || w.severity == Severity::Error)
                .cloned()
                .collect();
            if verbosity == Verbosity::Verbose {
                for w in &shown {
                    errln!("{}", format_diagnostic(w));
                }
            } else {
                for line in crate::report::fold::fold_diagnostics(&shown, format_diagnostic) {
                    errln!("{line}");
                }
            }
            let broken = project
                .warnings
                .iter()
                .any(|w| w.severity == Severity::Error);
            if broken && !partial {
                return Err(CliError::Load(format!(
                    "{}: a behavior could not be read",
                    path.display()
                )));
            }
            Ok(project)
        }
        Err(e) => Err(CliError::Load(format_diagnostic(e.diagnostic()))),
    }
}

/// The scenario of `--events`, if given: read, or why not.
pub fn load_scenario(file: Option<&Path>) -> CliResult<Option<choreo_naoqi::Scenario>> {
    match file {
        Some(file) => choreo_naoqi::Scenario::from_path(file)
            .map(Some)
            .map_err(|e| CliError::Load(e.to_string())),
        None => Ok(None),
    }
}

/// The behavior of `project` named `name` (the first one without a name), or why not (naming
/// the behaviors there are).
pub fn pick_behavior<'a>(
    project: &'a Project,
    path: &Path,
    name: Option<&str>,
) -> CliResult<&'a Behavior> {
    let behavior = match name {
        Some(name) => project.behaviors.iter().find(|b| b.name == name),
        None => project.behaviors.first(),
    };
    behavior.ok_or_else(|| {
        let names: Vec<&str> = project.behaviors.iter().map(|b| b.name.as_str()).collect();
        CliError::Load(format!(
            "{}: no behavior {}(it has: {})",
            path.display(),
            name.map_or(String::new(), |n| format!("{n:?} ")),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    })
}
