//! Checking any file, folder or archive: what it holds and every problem found, recursively,
//! without stopping at the first one (`choreo check`).

use std::fs;
use std::path::Path;

use super::disk::{io_error, read_dir_tree};
use super::kind::{
    FileKind, content_mismatch, is_apple_double, kind_from_name, sniff, sniff_content,
};
use super::reads::{Reads, read, unpack};
use super::tree::{missing_references, parent_of};
use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity, TextPosition};
use crate::model::{BoxDef, XarFile};
use crate::project_files::{self, Manifest, Pml};
use crate::xar::{ScriptCheck, ScriptProblem};
use crate::{FileTree, archive};

/// What checking one file (or folder, or archive member) found.
#[derive(Debug, Clone, PartialEq)]
pub struct FileReport {
    /// The file: a path, or `archive.crg!member/path` inside an archive.
    pub file: String,
    /// What the file is (see [`sniff`]); `None` for files that are not Choregraphe files.
    pub kind: Option<FileKind>,
    /// A short description, e.g. `behavior: 12 boxes, 14 links, 3 timelines`.
    pub summary: String,
    /// Problems that did not stop reading: warnings, and errors found while the file could
    /// still be read on (a QiChat topic's syntax errors, each at its place).
    pub warnings: Vec<Diagnostic>,
    /// The problem that stopped reading this file, if any.
    pub error: Option<Error>,
    /// For archives and folders: the reports of the Choregraphe files inside (resources
    /// such as sounds are counted in the summary, not listed).
    pub members: Vec<FileReport>,
}

impl FileReport {
    fn new(file: &str, kind: Option<FileKind>) -> FileReport {
        FileReport {
            file: file.to_string(),
            kind,
            summary: String::new(),
            warnings: Vec::new(),
            error: None,
            members: Vec::new(),
        }
    }

    /// The report of a file that could not be read at all (kind unknown).
    pub fn failed(file: &str, error: Error) -> FileReport {
        let mut report = FileReport::new(file, None);
        report.summary = "unreadable".to_string();
        report.error = Some(error);
        report
    }

    /// Whether this report or a member has an error.
    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }

    /// Whether this report or a member has a warning.
    pub fn has_warnings(&self) -> bool {
        self.warning_count() > 0
    }

    /// Every diagnostic of this report and its members, recursively: each report's error
    /// (if any), then its warnings.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.all().into_iter().flat_map(|r| {
            r.error
                .as_ref()
                .map(Error::diagnostic)
                .into_iter()
                .chain(r.warnings.iter())
        })
    }

    /// Errors in this report and its members, recursively.
    pub fn error_count(&self) -> usize {
        usize::from(self.error.is_some())
            + self
                .warnings
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count()
            + self
                .members
                .iter()
                .map(FileReport::error_count)
                .sum::<usize>()
    }

    /// Warnings in this report and its members, recursively.
    pub fn warning_count(&self) -> usize {
        self.warnings
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
            + self
                .members
                .iter()
                .map(FileReport::warning_count)
                .sum::<usize>()
    }

    /// This report and every member report, recursively, parents first.
    pub fn all(&self) -> Vec<&FileReport> {
        let mut out = vec![self];
        for m in &self.members {
            out.extend(m.all());
        }
        out
    }
}

/// Archives inside archives are opened this many levels deep, no deeper.
const MAX_NESTING: usize = 3;

/// Checks one file's bytes: reads it with the reader its name calls for (or its content,
/// for names that call for none) and reports what it holds. Archives are unpacked and their
/// members checked (named `a.crg!behavior_1/behavior.xar`); a `.pml` inside an archive is
/// checked against the archive's files.
pub fn check_file(name: &str, bytes: &[u8]) -> FileReport {
    check_file_with(name, bytes, None)
}

/// [`check_file`], every box script compiled by `scripts` (see [`check_path_with`]): an
/// editor's unsaved text checked as `choreo check` checks the file.
pub fn check_file_with(name: &str, bytes: &[u8], scripts: Option<&dyn ScriptCheck>) -> FileReport {
    check_bytes(name, bytes, Walk::top(scripts)).0
}

