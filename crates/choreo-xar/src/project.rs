//! Whole projects both ways: a Choregraphe project as a readable folder that holds everything,
//! and back to the container it came in (a folder, `.crg`, `.cbl` or `.pkg`) or another.
//!
//! The readable folder is the project's own files at their own paths, byte for byte, except
//! each behavior's XAR, which becomes a split-format folder ([`crate::split`]) beside it:
//! `behavior_1/behavior.xar` becomes `behavior_1/behavior/`. [`PROJECT_FILE`] at the top says
//! what the project was (its [`Container`], an archive's control text) and which folder holds
//! which behavior. [`to_readable`] and [`from_readable`] are inverses: the files come back
//! byte for byte, each behavior as the XAR [`crate::write_xar`] writes for the same model
//! (equal to the original for [`crate::diff`]).
//!
//! The `.pml`, `manifest.xml`, `.dlg` and `.top` files stay as they are: they are already
//! text a reviewer reads line by line, and kept unchanged they stay what Choregraphe, qipkg
//! and the robot read.
//!
//! It works on [`crate::FileTree`]s and imports nothing from `source`, which calls it.

use serde::{Deserialize, Serialize};

use crate::error::{Diagnostic, Error, ErrorKind, Result, Severity};
use crate::model::XarFile;
use crate::{FileTree, Parsed, archive, split, write_xar};

/// The file at the top of a readable project folder.
pub const PROJECT_FILE: &str = "choreo-project.toml";

/// The version of the readable project format this library writes and reads.
pub const FORMAT_VERSION: i64 = 1;

/// What a project is kept in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Container {
    /// A folder on disk (a `.pml` project, a 1.x project, a box library).
    #[default]
    Folder,
    /// A Choregraphe project archive (ar: `debian-binary`, `control.tar.gz`, `data.tar.gz`).
    Crg,
    /// A box library archive (the same ar layout; its control member is `content`).
    Cbl,
    /// A package, as PackageManager installs it (zip).
    Pkg,
}

impl Container {
    /// Every container, for messages and parsing.
    pub const ALL: [Container; 4] = [
        Container::Folder,
        Container::Crg,
        Container::Cbl,
        Container::Pkg,
    ];

    /// Its name in [`PROJECT_FILE`] (`folder`, `crg`, `cbl`, `pkg`); for an archive, its
    /// file extension too.
    pub fn name(self) -> &'static str {
        match self {
            Container::Folder => "folder",
            Container::Crg => "crg",
            Container::Cbl => "cbl",
            Container::Pkg => "pkg",
        }
    }

    /// The container named `name` (see [`Container::name`]).
    pub fn from_name(name: &str) -> Option<Container> {
        Container::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The control text Choregraphe writes for a project titled `title`: what an archive
    /// gets when its project did not come with one. `None` for containers without one.
    pub fn default_control(self, title: &str) -> Option<String> {
        match self {
            Container::Crg => Some(format!(
                "Type: ChoregrapheProject\nVersion: 2.0\ntitle: {title}\n"
            )),
            Container::Cbl => Some(String::new()),
            Container::Folder | Container::Pkg => None,
        }
    }

    /// The archive's bytes holding `files` (and, for `.crg`/`.cbl`, `control`, else the
    /// default control text for `title`); `None` for [`Container::Folder`]. `file` names the
    /// archive in errors.
    pub fn pack(
        self,
        file: &str,
        title: &str,
        control: Option<&str>,
        files: &FileTree,
    ) -> Option<Result<Vec<u8>>> {
        let control = control
            .map(str::to_string)
            .or_else(|| self.default_control(title))
            .unwrap_or_default();
        match self {
            Container::Folder => None,
            Container::Crg => Some(archive::pack_ar(file, "control", &control, files)),
            Container::Cbl => Some(archive::pack_ar(file, "content", &control, files)),
            Container::Pkg => Some(archive::pack_zip(file, files)),
        }
    }
}

