//! A project's behaviors added, renamed and deleted, as Choregraphe's Project files panel
//! does (docs/editor.md, Projects), each one action of [`Changes`].
//!
//! A behavior is a folder of the project holding its `.xar`, named in the `.pml` by a
//! `BehaviorDescription` (`src`: the folder) and, when it is exposed by the application, in
//! `manifest.xml` by a `behaviorContent` (`path`: the same folder; the 2.8 pages "Behavior"
//! and "Project files panel"). The folder is the name the robot knows the behavior by
//! (`package-id/folder`), so it is what renaming changes: the folder is moved, and every
//! path of the `.pml` and the manifest into it follows. The `.pml` and the manifest are
//! changed in place (their own bytes but the attributes and elements concerned), as the
//! behaviors' files are. A new behavior is private (not in the manifest) and empty, as
//! Choregraphe makes one.

use std::path::{Path, PathBuf};

use choreo_xar::project_files::{XmlDocument, XmlElement, read_pml};

use crate::changes::{Changes, Operation, remove_folder};

/// A new behavior's file: Choregraphe's empty root box.
pub(crate) const NEW_BEHAVIOR: &str = include_str!("../boxes/behavior.xar");

/// A project open in the editor: its `.pml`.
#[derive(Debug, Clone)]
pub struct Project {
    pml: PathBuf,
}

/// A behavior of the project.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Behavior {
    /// Its folder, as the `.pml` names it (`behavior_1`).
    pub(crate) folder: String,
    /// Its XAR file.
    pub(crate) file: PathBuf,
}

/// A project action in the editor's history: its file changes, the behavior file it moved
/// (from, to), the behavior to show once made and once undone (`None`: the one shown, or
/// the project's first when that one is gone), and the behavior whose edit made after the
/// changes is part of the action (a Dialog box added with its dialog's files).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Action {
    pub(crate) changes: Changes,
    pub(crate) moved: Option<(PathBuf, PathBuf)>,
    pub(crate) shown: [Option<PathBuf>; 2],
    pub(crate) edit: Option<PathBuf>,
}

impl Action {
    pub(crate) fn new(
        changes: Changes,
        moved: Option<(PathBuf, PathBuf)>,
        shown: [Option<PathBuf>; 2],
    ) -> Action {
        Action {
            changes,
            moved,
            shown,
            edit: None,
        }
    }

    /// The action with the last edit of the behavior `file`, made after its changes.
    pub(crate) fn with_edit(mut self, file: PathBuf) -> Action {
        self.edit = Some(file);
        self
    }
}

/// Why a project cannot be opened for its behaviors to be changed.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// The `.pml` cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a project file choreo reads: why.
    #[error("{0}")]
    Invalid(String),
}

/// A text file changed: its bytes before and after.
type Rewrite = (PathBuf, Vec<u8>, String);

impl Project {
    /// The project of `pml` (read to check that it is one).
    pub fn open(pml: &Path) -> Result<Project, ProjectError> {
        let bytes = std::fs::read(pml).map_err(|source| ProjectError::Read {
            path: pml.to_path_buf(),
            source,
        })?;
        read_pml(&pml.display().to_string(), &bytes)
            .map_err(|e| ProjectError::Invalid(e.to_string()))?;
        Ok(Project {
            pml: pml.to_path_buf(),
        })
    }

    /// The project's folder.
    pub fn root(&self) -> &Path {
        self.pml.parent().unwrap_or(Path::new("."))
    }

    fn read(&self) -> Result<(String, choreo_xar::project_files::Pml), String> {
        let bytes = std::fs::read(&self.pml).map_err(|e| format!("{}: {e}", self.pml.display()))?;
        let pml = read_pml(&self.pml.display().to_string(), &bytes)
            .map_err(|e| e.to_string())?
            .value;
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", self.pml.display()))?;
        Ok((text, pml))
    }

    /// The behaviors, as the `.pml` on disk names them now.
    pub(crate) fn behaviors(&self) -> Result<Vec<Behavior>, String> {
        let (_, pml) = self.read()?;
        Ok(pml
            .behaviors
            .iter()
            .map(|b| Behavior {
                folder: b.src.clone(),
                file: self.root().join(b.xar_path()),
            })
            .collect())
    }

