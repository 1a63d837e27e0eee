//! QiChat's `%script` blocks: Python a dialog runs in the middle of an answer, what it
//! prints said by the robot (the 2.8 syntax page: `u:(1 + 2) result is %script print 1+2
//! %script` answers "result is 3"). NAOqi ran them in its Python 2; here the fixer makes
//! them Python 3 first, and each runs in a fresh namespace.

use std::ffi::CString;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

use crate::confinement::Confinement;
use crate::project_code::confined_run;

/// The helper that runs a script with its output captured, made once per interpreter.
static RUN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

const HELPER: &str = "
import contextlib, io

def run_script(source):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, '<%script>', 'exec', dont_inherit=True), {'__name__': '__script__'})
    return out.getvalue()
";

fn helper(py: Python<'_>) -> PyResult<&Py<PyAny>> {
    RUN.get_or_try_init(py, || {
        let code = CString::new(HELPER)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let module = PyModule::from_code(
            py,
            &code,
            c"choreo_qichat_script.py",
            c"choreo_qichat_script",
        )?;
        Ok(module.getattr("run_script")?.unbind())
    })
}

/// A `%script` that raised.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("%script: {exception}")]
pub struct DialogScriptError {
    /// The exception, as Python prints it (`ValueError: no`).
    pub exception: String,
}

/// Runs `%script` source `code`: what it printed (trimmed), or the exception it raised.
/// Under a `confinement` (the project's code: docs/security.md), on a thread of its own,
/// confined and judged as box code.
pub fn run_dialog_script(
    code: &str,
    confinement: Option<&Arc<Confinement>>,
) -> Result<String, DialogScriptError> {
    let fixed = crate::fixer::fix(code);
    let run = || {
        Python::attach(|py| {
            let printed = helper(py)
                .and_then(|h| h.call1(py, (fixed.as_str(),)))
                .and_then(|v| v.extract::<String>(py))
                .map_err(|e| DialogScriptError {
                    exception: e.to_string(),
                })?;
            Ok(printed.trim().to_string())
        })
    };
    confined_run(confinement, run).unwrap_or_else(|e| {
        Err(DialogScriptError {
            exception: e.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_2_script_prints_what_the_robot_says() {
        // The 2.8 syntax page's %script example.
        assert_eq!(run_dialog_script("print 1+2\n", None).as_deref(), Ok("3"));
        let error = run_dialog_script("raise ValueError('no')\n", None);
        assert!(
            error
                .as_ref()
                .is_err_and(|e| e.to_string().contains("ValueError: no")),
            "{error:?}"
        );
    }
}