/// A project as Choregraphe keeps it: its container, an archive's control text, its files
/// (behaviors as XAR files).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Packed {
    /// What it was kept in.
    pub container: Container,
    /// A `.crg`/`.cbl`'s control text, if it had one.
    pub control: Option<String>,
    /// Every file, by path.
    pub files: FileTree,
    /// The project's name, where only its container said it (a `.crg` without a title
    /// is named after its file): a readable folder keeps it.
    pub name: Option<String>,
    /// The project file (`.pml`) to load, when the folder holds several side by side.
    pub pml: Option<String>,
}

/// [`PROJECT_FILE`] as written.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectRepr {
    project_format: i64,
    container: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pml: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    control: Option<String>,
    #[serde(default, rename = "behavior", skip_serializing_if = "Vec::is_empty")]
    behaviors: Vec<BehaviorRepr>,
}

/// One `[[behavior]]` of [`PROJECT_FILE`]: where the XAR was, where its split folder is.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BehaviorRepr {
    xar: String,
    folder: String,
}

/// Whether `files` is a readable project folder: [`PROJECT_FILE`] at its top with a
/// `project_format` number.
pub fn is_readable_tree(files: &FileTree) -> bool {
    files
        .get(PROJECT_FILE)
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .and_then(|text| text.parse::<toml::Table>().ok())
        .is_some_and(|t| t.get("project_format").is_some_and(toml::Value::is_integer))
}

/// The readable folder of the project `packed`, whose behaviors are `behaviors` (each with
/// its XAR's path in `packed.files` and its model). `name` names the project in errors.
///
/// Fails if the project already holds a file named [`PROJECT_FILE`] at its top.
pub fn to_readable<'a>(
    name: &str,
    packed: &Packed,
    behaviors: impl IntoIterator<Item = (&'a str, &'a XarFile)>,
) -> Result<FileTree> {
    if packed.files.contains_key(PROJECT_FILE) {
        return Err(Error::file_level(
            ErrorKind::Unsupported,
            name,
            format!("the project holds a file named {PROJECT_FILE} already"),
        ));
    }
    let mut files = packed.files.clone();
    let mut entries = Vec::new();
    let behaviors: Vec<(&str, &XarFile)> = behaviors
        .into_iter()
        .filter(|(path, _)| packed.files.contains_key(*path))
        .collect();
    for (path, _) in &behaviors {
        files.remove(*path);
    }
    for (path, xar) in behaviors {
        let folder = free_folder(path, &files);
        for (rel, bytes) in split::to_tree(xar) {
            files.insert(format!("{folder}/{rel}"), bytes);
        }
        entries.push(BehaviorRepr {
            xar: path.to_string(),
            folder,
        });
    }
    let repr = ProjectRepr {
        project_format: FORMAT_VERSION,
        container: packed.container.name().to_string(),
        name: packed.name.clone(),
        pml: packed.pml.clone(),
        control: packed.control.clone(),
        behaviors: entries,
    };
    let text = toml::to_string(&repr)
        .map_err(|e| Error::file_level(ErrorKind::BadValue, name, format!("cannot write: {e}")))?;
    let header = "# A Choregraphe project in choreo's readable form (docs/project-format.md):\n\
                  # `choreo convert` makes the project back from this folder.\n";
    files.insert(
        PROJECT_FILE.to_string(),
        format!("{header}{text}").into_bytes(),
    );
    Ok(files)
}

/// The folder a behavior's XAR at `xar_path` is split into: its path without `.xar`
/// (`behavior_1/behavior`), or with `.split`, `.split2`... added when that is taken by a
/// file of the project.
fn free_folder(xar_path: &str, files: &FileTree) -> String {
    let stem = xar_path
        .strip_suffix(".xar")
        .filter(|s| !s.is_empty() && !s.ends_with('/'))
        .unwrap_or(xar_path);
    let taken = |folder: &str| {
        files.contains_key(folder)
            || files
                .range(format!("{folder}/")..)
                .next()
                .is_some_and(|(k, _)| k.starts_with(&format!("{folder}/")))
    };
    let mut folder = stem.to_string();
    let mut n = 1;
    while taken(&folder) {
        folder = if n == 1 {
            format!("{stem}.split")
        } else {
            format!("{stem}.split{n}")
        };
        n += 1;
    }
    folder
}

