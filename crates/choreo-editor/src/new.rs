//! `choreo new`: a behavior, a project or a box library made from nothing, as Choregraphe's
//! File > New makes them, so that Choregraphe opens them as its own and `choreo edit` opens
//! them at once.
//!
//! What Choregraphe writes was read in the corpus's projects that were left as New made
//! them (their `manifest.xml` still names the application "Untitled", version 0.0.0):
//!
//! - **A behavior** is Choregraphe's empty root box (`boxes/behavior.xar`, the project's
//!   New behavior too).
//! - **A project** is a folder holding `<name>.pml`, `manifest.xml` and `behavior_1/
//!   behavior.xar`. The `.pml` is format 4 (Choregraphe 2.1 to 2.8 open it; 2.8 writes 5,
//!   which 2.1 refuses) with its empty lists; it names no translation (Choregraphe 2.5+
//!   lists `translations/translation_en_US.ts` there but never writes the file until one is
//!   made). The manifest's uuid is the name in lower case, without spaces, then `-` and six
//!   hex digits (`Hello World` → `helloworld-1823f9`); the behavior is user-requestable and
//!   interactive, as New sets it.
//! - **A box library** is a `.cbl` (an ar archive: `debian-binary`, `control.tar.gz` with an
//!   empty `content`, `data.tar.gz` with `.metadata` and `xalinfo`). Choregraphe's New box
//!   library is empty; choreo's holds one Python Script box, so that `choreo edit` has a box
//!   to open (delete it once the library has its own).

use std::hash::{BuildHasher as _, Hasher as _};
use std::path::{Path, PathBuf};

use choreo_xar::FileTree;
use choreo_xar::archive::pack_ar;

use crate::project::{NEW_BEHAVIOR, escape};

/// What `choreo new` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewKind {
    /// A `behavior.xar`.
    Behavior,
    /// A project folder: `.pml`, manifest, one behavior.
    Project,
    /// A box library (`.cbl`).
    Library,
}

/// Why nothing was made (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    /// The path is taken: a file, or a folder that is not empty.
    #[error("{0}: already there (choreo new writes over nothing; `choreo edit` it)")]
    Exists(PathBuf),
    /// The name the path gives cannot name a project or a library.
    #[error("{0}: no name to give it (the last part of the path names it)")]
    NoName(PathBuf),
    /// Writing failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The library could not be packed.
    #[error("{0}")]
    Pack(String),
}

/// Makes what `kind` names at `path` and gives the file `choreo edit` opens: a behavior's
/// `path` is its `.xar` (or a folder to hold `behavior.xar`); a project's, its folder (absent
/// or empty); a library's, its `.cbl` (the extension added when missing).
pub fn make(kind: NewKind, path: &Path) -> Result<PathBuf, NewError> {
    match kind {
        NewKind::Behavior => {
            let file = if path.extension().is_some_and(|e| e == "xar") {
                path.to_path_buf()
            } else {
                path.join("behavior.xar")
            };
            write_new(&file, NEW_BEHAVIOR.as_bytes())?;
            Ok(file)
        }
        NewKind::Project => make_project(path),
        NewKind::Library => {
            let file = if path.extension().is_some_and(|e| e == "cbl") {
                path.to_path_buf()
            } else {
                path.with_extension("cbl")
            };
            let name = stem(&file)?;
            let bytes = library(&name).map_err(|e| NewError::Pack(e.to_string()))?;
            write_new(&file, &bytes)?;
            Ok(file)
        }
    }
}

/// The last part of `path` without its extension: what names the project or library.
fn stem(path: &Path) -> Result<String, NewError> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "." && *s != "..")
        .map(str::to_string)
        .ok_or_else(|| NewError::NoName(path.to_path_buf()))
}

