//! Stacks written as data (behavior-stack.md §10.3): behaviors defined in JSON, and the
//! classes a definition may name, from which a runner is built.

pub mod classes;
pub mod definition;
