//! The integration tests of `choreo-monitor`, one binary: the crate and its dependencies are linked
//! once, not once per file. A module per file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

mod assets;
mod places;
mod protocol;