/// How deep in archives a check is, who compiles box scripts and what reads XAR files (see
/// [`check_path_with`]).
#[derive(Clone, Copy)]
struct Walk<'a> {
    depth: usize,
    scripts: Option<&'a dyn ScriptCheck>,
    reads: Option<&'a Reads>,
}

impl<'a> Walk<'a> {
    fn top(scripts: Option<&'a dyn ScriptCheck>) -> Walk<'a> {
        Walk {
            depth: 0,
            scripts,
            reads: None,
        }
    }

    fn deeper(self) -> Walk<'a> {
        Walk {
            depth: self.depth + 1,
            ..self
        }
    }
}

/// Checks every Choregraphe file of an in-memory folder `name` (members named
/// `name/path`), and each `.pml` against the folder's files.
pub fn check_tree(name: &str, files: &FileTree) -> FileReport {
    check_tree_walk(name, files, Walk::top(None))
}

fn check_tree_walk(name: &str, files: &FileTree, walk: Walk<'_>) -> FileReport {
    let mut report = FileReport::new(name, Some(FileKind::Folder));
    if crate::split::is_split_tree(files) {
        match crate::split::from_tree(name, files) {
            Ok(parsed) => {
                report.summary = format!("split folder: {}", xar_summary(&parsed.value));
                report.warnings = parsed.warnings;
            }
            Err(e) => report.error = Some(e),
        }
        return report;
    }
    report.members = check_members(&format!("{name}/"), files, walk);
    report.summary = format!("folder: {}", contents_summary(files, &report.members));
    report
}

/// Checks a file or a folder on disk (see [`check_file`] and [`check_tree`]); a file or
/// folder that cannot be read gives a report with an [`ErrorKind::Io`] error.
pub fn check_path(path: &Path) -> FileReport {
    check_path_with(path, None, None)
}

/// [`check_path`], and every box script of every XAR file read (archive members included;
/// not split folders, whose scripts are files of their own) compiled by `scripts`: its
/// syntax errors are errors of the file, at the file's own line; its XAR files read through
/// `reads` when given (shared with [`load_path_with`](super::load_path_with)s of the same
/// files).
pub fn check_path_with(
    path: &Path,
    scripts: Option<&dyn ScriptCheck>,
    reads: Option<&Reads>,
) -> FileReport {
    let walk = Walk {
        reads,
        ..Walk::top(scripts)
    };
    let name = path.display().to_string();
    if path.is_dir() {
        match read_dir_tree(path) {
            Ok(tree) => check_tree_walk(&name, &tree, walk),
            Err(e) => {
                let mut report = FileReport::new(&name, Some(FileKind::Folder));
                report.error = Some(e);
                report
            }
        }
    } else {
        match fs::read(path) {
            Ok(bytes) => check_bytes(&name, &bytes, walk).0,
            Err(e) => FileReport::failed(&name, io_error(path, &e)),
        }
    }
}

/// Which reader a file goes to: the one its name calls for, else its content's.
fn reader_kind(name: &str, bytes: &[u8]) -> Option<FileKind> {
    if is_apple_double(name, bytes) {
        return Some(FileKind::AppleDouble);
    }
    kind_from_name(name).or_else(|| sniff(name, bytes))
}

