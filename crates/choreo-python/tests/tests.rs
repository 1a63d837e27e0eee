//! The integration tests of `choreo-python`, one binary: the crate and its dependencies are linked
//! once, not once per file. A module per file, after the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

mod support;

mod box_environment;
mod clock;
mod conformance_python;
mod fixer;
mod generated_class;
mod proxy;
mod python2;
mod stack_behaviors;
mod uncaught;
