//! choreo-python: runs Choregraphe box scripts in an embedded CPython.
//!
//! - [`PythonHost`]: the [`choreo_engine::ScriptHost`] of Python boxes: each script in its
//!   own namespace, `GeneratedClass` and the box API, hooks with the argument-count rule,
//!   tracebacks naming the box and the script line, `onError`.
//! - Robot access from scripts: `ALProxy`, `session().service`, the injected proxies,
//!   `.post` tasks, ALMemory subscriptions, and the `naoqi` and `qi` shim modules
//!   (`src/python/`). Sleeps, timers, periodic tasks and threads of box code follow the
//!   engine's clock, so virtual time runs them without real waiting.
//! - [`fixer`]: rewrites the Python-2 constructs real scripts use, keeping line numbers.

mod api;
mod convert;
pub mod fixer;
mod host;
mod runtime;

pub use host::{PythonHost, PythonOptions};
