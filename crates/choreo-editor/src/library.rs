//! The boxes the page offers to add: the basic ones written here (`boxes/`), and those of
//! the box libraries the user points at (a Choregraphe library folder or `.cbl`, as
//! Choregraphe's box library panel takes them).
//!
//! A box is added as its element's text (`choreo_xar::edit::Edit::Add`), so a library's box
//! goes into the behavior as the library wrote it. Files beside a library's `box.xar`
//! (pictures, sounds) are not copied: the box's element is.

use std::path::{Path, PathBuf};

use choreo_xar::edit::{BoxRef, Document, Edit};
use serde_json::{Value, json};

use crate::changes::Operation;

/// The basic Python Script box (a new box library's box too).
pub(crate) const PYTHON_SCRIPT: &str = include_str!("../boxes/python-script.xml");

/// The basic boxes: (file, text). Our own, in the shape Choregraphe writes boxes.
const BASIC: &[(&str, &str)] = &[
    ("python-script", PYTHON_SCRIPT),
    ("say", include_str!("../boxes/say.xml")),
    ("wait", include_str!("../boxes/wait.xml")),
    ("timeline", include_str!("../boxes/timeline.xml")),
    ("diagram", include_str!("../boxes/diagram.xml")),
    ("dialog", include_str!("../boxes/dialog.xml")),
];

/// The basic Dialog box's key, and the `.dlg` its text names: adding it makes a dialog of
/// its own ([`new_dialog`]).
pub(crate) const DIALOG: (&str, &str) = ("basic/dialog", "dialog/dialog.dlg");

/// The files of a new dialog in `folder` (the behavior's): `NAME/NAME.dlg` naming
/// `NAME/NAME_enu.top`, NAME the first of `dialog`, `dialog_2`, ... not taken, as
/// Choregraphe's new Dialog box makes its topic: NAME, and the operations that make them.
pub(crate) fn new_dialog(folder: &Path) -> Result<(String, Vec<Operation>), String> {
    let name = (1..10_000)
        .map(|i| {
            if i == 1 {
                "dialog".to_string()
            } else {
                format!("dialog_{i}")
            }
        })
        .find(|n| !folder.join(n).exists())
        .ok_or("no free dialog name")?;
    let dir = folder.join(&name);
    let file = |path: PathBuf, text: String| Operation::File {
        path,
        before: None,
        after: Some(text.into_bytes()),
    };
    let ops = vec![
        Operation::Folder {
            path: dir.clone(),
            made: true,
        },
        file(
            dir.join(format!("{name}.dlg")),
            format!("multilanguage:{name}\n  enu:{name}_enu.top\n"),
        ),
        file(
            dir.join(format!("{name}_enu.top")),
            format!("topic: ~{name}()\nlanguage: enu\n\n"),
        ),
    ];
    Ok((name, ops))
}

/// One box the page may add.
#[derive(Debug, Clone)]
pub struct LibraryBox {
    /// How the page names it when it adds it (`basic/say`, `2:Flow Control/Wait/box.xar`).
    pub key: String,
    /// The box's name.
    pub name: String,
    /// Where it comes from, as the palette groups it (`basic`, a library's folder).
    pub group: String,
    /// What the box does, in its author's words.
    pub tooltip: String,
    /// Its editor icon's path (`media/images/box/wait.png`): the palette draws its glyph.
    pub bitmap: Option<String>,
    /// Its element's text.
    pub text: String,
}

/// Why a box library could not be read.
#[derive(Debug, thiserror::Error)]
#[error("box library {path}: {why}")]
pub struct LibraryError {
    /// The library.
    pub path: String,
    /// Why.
    pub why: String,
}

/// The boxes the page offers.
#[derive(Debug, Clone)]
pub struct Library {
    boxes: Vec<LibraryBox>,
    /// How many libraries were added (their keys' prefix).
    sources: usize,
}

impl Library {
    /// The basic boxes.
    pub fn basic() -> Library {
        let boxes = BASIC
            .iter()
            .filter_map(|(file, text)| entry(format!("basic/{file}"), "basic", text))
            .collect();
        Library { boxes, sources: 0 }
    }

    /// Adds the boxes of the library at `path` (a folder of box folders, or a `.cbl`);
    /// how many.
    pub fn add(&mut self, path: &Path) -> Result<usize, LibraryError> {
        let error = |why: String| LibraryError {
            path: path.display().to_string(),
            why,
        };
        let project = choreo_xar::source::load_path(path).map_err(|e| error(e.to_string()))?;
        self.sources += 1;
        let before = self.boxes.len();
        for b in &project.behaviors {
            let Some(bytes) = project.files.get(&b.path) else {
                continue;
            };
            let folder = b.path.rsplit_once('/').map_or("", |(f, _)| f);
            let group = match folder.rsplit_once('/') {
                Some((parent, _)) => format!("{}/{parent}", project.name),
                None => project.name.clone(),
            };
            // A library's box.xar names its box `root`; Choregraphe adds it under the name
            // the library shows (its folder's), as the palette does.
            let text = Document::open(&b.path, bytes).and_then(|mut d| {
                let root = BoxRef::default();
                if d.box_def(&root)?.name != b.name {
                    d.apply(&Edit::Rename {
                        at: root.clone(),
                        name: b.name.clone(),
                    })?;
                }
                d.box_text(&root)
            });
            if let Ok(text) = text
                && let Some(mut e) = entry(format!("{}:{}", self.sources, b.path), &group, &text)
            {
                e.name.clone_from(&b.name);
                self.boxes.push(e);
            }
        }
        if self.boxes.len() == before {
            return Err(error("no box could be read there".to_string()));
        }
        Ok(self.boxes.len() - before)
    }

    /// The box the page names `key`.
    pub fn get(&self, key: &str) -> Option<&LibraryBox> {
        self.boxes.iter().find(|b| b.key == key)
    }

    /// The `library` message: every box, without its text (the page adds by key).
    pub fn message(&self) -> Value {
        json!({
            "type": "library",
            "boxes": self.boxes.iter().map(|b| json!({
                "key": b.key, "name": b.name, "group": b.group, "tooltip": b.tooltip,
                "bitmap": b.bitmap,
            })).collect::<Vec<_>>(),
        })
    }
}

/// A box of the palette from its element's text (read to know its name and tooltip).
fn entry(key: String, group: &str, text: &str) -> Option<LibraryBox> {
    // Read as the box.xar of a library holding it would be.
    let file = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<ChoregrapheBox xar_version=\"3\">\n{text}\n</ChoregrapheBox>\n"
    );
    let root = choreo_xar::read_xar(&key, file.as_bytes())
        .ok()?
        .value
        .root_box;
    Some(LibraryBox {
        key,
        name: root.name,
        group: group.to_string(),
        tooltip: root.tooltip.unwrap_or_default(),
        bitmap: root.bitmaps.first().cloned(),
        text: text.to_string(),
    })
}
