//! The integration tests of `choreo-naoqi`, one binary: the crate and its dependencies are linked
//! once, not once per file. A module per file, after the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

mod support;

mod animation;
mod behaviors;
mod body;
mod corpus_served;
mod dialog_api;
mod documented;
mod modules;
mod perception;
mod scenario;
mod sensing;
mod services;
mod system;
mod tasks;
