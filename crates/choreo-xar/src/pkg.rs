//! The package NAOqi's PackageManager installs (`.pkg`), built from a project the way
//! qibuild's `qipkg` builds it, with qipkg's checks.
//!
//! What goes in ([`stage`]), as qipkg's `PMLBuilder` stages it: the manifest as
//! `manifest.xml` at the top, then every file the `.pml` lists (each behavior's XAR, dialogs,
//! resources, topics), at its path relative to the `.pml`'s folder; a listed file that is
//! missing is an error. choreo adds the `.pml` itself (so the package opens in Choregraphe
//! and converts back to a project) and, for each listed Qt translation (`.ts`), the compiled
//! `.qm` beside it when there is one (qipkg compiles them with Qt's `lrelease`; choreo does
//! not, and says so). A project without a `.pml` but with a `manifest.xml` at its top (an
//! unpacked package) is staged whole.
//!
//! The checks ([`check_manifest`]) are qipkg's manifest validator's: a `uuid` of 1 to 50
//! characters among `a-z 0-9 _ -`; a `version` above `0.0.0.0`; at least one
//! `robotRequirement`, each with a `model`; at least one `naoqiRequirement`, each with a
//! `minVersion`; when trigger sentences are used, one per behavior and supported language;
//! a name for each supported language (an error for `en_US`, a warning for the others); a
//! description for each (a warning). choreo adds what PackageManager would install broken:
//! a `behaviorContent` or dialog topic whose file is not in the package, a behavior that does
//! not read.

use crate::error::{Diagnostic, ErrorKind, Severity};
use crate::project_files::{Manifest, Pml, XmlElement, in_folder, read_manifest};
use crate::source::{Project, join_in_tree};
use crate::{FileTree, TextPosition};

/// A package's files, ready to zip, and what was found on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Staged {
    /// The files, by path in the package.
    pub files: FileTree,
    /// The manifest's `uuid` and `version`, when it has them: the package's name is
    /// `<uuid>-<version>.pkg`, as qipkg names it.
    pub uuid: Option<String>,
    /// See [`Staged::uuid`].
    pub version: Option<String>,
    /// Errors (the package would not install or work) and warnings, located in the files.
    pub diagnostics: Vec<Diagnostic>,
}

impl Staged {
    /// Whether an error was found.
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// Whether the package must not be written: an error was found, and either `force` is
    /// false or the error is more than a manifest check (as qipkg's `--force` lifts only
    /// those: a missing file stays an error).
    pub fn refused(&self, force: bool) -> bool {
        self.errors()
            .any(|d| !force || d.kind != ErrorKind::BadValue)
    }

    fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    /// The file name qipkg gives the package: `<uuid>-<version>.pkg`.
    pub fn file_name(&self) -> Option<String> {
        Some(format!(
            "{}-{}.pkg",
            self.uuid.as_deref()?,
            self.version.as_deref()?
        ))
    }
}