    /// A new empty behavior in the first free folder of `behavior_1`, `behavior_2`, ...: the
    /// action, and its file.
    pub(crate) fn add_behavior(&self) -> Result<(Changes, PathBuf), String> {
        let (text, pml) = self.read()?;
        let folder = (1..10_000)
            .map(|i| format!("behavior_{i}"))
            .find(|f| !self.root().join(f).exists() && pml.behaviors.iter().all(|b| &b.src != f))
            .ok_or("no free behavior folder")?;
        let element = format!(
            "<BehaviorDescription name=\"behavior\" src=\"{folder}\" xar=\"behavior.xar\" />"
        );
        let new_text = insert_into(&text, &pml.document, "BehaviorDescriptions", &element)?;
        let dir = self.root().join(&folder);
        let file = dir.join("behavior.xar");
        let ops = vec![
            Operation::Folder {
                path: dir,
                made: true,
            },
            Operation::File {
                path: file.clone(),
                before: None,
                after: Some(NEW_BEHAVIOR.as_bytes().to_vec()),
            },
            self.rewrite((self.pml.clone(), text.into_bytes(), new_text))?,
        ];
        Ok((Changes(ops), file))
    }

    /// The behavior whose file is `file` renamed `name` (its folder moved; the `.pml`'s and
    /// the manifest's paths into it follow): the action, and its file after.
    pub(crate) fn rename_behavior(
        &self,
        file: &Path,
        name: &str,
    ) -> Result<(Changes, PathBuf), String> {
        let valid = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.contains(['/', '\\', '<', '>', '&', '"', '\''])
            && !name.starts_with('.');
        if !valid {
            return Err(format!(
                "{name:?} is not a folder name (no slash, quote, < > &, leading dot)"
            ));
        }
        let (text, pml) = self.read()?;
        let old = self.behavior_of(file)?.folder;
        if matches!(old.trim_end_matches('/'), "" | ".") {
            return Err("the behavior is at the project's top: it has no folder to rename".into());
        }
        let new = match old.rsplit_once('/') {
            Some((parent, _)) => format!("{parent}/{name}"),
            None => name.to_string(),
        };
        if self.root().join(&new).exists() {
            return Err(format!("{new} is already in the project"));
        }
        let renamed = |value: &str| renamed_path(value, &old, &new);
        let mut ops = vec![Operation::Move {
            from: self.root().join(&old),
            to: self.root().join(&new),
        }];
        ops.push(self.rewrite((
            self.pml.clone(),
            text.clone().into_bytes(),
            set_attributes(&text, &pml.document.root, "src", &renamed),
        ))?);
        if let Some((path, before, doc)) = self.manifest(&pml)? {
            let after = set_attributes(&before, &doc.root, "path", &renamed);
            ops.push(self.rewrite((path, before.into_bytes(), after))?);
        }
        let after = self
            .root()
            .join(&new)
            .join(file.file_name().unwrap_or_default());
        Ok((Changes(ops), after))
    }

    /// The behavior whose file is `file` deleted: its description and manifest entry
    /// removed, then its folder with all it holds (kept for undo).
    pub(crate) fn delete_behavior(&self, file: &Path) -> Result<Changes, String> {
        let (text, pml) = self.read()?;
        let folder = self.behavior_of(file)?.folder;
        if matches!(folder.as_str(), "" | ".")
            || pml.behaviors.iter().filter(|b| b.src == folder).count() > 1
        {
            return Err(format!(
                "{folder}: the folder holds more than this behavior; delete its file by hand"
            ));
        }
        let is_it = |el: &XmlElement, key: &str| el.attribute(key) == Some(folder.as_str());
        let mut ops = vec![self.rewrite((
            self.pml.clone(),
            text.clone().into_bytes(),
            remove_elements(&text, &pml.document.root, "BehaviorDescription", &|e| {
                is_it(e, "src")
            }),
        ))?];
        if let Some((path, before, doc)) = self.manifest(&pml)? {
            let after =
                remove_elements(&before, &doc.root, "behaviorContent", &|e| is_it(e, "path"));
            ops.push(self.rewrite((path, before.into_bytes(), after))?);
        }
        ops.extend(remove_folder(&self.root().join(&folder))?);
        Ok(Changes(ops))
    }

