//! The readable split format: a behavior as a folder tree for people and for git.
//!
//! Each box is a folder holding `box.toml` (name, id, position, ports, parameters,
//! resources, timeline), its code as `script.py`, its editor state as `plugin.xml`, the links
//! of its flow diagram as `links.txt` (one line per link) and its motion curves as
//! `motion.txt` (one line per key). Child boxes are subfolders named `<id>-<name>`.
//! `behavior.toml` at the top marks the tree and holds what belongs to the file itself.
//!
//! [`to_tree`] and [`from_tree`] are exact inverses for every model that [`crate::read_xar`]
//! accepts: nothing in [`crate::Extras`] is lost, absent attributes stay absent, and the
//! code is kept byte for byte. The layout and every key are described in
//! `docs/split-format.md`.

mod read;
mod repr;
mod text;
mod write;

pub use read::from_tree;
pub use write::to_tree;

use crate::FileTree;

/// The marker file at the top of a split tree.
pub const MARKER_FILE: &str = "behavior.toml";

/// The version of the split format this library writes and reads (`split_format` key).
pub const FORMAT_VERSION: i64 = 1;

/// The metadata file of every box folder.
const BOX_FILE: &str = "box.toml";
/// A box's code.
const SCRIPT_FILE: &str = "script.py";
/// A box's `pluginContent` element, verbatim.
const PLUGIN_FILE: &str = "plugin.xml";
/// The links of a diagram.
const LINKS_FILE: &str = "links.txt";
/// The actuator curves of a timeline.
const MOTION_FILE: &str = "motion.txt";

/// The names of the files this format writes (a folder of that name would clash with them).
const RESERVED: &[&str] = &[
    MARKER_FILE,
    BOX_FILE,
    SCRIPT_FILE,
    PLUGIN_FILE,
    LINKS_FILE,
    MOTION_FILE,
];

/// Whether this format writes files named `name` (`box.toml`, `script.py`, ...).
pub fn writes_file_named(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// Whether `files` is a split tree: it has a `behavior.toml` at its top with a
/// `split_format` version number.
pub fn is_split_tree(files: &FileTree) -> bool {
    files
        .get(MARKER_FILE)
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .and_then(|text| text.parse::<toml::Table>().ok())
        .is_some_and(|table| {
            table
                .get("split_format")
                .is_some_and(toml::Value::is_integer)
        })
}

/// `folder/file`, or `file` at the top of the tree.
fn join(folder: &str, file: &str) -> String {
    if folder.is_empty() {
        file.to_string()
    } else {
        format!("{folder}/{file}")
    }
}