/// Stages `project` (loaded from `shown`, which names its files in messages) as a package.
pub fn stage(project: &Project, shown: &str) -> Staged {
    let mut diagnostics = Vec::new();
    let files = &project.files;
    let name = |path: &str| format!("{shown}/{path}");
    // The project's errors (a behavior that does not read) stop the package too.
    diagnostics.extend(
        project
            .warnings
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned(),
    );
    let mut staged = FileTree::new();
    let manifest_path = match (&project.pml, &project.pml_path) {
        (Some(pml), Some(pml_path)) => {
            let dir = parent_of(pml_path);
            let pml_bytes = files.get(pml_path).cloned().unwrap_or_default();
            let pml_text = String::from_utf8_lossy(&pml_bytes).into_owned();
            let at = |src: &str, message: String| {
                let offset = element_with_src(&pml.document.root, src).map(XmlElement::offset);
                let kind = ErrorKind::BadStructure;
                located_as(kind, &name(pml_path), &pml_text, offset, message)
            };
            if let Some(base) = pml_path.rsplit('/').next() {
                staged.insert(base.to_string(), pml_bytes.clone());
            }
            for (what, src) in pml.referenced_files() {
                if what == "manifest" || what == "translation" {
                    continue;
                }
                match join_in_tree(dir, &src) {
                    Some(path) if let Some(bytes) = files.get(&path) => {
                        staged.insert(relative_to(dir, &path), bytes.clone());
                    }
                    Some(path) => diagnostics.push(at(
                        &src,
                        format!("the {what} {src:?} does not exist (no {path})"),
                    )),
                    None => diagnostics.push(at(
                        &src,
                        format!("the {what} {src:?} is outside the project folder"),
                    )),
                }
            }
            stage_translations(pml, dir, files, &mut staged, &mut diagnostics, &at);
            let src = pml.manifest.as_deref().unwrap_or("manifest.xml");
            let path = join_in_tree(dir, src).filter(|p| files.contains_key(p));
            if path.is_none() {
                diagnostics.push(at(
                    src,
                    format!("the manifest {src:?} does not exist: a package needs one"),
                ));
            }
            path
        }
        _ if files.contains_key(MANIFEST) => {
            staged.clone_from(files);
            Some(MANIFEST.to_string())
        }
        _ => {
            diagnostics.push(Diagnostic::file_level(
                Severity::Error,
                ErrorKind::Unsupported,
                shown,
                "neither a .pml nor a manifest.xml: a package is built from a Choregraphe \
                 2.x project (a 1.x project needs one made in Choregraphe)",
            ));
            None
        }
    };
    let mut uuid = None;
    let mut version = None;
    if let Some(path) = manifest_path
        && let Some(bytes) = files.get(&path)
    {
        staged.insert(MANIFEST.to_string(), bytes.clone());
        let file = name(&path);
        match read_manifest(&file, bytes) {
            Ok(parsed) => {
                let text = String::from_utf8_lossy(bytes).into_owned();
                diagnostics.extend(check_manifest(&file, &text, &parsed.value));
                diagnostics.extend(missing_contents(&file, &text, &parsed.value, &staged));
                uuid.clone_from(&parsed.value.uuid);
                version.clone_from(&parsed.value.version);
            }
            Err(e) => diagnostics.push(*e.0),
        }
    }
    Staged {
        files: staged,
        uuid,
        version,
        diagnostics,
    }
}

/// The compiled `.qm` of each translation the `.pml` lists, as qipkg stages it; a `.ts`
/// without its `.qm` is left out with a warning (qipkg compiles it with Qt's lrelease).
fn stage_translations(
    pml: &Pml,
    dir: &str,
    files: &FileTree,
    staged: &mut FileTree,
    diagnostics: &mut Vec<Diagnostic>,
    at: &dyn Fn(&str, String) -> Diagnostic,
) {
    for t in &pml.translations {
        let qm = t
            .src
            .strip_suffix(".ts")
            .map(|stem| format!("{stem}.qm"))
            .and_then(|qm| join_in_tree(dir, &qm));
        match qm {
            Some(path) if let Some(bytes) = files.get(&path) => {
                staged.insert(relative_to(dir, &path), bytes.clone());
            }
            _ => diagnostics.push(warning(at(
                &t.src,
                format!(
                    "the translation {:?} is left out: the package takes its compiled \
                     .qm, which qipkg makes with Qt's lrelease and choreo does not",
                    t.src
                ),
            ))),
        }
    }
}

/// The manifest's name in a package.
const MANIFEST: &str = "manifest.xml";