    /// The operation that lists new files in the `.pml` as Choregraphe lists each
    /// (`entries`: the container, `Topics` or `Dialogs`, and the element; qipkg packages
    /// only what is listed); `None` when the `.pml` has none of those containers.
    pub(crate) fn list(&self, entries: &[(&str, String)]) -> Result<Option<Operation>, String> {
        let (before, _) = self.read()?;
        let mut text = before.clone();
        for (container, element) in entries {
            let doc = XmlDocument::parse(&self.pml.display().to_string(), text.as_bytes())
                .map_err(|e| e.to_string())?;
            if doc.root.element(container).is_some() {
                text = insert_into(&text, &doc, container, element)?;
            }
        }
        if text == before {
            return Ok(None);
        }
        self.rewrite((self.pml.clone(), before.into_bytes(), text))
            .map(Some)
    }

    fn behavior_of(&self, file: &Path) -> Result<Behavior, String> {
        self.behaviors()?
            .into_iter()
            .find(|b| b.file == file)
            .ok_or_else(|| format!("{}: not a behavior of the project", file.display()))
    }

    /// The manifest: its path, text and tree; `None` when the project has none.
    fn manifest(
        &self,
        pml: &choreo_xar::project_files::Pml,
    ) -> Result<Option<(PathBuf, String, XmlDocument)>, String> {
        let Some(src) = &pml.manifest else {
            return Ok(None);
        };
        let path = self.root().join(src);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let doc = XmlDocument::parse(&path.display().to_string(), text.as_bytes())
            .map_err(|e| e.to_string())?;
        Ok(Some((path, text, doc)))
    }

    /// The operation that rewrites a text file, once its new text reads as XML.
    fn rewrite(&self, (path, before, after): Rewrite) -> Result<Operation, String> {
        XmlDocument::parse(&path.display().to_string(), after.as_bytes())
            .map_err(|e| format!("the change would leave {} unreadable: {e}", path.display()))?;
        Ok(Operation::File {
            path,
            before: Some(before),
            after: Some(after.into_bytes()),
        })
    }
}

/// `value` with the folder `old` at its start replaced by `new`; `None` when it is not in it.
fn renamed_path(value: &str, old: &str, new: &str) -> Option<String> {
    if value == old {
        Some(new.to_string())
    } else {
        value
            .strip_prefix(old)
            .filter(|rest| rest.starts_with('/'))
            .map(|rest| format!("{new}{rest}"))
    }
}

/// Where the element starting at `start` ends: after its start tag, and after the element.
fn element_end(text: &str, start: usize, name: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut quote = None;
    let mut i = start;
    let tag_end = loop {
        let c = *bytes.get(i)?;
        match (quote, c) {
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, b'>') => break i + 1,
            _ => {}
        }
        i += 1;
    };
    if bytes.get(tag_end.checked_sub(2)?) == Some(&b'/') {
        return Some((tag_end, tag_end));
    }
    let close = format!("</{name}>");
    let end = text.get(tag_end..)?.find(&close)? + tag_end + close.len();
    Some((tag_end, end))
}

/// The offset of an element's start tag in `text` (the parser's is after a byte-order mark).
fn start_of(text: &str, el: &XmlElement) -> usize {
    el.offset() + if text.starts_with('\u{feff}') { 3 } else { 0 }
}

/// Elements of the tree under `root`, parents first (no recursion: trees come from files).
fn all_elements(root: &XmlElement) -> Vec<&XmlElement> {
    let mut out = vec![root];
    let mut i = 0;
    while let Some(el) = out.get(i).copied() {
        out.extend(el.elements());
        i += 1;
    }
    out
}

