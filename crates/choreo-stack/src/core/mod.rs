//! The stack itself (behavior-stack.md §1–§9): behaviors and the hooks they get, actions and
//! conditions as traits, the runner and its state, the builder that freezes the tree, the
//! event trace and the checker that replays it against the contract.

pub mod action;
pub mod behavior;
pub mod builder;
pub mod check;
pub mod condition;
pub mod error;
pub mod input;
pub mod runner;
pub(crate) mod state;
pub mod trace;
pub(crate) mod types;
pub mod world;
