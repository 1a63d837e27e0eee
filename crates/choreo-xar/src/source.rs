//! Reading any source (file or folder, any format) into behaviors.
//!
//! - [`sniff`] tells what a file is from its content (the name only breaks ties).
//! - [`check_file`], [`check_tree`] and [`check_path`] read a file, an in-memory tree or a
//!   path and report what they hold, recursively for archives and folders, without stopping
//!   at the first problem.
//! - [`load_bytes`], [`load_tree`] and [`load_path`] turn a `.xar`, a project (folder, `.pml`,
//!   `.crg`, `.pkg`), a box library (folder, `.cbl`) or a split folder into a [`Project`]: the
//!   behaviors to inspect, convert, compare or run.
//!
//! Only [`read_dir_tree`], [`check_path`] and [`load_path`] touch the disk; everything else
//! works on bytes and [`FileTree`]s.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::archive::{self, Limits};
use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity, TextPosition};
use crate::model::{BoxDef, XarFile};
use crate::package::{self, Manifest, Pml};
use crate::project::{self, Container, Packed};

/// The file a lone behavior is kept in (a 1.x project's `behavior.xar`).
const LONE_XAR: &str = "behavior.xar";
use crate::xar::ScriptCheck;
use crate::{FileTree, read_xar};

// ---------------------------------------------------------------------------------------------
// Sniffing

/// What a file is, as told by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A behavior: `<ChoregrapheProject>` (`behavior.xar`).
    Xar,
    /// A box-library entry: `<ChoregrapheBox>` (`box.xar`).
    BoxXar,
    /// A project file: `<Package>` (`.pml`).
    Pml,
    /// A package manifest: `<package>` (`manifest.xml`).
    Manifest,
    /// A dialog descriptor: `multilanguage:` (`.dlg`).
    Dialog,
    /// A QiChat topic: `topic:` (`.top`).
    Topic,
    /// A project archive: ar (`.crg`; also any ar archive not named `.cbl`).
    Crg,
    /// A box-library archive: ar named `.cbl`.
    Cbl,
    /// A package: zip (`.pkg`).
    Pkg,
    /// A library folder index: `<Folder>` (`xalinfo`).
    Xalinfo,
    /// A folder type tag: `Type: Choregraphe...` (`.metadata`).
    Metadata,
    /// A stand-alone animation: `<Animation>` (`.qianim`).
    Qianim,
    /// Python source.
    Python,
    /// A macOS AppleDouble metadata file (`._name`): junk, skipped.
    AppleDouble,
    /// A folder (never returned by [`sniff`]; used in [`FileReport::kind`]).
    Folder,
}

impl FileKind {
    /// What this kind of file is, in words (`a Choregraphe project file (<Package>, .pml)`).
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Xar => "a behavior (<ChoregrapheProject>, behavior.xar)",
            FileKind::BoxXar => "a library box (<ChoregrapheBox>, box.xar)",
            FileKind::Pml => "a Choregraphe project file (<Package>, .pml)",
            FileKind::Manifest => "a package manifest (<package>, manifest.xml)",
            FileKind::Dialog => "a dialog descriptor (multilanguage:, .dlg)",
            FileKind::Topic => "a QiChat topic (topic:, .top)",
            FileKind::Crg => "a Choregraphe project archive (ar, .crg)",
            FileKind::Cbl => "a box library archive (ar, .cbl)",
            FileKind::Pkg => "a package archive (zip, .pkg)",
            FileKind::Xalinfo => "a library folder index (<Folder>, xalinfo)",
            FileKind::Metadata => "a folder type tag (.metadata)",
            FileKind::Qianim => "an animation (<Animation>, .qianim)",
            FileKind::Python => "Python source",
            FileKind::AppleDouble => "a macOS AppleDouble metadata file (._*)",
            FileKind::Folder => "a folder",
        }
    }

    /// Kinds read by the same reader (`.xar` files of both roots, archives of every format).
    fn family(self) -> FileKind {
        match self {
            FileKind::BoxXar => FileKind::Xar,
            FileKind::Cbl | FileKind::Pkg => FileKind::Crg,
            k => k,
        }
    }

    /// Whether files of this kind are XML documents.
    fn is_xml(self) -> bool {
        matches!(
            self,
            FileKind::Xar
                | FileKind::BoxXar
                | FileKind::Pml
                | FileKind::Manifest
                | FileKind::Xalinfo
                | FileKind::Qianim
        )
    }
}

/// What a file is: by content (XML root element, archive magic, first meaningful text line),
/// with the name only as a tie-breaker (`.cbl` for ar archives) or when the content tells
/// nothing (an empty `.top`, binary junk named `.pml`). `None`: not a Choregraphe file
/// (sounds, images, other resources).
pub fn sniff(name: &str, bytes: &[u8]) -> Option<FileKind> {
    if is_apple_double(name, bytes) {
        return Some(FileKind::AppleDouble);
    }
    let by_name = kind_from_name(name);
    match sniff_content(bytes) {
        Some((FileKind::Crg, _)) if by_name == Some(FileKind::Cbl) => Some(FileKind::Cbl),
        Some((kind, _)) => Some(kind),
        None => by_name,
    }
}

