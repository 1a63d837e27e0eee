//! Checking files of every Choregraphe format without running them: what `choreo check`
//! shows, file by file. Each file is read and validated (`choreo-xar`), its box scripts
//! compiled as a run compiles them and read for what will fail when a line runs
//! (`choreo_python::box_scripts`), its motion timelines judged by the body on request
//! ([`Options::body`], `body`); files run on every core (`parallel`); a file unchanged
//! since its last check is taken from the cache (`cache`).

mod body;
mod cache;
mod parallel;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use choreo_xar::source::{FileReport, check_path_with};
use choreo_xar::{Diagnostic, Severity, split};
use serde_json::json;

pub use cache::Checked;
use parallel::in_parallel;

/// What a check does besides validating each file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Also judge every motion timeline's physics (`choreo check --body`).
    pub body: bool,
    /// Take the results of unchanged files from the user's cache folder, and keep the new
    /// ones there (never with `body`: its findings are not kept).
    pub cache: bool,
}

/// The files to check below `paths`, in order: a file named is always checked; a folder is
/// walked for the extensions of Choregraphe's formats (a split-format folder is one item).
/// `Err`: a path that does not exist.
pub fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, crate::Error> {
    let mut files = Vec::new();
    for p in paths {
        if !p.exists() {
            return Err(crate::Error::NotFound { path: p.clone() });
        }
        collect(p, true, &mut files);
    }
    Ok(files)
}

/// Checks `files` (on threads of their own, the body on others beside them), calling
/// `progress` after each; what each shows, in the files' order.
pub fn check(files: &[PathBuf], options: Options, progress: &(dyn Fn() + Sync)) -> Vec<Checked> {
    let cache = (options.cache && !options.body)
        .then(cache::Cache::open)
        .flatten();
    let scripts = choreo_python::box_scripts::BoxScripts::default();
    // With the body, both read each behavior file: once for both.
    let reads = choreo_xar::source::Reads::new();
    let shared = options.body.then_some(&reads);
    let report = |f: &PathBuf| {
        let r = check_path_with(f, Some(&scripts), shared);
        progress();
        r
    };
    if options.body {
        // The body is judged on threads of its own while the files are checked.
        let (reports, body) = std::thread::scope(|scope| {
            let body = scope.spawn(|| body::findings_of_all(files, &reads));
            let reports = in_parallel(files, &|_, f| report(f));
            (reports, body.join().unwrap_or_default())
        });
        return reports
            .iter()
            .enumerate()
            .map(|(i, r)| shown(r, body.get(i).map_or(&[][..], Vec::as_slice), true))
            .collect();
    }
    in_parallel(files, &|_, f| {
        if let Some(hit) = cache.as_ref().and_then(|c| c.get(f, CACHED)) {
            progress();
            return hit;
        }
        let s = shown(&report(f), &[], false);
        if let Some(c) = &cache {
            c.put(f, CACHED, &s);
        }
        s
    })
}

/// The options a cached result depends on (what is shown does not depend on `--json` or
/// `--quiet`: both forms are kept).
const CACHED: &str = "check";

/// File extensions looked at when walking a folder (explicit file arguments are always checked).
const EXTENSIONS: &[&str] = &["xar", "pml", "xml", "crg", "cbl", "pkg", "dlg", "top"];

/// Adds the files to check under `path` (all of them if `explicit`, else by extension); a
/// split-format folder is one item, checked as a behavior. Folders are walked in name
/// order, without recursion (a tree as deep as the disk allows), each entry's kind taken
/// from its folder's listing when the system gives it (a link is followed).
fn collect(path: &Path, explicit: bool, out: &mut Vec<PathBuf>) {
    // (path, whether it is a folder if known, whether it was named on the command line)
    let mut pending: Vec<(PathBuf, Option<bool>, bool)> =
        vec![(path.to_path_buf(), None, explicit)];
    while let Some((path, is_dir, explicit)) = pending.pop() {
        if !is_dir.unwrap_or_else(|| path.is_dir()) {
            if explicit || wanted(&path) {
                out.push(path);
            }
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&path) else {
            out.push(path); // check_path reports it as unreadable
            continue;
        };
        let mut children: Vec<(PathBuf, Option<bool>)> = entries
            .flatten()
            .map(|e| {
                let kind = e.file_type().ok().filter(|t| !t.is_symlink());
                (e.path(), kind.map(|t| t.is_dir()))
            })
            .collect();
        let marker = children.iter().any(|(p, is_dir)| {
            p.file_name() == Some(std::ffi::OsStr::new(split::MARKER_FILE))
                && is_dir.map_or_else(|| p.is_file(), |d| !d)
        });
        if marker {
            out.push(path);
            continue;
        }
        children.sort_by(|a, b| a.0.cmp(&b.0));
        pending.extend(children.into_iter().rev().map(|(p, d)| (p, d, false)));
    }
}

fn wanted(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with("._") {
        return false; // macOS AppleDouble companion files
    }
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// What the check of `r` shows, then `body`'s findings (the body check's warnings, and its
/// notes on the model, which leave the file ok; with `with_body`, also in its JSON).
fn shown(r: &FileReport, body: &[body::Located], with_body: bool) -> Checked {
    let status = if r.has_errors() {
        "error"
    } else if r.has_warnings() || body.iter().any(|f| f.kind != "stays-down") {
        "warn"
    } else {
        "ok"
    };
    let mut text = format!("{status:<5} {}  {}\n", r.file, r.summary);
    for d in r.diagnostics() {
        for line in diagnostic_text(d).lines() {
            text.push_str(&format!("        {line}\n"));
        }
    }
    for line in body::lines(body) {
        text.push_str(&format!("        {line}\n"));
    }
    let mut json = report_json(r);
    if with_body {
        json["body"] = body::to_json(body);
    }
    Checked {
        status: status.to_string(),
        text,
        json,
    }
}

/// A diagnostic as `--json` shows it.
pub fn diagnostic_json(d: &Diagnostic) -> serde_json::Value {
    json!({
        "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "kind": format!("{:?}", d.kind),
        "file": d.file,
        "line": d.position.map(|p| p.line),
        "column": d.position.map(|p| p.column),
        "element_path": d.element_path,
        "message": d.message,
    })
}

fn report_json(r: &FileReport) -> serde_json::Value {
    json!({
        "file": r.file,
        "kind": r.kind.map(|k| format!("{k:?}")),
        "status": if r.has_errors() { "error" } else if r.has_warnings() { "warning" } else { "ok" },
        "summary": r.summary,
        "diagnostics": r.diagnostics().map(diagnostic_json).collect::<Vec<_>>(),
    })
}

/// A diagnostic as `file:line:col: error: message (at path)`, then the source line with a
/// caret under the column.
pub fn diagnostic_text(d: &Diagnostic) -> String {
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
            diagnostic_text(&d),
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