/// qipkg's manifest checks on `manifest` (read from `text`; `file` names it).
pub fn check_manifest(file: &str, text: &str, manifest: &Manifest) -> Vec<Diagnostic> {
    let root = &manifest.document.root;
    let mut out = Vec::new();
    let at = |el: &XmlElement, message: String| located(file, text, Some(el.offset()), message);
    match root.attribute("uuid") {
        None | Some("") => out.push(at(root, "the package has no uuid".into())),
        Some(uuid) if !valid_uuid(uuid) => out.push(at(
            root,
            format!(
                "uuid {uuid:?}: 1 to 50 characters among a-z, 0-9, `_` and `-` \
                 (PackageManager installs the package in a folder of that name)"
            ),
        )),
        Some(_) => {}
    }
    let version = root.attribute("version").unwrap_or("0.0.0.0");
    if !above_zero(version) {
        out.push(at(
            root,
            format!("version {version:?}: a package's version is above 0.0.0.0"),
        ));
    }
    out.extend(requirement_faults(file, text, root));
    let contents: Vec<&XmlElement> = root
        .elements_named("contents")
        .flat_map(|c| c.elements_named("behaviorContent"))
        .collect();
    let sentences = |b: &XmlElement, lang: &str| {
        b.elements_named("triggerSentences")
            .flat_map(|t| t.elements_named("sentence"))
            .any(|s| s.attribute("lang") == Some(lang))
    };
    let uses_triggers = contents.iter().any(|b| {
        b.elements_named("triggerSentences")
            .any(|t| t.elements_named("sentence").next().is_some())
    });
    for lang in &manifest.supported_languages {
        if uses_triggers {
            for b in &contents {
                if !sentences(b, lang) {
                    out.push(at(
                        b,
                        format!(
                            "the behavior {:?} has no trigger sentence in {lang}",
                            b.attribute("path").unwrap_or_default()
                        ),
                    ));
                }
            }
        }
        if !manifest
            .names
            .iter()
            .any(|n| n.lang.as_deref() == Some(lang))
        {
            let d = located(
                file,
                text,
                Some(root.offset()),
                format!("no name in {lang}"),
            );
            out.push(if lang == "en_US" { d } else { warning(d) });
        }
        if !manifest
            .descriptions
            .iter()
            .any(|n| n.lang.as_deref() == Some(lang))
        {
            out.push(warning(located(
                file,
                text,
                Some(root.offset()),
                format!("no description in {lang}"),
            )));
        }
    }
    out
}

/// What the manifest's requirements lack: qipkg wants the robots it runs on and the NAOqi
/// version it needs, each with its attribute.
fn requirement_faults(file: &str, text: &str, root: &XmlElement) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let at = |el: &XmlElement, message: String| located(file, text, Some(el.offset()), message);
    let requirements: Vec<&XmlElement> = root
        .elements_named("requirements")
        .flat_map(XmlElement::elements)
        .collect();
    for (kind, attribute, missing) in [
        (
            "robotRequirement",
            "model",
            "no robotRequirement: say which robots it runs on (NAO, JULIETTE for Pepper)",
        ),
        (
            "naoqiRequirement",
            "minVersion",
            "no naoqiRequirement: say the NAOqi version it needs",
        ),
    ] {
        let found: Vec<&&XmlElement> = requirements
            .iter()
            .filter(|e| e.local_name() == kind)
            .collect();
        if found.is_empty() {
            out.push(at(root, missing.to_string()));
        }
        for e in found {
            if e.attribute(attribute).is_none_or(str::is_empty) {
                out.push(at(e, format!("a {kind} without {attribute}")));
            }
        }
    }
    out
}