/// Checks one file at archive nesting `depth`; also returns the project file read, so that
/// the caller can check it against the files around it.
fn check_bytes(name: &str, bytes: &[u8], walk: Walk<'_>) -> (FileReport, Option<Pml>) {
    let mut report = FileReport::new(name, sniff(name, bytes));
    let Some(reader) = reader_kind(name, bytes) else {
        report.summary = format!("not a Choregraphe file ({} bytes)", bytes.len());
        return (report, None);
    };
    if reader == FileKind::AppleDouble {
        report.summary = "macOS AppleDouble metadata: skipped".to_string();
        return (report, None);
    }
    // Content decides, not the name (a `.dlg` holding a `.pml` is read as a `.pml`); the
    // mismatch is worth a warning, not an error: the file still has one meaning.
    let reader = match content_mismatch(name, bytes, reader) {
        None => reader,
        Some(e) => {
            let mut d = *e.0;
            d.severity = Severity::Warning;
            d.message.push_str("; read as what it holds");
            report.warnings.push(d);
            match sniff_content(bytes) {
                Some((found, _)) if found != FileKind::AppleDouble => found,
                _ => {
                    report.summary = format!("not {}", reader.describe());
                    return (report, None);
                }
            }
        }
    };
    let mut pml = None;
    let result: Result<(String, Vec<Diagnostic>)> = match reader.family() {
        FileKind::Xar => read(walk.reads, name, bytes).map(|p| {
            let mut warnings = p.warnings;
            if let Some(scripts) = walk.scripts {
                warnings.extend(script_diagnostics(name, bytes, &p.value, scripts));
            }
            (xar_summary(&p.value), warnings)
        }),
        FileKind::Pml => project_files::read_pml(name, bytes).map(|p| {
            let s = pml_summary(&p.value);
            pml = Some(p.value);
            (s, p.warnings)
        }),
        FileKind::Manifest => project_files::read_manifest(name, bytes)
            .map(|p| (manifest_summary(&p.value), p.warnings)),
        FileKind::Dialog => project_files::read_dlg(name, bytes).map(|p| {
            let langs: Vec<&str> = p.value.topics.iter().map(|t| t.language.as_str()).collect();
            let s = format!(
                "dialog {}: {} ({})",
                p.value.name,
                plural(langs.len(), "language", "languages"),
                langs.join(", ")
            );
            (s, p.warnings)
        }),
        FileKind::Topic => project_files::read_top(name, bytes).map(|p| {
            let t = &p.value;
            let s = format!(
                "topic ~{} ({}): {}",
                t.name,
                t.language.as_deref().unwrap_or("no language"),
                plural(t.user_rules, "user rule", "user rules")
            );
            let mut warnings = p.warnings;
            warnings.extend(qichat_diagnostics(name, bytes));
            (s, warnings)
        }),
        FileKind::Crg => check_archive(name, bytes, reader, walk, &mut report),
        FileKind::Xalinfo | FileKind::Qianim => well_formed(name, bytes, reader),
        FileKind::Metadata => {
            let text = String::from_utf8_lossy(bytes);
            let field = |k| archive::control_field(&text, k).unwrap_or("?").to_string();
            let s = if text.trim().is_empty() {
                "folder type tag: empty".to_string()
            } else {
                format!("folder type tag: {} \"{}\"", field("Type"), field("title"))
            };
            Ok((s, Vec::new()))
        }
        other => Ok((
            format!("{} ({} bytes): not checked", other.describe(), bytes.len()),
            Vec::new(),
        )),
    };
    match result {
        Ok((summary, warnings)) => {
            report.summary = summary;
            report.warnings.extend(warnings);
        }
        Err(e) => {
            report.summary = format!("unreadable as {}", reader.describe());
            report.error = Some(e);
        }
    }
    (report, pml)
}

/// An archive (`.crg`, `.cbl`, `.pkg`): its members checked in turn, unless it is nested
/// too deep.
fn check_archive(
    name: &str,
    bytes: &[u8],
    reader: FileKind,
    walk: Walk<'_>,
    report: &mut FileReport,
) -> Result<(String, Vec<Diagnostic>)> {
    if walk.depth >= MAX_NESTING {
        let w = Diagnostic::file_level(
            Severity::Warning,
            ErrorKind::Unusual,
            name,
            format!("archive nested more than {MAX_NESTING} levels deep: not opened"),
        );
        Ok((format!("{}: not opened", reader.describe()), vec![w]))
    } else {
        unpack(walk.reads, name, bytes).map(|p| {
            report.members = check_members(&format!("{name}!"), &p.value.files, walk.deeper());
            let what = match report.kind {
                Some(FileKind::Cbl) => "box library archive",
                Some(FileKind::Pkg) => "package archive",
                _ => "project archive",
            };
            let s = format!(
                "{what}: {}",
                contents_summary(&p.value.files, &report.members)
            );
            (s, p.warnings)
        })
    }
}

