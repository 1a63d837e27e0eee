//! The box code side of the sandbox (docs/security.md): what box code may reach — files,
//! the network, other programs — judged where box code asks (CPython's audit hooks, so that
//! a refusal is an exception at the box's line, naming the flag that allows it); and what
//! box code does to its own process, told to the supervising parent (`choreo_sandbox::supervisor`) before it happens
//! — `os._exit` and a signal to its own process, with the box and line — and where a fatal
//! error dumps every thread's stack (Python's `faulthandler`), so that the parent can say
//! which box crashed the process.

use std::sync::OnceLock;

use pyo3::exceptions::PyPermissionError;
use pyo3::prelude::*;

/// The supervising parent, as box code's shims reach it.
struct Supervisor {
    /// Where `faulthandler` writes (a pipe the parent reads).
    fault_fd: i32,
    /// Hands a note to the parent.
    note: Box<dyn Fn(&str) + Send + Sync>,
}

static SUPERVISOR: OnceLock<Supervisor> = OnceLock::new();

/// Says that this process has a supervising parent: `fault_fd` takes a fatal error's dump,
/// `note` tells the parent what box code is about to do to the process. Called once, before
/// the interpreter is set up (later calls change nothing).
pub fn supervised_by(fault_fd: i32, note: impl Fn(&str) + Send + Sync + 'static) {
    let _ = SUPERVISOR.set(Supervisor {
        fault_fd,
        note: Box::new(note),
    });
}

/// Turns `faulthandler` on towards the parent's pipe, when there is a parent (the runtime's
/// set-up).
pub(crate) fn enable_fault_dump(py: Python<'_>) -> PyResult<()> {
    if let Some(s) = SUPERVISOR.get() {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("file", s.fault_fd)?;
        kwargs.set_item("all_threads", true)?;
        py.import("faulthandler")?
            .getattr("enable")?
            .call((), Some(&kwargs))?;
    }
    Ok(())
}

/// `_choreo.ends_process(what, at)`: code run here is about to end its own process
/// (`os._exit(0)`, `os.abort()`, a signal to its own process; `at`: its line). With a
/// supervising parent, tells it, so that its report says where. Without one the process is
/// the user's own program (the Python package's runs): code judged here may not end it, and
/// gets `PermissionError` at its line, noted in the report. Unjudged code ends it.
#[pyfunction]
pub(crate) fn ends_process(what: &str, at: &str) -> PyResult<()> {
    let Some(confinement) = judging() else {
        return Ok(());
    };
    if let Some(s) = SUPERVISOR.get() {
        (s.note)(&format!("{at}: {what}"));
        return Ok(());
    }
    confinement.note_refusal(format!(
        "end of the process: {what} ({at}; no supervising parent)"
    ));
    Err(PyPermissionError::new_err((
        1,
        format!(
            "choreo's sandbox refused {what}: it would end the program that runs the \
             behavior, which has no supervising parent (--no-sandbox, or sandbox=False \
             from Python, allows it)"
        ),
    )))
}

/// `_choreo.python_folders(folders)`: Python's own folders box code reads (the shim gives
/// `sys.prefix`, `sys.base_prefix`, `sys.exec_prefix` and `sys.path`'s folders at set-up).
#[pyfunction]
pub(crate) fn python_folders(folders: Vec<String>) {
    crate::confinement::set_python_folders(&folders);
}

/// `_choreo.may_reach(path)`: whether the code on this thread may read or write the
/// machine's `path` as it is (unjudged code may): `paths.py` leaves such a path under the
/// robot's `/tmp` the machine's (a project, a Python, a folder `--allow-read` gives).
#[pyfunction]
pub(crate) fn may_reach(path: &str) -> bool {
    judging().is_none_or(|c| c.check("read", path).is_none() || c.check("write", path).is_none())
}

/// `_choreo.confined(kind, target, where)`: raises `PermissionError` when the confinement
/// of the code on this thread (its box's run's, or its own: [`judging`]) refuses `kind` (`read`, `write`, `connect`, `run`) of `target` (a path, `host:port`,
/// a program), and notes the refusal for the report; outside box code, or in a run without
/// confinement, does nothing.
#[pyfunction]
pub(crate) fn confined(kind: &str, target: &str, at: &str) -> PyResult<()> {
    let Some(confinement) = judging() else {
        return Ok(());
    };
    let Some(flag) = confinement.check(kind, target) else {
        return Ok(());
    };
    let what = match kind {
        "read" => "reading",
        "write" => "writing",
        "connect" => "connecting to",
        "resolve" => "looking up",
        "socket" => "making",
        _ => "starting",
    };
    confinement.note_refusal(format!("{kind} {target} ({at}; {flag})"));
    let errno = if kind == "run" { 1 } else { 13 };
    Err(PyPermissionError::new_err((
        errno,
        format!("choreo's sandbox refused {what} {target} ({flag} allows it)"),
    )))
}

/// `_choreo.is_confined()`: whether the code on this thread is judged (box code, or
/// project code run confined).
#[pyfunction]
pub(crate) fn is_confined() -> bool {
    judging().is_some()
}

/// The confinement that judges the code running on this thread: its box's run's, or that
/// of the project code it runs (`crate::project_code`); `None`: unjudged.
fn judging() -> Option<std::sync::Arc<crate::confinement::Confinement>> {
    crate::box_state::current_state()
        .and_then(|s| s.run.options.confinement.clone())
        .or_else(crate::confinement::judging_here)
}
