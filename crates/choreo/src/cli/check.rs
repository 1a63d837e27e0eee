//! `choreo check`: per-file validation of every Choregraphe format, with a summary; box
//! scripts compiled as a run would (after the Python-2 fixer), errors at the XAR's lines.

use std::path::{Path, PathBuf};

use choreo_xar::source::{FileReport, check_path_with};
use choreo_xar::{Diagnostic, Severity, split};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::cli::check_cache;
use crate::cli::error::{CliError, CliResult};
use crate::cli::exit;
use crate::cli::files::in_parallel;
use crate::cli::report::format_diagnostic;

/// `choreo check`'s arguments, as the command line gives them.
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Files or folders to check.
    #[arg(required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// One JSON object per file on stdout, then a summary object.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print only files with warnings or errors, and the summary.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Also judge every motion timeline's physics without running it: where the robot
    /// would fall, keys its motors reach late, arms meeting the body (warnings).
    #[arg(long)]
    pub(crate) body: bool,
    /// Check every file anew, neither reading nor writing the cache of results in the
    /// user's cache folder (`$XDG_CACHE_HOME/choreo`): for CI, or to time the check.
    #[arg(long)]
    pub(crate) no_cache: bool,
}

/// File extensions looked at when walking a folder (explicit file arguments are always checked).
const EXTENSIONS: &[&str] = &["xar", "pml", "xml", "crg", "cbl", "pkg", "dlg", "top"];

/// Above this many files, a progress bar is shown on stderr (when it is a terminal).
const PROGRESS_THRESHOLD: usize = 20;

/// Checks every file under `paths` (exit 1 when one has errors): the files on threads of
/// their own, the body (`--body`) on others beside them, each file's result from the cache
/// when it has not changed since it was last checked (see [`check_cache`]); what is found
/// is said file by file, in order.
pub fn run(args: &CheckArgs) -> CliResult {
    let mut files = Vec::new();
    for p in &args.paths {
        if !p.exists() {
            return Err(CliError::Usage(format!(
                "{}: no such file or folder",
                p.display()
            )));
        }
        collect(p, true, &mut files);
    }
    let bar = if files.len() > PROGRESS_THRESHOLD && !args.json {
        let bar = ProgressBar::new(files.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    // The body's findings come from elsewhere: only the plain check is kept.
    let cache = (!args.no_cache && !args.body)
        .then(check_cache::Cache::open)
        .flatten();
    let scripts = crate::cli::lint::BoxScripts::default();
    // With the body, both read each behavior file: once for both.
    let reads = choreo_xar::source::Reads::new();
    let shared = args.body.then_some(&reads);
    let report = |f: &PathBuf| {
        let r = check_path_with(f, Some(&scripts), shared);
        bar.inc(1);
        r
    };
    let shown: Vec<check_cache::Shown> = if args.body {
        // The body is judged on threads of its own while the files are checked.
        let (reports, body) = std::thread::scope(|scope| {
            let body = scope.spawn(|| crate::cli::body::findings_of_all(&files, &reads));
            let reports = in_parallel(&files, &|_, f| report(f));
            (reports, body.join().unwrap_or_default())
        });
        reports
            .iter()
            .enumerate()
            .map(|(i, r)| shown(r, body.get(i).map_or(&[][..], Vec::as_slice), true))
            .collect()
    } else {
        in_parallel(&files, &|_, f| {
            if let Some(hit) = cache.as_ref().and_then(|c| c.get(f, CACHED)) {
                bar.inc(1);
                return hit;
            }
            let s = shown(&report(f), &[], false);
            if let Some(c) = &cache {
                c.put(f, CACHED, &s);
            }
            s
        })
    };
    bar.finish_and_clear();
    let mut tally = Tally::default();
    for s in &shown {
        tally.add(&s.status);
        if args.json {
            outln!("{}", s.json);
        } else if !(args.quiet && s.status == "ok") {
            out!("{}", s.text);
        }
    }
    if args.json {
        outln!(
            "{}",
            json!({"summary": {"files": tally.files, "ok": tally.ok, "warnings": tally.warned,
                "errors": tally.failed}})
        );
    } else {
        outln!(
            "checked {} file(s): {} ok, {} with warnings, {} with errors",
            tally.files,
            tally.ok,
            tally.warned,
            tally.failed
        );
    }
    Ok(if tally.failed > 0 { exit::NO } else { exit::OK })
}

/// The options a cached result depends on (what is shown does not depend on `--json` or
/// `--quiet`: both forms are kept).
const CACHED: &str = "check";

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

#[derive(Default)]
struct Tally {
    files: usize,
    ok: usize,
    warned: usize,
    failed: usize,
}

impl Tally {
    /// Counts a file of `status` (`ok`, `warn` or `error`).
    fn add(&mut self, status: &str) {
        self.files += 1;
        match status {
            "error" => self.failed += 1,
            "warn" => self.warned += 1,
            _ => self.ok += 1,
        }
    }
}

/// What the check of `r` shows, then `body`'s findings (the body check's warnings, and its
/// notes on the model, which leave the file ok; with `with_body`, also in its JSON).
fn shown(
    r: &FileReport,
    body: &[crate::cli::body::Located],
    with_body: bool,
) -> check_cache::Shown {
    let status = if r.has_errors() {
        "error"
    } else if r.has_warnings() || body.iter().any(|f| f.kind != "stays-down") {
        "warn"
    } else {
        "ok"
    };
    let mut text = format!("{status:<5} {}  {}\n", r.file, r.summary);
    for d in r.diagnostics() {
        for line in format_diagnostic(d).lines() {
            text.push_str(&format!("        {line}\n"));
        }
    }
    for line in crate::cli::body::lines(body) {
        text.push_str(&format!("        {line}\n"));
    }
    let mut json = report_json(r);
    if with_body {
        json["body"] = crate::cli::body::to_json(body);
    }
    check_cache::Shown {
        status: status.to_string(),
        text,
        json,
    }
}

pub(crate) fn diagnostic_json(d: &Diagnostic) -> serde_json::Value {
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