/// The kind of an XML file whose root element has local name `root`.
pub(crate) fn kind_of_root(root: &str) -> Option<FileKind> {
    match root {
        "Package" => Some(FileKind::Pml),
        "package" => Some(FileKind::Manifest),
        r if r.eq_ignore_ascii_case("ChoregrapheProject") => Some(FileKind::Xar),
        r if r.eq_ignore_ascii_case("ChoregrapheBox") => Some(FileKind::BoxXar),
        r if r.eq_ignore_ascii_case("Folder") => Some(FileKind::Xalinfo),
        r if r.eq_ignore_ascii_case("Animation") => Some(FileKind::Qianim),
        _ => None,
    }
}

/// An error if `bytes` clearly hold something other than a file of kind `expected`, naming
/// what they hold ([`ErrorKind::WrongRoot`] for another XML document, else
/// [`ErrorKind::Unsupported`]).
pub(crate) fn content_mismatch(file: &str, bytes: &[u8], expected: FileKind) -> Option<Error> {
    let name = file.rsplit(['/', '\\', '!']).next().unwrap_or(file);
    let (found, offset) = if is_apple_double(name, bytes) {
        (FileKind::AppleDouble, 0)
    } else {
        sniff_content(bytes)?
    };
    if found.family() == expected.family() {
        return None;
    }
    let kind = if found.is_xml() {
        ErrorKind::WrongRoot
    } else {
        ErrorKind::Unsupported
    };
    let message = format!(
        "this file holds {}, not {}",
        found.describe(),
        expected.describe()
    );
    Some(match std::str::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => {
            Diagnostic::at_offset(Severity::Error, kind, file, text, offset, "", message).into()
        }
        _ => Error::file_level(kind, file, message),
    })
}

/// The last component of a path (`a/b/c.xar` gives `c.xar`; archive members too).
fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\', '!']).next().unwrap_or(name)
}

fn is_apple_double(name: &str, bytes: &[u8]) -> bool {
    base_name(name).starts_with("._") || bytes.starts_with(b"\x00\x05\x16\x07")
}

fn kind_from_name(name: &str) -> Option<FileKind> {
    let base = base_name(name).to_ascii_lowercase();
    match base.as_str() {
        "manifest.xml" => return Some(FileKind::Manifest),
        "xalinfo" => return Some(FileKind::Xalinfo),
        ".metadata" | "metadata" => return Some(FileKind::Metadata),
        "box.xar" => return Some(FileKind::BoxXar),
        _ => {}
    }
    let (_, ext) = base.rsplit_once('.')?;
    Some(match ext {
        "xar" => FileKind::Xar,
        "pml" => FileKind::Pml,
        "dlg" => FileKind::Dialog,
        "top" => FileKind::Topic,
        "crg" => FileKind::Crg,
        "cbl" => FileKind::Cbl,
        "pkg" => FileKind::Pkg,
        "qianim" => FileKind::Qianim,
        "py" => FileKind::Python,
        _ => return None,
    })
}

/// How much of a file sniffing looks at.
const SNIFF_LEN: usize = 64 * 1024;

/// The kind told by the content alone, with the byte offset of what tells it.
fn sniff_content(bytes: &[u8]) -> Option<(FileKind, usize)> {
    if bytes.starts_with(b"!<arch>\n") {
        return Some((FileKind::Crg, 0));
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return Some((FileKind::Pkg, 0));
    }
    let head = &bytes[..bytes.len().min(SNIFF_LEN)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    if text.contains('\0') {
        return None;
    }
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[bom..];
    if body.trim_start().starts_with('<') {
        let (root, offset) = xml_root(body)?;
        let local = root.rsplit(':').next().unwrap_or(root);
        return kind_of_root(local).map(|k| (k, offset + bom));
    }
    text_kind(body).map(|(k, o)| (k, o + bom))
}

/// The name and offset of the root element of an XML text (prolog skipped).
fn xml_root(text: &str) -> Option<(&str, usize)> {
    let mut i = 0;
    loop {
        let rest = &text[i..];
        let trimmed = rest.trim_start();
        i += rest.len() - trimmed.len();
        let skip_to = |end: &str| trimmed.find(end).map(|e| e + end.len());
        let skip = if trimmed.starts_with("<?") {
            skip_to("?>")?
        } else if trimmed.starts_with("<!--") {
            skip_to("-->")?
        } else if trimmed.starts_with("<!") {
            skip_to(">")?
        } else {
            let name = trimmed.strip_prefix('<')?;
            let end = name
                .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .unwrap_or(name.len());
            return (end > 0).then(|| (&name[..end], i));
        };
        i += skip;
    }
}

/// The kind told by the first meaningful line of a text file.
fn text_kind(text: &str) -> Option<(FileKind, usize)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let at = start + (line.len() - line.trim_start().len());
        let python_comment = t.starts_with("#!")
            || t.starts_with("# -*-")
            || t.starts_with("# coding")
            || t.starts_with("#coding");
        if python_comment {
            return Some((FileKind::Python, at));
        }
        if t.starts_with('#') {
            continue;
        }
        let python_code = ["import ", "from ", "def ", "class ", "@"]
            .iter()
            .any(|p| t.starts_with(p));
        let kind = if t.starts_with("multilanguage:") {
            FileKind::Dialog
        } else if t.starts_with("topic:") {
            FileKind::Topic
        } else if t.starts_with("Type:") && t.contains("Choregraphe") {
            FileKind::Metadata
        } else if python_code {
            FileKind::Python
        } else {
            return None;
        };
        return Some((kind, at));
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Checking

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
    check_bytes(name, bytes, Walk::top(None)).0
}

