//! The integration tests of `choreo`, one binary: the crate and its dependencies are linked
//! once, not once per file. A module per file, after the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's unwrap is its assertion

mod support;

mod api;
mod box_environment;
mod box_host;
mod browser;
mod browser_robot;
mod chat;
mod cli;
mod cli_robust;
mod corpus_repeat;
mod corpus_run;
mod dialog_boxes;
mod editor;
mod explore;
mod fleet;
mod hostile;
mod lsp;
mod made_elsewhere;
mod monitor;
mod motion;
mod nested;
mod plot;
mod projects;
mod reproducible;
mod robot_install;
mod robot_qi;
mod run;
mod run_report;
mod same_trace;
mod soak;
mod stack_cli;
mod stock_boxes;
mod windows;