/// `text` with the attribute `key` of every element whose value `change` maps rewritten.
fn set_attributes(
    text: &str,
    root: &XmlElement,
    key: &str,
    change: &dyn Fn(&str) -> Option<String>,
) -> String {
    let mut splices = Vec::new();
    for el in all_elements(root) {
        let Some(new) = el.attribute(key).and_then(change) else {
            continue;
        };
        let start = start_of(text, el);
        let Some((tag_end, _)) = element_end(text, start, &el.name) else {
            continue;
        };
        let tag = &text[start..tag_end];
        for q in ['"', '\''] {
            let pattern = format!(" {key}={q}");
            if let Some(at) = tag.find(&pattern) {
                let from = start + at + pattern.len();
                if let Some(len) = text[from..tag_end].find(q) {
                    splices.push((from, from + len, escape(&new)));
                }
                break;
            }
        }
    }
    spliced(text, splices)
}

/// `text` without the elements named `name` that `chosen` picks (each with the blank space
/// before it on its line).
fn remove_elements(
    text: &str,
    root: &XmlElement,
    name: &str,
    chosen: &dyn Fn(&XmlElement) -> bool,
) -> String {
    let mut splices = Vec::new();
    for el in all_elements(root) {
        if el.local_name() != name || !chosen(el) {
            continue;
        }
        let start = start_of(text, el);
        let Some((_, end)) = element_end(text, start, &el.name) else {
            continue;
        };
        let blank = text[..start].len() - text[..start].trim_end_matches([' ', '\t']).len();
        let mut from = start - blank;
        if text[..from].ends_with('\n') {
            from -= 1;
            if text[..from].ends_with('\r') {
                from -= 1;
            }
        }
        splices.push((from, end, String::new()));
    }
    spliced(text, splices)
}

/// The new `element` after the last child of the root's `container` (on a line of its own,
/// as indented), or in an empty one.
fn insert_into(
    text: &str,
    doc: &XmlDocument,
    container: &str,
    element: &str,
) -> Result<String, String> {
    let list = doc
        .root
        .element(container)
        .ok_or_else(|| format!("the .pml has no {container}"))?;
    let unreadable = || format!("the .pml's {container} cannot be changed in place");
    if let Some(last) = list.elements().last() {
        let start = start_of(text, last);
        let (_, end) = element_end(text, start, &last.name).ok_or_else(unreadable)?;
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &text[line_start..start];
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let indent = if indent.trim().is_empty() { indent } else { "" };
        return Ok(spliced(
            text,
            vec![(end, end, format!("{newline}{indent}{element}"))],
        ));
    }
    let start = start_of(text, list);
    let (tag_end, end) = element_end(text, start, &list.name).ok_or_else(unreadable)?;
    let inner = if tag_end == end {
        format!("<{0}>{element}</{0}>", list.name)
    } else {
        format!("{}{element}</{}>", &text[start..tag_end], list.name)
    };
    Ok(spliced(text, vec![(start, end, inner)]))
}

/// `text` with each `(from, to, with)` made (ranges that do not overlap).
fn spliced(text: &str, mut splices: Vec<(usize, usize, String)>) -> String {
    splices.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (from, to, with) in splices {
        out.replace_range(from..to, &with);
    }
    out
}

/// `value` escaped for a double-quoted attribute.
pub(crate) fn escape(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A `.pml`'s `Topic` entry for the topic at `relative` (to the project's folder) of the
/// dialog `topic` in `language`.
pub(crate) fn topic_entry(
    relative: &Path,
    topic: &str,
    language: &choreo_robot::languages::Language,
) -> (&'static str, String) {
    let element = format!(
        "<Topic name=\"{}\" src=\"{}\" topicName=\"{}\" language=\"{}\" />",
        escape(&stem(relative)),
        escape(&slashed(relative)),
        escape(topic),
        language.locale
    );
    ("Topics", element)
}

/// A `.pml`'s `Dialog` entry for the `.dlg` at `relative` (to the project's folder).
pub(crate) fn dialog_entry(relative: &Path) -> (&'static str, String) {
    let element = format!(
        "<Dialog name=\"{}\" src=\"{}\" />",
        escape(&stem(relative)),
        escape(&slashed(relative))
    );
    ("Dialogs", element)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn slashed(path: &Path) -> String {
    path.display().to_string().replace('\\', "/")
}