/// A library folder's index or a `.qianim`: well-formed XML, not interpreted further.
fn well_formed(name: &str, bytes: &[u8], reader: FileKind) -> Result<(String, Vec<Diagnostic>)> {
    project_files::XmlDocument::parse(name, bytes).map(|doc| {
        let s = if reader == FileKind::Xalinfo {
            let entries = doc.root.elements_named("Node").count();
            format!(
                "library folder index: {}",
                plural(entries, "entry", "entries")
            )
        } else {
            format!(
                "animation <{}>: well-formed (not interpreted)",
                doc.root.name
            )
        };
        (s, Vec::new())
    })
}

/// Checks the Choregraphe files of `files`, naming each `{prefix}{path}`.
fn check_members(prefix: &str, files: &FileTree, walk: Walk<'_>) -> Vec<FileReport> {
    let mut out = Vec::new();
    for (path, bytes) in files {
        if reader_kind(path, bytes).is_none() {
            continue;
        }
        let (mut report, pml) = check_bytes(&format!("{prefix}{path}"), bytes, walk);
        if let Some(pml) = pml {
            report.warnings.extend(missing_references(
                &report.file,
                &pml,
                parent_of(path),
                files,
            ));
        }
        out.push(report);
    }
    out
}

/// `12 files: 2 behaviors, 1 project file, ...`: what a tree holds, by member kind.
fn contents_summary(files: &FileTree, members: &[FileReport]) -> String {
    let mut parts = Vec::new();
    for (kind, singular, plural_form) in [
        (FileKind::Pml, "project file", "project files"),
        (FileKind::Manifest, "manifest", "manifests"),
        (FileKind::Xar, "behavior", "behaviors"),
        (FileKind::BoxXar, "box", "boxes"),
        (FileKind::Dialog, "dialog", "dialogs"),
        (FileKind::Topic, "topic", "topics"),
        (FileKind::Crg, "project archive", "project archives"),
        (FileKind::Cbl, "box library archive", "box library archives"),
        (FileKind::Pkg, "package", "packages"),
    ] {
        let n = members.iter().filter(|m| m.kind == Some(kind)).count();
        if n > 0 {
            parts.push(plural(n, singular, plural_form));
        }
    }
    let files = plural(files.len(), "file", "files");
    if parts.is_empty() {
        files
    } else {
        format!("{files}: {}", parts.join(", "))
    }
}