/// The project a readable folder holds (see [`to_readable`]); `name` names the folder in
/// messages (`name/choreo-project.toml`, `name/behavior_1/behavior/box.toml`).
///
/// Files under a behavior's folder are that behavior; any there that the split format does
/// not write is left out, with a warning.
pub fn from_readable(name: &str, files: &FileTree) -> Result<Parsed<Packed>> {
    let (shown, repr, container) = project_file(name, files)?;
    let mut out = files.clone();
    out.remove(PROJECT_FILE);
    let mut warnings = Vec::new();
    let mut xars = FileTree::new();
    for b in &repr.behaviors {
        for path in [&b.xar, &b.folder] {
            if !plain_path(path) {
                return Err(Error::file_level(
                    ErrorKind::UnsafePath,
                    &shown,
                    format!("{path:?}: not a relative path inside the folder"),
                ));
            }
        }
        let prefix = format!("{}/", b.folder);
        let subtree: FileTree = files
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(k, v)| (k[prefix.len()..].to_string(), v.clone()))
            .collect();
        if subtree.is_empty() {
            return Err(Error::file_level(
                ErrorKind::BadStructure,
                &shown,
                format!(
                    "the folder {:?} of behavior {:?} is missing",
                    b.folder, b.xar
                ),
            ));
        }
        let parsed = split::from_tree(&format!("{name}/{}", b.folder), &subtree)?;
        warnings.extend(parsed.warnings);
        for rel in subtree.keys() {
            out.remove(&format!("{prefix}{rel}"));
            if !split::writes_file_named(rel.rsplit('/').next().unwrap_or(rel)) {
                warnings.push(Diagnostic::file_level(
                    Severity::Warning,
                    ErrorKind::Unusual,
                    &format!("{name}/{prefix}{rel}"),
                    "left out of the project: a behavior's folder holds its split files \
                     only (put project files beside it)",
                ));
            }
        }
        if xars
            .insert(b.xar.clone(), write_xar(&parsed.value).into_bytes())
            .is_some()
        {
            return Err(Error::file_level(
                ErrorKind::BadStructure,
                &shown,
                format!("two behaviors are written to {:?}", b.xar),
            ));
        }
    }
    for (path, bytes) in xars {
        if out.insert(path.clone(), bytes).is_some() {
            return Err(Error::file_level(
                ErrorKind::BadStructure,
                &shown,
                format!("{path:?} is both a file of the folder and a behavior's XAR"),
            ));
        }
    }
    Ok(Parsed {
        value: Packed {
            container,
            control: repr.control,
            files: out,
            name: repr.name,
            pml: repr.pml,
        },
        warnings,
    })
}

/// The readable folder's `choreo-project.toml`, read and checked: its name as shown in
/// errors, its content, and the container it says the project goes back to.
fn project_file(name: &str, files: &FileTree) -> Result<(String, ProjectRepr, Container)> {
    let shown = format!("{name}/{PROJECT_FILE}");
    let text = files
        .get(PROJECT_FILE)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .ok_or_else(|| {
            Error::file_level(
                ErrorKind::BadStructure,
                name,
                format!("no {PROJECT_FILE}: not a readable project folder"),
            )
        })?;
    let repr: ProjectRepr = toml::from_str(&text).map_err(|e| {
        let message = e.message().to_string();
        match e.span() {
            Some(span) => Error::from(Diagnostic::at_offset(
                Severity::Error,
                ErrorKind::BadValue,
                &shown,
                &text,
                span.start,
                "",
                message,
            )),
            None => Error::file_level(ErrorKind::BadValue, &shown, message),
        }
    })?;
    if repr.project_format != FORMAT_VERSION {
        return Err(Error::file_level(
            ErrorKind::Unsupported,
            &shown,
            format!(
                "project_format {} (this version of choreo reads {FORMAT_VERSION})",
                repr.project_format
            ),
        ));
    }
    let container = Container::from_name(&repr.container).ok_or_else(|| {
        Error::file_level(
            ErrorKind::BadValue,
            &shown,
            format!(
                "container {:?}: expected one of {}",
                repr.container,
                Container::ALL.map(Container::name).join(", ")
            ),
        )
    })?;
    Ok((shown, repr, container))
}

