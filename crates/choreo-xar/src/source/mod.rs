//! Reading any source (file or folder, any format) into behaviors.
//!
//! - [`sniff`] tells what a file is from its content (the name only breaks ties).
//! - [`check_file`], [`check_tree`] and [`check_path`] read a file, an in-memory tree or a
//!   path and report what they hold, recursively for archives and folders, without stopping
//!   at the first problem.
//! - [`load_bytes`], [`load_tree`] and [`load_path`] turn a `.xar`, a project (folder, `.pml`,
//!   `.crg`, `.pkg`), a box library (folder, `.cbl`) or a split folder into a [`Project`]: the
//!   behaviors to inspect, convert, compare or run. [`load_path_to_run`] reads a behavior
//!   file in the project that lists it, as a run needs.
//!
//! Only [`read_dir_tree`], [`check_path`] and [`load_path`] (and their other forms) read the
//! disk, and [`Project::on_disk`] writes to it; everything else works on bytes and
//! [`FileTree`](crate::FileTree)s.
//!
//! [`load_path_with`] and [`check_path_with`] take a [`Reads`]: the XAR files read and the
//! archives unpacked, by name and content, so that loading many sources that hold the same
//! behaviors (a project's `.pml`, its `manifest.xml`, its `behavior.xar`, its `.crg`) reads
//! each once.
//!
//! One file per kind of source: `kind` (sniffing), `check` (reports), `file` (a file's
//! bytes), `folder` (an in-memory folder), `project_file` (`.pml` and `manifest.xml`),
//! `library` (box libraries), `path` (a path on disk) and `disk` (reading folders); `tree`
//! (paths inside a tree) and `reads` (files already read) serve them; `loaded` is what they
//! all give.

mod check;
mod disk;
mod file;
mod folder;
mod kind;
mod library;
mod loaded;
mod path;
mod project_file;
mod reads;
mod tree;

pub use check::{FileReport, check_file, check_file_with, check_path, check_path_with, check_tree};
pub use disk::read_dir_tree;
pub use file::load_bytes;
pub use folder::load_tree;
pub use kind::{FileKind, sniff};
pub(crate) use kind::{content_mismatch, kind_of_root};
pub use library::decode_folder_name;
pub use loaded::{Behavior, FilesOnDisk, Install, Project};
pub use path::{load_path, load_path_to_run, load_path_with};
pub use reads::Reads;
pub(crate) use tree::join_in_tree;