/// What `scripts` finds in the box scripts of XAR text `bytes` (read as `xar`), each at the
/// file's line (the script's own line in the message). The model's boxes and the scripts
/// found in the text come in the same (document) order; a box whose code differs from the
/// text's at that place is left out rather than reported at a wrong line.
fn script_diagnostics(
    name: &str,
    bytes: &[u8],
    xar: &XarFile,
    scripts: &dyn ScriptCheck,
) -> Vec<Diagnostic> {
    // The boxes with code, parents before children (the document's order), each with the
    // boxes around it; iterative, as deep as the file nests.
    let mut with_code: Vec<(&BoxDef, Vec<&BoxDef>)> = Vec::new();
    let mut stack: Vec<(&BoxDef, usize)> = vec![(&xar.root_box, 0)];
    let mut around: Vec<&BoxDef> = Vec::new();
    while let Some((b, depth)) = stack.pop() {
        around.truncate(depth);
        if !b.code().is_empty() {
            with_code.push((b, around.clone()));
        }
        around.push(b);
        let children: Vec<&BoxDef> = b.diagrams().flat_map(|d| d.boxes.iter()).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
    }
    // Where each script is in the text is looked for only once one has a problem: most
    // files have none, and finding the scripts reads the whole text again.
    let mut found: Vec<(usize, Vec<ScriptProblem>)> = Vec::new();
    for (i, (b, ancestors)) in with_code.iter().enumerate() {
        let problems = scripts.check(b, ancestors);
        if !problems.is_empty() {
            found.push((i, problems));
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    let places = crate::xar::scripts_at(text);
    let mut out = Vec::new();
    for (i, problems) in found {
        let (Some((b, _)), Some(at)) = (with_code.get(i), places.get(i)) else {
            continue;
        };
        if b.code() != at.code {
            continue;
        }
        for problem in problems {
            let file_line = at.line.saturating_add(problem.line.saturating_sub(1));
            let what = match problem.severity {
                Severity::Error => "Python syntax error",
                Severity::Warning => "will fail at run time",
            };
            out.push(Diagnostic {
                severity: problem.severity,
                kind: ErrorKind::Script,
                file: name.to_string(),
                position: Some(TextPosition {
                    line: file_line,
                    column: problem.column,
                }),
                element_path: at.box_path.clone(),
                source_line: text
                    .lines()
                    .nth(
                        usize::try_from(file_line)
                            .unwrap_or(usize::MAX)
                            .saturating_sub(1),
                    )
                    .map(|l| l.trim_end_matches('\r').to_string()),
                message: format!(
                    "box {}: {what} (line {} of its script): {}",
                    at.box_path, problem.line, problem.message
                ),
            });
        }
    }
    out
}

/// What the QiChat parser finds in a topic: its syntax errors (errors) and its remarks
/// (warnings: a file read as Latin-1, say), each at its line and column.
fn qichat_diagnostics(name: &str, bytes: &[u8]) -> Vec<Diagnostic> {
    let text = String::from_utf8_lossy(bytes);
    let line_text = |line: u32| {
        let n = usize::try_from(line).unwrap_or(usize::MAX);
        n.checked_sub(1)
            .and_then(|i| text.lines().nth(i))
            .map(|l| l.trim_end_matches('\r').to_string())
    };
    let at = |severity, line: u32, column: u32, message: String| Diagnostic {
        severity,
        kind: ErrorKind::QiChat,
        file: name.to_string(),
        position: (line > 0).then_some(TextPosition { line, column }),
        element_path: String::new(),
        source_line: if line > 0 { line_text(line) } else { None },
        message,
    };
    match choreo_qichat::parse(name, bytes) {
        Ok(parsed) => parsed
            .warnings
            .into_iter()
            .map(|w| at(Severity::Warning, w.span.line, w.span.column, w.message))
            .collect(),
        Err(errors) => errors
            .into_iter()
            .map(|e| {
                let message = format!("in {}: {}", e.context, e.message);
                at(Severity::Error, e.span.line, e.span.column, message)
            })
            .collect(),
    }
}

fn plural(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// `behavior: 12 boxes, 14 links, 3 timelines` (boxes below the root; timelines that play).
fn xar_summary(x: &XarFile) -> String {
    let (mut boxes, mut links, mut timelines) = (0usize, 0usize, 0usize);
    x.root_box.walk(&mut |b| {
        boxes += 1;
        links += b.diagrams().map(|d| d.links.len()).sum::<usize>();
        if b.timeline.as_ref().is_some_and(|t| t.is_enabled()) {
            timelines += 1;
        }
    });
    let what = match x.root {
        crate::RootKind::Project => "behavior",
        crate::RootKind::Box => "box",
    };
    format!(
        "{what}: {}, {}, {}",
        plural(boxes.saturating_sub(1), "box", "boxes"),
        plural(links, "link", "links"),
        plural(timelines, "timeline", "timelines")
    )
}

fn pml_summary(p: &Pml) -> String {
    format!(
        "project {}: {}, {}, {}, {}",
        p.name,
        plural(p.behaviors.len(), "behavior", "behaviors"),
        plural(p.dialogs.len(), "dialog", "dialogs"),
        plural(p.topics.len(), "topic", "topics"),
        plural(p.resources.len(), "resource", "resources")
    )
}

fn manifest_summary(m: &Manifest) -> String {
    format!(
        "manifest {} {}: {}, {}",
        m.uuid.as_deref().unwrap_or("(no uuid)"),
        m.version.as_deref().unwrap_or("(no version)"),
        plural(m.behaviors.len(), "behavior", "behaviors"),
        plural(m.dialogs.len(), "dialog", "dialogs")
    )
}
