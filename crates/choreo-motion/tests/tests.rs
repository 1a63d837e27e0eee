//! The integration tests of `choreo-motion`, one binary: the crate and its dependencies are linked
//! once, not once per file. A module per file, after the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

mod support;

mod analytic;
mod payload;
mod qianim;
mod qianim_corpus;