fn make_project(dir: &Path) -> Result<PathBuf, NewError> {
    // `.` (a folder made and entered first) is named by where it is
    let name = stem(dir).or_else(|e| {
        dunce::canonicalize(dir)
            .map_err(|_| e)
            .and_then(|d| stem(&d))
    })?;
    let taken = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => dir.exists(), // a file, or an unreadable folder
    };
    if taken {
        return Err(NewError::Exists(dir.to_path_buf()));
    }
    let pml = dir.join(format!("{name}.pml"));
    write_new(&pml, pml_text(&name).as_bytes())?;
    write_new(
        &dir.join("manifest.xml"),
        manifest_text(&uuid(&name)).as_bytes(),
    )?;
    let behavior = dir.join("behavior_1").join("behavior.xar");
    write_new(&behavior, NEW_BEHAVIOR.as_bytes())?;
    Ok(pml)
}

/// The `.pml` of a new project named `name`.
fn pml_text(name: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n\
         <Package name=\"{}\" format_version=\"4\">\n    \
         <Manifest src=\"manifest.xml\" />\n    \
         <BehaviorDescriptions>\n        \
         <BehaviorDescription name=\"behavior\" src=\"behavior_1\" xar=\"behavior.xar\" />\n    \
         </BehaviorDescriptions>\n    \
         <Dialogs />\n    <Resources />\n    <Topics />\n    <IgnoredPaths />\n\
         </Package>\n",
        escape(name)
    )
}

/// The `manifest.xml` of a new project whose package id is `uuid`.
fn manifest_text(uuid: &str) -> String {
    format!(
        "<?xml version='1.0' encoding='UTF-8'?>\n\
         <package version=\"0.0.0\" uuid=\"{}\">\n \
         <names>\n  <name lang=\"en_US\">Untitled</name>\n </names>\n \
         <supportedLanguages>\n  <language>en_US</language>\n </supportedLanguages>\n \
         <descriptionLanguages>\n  <language>en_US</language>\n </descriptionLanguages>\n \
         <contents>\n  <behaviorContent path=\"behavior_1\">\n   <userRequestable/>\n   \
         <nature>interactive</nature>\n   <permissions/>\n  </behaviorContent>\n </contents>\n\
         </package>\n",
        escape(uuid)
    )
}

/// Choregraphe's package id for `name`: lower case, letters, digits, `_`, `-` and `.` kept
/// (spaces dropped), then `-` and six random hex digits.
fn uuid(name: &str) -> String {
    let kept: String = name
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .collect();
    // std's hasher keys are random per process: six hex digits no two projects share often.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write(name.as_bytes());
    let base = if kept.is_empty() { "project" } else { &kept };
    format!("{base}-{:06x}", h.finish() & 0xff_ffff)
}

/// A new box library titled `name`: one Python Script box.
fn library(name: &str) -> choreo_xar::Result<Vec<u8>> {
    let metadata = format!("Type: ChoregrapheBoxLibrary\nVersion: 3.0\ntitle: {name}\n");
    let xalinfo = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<Folder>\n    \
                   <Node name=\"Python Script\" />\n</Folder>\n";
    let script =
        crate::library::PYTHON_SCRIPT.replacen("name=\"Python Script\"", "name=\"root\"", 1);
    let indented: String = script.lines().map(|l| format!("    {l}\n")).collect();
    let box_xar = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<ChoregrapheBox xar_version=\"3\">\n\
         {indented}</ChoregrapheBox>\n"
    );
    let mut files = FileTree::new();
    files.insert(".metadata".into(), metadata.into_bytes());
    files.insert("Python Script/box.xar".into(), box_xar.into_bytes());
    files.insert("xalinfo".into(), xalinfo.as_bytes().to_vec());
    pack_ar(name, "content", "", &files)
}

/// Writes `bytes` to `file`, made with its folders; never over a file already there.
fn write_new(file: &Path, bytes: &[u8]) -> Result<(), NewError> {
    let failed = |source| NewError::Write {
        path: file.to_path_buf(),
        source,
    };
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(file)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                NewError::Exists(file.to_path_buf())
            } else {
                failed(e)
            }
        })?;
    f.write_all(bytes).map_err(failed)
}