/// Whether `path` is a plain relative path (`a/b.xar`): no empty, `.` or `..` part, no `\`.
fn plain_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains(['\\', '\0'])
        && path
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn xar() -> XarFile {
        let text = include_str!("../../../examples/hello/behavior.xar");
        crate::read_xar("hello.xar", text.as_bytes()).unwrap().value
    }

    #[test]
    fn a_project_goes_readable_and_back_unchanged() {
        let model = xar();
        let mut files = FileTree::new();
        files.insert(
            "behavior_1/behavior.xar".into(),
            write_xar(&model).into_bytes(),
        );
        files.insert("behavior_1/sound.wav".into(), vec![1, 2, 3]);
        // A project file where the split folder would go: the folder gets another name.
        files.insert("behavior_1/behavior/notes.txt".into(), b"mine".to_vec());
        files.insert("x.pml".into(), b"<Package/>".to_vec());
        let packed = Packed {
            container: Container::Crg,
            control: Some("Type: ChoregrapheProject\n".into()),
            files,
            name: Some("p".into()),
            pml: Some("x.pml".into()),
        };
        let readable = to_readable("p", &packed, [("behavior_1/behavior.xar", &model)]).unwrap();
        assert!(is_readable_tree(&readable));
        assert!(readable.contains_key("behavior_1/behavior.split/behavior.toml"));
        assert!(!readable.contains_key("behavior_1/behavior.xar"));
        assert_eq!(readable["behavior_1/sound.wav"], vec![1, 2, 3]);
        let back = from_readable("p", &readable).unwrap();
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert_eq!(back.value, packed);
        // A file put in a behavior's folder is not the project's: left out, with a warning.
        let mut edited = readable;
        edited.insert("behavior_1/behavior.split/README.md".into(), b"x".to_vec());
        let back = from_readable("p", &edited).unwrap();
        assert_eq!(back.value, packed);
        assert_eq!(back.warnings.len(), 1);
        assert_eq!(
            back.warnings[0].file,
            "p/behavior_1/behavior.split/README.md"
        );
    }

    #[test]
    fn bad_project_files_are_located_errors() {
        let mut files = FileTree::new();
        files.insert(
            PROJECT_FILE.into(),
            b"project_format = 1\ncontainer = \"zip\"\n".to_vec(),
        );
        let e = from_readable("p", &files).unwrap_err();
        assert!(e.to_string().contains("container \"zip\""), "{e}");
        files.insert(
            PROJECT_FILE.into(),
            b"project_format = 1\ncontainer = \"crg\"\ncolour = 2\n".to_vec(),
        );
        let e = from_readable("p", &files).unwrap_err();
        assert_eq!(e.0.position.map(|p| p.line), Some(3), "{e}");
        files.insert(
            PROJECT_FILE.into(),
            b"project_format = 1\ncontainer = \"crg\"\n[[behavior]]\nxar = \"../b.xar\"\nfolder = \"b\"\n"
                .to_vec(),
        );
        let e = from_readable("p", &files).unwrap_err();
        assert_eq!(e.0.kind, ErrorKind::UnsafePath, "{e}");
    }
}
