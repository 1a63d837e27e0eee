//! The layout of a split tree: the marker file and its version, the file names every box
//! folder may hold, and how paths in the tree are joined.

use crate::FileTree;

/// The marker file at the top of a split tree.
pub const MARKER_FILE: &str = "behavior.toml";

/// The version of the split format this library writes and reads (`split_format` key).
pub const FORMAT_VERSION: i64 = 1;

/// The metadata file of every box folder.
pub(super) const BOX_FILE: &str = "box.toml";
/// A box's code.
pub(super) const SCRIPT_FILE: &str = "script.py";
/// A box's `pluginContent` element, verbatim.
pub(super) const PLUGIN_FILE: &str = "plugin.xml";
/// The links of a diagram.
pub(super) const LINKS_FILE: &str = "links.txt";
/// The actuator curves of a timeline.
pub(super) const MOTION_FILE: &str = "motion.txt";

/// The names of the files this format writes (a folder of that name would clash with them).
pub(super) const RESERVED: &[&str] = &[
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
pub(super) fn join(folder: &str, file: &str) -> String {
    if folder.is_empty() {
        file.to_string()
    } else {
        format!("{folder}/{file}")
    }
}
