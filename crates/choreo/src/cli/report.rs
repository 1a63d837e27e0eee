//! Human output shared by the commands: diagnostics with their source line, and loading
//! an input with errors reported.

use std::fmt::Write as _;
use std::path::Path;

use choreo_robot::Model;
use choreo_xar::source::{Behavior, Project, load_path};
use choreo_xar::{Diagnostic, Severity};

use crate::cli::error::{CliError, CliResult, PATH_FIX, with_help};
use crate::cli::live::Verbosity;

/// A diagnostic as `file:line:col: error: message (at path)`, then the source line with a
/// caret under the column.
pub fn format_diagnostic(d: &Diagnostic) -> String {
    let mut s = d.to_string();
    if let (Some(pos), Some(line)) = (d.position, &d.source_line) {
        let number = pos.line.to_string();
        let pad = " ".repeat(number.len());
        let shown: String = line.replace('\t', "    ");
        let before: String = line
            .chars()
            .take(pos.column.saturating_sub(1) as usize)
            .map(|c| {
                if c == '\t' {
                    "    ".to_string()
                } else {
                    " ".to_string()
                }
            })
            .collect();
        // Very long lines (one-line XAR files) are cut around the column.
        let (shown, before) = clip(&shown, &before);
        let _ = write!(s, "\n{pad} |\n{number} | {shown}\n{pad} | {before}^");
    }
    s
}

/// Keeps at most 120 characters of `line`, centred on the caret position.
fn clip(line: &str, before: &str) -> (String, String) {
    const WIDTH: usize = 120;
    let col = before.chars().count();
    let len = line.chars().count();
    if len <= WIDTH {
        return (line.to_string(), before.to_string());
    }
    let start = col.saturating_sub(WIDTH / 2).min(len.saturating_sub(WIDTH));
    let text: String = line.chars().skip(start).take(WIDTH).collect();
    (format!("…{text}…"), " ".repeat(col - start + 1))
}

/// Loads any input (file, archive, project or split folder), printing its warnings. A
/// behavior of the input that cannot be read is an error unless `partial` allows going on
/// with the others; on error, why.
pub fn load(path: &Path, partial: bool) -> CliResult<Project> {
    load_shown(path, partial, Verbosity::Normal)
}

/// [`load`], its warnings shown at `verbosity`: each on its own line (verbose), many of one
/// kind folded into one line ([`crate::cli::fold::fold_diagnostics`]), or none (quiet: errors
/// only).
pub fn load_shown(path: &Path, partial: bool, verbosity: Verbosity) -> CliResult<Project> {
    if !path.exists() {
        return Err(CliError::Usage(with_help(
            format!("{}: no such file or folder", path.display()),
            PATH_FIX,
        )));
    }
    match load_path(path) {
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
                for line in crate::cli::fold::fold_diagnostics(&shown, format_diagnostic) {
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
            names.join(", ")
        ))
    })
}

/// The robot the package's manifest asks for (Pepper for `JULIETTE` models); None without
/// a manifest or when it names no robot (Choregraphe's default).
pub fn manifest_model(project: &Project) -> Option<Model> {
    project
        .manifest
        .as_ref()
        .filter(|m| !m.robot_models.is_empty())
        .map(|m| Model::required_by(&m.robot_models))
}

/// How to name behavior `b` of the input at `path`: the file itself, a file in the folder,
/// or a member of the archive (`x.crg!behavior_1/behavior.xar`).
pub fn behavior_name(path: &Path, b: &Behavior, only: bool) -> String {
    if path.is_dir() {
        path.join(&b.path).display().to_string()
    } else if only
        && path
            .file_name()
            .is_some_and(|n| n.to_string_lossy() == b.path)
    {
        path.display().to_string()
    } else {
        format!("{}!{}", path.display(), b.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use choreo_xar::ErrorKind;

    #[test]
    fn caret_points_at_the_column() {
        let text = "<a>\n\t<b x='q'/></a>";
        let d = Diagnostic::at_offset(
            Severity::Error,
            ErrorKind::BadValue,
            "f.xar",
            text,
            5,
            "root",
            "bad",
        );
        assert_eq!(
            format_diagnostic(&d),
            "f.xar:2:2: error: bad (at root)\n  |\n2 |     <b x='q'/></a>\n  |     ^"
        );
    }

    #[test]
    fn long_lines_are_clipped_around_the_caret() {
        let line = format!("{}X{}", "a".repeat(500), "b".repeat(500));
        let (shown, before) = clip(&line, &" ".repeat(500));
        assert!(shown.chars().count() <= 122);
        assert_eq!(shown.chars().nth(before.chars().count()), Some('X'));
    }
}