/// The behaviors and dialog topics the manifest installs whose files the package lacks.
fn missing_contents(
    file: &str,
    text: &str,
    manifest: &Manifest,
    staged: &FileTree,
) -> Vec<Diagnostic> {
    let root = &manifest.document.root;
    let mut out = Vec::new();
    let contents = root
        .elements_named("contents")
        .flat_map(XmlElement::elements);
    for el in contents {
        let (paths, what) = match el.local_name() {
            "behaviorContent" => (
                el.attribute("path")
                    .map(|p| in_folder(p, "behavior.xar"))
                    .into_iter()
                    .collect::<Vec<_>>(),
                "behavior",
            ),
            "dialogContent" => (
                el.elements_named("topic")
                    .filter_map(|t| t.attribute("path").map(str::to_string))
                    .collect(),
                "dialog topic",
            ),
            _ => continue,
        };
        for path in paths {
            let normal = join_in_tree("", &path);
            if !normal.is_some_and(|p| staged.contains_key(&p)) {
                out.push(located_as(
                    ErrorKind::BadStructure,
                    file,
                    text,
                    Some(el.offset()),
                    format!(
                        "the {what} {path:?} is not in the package: PackageManager would \
                         install it broken"
                    ),
                ));
            }
        }
    }
    out
}

/// A manifest check's error at `offset` of `text` (the file's start when unknown).
fn located(file: &str, text: &str, offset: Option<usize>, message: String) -> Diagnostic {
    located_as(ErrorKind::BadValue, file, text, offset, message)
}

/// An error of `kind` at `offset` of `text` (the file's start when unknown): `BadValue` for
/// the manifest checks, `BadStructure` for files missing from the package.
fn located_as(
    kind: ErrorKind,
    file: &str,
    text: &str,
    offset: Option<usize>,
    message: String,
) -> Diagnostic {
    match offset {
        Some(o) => Diagnostic::at_offset(Severity::Error, kind, file, text, o, "", message),
        None => Diagnostic {
            position: Some(TextPosition { line: 1, column: 1 }),
            ..Diagnostic::file_level(Severity::Error, kind, file, message)
        },
    }
}

fn warning(d: Diagnostic) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        ..d
    }
}

/// The first element under `el` that names the file `src`: by its `src`, or, for a
/// `BehaviorDescription`, its `src` folder and `xar` file.
fn element_with_src<'a>(el: &'a XmlElement, src: &str) -> Option<&'a XmlElement> {
    let mut stack = vec![el];
    while let Some(e) = stack.pop() {
        let named = e.attribute("src").is_some_and(|s| {
            s == src
                || (e.local_name() == "BehaviorDescription"
                    && in_folder(s, e.attribute("xar").unwrap_or("behavior.xar")) == src)
        });
        if named {
            return Some(e);
        }
        stack.extend(e.elements().collect::<Vec<_>>().into_iter().rev());
    }
    None
}

/// qipkg's uuid rule: `[_-a-z0-9]{1,50}`.
fn valid_uuid(uuid: &str) -> bool {
    (1..=50).contains(&uuid.len())
        && uuid
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Whether a version is above `0.0.0.0` as qipkg compares them: its leading dotted numbers
/// (`1.2.3` of `1.2.3-rc1`) hold one above zero; `0.0.0-rc1` is below `0.0.0.0`.
fn above_zero(version: &str) -> bool {
    version
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .next()
        .unwrap_or("")
        .split('.')
        .any(|n| n.parse::<u64>().is_ok_and(|n| n > 0))
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `path` (in the tree) relative to the folder `dir` it is under.
fn relative_to(dir: &str, path: &str) -> String {
    if dir.is_empty() {
        path.to_string()
    } else {
        path.strip_prefix(&format!("{dir}/"))
            .unwrap_or(path)
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_and_versions_follow_qipkg() {
        for good in ["a", "my-app_2", &"x".repeat(50)] {
            assert!(valid_uuid(good), "{good}");
        }
        for bad in ["", "MyApp", "a.b", "a b", &"x".repeat(51)] {
            assert!(!valid_uuid(bad), "{bad}");
        }
        for good in ["0.0.1", "1", "0.0.0.1", "1.2.3-rc1", "0.1.0"] {
            assert!(above_zero(good), "{good}");
        }
        for bad in ["0.0.0.0", "0", "", "0.0.0-rc1", "abc"] {
            assert!(!above_zero(bad), "{bad}");
        }
    }
}
