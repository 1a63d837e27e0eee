//! choreo-python: runs Choregraphe box scripts in an embedded CPython.
//!
//! - [`fixer`]: rewrites the Python-2 constructs real scripts use, keeping line numbers.

pub mod fixer;