/// How deep in archives a check is, and who compiles box scripts (see [`check_path_with`]).
#[derive(Clone, Copy)]
struct Walk<'a> {
    depth: usize,
    scripts: Option<&'a dyn ScriptCheck>,
}

impl<'a> Walk<'a> {
    fn top(scripts: Option<&'a dyn ScriptCheck>) -> Walk<'a> {
        Walk { depth: 0, scripts }
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
    check_path_with(path, None)
}

/// [`check_path`], and every box script of every XAR file read (archive members included;
/// not split folders, whose scripts are files of their own) compiled by `scripts`: its
/// syntax errors are errors of the file, at the file's own line.
pub fn check_path_with(path: &Path, scripts: Option<&dyn ScriptCheck>) -> FileReport {
    let walk = Walk::top(scripts);
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
        FileKind::Xar => read_xar(name, bytes).map(|p| {
            let mut warnings = p.warnings;
            if let Some(scripts) = walk.scripts {
                warnings.extend(script_diagnostics(name, bytes, &p.value, scripts));
            }
            (xar_summary(&p.value), warnings)
        }),
        FileKind::Pml => package::read_pml(name, bytes).map(|p| {
            let s = pml_summary(&p.value);
            pml = Some(p.value);
            (s, p.warnings)
        }),
        FileKind::Manifest => {
            package::read_manifest(name, bytes).map(|p| (manifest_summary(&p.value), p.warnings))
        }
        FileKind::Dialog => package::read_dlg(name, bytes).map(|p| {
            let langs: Vec<&str> = p.value.topics.iter().map(|t| t.language.as_str()).collect();
            let s = format!(
                "dialog {}: {} ({})",
                p.value.name,
                plural(langs.len(), "language", "languages"),
                langs.join(", ")
            );
            (s, p.warnings)
        }),
        FileKind::Topic => package::read_top(name, bytes).map(|p| {
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
        FileKind::Crg => {
            if walk.depth >= MAX_NESTING {
                let w = Diagnostic::file_level(
                    Severity::Warning,
                    ErrorKind::Unusual,
                    name,
                    format!("archive nested more than {MAX_NESTING} levels deep: not opened"),
                );
                Ok((format!("{}: not opened", reader.describe()), vec![w]))
            } else {
                archive::unpack(name, bytes).map(|p| {
                    report.members =
                        check_members(&format!("{name}!"), &p.value.files, walk.deeper());
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
        FileKind::Xalinfo | FileKind::Qianim => {
            package::XmlDocument::parse(name, bytes).map(|doc| {
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
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
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
    let mut out = Vec::new();
    for ((b, ancestors), at) in with_code.into_iter().zip(crate::xar::scripts_at(text)) {
        if b.code() != at.code {
            continue;
        }
        for problem in scripts.check(b, &ancestors) {
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

/// The folder part of a tree path (`a/b/c.pml` gives `a/b`; `c.pml` gives ``).
fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `rel` (`/` or `\\` separated, `.` and `..` resolved) relative to folder `dir` of a tree;
/// `None` if it is absolute or climbs out of the tree.
pub(crate) fn join_in_tree(dir: &str, rel: &str) -> Option<String> {
    let rel = rel.replace('\\', "/");
    if rel.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Warnings for the files a project names that are not in `files` (the `.pml` is at
/// `pml_file`, in folder `dir` of the tree).
fn missing_references(pml_file: &str, pml: &Pml, dir: &str, files: &FileTree) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (what, src) in pml.referenced_files() {
        let message = match join_in_tree(dir, &src) {
            None => format!("the {what} {src:?} is outside the project folder"),
            Some(path) if !files.contains_key(&path) => {
                format!("the {what} {src:?} is missing (no {path})")
            }
            Some(_) => continue,
        };
        out.push(Diagnostic::file_level(
            Severity::Warning,
            ErrorKind::Unusual,
            pml_file,
            message,
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Loading

/// One behavior of a [`Project`].
#[derive(Debug, Clone, PartialEq)]
pub struct Behavior {
    /// Its display name: the behavior folder (`behavior_1`), the percent-decoded box folder
    /// of a library (`Speech Reco.`), or the project name for a lone behavior.
    pub name: String,
    /// Its file in [`Project::files`] (`behavior_1/behavior.xar`).
    pub path: String,
    /// The behavior itself.
    pub xar: XarFile,
}

/// Everything loaded from a source: the behaviors and the project files around them.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// The project name: `.pml` name, archive title, manifest name, or the source's name.
    pub name: String,
    /// The behaviors, in project order (library boxes in path order).
    pub behaviors: Vec<Behavior>,
    /// The project file, if the source has one.
    pub pml: Option<Pml>,
    /// Where that project file is in [`Project::files`].
    pub pml_path: Option<String>,
    /// The package manifest, if the source has one.
    pub manifest: Option<Manifest>,
    /// Every file of the source (resources included), by path.
    pub files: FileTree,
    /// Problems found while loading. A behavior that could not be read is left out of
    /// [`Project::behaviors`] and its error is here, with severity [`Severity::Error`].
    pub warnings: Vec<Diagnostic>,
    /// The folder on disk that [`Project::files`]' paths are relative to (canonical), when
    /// the project was loaded from disk by [`load_path`] other than from an archive: the
    /// folder itself, the folder of a `.pml` or `manifest.xml`, or the folder of a lone
    /// `.xar`. `None` for an archive or bytes loaded in memory (see [`Project::on_disk`]).
    pub root: Option<PathBuf>,
    /// What the project came in (for a readable project folder, what it was made from).
    pub container: Container,
    /// A `.crg`/`.cbl`'s control text (`Type: ChoregrapheProject`...), if it had one.
    pub control: Option<String>,
}

impl Project {
    fn new(name: &str, files: FileTree) -> Project {
        Project {
            name: name.to_string(),
            behaviors: Vec::new(),
            pml: None,
            pml_path: None,
            manifest: None,
            files,
            warnings: Vec::new(),
            root: None,
            container: Container::Folder,
            control: None,
        }
    }

    /// The project as Choregraphe keeps it (see [`project::Packed`]): a behavior read from a
    /// split folder is one `behavior.xar`.
    pub fn packed(&self) -> Packed {
        let files = match self.behaviors.as_slice() {
            [only] if only.path == crate::split::MARKER_FILE => FileTree::from([(
                LONE_XAR.to_string(),
                crate::write_xar(&only.xar).into_bytes(),
            )]),
            _ => self.files.clone(),
        };
        Packed {
            container: self.container,
            control: self.control.clone(),
            files,
            name: Some(self.name.clone()),
            pml: self.pml_path.clone(),
        }
    }

    /// The project's readable folder (see [`project::to_readable`]); `shown` names it in
    /// errors.
    pub fn readable(&self, shown: &str) -> Result<FileTree> {
        let behaviors = self.behaviors.iter().map(|b| {
            let path = if b.path == crate::split::MARKER_FILE {
                LONE_XAR
            } else {
                b.path.as_str()
            };
            (path, &b.xar)
        });
        project::to_readable(shown, &self.packed(), behaviors)
    }

    /// The folder of `behavior` inside the project (`behavior_1` for
    /// `behavior_1/behavior.xar`; empty for a behavior at the top).
    pub fn behavior_folder(behavior: &Behavior) -> &str {
        parent_of(&behavior.path)
    }

    /// The project's files as real files laid out as on a robot, for code that needs paths
    /// (box scripts open sounds and data files by `behaviorAbsolutePath()`, and the stock
    /// tablet boxes cut that path at `PackageManager/apps` to build the tablet's URL): a new
    /// temporary folder `choreo-XXXXXX/PackageManager/apps/<package>`, `<package>` being the
    /// manifest's uuid (else the project's name), where PackageManager installs a package on
    /// a robot. A project loaded from a folder on disk ([`Project::root`]) is reached there
    /// through a symbolic link to that folder (its files are read and written in place);
    /// an archive's files (or bytes') are written there. The temporary folder is removed
    /// when the returned value is dropped. Where a link cannot be made, the project's own
    /// folder is used ([`FilesOnDisk::Folder`]).
    ///
    /// The files written are those the archive reader already bounded
    /// ([`archive::MAX_TOTAL_SIZE`], [`archive::MAX_ENTRIES`]); the same caps are checked
    /// again here, and a path that is absolute or climbs out of the folder is refused.
    pub fn on_disk(&self) -> Result<FilesOnDisk> {
        let package = self.package_folder_name();
        let temp = || {
            tempfile::Builder::new()
                .prefix("choreo-")
                .tempdir()
                .map_err(|e| io_error(&std::env::temp_dir(), &e))
        };
        if let Some(root) = &self.root {
            let Ok(dir) = temp() else {
                return Ok(FilesOnDisk::Folder(root.clone()));
            };
            let apps = dir.path().join("PackageManager").join("apps");
            let path = apps.join(&package);
            return Ok(
                match fs::create_dir_all(&apps).and_then(|()| symlink_dir(root, &path)) {
                    Ok(()) => FilesOnDisk::Installed { dir, path },
                    Err(_) => FilesOnDisk::Folder(root.clone()),
                },
            );
        }
        let limits = Limits::default();
        let total = self
            .files
            .values()
            .fold(0u64, |t, b| t.saturating_add(b.len() as u64));
        let name = format!("{} (unpacked)", self.name);
        if total > limits.max_total_size || self.files.len() > limits.max_entries {
            return Err(Error::file_level(
                ErrorKind::TooLarge,
                &name,
                format!(
                    "more than {} bytes or {} files to unpack",
                    limits.max_total_size, limits.max_entries
                ),
            ));
        }
        let dir = temp()?;
        let top = dir
            .path()
            .join("PackageManager")
            .join("apps")
            .join(&package);
        fs::create_dir_all(&top).map_err(|e| io_error(&top, &e))?;
        for (path, bytes) in &self.files {
            let relative = Path::new(path);
            if !relative
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
            {
                return Err(Error::file_level(
                    ErrorKind::Unsupported,
                    &name,
                    format!("{path:?}: not a path inside the project"),
                ));
            }
            let target = top.join(relative);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).map_err(|e| io_error(parent, &e))?;
            }
            fs::write(&target, bytes).map_err(|e| io_error(&target, &e))?;
        }
        Ok(FilesOnDisk::Installed { dir, path: top })
    }

    /// The folder PackageManager would install the project in: the manifest's uuid, else
    /// the project's name, when either is one plain folder name; else `package`.
    fn package_folder_name(&self) -> String {
        let plain =
            |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0']);
        self.manifest
            .as_ref()
            .and_then(|m| m.uuid.clone())
            .filter(|u| plain(u))
            .or_else(|| Some(self.name.clone()).filter(|n| plain(n)))
            .unwrap_or_else(|| "package".to_string())
    }

    /// Reads the XAR file at `path` of [`Project::files`] as behavior `name`; a read error
    /// becomes an error diagnostic (the rest of the project still loads).
    fn add_behavior(&mut self, prefix: &str, name: String, path: String) {
        let Some(bytes) = self.files.get(&path) else {
            return;
        };
        match read_xar(&format!("{prefix}{path}"), bytes) {
            Ok(parsed) => {
                self.warnings.extend(parsed.warnings);
                self.behaviors.push(Behavior {
                    name,
                    path,
                    xar: parsed.value,
                });
            }
            Err(e) => self.warnings.push(*e.0),
        }
    }
}

/// A project's files on disk (see [`Project::on_disk`]).
#[derive(Debug)]
pub enum FilesOnDisk {
    /// The folder the project was loaded from (when no robot layout could be made).
    Folder(PathBuf),
    /// The robot's layout in a temporary folder (removed on drop): `path` is
    /// `dir/PackageManager/apps/<package>`, a link to the project's folder or the folder an
    /// archive's files were written to.
    Installed {
        /// The temporary folder.
        dir: tempfile::TempDir,
        /// The package's folder in it.
        path: PathBuf,
    },
}

impl FilesOnDisk {
    /// The folder that holds the project's files.
    pub fn path(&self) -> &Path {
        match self {
            FilesOnDisk::Folder(p) => p,
            FilesOnDisk::Installed { path, .. } => path,
        }
    }

    /// The folder of `behavior` (what its boxes' `behaviorAbsolutePath()` is): the package's
    /// folder joined with the behavior's, without a trailing `/` for a behavior at the top.
    pub fn behavior_dir(&self, behavior: &Behavior) -> PathBuf {
        match Project::behavior_folder(behavior) {
            "" => self.path().to_path_buf(),
            folder => self.path().join(folder),
        }
    }
}

/// Makes `link` a symbolic link to the folder `target` (on Unix; elsewhere an error, and
/// [`Project::on_disk`] falls back to the project's folder).
fn symlink_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, link);
    #[cfg(not(unix))]
    return Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!("no symbolic links here for {}", link.display()),
    ));
}

/// The name of a source without folders and extension (`x/Hello World.crg` gives
/// `Hello World`).
fn stem(name: &str) -> &str {
    let base = base_name(name.trim_end_matches(['/', '\\']));
    match base.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => base,
    }
}

/// Decodes the percent escapes of a library folder name (`Speech Reco%2e` gives
/// `Speech Reco.`, `Motor On%2fOff` gives `Motor On/Off`); other text is kept as it is.
pub fn decode_folder_name(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Loads a file's bytes: a `.xar` is one behavior; a `.crg`, `.cbl` or `.pkg` is unpacked and
/// loaded like a folder (see [`load_tree`]). A lone `.pml` or `manifest.xml` has no
/// behaviors to load: use [`load_path`] or [`load_tree`] with its folder.
pub fn load_bytes(name: &str, bytes: &[u8]) -> Result<Project> {
    match sniff(name, bytes) {
        Some(FileKind::Xar | FileKind::BoxXar) => {
            let parsed = read_xar(name, bytes)?;
            let path = base_name(name).to_string();
            let mut project = Project::new(stem(name), FileTree::new());
            project.files.insert(path.clone(), bytes.to_vec());
            project.warnings = parsed.warnings;
            project.behaviors.push(Behavior {
                name: stem(name).to_string(),
                path,
                xar: parsed.value,
            });
            Ok(project)
        }
        Some(FileKind::Crg | FileKind::Cbl | FileKind::Pkg) => {
            let unpacked = archive::unpack(name, bytes)?;
            let title = unpacked
                .value
                .control
                .as_deref()
                .and_then(|c| archive::control_field(c, "title"))
                .filter(|t| !t.is_empty())
                .map(str::to_string);
            let mut project = load_files(
                title.as_deref().unwrap_or(stem(name)),
                &format!("{name}!"),
                unpacked.value.files,
                None,
            )?;
            project.container = match sniff(name, bytes) {
                Some(FileKind::Cbl) => Container::Cbl,
                Some(FileKind::Pkg) => Container::Pkg,
                _ => Container::Crg,
            };
            project.control = unpacked.value.control;
            let mut warnings = unpacked.warnings;
            warnings.append(&mut project.warnings);
            project.warnings = warnings;
            Ok(project)
        }
        Some(other) => Err(Error::file_level(
            ErrorKind::Unsupported,
            name,
            format!(
                "this file holds {}, not a behavior, project or archive{}",
                other.describe(),
                if matches!(other, FileKind::Pml | FileKind::Manifest) {
                    ": load its folder"
                } else {
                    ""
                }
            ),
        )),
        None => Err(Error::file_level(
            ErrorKind::Unsupported,
            name,
            "not a behavior (.xar), project or archive (.crg, .cbl, .pkg)",
        )),
    }
}

/// Loads an in-memory folder `name` (file names in messages are `name/path`):
/// - a split-format tree (see [`crate::split`]) is one behavior;
/// - else a project: the shallowest `.pml` (an error if there are several at that depth) and
///   the behaviors it lists; without a `.pml`, a `manifest.xml` at the top and its
///   `behaviorContent`s; else a `behavior.xar` at the top (1.x project);
/// - else a box library: every folder's `box.xar` or `behavior.xar`, named by the
///   percent-decoded folder name.
///
/// An empty tree is an empty project (with a warning).
pub fn load_tree(name: &str, files: FileTree) -> Result<Project> {
    load_files(name, &format!("{name}/"), files, None)
}

/// Loads a path: a file as [`load_bytes`] (a `.pml` or `manifest.xml` loads its folder), a
/// folder as [`load_tree`].
pub fn load_path(path: &Path) -> Result<Project> {
    let display = path.display().to_string();
    if path.is_dir() {
        let files = read_dir_tree(path)?;
        let mut project = load_files(&folder_name(path), &format!("{display}/"), files, None)?;
        project.root = fs::canonicalize(path).ok();
        return Ok(project);
    }
    let bytes = fs::read(path).map_err(|e| io_error(path, &e))?;
    // The folder of the file: `.` for a bare file name.
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let kind = sniff(&display, &bytes);
    let mut project = match kind {
        Some(kind @ (FileKind::Pml | FileKind::Manifest)) => {
            let files = read_dir_tree(&dir)?;
            // The file's own name: `base_name` would cut a name holding `!` (archive
            // members are named `x.crg!member`).
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let dir_display = dir.display().to_string();
            let choice = (kind == FileKind::Pml).then_some(file_name.as_str());
            load_files(
                &folder_name(&dir),
                &format!("{dir_display}/"),
                files,
                choice,
            )?
        }
        _ => load_bytes(&display, &bytes)?,
    };
    if !matches!(kind, Some(FileKind::Crg | FileKind::Cbl | FileKind::Pkg)) {
        project.root = fs::canonicalize(&dir).ok();
    }
    Ok(project)
}

/// The name of a folder, even when given as `.` or `..`.
fn folder_name(dir: &Path) -> String {
    let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    match dir.file_name() {
        Some(n) => n.to_string_lossy().into_owned(),
        None => dir.display().to_string(),
    }
}

/// [`load_tree`] with messages naming `{prefix}{path}`, and optionally the `.pml` to use; a
/// readable project folder ([`project::is_readable_tree`]) loads as the project it holds.
fn load_files(
    name: &str,
    prefix: &str,
    files: FileTree,
    pml_choice: Option<&str>,
) -> Result<Project> {
    if !project::is_readable_tree(&files) {
        return load_choregraphe_files(name, prefix, files, pml_choice);
    }
    let container = prefix.trim_end_matches(['/', '!']);
    let packed = project::from_readable(container, &files)?;
    let name = packed.value.name.as_deref().unwrap_or(name);
    let choice = pml_choice.or(packed.value.pml.as_deref());
    // The files made back never hold the project file: this loads them as Choregraphe's.
    let mut project = load_choregraphe_files(name, prefix, packed.value.files, choice)?;
    project.container = packed.value.container;
    project.control = packed.value.control;
    let mut warnings = packed.warnings;
    warnings.append(&mut project.warnings);
    project.warnings = warnings;
    Ok(project)
}

/// [`load_files`] of a tree that is not a readable project folder.
fn load_choregraphe_files(
    name: &str,
    prefix: &str,
    files: FileTree,
    pml_choice: Option<&str>,
) -> Result<Project> {
    let container = prefix.trim_end_matches(['/', '!']);
    if crate::split::is_split_tree(&files) {
        let parsed = crate::split::from_tree(container, &files)?;
        let mut project = Project::new(name, files);
        project.warnings = parsed.warnings;
        project.behaviors.push(Behavior {
            name: name.to_string(),
            path: crate::split::MARKER_FILE.to_string(),
            xar: parsed.value,
        });
        return Ok(project);
    }
    let mut project = Project::new(name, files);
    if project.files.is_empty() {
        project.warnings.push(Diagnostic::file_level(
            Severity::Warning,
            ErrorKind::Unusual,
            container,
            "holds no files: an empty project",
        ));
        return Ok(project);
    }
    let pml_path = match pml_choice {
        Some(p) => Some(p.to_string()),
        None => shallowest(container, &project.files, FileKind::Pml)?,
    };
    if let Some(pml_path) = pml_path {
        load_pml_project(&mut project, prefix, &pml_path)?;
    } else if let Some(manifest_path) = shallowest(container, &project.files, FileKind::Manifest)? {
        load_manifest_project(&mut project, prefix, &manifest_path)?;
    } else if project.files.contains_key("behavior.xar") {
        let name = project.name.clone();
        project.add_behavior(prefix, name, "behavior.xar".to_string());
    } else {
        load_library(&mut project, prefix, container)?;
    }
    Ok(project)
}

/// The path of the single shallowest file of `kind` (by content) in `files`; an error if
/// several share that depth.
fn shallowest(container: &str, files: &FileTree, kind: FileKind) -> Result<Option<String>> {
    let found: Vec<&String> = files
        .iter()
        .filter(|(path, bytes)| {
            kind_from_name(path) == Some(kind) && sniff(path, bytes) == Some(kind)
        })
        .map(|(path, _)| path)
        .collect();
    let Some(depth) = found.iter().map(|p| p.matches('/').count()).min() else {
        return Ok(None);
    };
    let top: Vec<&String> = found
        .into_iter()
        .filter(|p| p.matches('/').count() == depth)
        .collect();
    match top.as_slice() {
        [one] => Ok(Some((*one).clone())),
        several => Err(Error::file_level(
            ErrorKind::Unsupported,
            container,
            format!(
                "several projects side by side ({}): load one of their folders",
                several
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

fn load_pml_project(project: &mut Project, prefix: &str, pml_path: &str) -> Result<()> {
    let pml_file = format!("{prefix}{pml_path}");
    let bytes = project.files.get(pml_path).ok_or_else(|| {
        Error::file_level(
            ErrorKind::Io,
            &pml_file,
            "the project file is not in the folder",
        )
    })?;
    let parsed = package::read_pml(&pml_file, bytes)?;
    let pml = parsed.value;
    project.warnings.extend(parsed.warnings);
    let dir = parent_of(pml_path).to_string();
    project
        .warnings
        .extend(missing_references(&pml_file, &pml, &dir, &project.files));
    if let Some(manifest_path) = pml.manifest.as_deref().and_then(|m| join_in_tree(&dir, m))
        && let Some(bytes) = project.files.get(&manifest_path)
    {
        match package::read_manifest(&format!("{prefix}{manifest_path}"), bytes) {
            Ok(m) => {
                project.warnings.extend(m.warnings);
                project.manifest = Some(m.value);
            }
            Err(e) => project.warnings.push(*e.0),
        }
    }
    for b in &pml.behaviors {
        let Some(path) = join_in_tree(&dir, &b.xar_path()) else {
            continue;
        };
        let folder = b.src.trim_end_matches(['/', '\\']);
        let name = match folder {
            "" | "." => pml.name.clone(),
            f => base_name(f).to_string(),
        };
        project.add_behavior(prefix, name, path);
    }
    project.name = pml.name.clone();
    project.pml = Some(pml);
    project.pml_path = Some(pml_path.to_string());
    Ok(())
}

fn load_manifest_project(project: &mut Project, prefix: &str, manifest_path: &str) -> Result<()> {
    let file = format!("{prefix}{manifest_path}");
    let Some(bytes) = project.files.get(manifest_path) else {
        return Ok(());
    };
    let parsed = package::read_manifest(&file, bytes)?;
    let manifest = parsed.value;
    project.warnings.extend(parsed.warnings);
    let dir = parent_of(manifest_path).to_string();
    for b in &manifest.behaviors {
        let path = join_in_tree(&dir, &b.xar_path()).filter(|p| project.files.contains_key(p));
        let Some(path) = path else {
            project.warnings.push(Diagnostic::file_level(
                Severity::Warning,
                ErrorKind::Unusual,
                &file,
                format!("the behavior {:?} is missing (no {})", b.path, b.xar_path()),
            ));
            continue;
        };
        let name = match b.path.trim_end_matches(['/', '\\']) {
            "" | "." => project.name.clone(),
            f => base_name(f).to_string(),
        };
        project.add_behavior(prefix, name, path);
    }
    if let Some(n) = manifest.names.first().filter(|n| !n.text.is_empty()) {
        project.name = n.text.clone();
    }
    project.manifest = Some(manifest);
    Ok(())
}

fn load_library(project: &mut Project, prefix: &str, container: &str) -> Result<()> {
    let entries: Vec<(String, String)> = project
        .files
        .keys()
        .filter_map(|path| {
            let (folder, file) = path.rsplit_once('/')?;
            matches!(file, "box.xar" | "behavior.xar")
                .then(|| (decode_folder_name(base_name(folder)), path.clone()))
        })
        .collect();
    if entries.is_empty() {
        return Err(Error::file_level(
            ErrorKind::Unsupported,
            container,
            "no .pml, manifest.xml, behavior.xar or box library folder here",
        ));
    }
    if let Some(title) = ["metadata", ".metadata"]
        .iter()
        .filter_map(|m| project.files.get(*m))
        .find_map(|m| {
            let text = String::from_utf8_lossy(m);
            archive::control_field(&text, "title")
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        })
    {
        project.name = title;
    }
    for (name, path) in entries {
        project.add_behavior(prefix, name, path);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Disk

fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error::file_level(
        ErrorKind::Io,
        &path.display().to_string(),
        format!("cannot read: {e}"),
    )
}

/// Reads a folder into memory. Symbolic links are followed only to files and folders inside
/// the folder (others are skipped); `.git` folders are skipped; the total size and file count
/// are capped like an archive's ([`archive::MAX_TOTAL_SIZE`], [`archive::MAX_ENTRIES`]).
pub fn read_dir_tree(path: &Path) -> Result<FileTree> {
    let limits = Limits::default();
    let root = fs::canonicalize(path).map_err(|e| io_error(path, &e))?;
    let mut files = FileTree::new();
    let mut total: u64 = 0;
    let mut visited = HashSet::new();
    visited.insert(root.clone());
    let mut stack = vec![(root.clone(), String::new())];
    let too_large =
        |what: String| Error::file_level(ErrorKind::TooLarge, &path.display().to_string(), what);
    while let Some((dir, rel)) = stack.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| io_error(&dir, &e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error(&dir, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel_path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let mut target = entry.path();
            let mut meta = fs::symlink_metadata(&target).map_err(|e| io_error(&target, &e))?;
            if meta.file_type().is_symlink() {
                match fs::canonicalize(&target) {
                    Ok(t) if t.starts_with(&root) => {
                        meta = fs::metadata(&t).map_err(|e| io_error(&t, &e))?;
                        target = t;
                    }
                    _ => continue,
                }
            }
            if meta.is_dir() {
                if name != ".git"
                    && visited.insert(fs::canonicalize(&target).unwrap_or(target.clone()))
                {
                    stack.push((target, rel_path));
                }
            } else if meta.is_file() {
                total = total.saturating_add(meta.len());
                if total > limits.max_total_size {
                    return Err(too_large(format!(
                        "the folder holds more than {} bytes",
                        limits.max_total_size
                    )));
                }
                if files.len() >= limits.max_entries {
                    return Err(too_large(format!(
                        "the folder holds more than {} files",
                        limits.max_entries
                    )));
                }
                let bytes = fs::read(&target).map_err(|e| io_error(&target, &e))?;
                files.insert(rel_path, bytes);
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_wins_over_extension_and_names_break_ties() {
        let pml = br#"<?xml version="1.0"?><Package name="P" format_version="4"/>"#;
        assert_eq!(sniff("x.dlg", pml), Some(FileKind::Pml));
        assert_eq!(
            sniff("x.pml", b"import qi\nprint(1)\n"),
            Some(FileKind::Python)
        );
        assert_eq!(sniff("x.cbl", b"!<arch>\n"), Some(FileKind::Cbl));
        assert_eq!(sniff("x.bin", b"!<arch>\n"), Some(FileKind::Crg));
        assert_eq!(
            sniff("._x.pml", b"\x00\x05\x16\x07junk"),
            Some(FileKind::AppleDouble)
        );
        assert_eq!(
            sniff("a.top", b"# c\n\ntopic: ~a()\n"),
            Some(FileKind::Topic)
        );
        assert_eq!(sniff("empty.top", b""), Some(FileKind::Topic));
        assert_eq!(sniff("sound.wav", b"RIFF\0\0"), None);
        assert_eq!(
            sniff("b", b"<!-- x --><ChoregrapheBox xar_version=\"3\"/>"),
            Some(FileKind::BoxXar)
        );
    }

    #[test]
    fn folder_names_are_percent_decoded() {
        assert_eq!(decode_folder_name("Speech Reco%2e"), "Speech Reco.");
        assert_eq!(decode_folder_name("Motor On%2fOff"), "Motor On/Off");
        assert_eq!(decode_folder_name("100%"), "100%");
        assert_eq!(decode_folder_name("a%zzb"), "a%zzb");
        assert_eq!(decode_folder_name("a%+1b"), "a%+1b");
    }

    #[test]
    fn tree_paths_resolve_dots_inside_the_tree_only() {
        assert_eq!(
            join_in_tree("a/b", "../c/./d.xar").as_deref(),
            Some("a/c/d.xar")
        );
        assert_eq!(join_in_tree("", "x\\y.top").as_deref(), Some("x/y.top"));
        assert_eq!(join_in_tree("a", ".").as_deref(), Some("a"));
        assert_eq!(join_in_tree("a", "../../x"), None);
        assert_eq!(join_in_tree("a", "/etc/passwd"), None);
    }

    #[test]
    fn stems_drop_folders_and_extensions() {
        assert_eq!(stem("x/Hello World.crg"), "Hello World");
        assert_eq!(stem("a.crg!behavior_1/behavior.xar"), "behavior");
        assert_eq!(stem("dir/"), "dir");
        assert_eq!(stem(".metadata"), ".metadata");
    }
}
