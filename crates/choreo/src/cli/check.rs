//! `choreo check`: per-file validation of every Choregraphe format, with a summary; box
//! scripts compiled as a run would (after the Python-2 fixer), errors at the XAR's lines.

use std::path::{Path, PathBuf};

use choreo_xar::source::{FileReport, check_path_with};
use choreo_xar::{Diagnostic, Severity, split};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::cli::error::{CliError, CliResult};
use crate::cli::exit;
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
}

/// File extensions looked at when walking a folder (explicit file arguments are always checked).
const EXTENSIONS: &[&str] = &["xar", "pml", "xml", "crg", "cbl", "pkg", "dlg", "top"];

/// Above this many files, a progress bar is shown on stderr (when it is a terminal).
const PROGRESS_THRESHOLD: usize = 20;

/// Checks every file under `paths` (exit 1 when one has errors).
pub fn run(args: &CheckArgs) -> CliResult {
    let (paths, json, quiet) = (&args.paths, args.json, args.quiet);
    let mut files = Vec::new();
    for p in paths {
        if !p.exists() {
            return Err(CliError::Usage(format!(
                "{}: no such file or folder",
                p.display()
            )));
        }
        collect(p, true, &mut files);
    }
    let bar = if files.len() > PROGRESS_THRESHOLD && !json {
        let bar = ProgressBar::new(files.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut tally = Tally::default();
    let scripts = crate::cli::lint::BoxScripts::default();
    let show = |tally: &mut Tally, report: &FileReport, body: &[crate::cli::body::Located]| {
        tally.add(report, !body.is_empty());
        bar.suspend(|| {
            if json {
                let mut value = report_json(report);
                if args.body {
                    value["body"] = crate::cli::body::to_json(body);
                }
                outln!("{value}");
            } else {
                print_report(report, quiet, &crate::cli::body::lines(body));
            }
        });
    };
    let check = |f: &std::path::PathBuf| {
        bar.set_message(f.display().to_string());
        let report = check_path_with(f, Some(&scripts));
        bar.inc(1);
        report
    };
    if args.body {
        // The body is judged on threads of its own while the files are checked here; what
        // is found is said once both are done, file by file.
        let (reports, body) = std::thread::scope(|scope| {
            let body = scope.spawn(|| crate::cli::body::findings_of_all(&files));
            let reports: Vec<FileReport> = files.iter().map(check).collect();
            (reports, body.join().unwrap_or_default())
        });
        for (i, report) in reports.iter().enumerate() {
            show(
                &mut tally,
                report,
                body.get(i).map_or(&[][..], Vec::as_slice),
            );
        }
    } else {
        for f in &files {
            let report = check(f);
            show(&mut tally, &report, &[]);
        }
    }
    bar.finish_and_clear();
    if json {
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

/// Adds the files to check under `path` (all of them if `explicit`, else by extension); a
/// split-format folder is one item, checked as a behavior.
fn collect(path: &Path, explicit: bool, out: &mut Vec<PathBuf>) {
    if path.is_dir() && path.join(split::MARKER_FILE).is_file() {
        out.push(path.to_path_buf());
    } else if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else {
            out.push(path.to_path_buf()); // check_path reports it as unreadable
            return;
        };
        let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        children.sort();
        for c in children {
            collect(&c, false, out);
        }
    } else if explicit || wanted(path) {
        out.push(path.to_path_buf());
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
    /// Counts `r`; `body`: the body check warned about it.
    fn add(&mut self, r: &FileReport, body: bool) {
        self.files += 1;
        if r.has_errors() {
            self.failed += 1;
        } else if r.has_warnings() || body {
            self.warned += 1;
        } else {
            self.ok += 1;
        }
    }
}

/// Prints `r`, then `body`'s lines (the body check's warnings).
fn print_report(r: &FileReport, quiet: bool, body: &[String]) {
    let status = if r.has_errors() {
        "error"
    } else if r.has_warnings() || !body.is_empty() {
        "warn "
    } else {
        "ok   "
    };
    if quiet && status == "ok   " {
        return;
    }
    outln!("{status} {}  {}", r.file, r.summary);
    for d in r.diagnostics() {
        for line in format_diagnostic(d).lines() {
            outln!("        {line}");
        }
    }
    for line in body {
        outln!("        {line}");
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
