//! choreo-python: runs Choregraphe box scripts in an embedded CPython.
//!
//! - [`PythonHost`]: the [`choreo_engine::ScriptHost`] of Python boxes. Each script is passed
//!   through the [`fixer`] (skipped when a quick scan finds nothing to rewrite), compiled
//!   with the box path as file name (all of a behavior's scripts in one batch at load,
//!   before any runs: compiles interleaved with running cost ~20 % more; a text met again
//!   in a later load is compiled once more, then reused) and run in its own namespace; its `MyClass` is constructed at load (R1). Hooks run
//!   with the argument-count rule (P7); an exception returns its traceback (box path,
//!   original script line) as the hook's error, after `onError` (E1). A box with an empty
//!   script or no `MyClass` is a plain box whose hooks never enter Python.
//! - The box API (`src/python/generated.py` over the native `_choreo.BoxApi`):
//!   `GeneratedClass` with outputs as methods, parameters, logging (`self.logger`,
//!   `self.log`, `print`: all to the trace), identity and paths, `session()`, timelines and
//!   the deprecated timeline methods, `BIND_PYTHON`.
//! - Robot access (`src/python/naoqi.py`, `src/python/qi.py`): `ALProxy` in every form, the
//!   injected proxies, `session().service`, `.post` tasks, `_async=True` futures,
//!   `RuntimeError` for robot errors, ALMemory `subscriber` and `subscribeToEvent`, the
//!   ALFrameManager timeline functions (answered by the engine), and the `qi` shim
//!   (futures, `qi.async` / `qi.runAsync` / `qi.async_`, signals, properties, periodic
//!   tasks, logging).
//! - Time: in box code `time.sleep` sleeps on the engine's clock without the interpreter
//!   lock, so virtual time jumps over it; `time.time()` is the wall clock at the behavior's
//!   start plus behavior time, so that the many scripts that measure a wait with
//!   `time.time()` around `time.sleep` agree with it in virtual time (and read the real
//!   clock in real time); `time.clock()` is behavior time. Background work (`qi.async`
//!   timers, periodic tasks, ALMemory callbacks, threads started by scripts) runs as engine
//!   activity, and `Event.wait` / `Thread.join` in virtual time sleep on the engine's clock.
//! - Python 2 (`src/python/py2.py`): the builtins no rewrite can fix (`unicode`, `xrange`,
//!   `basestring`, `long`, ...) in every namespace, and the removed module names importable;
//!   `__py2div__` (`src/division.rs`), through which the fixer routes every `/` so that two
//!   ints divide as in Python 2.
//! - Generated scripts (`plugins.rs`): the stock Choice box keeps no code in the file
//!   (Choregraphe generated it at run time); `src/python/choice.py` stands in for it.
//! - The interpreter's standard library is that of the `libpython` the process runs,
//!   whatever `PATH`, `PYTHONHOME` or `PYTHONPATH` say ([`environment`],
//!   [`use_own_standard_library`]); a user's module folders come from `CHOREO_PYTHONPATH`.
//! - The box namespace (`src/python/generated.py`): the globals NAOqi's box scripts had
//!   (`from naoqi import *` and the imports of the generated prelude: `os`, `sys`, `time`,
//!   `random`, `logging`, `qi`, `ALProxy`, `ALBroker`, `ALModule`, ...); a name one box sets
//!   at module level is seen by the other boxes of the run.
//! - [`run_dialog_script`]: QiChat's `%script` blocks, run with their output captured.
//! - [`confinement`] and [`sandbox`]: what box code may reach, judged at its line by an
//!   audit hook and held by the kernel beneath; `project_code`: the project's code that is
//!   no box's (`%script`, a stack's Python behavior) confined the same way.
//! - [`fixer`]: rewrites the Python-2 constructs real scripts use, keeping line numbers;
//!   [`CompileCheck`]: box scripts compiled after it, without running them (`choreo check`);
//!   [`box_scripts`]: that, and what a script's text shows will fail when its line runs.
//!   `codegen` sends to CPython's code generator only the scripts it could refuse.
//! - [`stack`]: Python behaviors of the behavior stack; [`program`]: package services' Python-2
//!   programs, run in their own process on fixed copies of their sources; [`packages`]: where
//!   NAOqi OS's Python packages are kept; [`convert`]: values both ways (the Python package's
//!   API uses it too); `box_state`: a box and its run, below the box API, the runtime and the
//!   host; `thread`: the crate's one `unsafe` exception.

mod api;
pub mod box_scripts;
mod box_state;
mod codegen;
pub mod confinement;
pub mod convert;
mod dialog_script;
mod division;
pub mod environment;
pub mod fixer;
mod host;
mod installer;
mod mailbox;
mod methods;
pub mod packages;
mod plugins;
pub mod program;
mod project_code;
pub mod remote;
mod runtime;
pub mod sandbox;
pub mod side;
pub mod stack;
mod syntax;
mod thread;

pub use box_state::PythonOptions;
pub use dialog_script::{DialogScriptError, run_dialog_script};
pub use environment::{USER_PATH_VARIABLE, use_own_standard_library};
pub use host::PythonHost;
pub use installer::stop_installs;
pub use syntax::CompileCheck;
