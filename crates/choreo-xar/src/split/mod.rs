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

mod layout;
mod read;
mod repr;
mod text;
mod write;

pub use read::from_tree;
pub use write::to_tree;

pub use layout::{FORMAT_VERSION, MARKER_FILE, is_split_tree, writes_file_named};
