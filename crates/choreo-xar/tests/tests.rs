//! The integration tests of `choreo-xar`, one binary: the crate and its dependencies are linked
//! once, not once per file. A module per file, after the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

mod archive_build;
mod support;

mod archive_corpus;
mod archive_malformed;
mod edit_corpus;
mod package_corpus;
mod package_text;
mod project_corpus;
mod source_disk;
mod source_load;
mod split_corpus;
mod split_format;
mod split_proptest;
mod xar_corpus;
mod xar_elements;
mod xar_malformed;
mod xar_proptest;
