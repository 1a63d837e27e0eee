//! The integration tests of `choreo-motion`, one binary: the crate and its dependencies are linked
//! once, not once per file. A module per file; the helpers they share come first.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

mod common;

mod analytic;
mod payload;
mod qianim;
mod qianim_corpus;
